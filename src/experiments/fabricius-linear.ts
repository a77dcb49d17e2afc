/**
 * `occam reproduce fabricius-linear`: the thesis's linear toy problem (Fabricius, seed 004, §6.2.4,
 * Table 6.1, Figures 6.2–6.9). Ten inputs x ~ N(0, I), y = x₁ + x₂ + x₃ + ε, ε ~ N(0, σ²) with
 * σ = 0.1 (the text's "0.01" is the variance: Table 6.1 and Figure 6.5 use σ_true = 0.1, see
 * SEEDS.md), 20 training and 200 test cases, 100 repetitions. Three selections of the inputs:
 *
 * 1. Maximum likelihood (§6.2.1, Table 6.1, Figures 6.2–6.3) over the nested models "the first k
 *    inputs", k = 1 … 10, by pure, regularised, penalised and penalised-regularised ML (plus BIC and
 *    FPE). As the thesis does, a criterion is averaged over the repetitions for every (k, ρ) and the
 *    maximum of the averaged surface is *the* selection of the table; the metrics are then averaged
 *    over the repetitions at that fixed (k, ρ). Beside them: how often each data set's own maximum
 *    picks the true model among the nested ones and among all 1023 subsets.
 * 2. Exact Bayes with the Normal–Gamma prior τ_w = ρτ (§6.2.2, Figures 6.4–6.5): w | τ ~ N(0, (ρτ)⁻¹I),
 *    τ ~ Gamma(α, scale β), i.e. the NIG prior with v = 1/ρ, a = α, b = 1/β, over a grid of ρ and two
 *    priors on τ; the evidence of every subset, the winner and its posterior probability (uniform
 *    prior over subsets), and the test log predictive of the nested models and of the model average.
 * 3. Path sampling with the independent-precision Gibbs sampler (§6.2.3, Figures 6.6–6.7): the nine
 *    nested models with 1–9 inputs on one data set, α = 1/2, β = 1/200, α_w = 1/4, β_w = 1/1600,
 *    1000 temperatures from p(θ) = (1 − k)θ^−k, k = 0.9 (eq. 5.31 corrected), three Gibbs sweeps per
 *    temperature keeping the third. The thesis ran it on a single data set ("the model was not run
 *    a 100 times", §6.2.4) and only for the nine nested models, not 1023 subsets; so does this.
 */
import { numericDesign } from "../data/design.js";
import { studentTLogNormaliser } from "../distributions/student-t.js";
import { invalidArgument } from "../errors.js";
import { pathSampling } from "../evidence/path-sampling.js";
import { steppingStone } from "../evidence/stepping-stone.js";
import { LOG_2PI } from "../math/constants.js";
import { logSumExp } from "../math/logspace.js";
import { centredStatistics } from "../models/linear/design.js";
import { independentPrecisionRegression } from "../models/linear/independent.js";
import {
  type IndependentPrior,
  independentPrecisionQuadrature,
} from "../models/linear/independent-quadrature.js";
import {
  defaultRhoGrid,
  fitLinearMl,
  type LinearMlFit,
  type MlCriterion,
  maskMembers,
  nestedMasks,
  scoreMlSubsets,
  selectMl,
} from "../models/linear/maximum-likelihood.js";
import { nigFamily } from "../models/linear/nig-subsets.js";
import { createRng, type Rng } from "../random/rng.js";

export type { IndependentPrior };

/** A row of the thesis's Table 6.1. */
export interface ThesisTableRow {
  /** ρ_ML (the regularisation chosen). */
  readonly rho: number;
  readonly inputs: number;
  readonly logLikelihood: number;
  readonly penalisedLogLikelihood: number;
  readonly trainVariance: number;
  readonly testVariance: number;
  readonly logPredictive: number;
}

/**
 * Table 6.1 of the thesis (Fabricius, seed 004, §6.2.4): 100 experiments, 20 training and 200 test
 * cases; ρ_ML in the table's header is in units of 10⁻⁴.
 */
export const THESIS_TABLE_6_1: Readonly<Record<string, ThesisTableRow>> = Object.freeze({
  ML: {
    rho: 0,
    inputs: 10,
    logLikelihood: 23.7301,
    penalisedLogLikelihood: 12.7301,
    trainVariance: 0.0098,
    testVariance: 0.0219,
    logPredictive: 0.2764,
  },
  "Reg. ML": {
    rho: 1.92e-4,
    inputs: 10,
    logLikelihood: 24.4891,
    penalisedLogLikelihood: 13.4891,
    trainVariance: 0.0092,
    testVariance: 0.0191,
    logPredictive: 0.3873,
  },
  "Pen. ML": {
    rho: 0,
    inputs: 3,
    logLikelihood: 19.8886,
    penalisedLogLikelihood: 15.8886,
    trainVariance: 0.0098,
    testVariance: 0.0118,
    logPredictive: 0.7917,
  },
  "P., r. ML": {
    rho: 1.92e-4,
    inputs: 3,
    logLikelihood: 20.7219,
    penalisedLogLikelihood: 16.7219,
    trainVariance: 0.009,
    testVariance: 0.0118,
    logPredictive: 0.7808,
  },
  Truth: {
    rho: 0,
    inputs: 3,
    logLikelihood: 17.672,
    penalisedLogLikelihood: 14.672,
    trainVariance: 0.01,
    testVariance: 0.01,
    logPredictive: 0.8836,
  },
});

/** A Gamma prior on the noise precision τ of the exact-Bayes part (β a scale, as the thesis's §6.2). */
export interface NoisePrior {
  readonly name: string;
  readonly alpha: number;
  readonly beta: number;
}

/**
 * The two priors of Figures 6.4–6.5. The thesis shows them only in the figures' panels c and d; the
 * text says one is "very vague approaching the non informative Jeffrey prior" and the other "more
 * constrained … we do not expect that large or low noise levels". These values are occam's choice:
 * α = 10⁻³, β = 10³ (mean precision 1, nearly 1/τ), and α = 5, β = 20 (mean precision 100 = 1/σ_true²,
 * coefficient of variation 45 %).
 */
export const NOISE_PRIORS: readonly NoisePrior[] = Object.freeze([
  { name: "vague", alpha: 1e-3, beta: 1e3 },
  { name: "constrained", alpha: 5, beta: 20 },
]);

/** Options of {@link runFabriciusLinearExperiment}. */
export interface FabriciusLinearOptions {
  /** @defaultValue 1 */
  seed?: number;
  /** Fewer repetitions, ρ values and temperatures (well under a minute). @defaultValue false */
  quick?: boolean;
  /** Number of data sets. @defaultValue 100 (quick: 20) */
  repetitions?: number;
  /** Training cases. @defaultValue 20 */
  nTrain?: number;
  /** Test cases. @defaultValue 200 */
  nTest?: number;
  /** Candidate inputs. @defaultValue 10 */
  inputs?: number;
  /** The first `relevant` inputs have weight 1, the others 0. @defaultValue 3 */
  relevant?: number;
  /** Noise standard deviation σ. @defaultValue 0.1 */
  noiseSd?: number;
  /** ρ grid of the regularised ML criteria. @defaultValue {@link defaultRhoGrid} */
  mlRhoGrid?: ArrayLike<number>;
  /** ρ grid of the exact-Bayes evidence (τ_w = ρτ). @defaultValue 10⁻⁶ … 10² by decades (quick: 10⁻⁴, 10⁻², 1) */
  nigRhoGrid?: ArrayLike<number>;
  /** Priors on τ of the exact-Bayes part. @defaultValue {@link NOISE_PRIORS} */
  noisePriors?: readonly NoisePrior[];
  /** Run the path-sampling part. @defaultValue true */
  pathSampling?: boolean;
  /** Random temperatures of path sampling. @defaultValue 1000 (quick: 200) */
  temperatures?: number;
  /** Path sampling for the nested models with 1 … pathModels inputs. @defaultValue 9 (as the thesis) */
  pathModels?: number;
  /** Called with what comes next. */
  onProgress?: (step: string) => void;
}

/** One selection method: the thesis-style row and the per-data-set selection rates. */
export interface MlTableRow {
  /** "ML", "Reg. ML", "Pen. ML", "P., r. ML", "BIC", "FPE" or "Truth". */
  readonly method: string;
  readonly criterion: MlCriterion | "truth";
  /** ρ chosen from the averaged surface. */
  readonly rho: number;
  /** Inputs k chosen from the averaged surface (nested models). */
  readonly inputs: number;
  /** Mean ℓ (unbiased τ̂; for the truth, the log density at the true parameters). */
  readonly logLikelihood: number;
  /** Mean ℓ − (k + 1) (truth: minus 3, as the thesis). */
  readonly penalisedLogLikelihood: number;
  /** Mean RSS/(N − γ_eff) (truth: mean squared true residual). */
  readonly trainVariance: number;
  /** Mean squared test error. */
  readonly testVariance: number;
  /** Mean test log predictive density (plug-in Gaussian with variance RSS/(N − γ_eff)). */
  readonly logPredictive: number;
  /** Each data set selecting for itself; null for the truth. */
  readonly perDataSet: {
    /** Fraction of data sets whose own maximum among the nested models is the true model. */
    readonly rightNested: number;
    /** Mean number of inputs selected among the nested models. */
    readonly meanInputs: number;
    /** Counts of the number of inputs selected (index k = 0 … p). */
    readonly inputsHistogram: readonly number[];
    /** Fraction whose maximum over all 2^p subsets is exactly the true subset. */
    readonly rightAllSubsets: number;
    /** Mean test variance and log predictive of each data set's own nested choice. */
    readonly testVariance: number;
    readonly logPredictive: number;
  } | null;
  /** The thesis's row, when it has one. */
  readonly thesis: ThesisTableRow | null;
}

/** Means over the repetitions of the nested ML models at ρ = 0 (Figures 6.2–6.3). */
export interface MlCurves {
  /** k = 1 … p. */
  readonly inputs: readonly number[];
  readonly logLikelihood: readonly number[];
  readonly penalisedLogLikelihood: readonly number[];
  readonly trainVariance: readonly number[];
  readonly testVariance: readonly number[];
  readonly logPredictive: readonly number[];
  /** Mean ℓ(k, ρ) over the ρ grid: `logLikelihoodByRho[k − 1][r]` (Figure 6.2a). */
  readonly rhoGrid: readonly number[];
  readonly logLikelihoodByRho: readonly (readonly number[])[];
}

/** The exact-Bayes results at one (prior, ρ). */
export interface NigResult {
  readonly prior: string;
  readonly rho: number;
  /** Mean log evidence of the nested models k = 1 … p (Figure 6.4). */
  readonly meanLogEvidence: readonly number[];
  /** Mean test log predictive density of the nested models (Figure 6.5). */
  readonly meanLogPredictive: readonly number[];
  /** Fraction of data sets whose highest-evidence nested model is the true one. */
  readonly rightNested: number;
  /** Fraction whose highest-evidence subset of all 2^p is the true one. */
  readonly rightAllSubsets: number;
  /** Mean posterior probability (uniform prior over all 2^p subsets) of the winner and of the truth. */
  readonly meanWinnerProbability: number;
  readonly meanTrueProbability: number;
  /** Mean number of inputs of the winning subset. */
  readonly meanWinnerInputs: number;
  /** Mean test log predictive density of the model average over all subsets. */
  readonly averageLogPredictive: number;
  /** Mean test log predictive density of the winning subset. */
  readonly winnerLogPredictive: number;
}

/**
 * Two readings of the thesis's α = 1/2, β = 1/200, α_w = 1/4, β_w = 1/1600 (Figure 6.6). Read as
 * Gamma *scales*, as the thesis's formulas (6.26, 6.47) and SEEDS.md say, the noise precision has
 * prior mean αβ = 1/400 and density ∝ e^(−200τ), about e^(−20000) at the true τ = 100: every model
 * then explains the data as noise, and the exact evidence falls with every input (the one-input
 * model wins). Read as *rates* (scales 200 and 1600), the prior mean of τ is 100 = 1/σ_true², the
 * three-input model wins and E_θ[log L] has the phase transition of Figures 6.7–6.8; that is the
 * reading under which the thesis's Figure 6.6 can be reproduced, and the defaults of
 * `independentPrecisionRegression`. Both are run, the rate reading first.
 */
export const PRIOR_READINGS: readonly { reading: "scale" | "rate"; prior: IndependentPrior }[] =
  Object.freeze([
    { reading: "rate", prior: { alpha: 1 / 2, beta: 200, alphaW: 1 / 4, betaW: 1600 } },
    { reading: "scale", prior: { alpha: 1 / 2, beta: 1 / 200, alphaW: 1 / 4, betaW: 1 / 1600 } },
  ]);

/** One model of the path-sampling part. */
export interface PathSamplingRow {
  readonly inputs: number;
  /** The thesis's random-temperature path-sampling estimate (eq. 5.23, k = 0.9). */
  readonly logZ: number;
  readonly stdErr: number;
  /** Stepping-stone with the same Gibbs kernel on a 33-temperature ladder, for comparison. */
  readonly steppingStoneLogZ: number;
  readonly steppingStoneStdErr: number;
  /** The evidence by 2-D quadrature (see {@link independentPrecisionQuadrature}). */
  readonly exactLogZ: number;
  /** |quadrature(h) − quadrature(2h)|. */
  readonly quadratureError: number;
  readonly seconds: number;
}

/** The path-sampling part under one reading of the hyperparameters. */
export interface PathSamplingReading {
  readonly reading: "scale" | "rate";
  readonly prior: IndependentPrior;
  readonly rows: readonly PathSamplingRow[];
  /** Inputs of the model with the highest estimate: path sampling, stepping-stone, quadrature. */
  readonly winner: number;
  readonly steppingStoneWinner: number;
  readonly exactWinner: number;
}

/** The result of `occam reproduce fabricius-linear`. */
export interface FabriciusLinearExperiment {
  readonly experiment: "fabricius-linear";
  readonly seed: number;
  readonly quick: boolean;
  readonly settings: {
    readonly repetitions: number;
    readonly nTrain: number;
    readonly nTest: number;
    readonly inputs: number;
    readonly relevant: number;
    readonly noiseSd: number;
    /** −½ log(2πσ²) − ½, the true mean log predictive density. */
    readonly trueLogPredictive: number;
  };
  readonly table: readonly MlTableRow[];
  readonly mlCurves: MlCurves;
  readonly nig: {
    readonly priors: readonly NoisePrior[];
    readonly rhoGrid: readonly number[];
    readonly results: readonly NigResult[];
  };
  /** The path-sampling part, on the first data set only (as the thesis). */
  readonly pathSampling: {
    readonly repetition: number;
    readonly temperatures: number;
    readonly k: number;
    readonly readings: readonly PathSamplingReading[];
  } | null;
  readonly seconds: number;
}

interface DataSet {
  X: Float64Array;
  y: Float64Array;
  Xt: Float64Array;
  yt: Float64Array;
}

interface Settings {
  reps: number;
  n: number;
  m: number;
  p: number;
  q: number;
  sigma: number;
}

function integer(value: number | undefined, fallback: number, name: string, min: number): number {
  const v = value ?? fallback;
  if (!(Number.isInteger(v) && v >= min))
    throw invalidArgument("runFabriciusLinearExperiment", `${name} must be an integer ≥ ${min}, got ${v}.`);
  return v;
}

function generate(rng: Rng, s: Settings): DataSet {
  const { n, m, p, q, sigma } = s;
  const draw = (rows: number) => {
    const X = new Float64Array(rows * p);
    const y = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      let mean = 0;
      for (let j = 0; j < p; j++) {
        const x = rng.normal();
        X[i * p + j] = x;
        if (j < q) mean += x;
      }
      y[i] = mean + sigma * rng.normal();
    }
    return { X, y };
  };
  const train = draw(n);
  const test = draw(m);
  return { X: train.X, y: train.y, Xt: test.X, yt: test.y };
}

/** Test mean squared error and mean Gaussian log predictive density of an ML fit. */
function testMetrics(fit: LinearMlFit, d: DataSet, s: Settings): { mse: number; logPred: number } {
  const { m, p } = s;
  const variance = fit.noiseVariance;
  let sse = 0;
  for (let i = 0; i < m; i++) {
    let r = d.yt[i];
    for (let a = 0; a < fit.columns.length; a++) r -= d.Xt[i * p + fit.columns[a]] * fit.weights[a];
    sse += r * r;
  }
  const mse = sse / m;
  return { mse, logPred: -0.5 * (LOG_2PI + Math.log(variance)) - (0.5 * mse) / variance };
}

const ML_ROWS: readonly [string, MlCriterion][] = [
  ["ML", "ml"],
  ["Reg. ML", "regularised"],
  ["Pen. ML", "penalised"],
  ["P., r. ML", "penalised-regularised"],
  ["BIC", "bic"],
  ["FPE", "fpe"],
];

/**
 * Runs the thesis's linear toy problem (see the module comment) and returns Table 6.1 beside the
 * thesis's values, the curves of Figures 6.2–6.3, the exact-Bayes selections of Figures 6.4–6.5 and
 * the path-sampling evidences of Figure 6.6. Deterministic for a seed: each repetition draws from its
 * own stream. Throws an `OccamError` for bad options.
 */
export function runFabriciusLinearExperiment(
  options: FabriciusLinearOptions = {},
): FabriciusLinearExperiment {
  const start = performance.now();
  const { seed, quick, s, mlRhoGrid, nigRhoGrid, noisePriors } = resolveSettings(options);
  const progress = options.onProgress ?? (() => {});
  const nested = nestedMasks(s.p);
  const streams = createRng(seed).split(s.reps + 1);
  const data: DataSet[] = [];
  for (let r = 0; r < s.reps; r++) data.push(generate(streams[r], s));
  const { table, mlCurves } = maximumLikelihoodSelections(data, s, mlRhoGrid, nested, progress);
  table.push(truthRow(data, s));
  const nigResults = exactBayesSelections(data, s, noisePriors, nigRhoGrid, nested, progress);
  const pathResult = pathSamplingEvidences(data[0], s, options, quick, streams[s.reps], progress);
  const { reps, n, p, q, sigma } = s;
  return {
    experiment: "fabricius-linear",
    seed,
    quick,
    settings: {
      repetitions: reps,
      nTrain: n,
      nTest: s.m,
      inputs: p,
      relevant: q,
      noiseSd: sigma,
      trueLogPredictive: -0.5 * Math.log(2 * Math.PI * sigma * sigma) - 0.5,
    },
    table,
    mlCurves,
    nig: { priors: [...noisePriors], rhoGrid: Array.from(nigRhoGrid), results: nigResults },
    pathSampling: pathResult,
    seconds: (performance.now() - start) / 1000,
  };
}

/** The experiment's settings from its options, checked. */
function resolveSettings(options: FabriciusLinearOptions) {
  const seed = integer(options.seed, 1, "seed", 0);
  const quick = options.quick === true;
  const s: Settings = {
    reps: integer(options.repetitions, quick ? 20 : 100, "repetitions", 1),
    n: integer(options.nTrain, 20, "nTrain", 2),
    m: integer(options.nTest, 200, "nTest", 1),
    p: integer(options.inputs, 10, "inputs", 1),
    q: integer(options.relevant, 3, "relevant", 1),
    sigma: options.noiseSd ?? 0.1,
  };
  if (s.p > 20)
    throw invalidArgument(
      "runFabriciusLinearExperiment",
      `inputs must be at most 20 (all 2^p subsets are scored), got ${s.p}.`,
    );
  if (s.q > s.p)
    throw invalidArgument("runFabriciusLinearExperiment", `relevant (${s.q}) cannot exceed inputs (${s.p}).`);
  if (!(Number.isFinite(s.sigma) && s.sigma > 0))
    throw invalidArgument("runFabriciusLinearExperiment", `noiseSd must be finite and > 0, got ${s.sigma}.`);
  const mlRhoGrid = options.mlRhoGrid === undefined ? defaultRhoGrid() : Float64Array.from(options.mlRhoGrid);
  const nigRhoGrid = Float64Array.from(
    options.nigRhoGrid ?? (quick ? [1e-4, 1e-2, 1] : Array.from({ length: 9 }, (_, i) => 10 ** (i - 6))),
  );
  for (const rho of nigRhoGrid) {
    if (!(Number.isFinite(rho) && rho > 0))
      throw invalidArgument(
        "runFabriciusLinearExperiment",
        `every nigRhoGrid value must be finite and > 0, got ${rho}.`,
      );
  }
  const noisePriors = options.noisePriors ?? NOISE_PRIORS;
  for (const prior of noisePriors) {
    if (!(prior.alpha > 0 && prior.beta > 0 && Number.isFinite(prior.alpha) && Number.isFinite(prior.beta))) {
      throw invalidArgument(
        "runFabriciusLinearExperiment",
        `noise prior "${prior.name}" needs finite alpha, beta > 0.`,
      );
    }
  }
  return { seed, quick, s, mlRhoGrid, nigRhoGrid, noisePriors };
}

/**
 * Part 1, maximum likelihood: Table 6.1's rows (each criterion maximised over its surface averaged
 * over the repetitions, then the metrics averaged at that (k, ρ)) and the curves of Figures 6.2–6.3.
 */
function maximumLikelihoodSelections(
  data: readonly DataSet[],
  s: Settings,
  mlRhoGrid: Float64Array,
  nested: Uint32Array,
  progress: (step: string) => void,
): { table: MlTableRow[]; mlCurves: MlCurves } {
  const { reps, n, p, q } = s;
  const trueMask = 2 ** q - 1;
  const R = mlRhoGrid.length;
  const sumLogLik = Array.from({ length: p }, () => new Float64Array(R));
  const sumScore: Record<"bic" | "fpe", Float64Array> = {
    bic: new Float64Array(p),
    fpe: new Float64Array(p),
  };
  const perData = ML_ROWS.map(() => ({
    right: 0,
    all: 0,
    inputs: 0,
    hist: new Array(p + 1).fill(0),
    mse: 0,
    logPred: 0,
  }));
  const curve = {
    ell: new Float64Array(p),
    train: new Float64Array(p),
    test: new Float64Array(p),
    logPred: new Float64Array(p),
  };
  for (let r = 0; r < reps; r++) {
    if (r % 10 === 0) progress(`maximum likelihood, data set ${r + 1}/${reps}`);
    const d = data[r];
    const scores = scoreMlSubsets({ X: d.X, y: d.y, n, p, rhoGrid: mlRhoGrid });
    for (let k = 1; k <= p; k++) {
      const mask = nested[k - 1];
      for (let i = 0; i < R; i++) sumLogLik[k - 1][i] += scores.logLikelihoodByRho[i][mask];
      sumScore.bic[k - 1] += scores.scores.bic[mask];
      sumScore.fpe[k - 1] += scores.scores.fpe[mask];
      if (k < n) {
        const fit = fitLinearMl({ X: d.X, y: d.y, n, p, columns: maskMembers(mask) });
        const t = testMetrics(fit, d, s);
        curve.ell[k - 1] += fit.logLikelihood;
        curve.train[k - 1] += fit.noiseVariance;
        curve.test[k - 1] += t.mse;
        curve.logPred[k - 1] += t.logPred;
      }
    }
    ML_ROWS.forEach(([, criterion], c) => {
      const own = selectMl(scores, criterion, nested);
      const acc = perData[c];
      const k = maskMembers(own.mask).length;
      if (own.mask === trueMask) acc.right++;
      acc.inputs += k;
      acc.hist[k]++;
      if (selectMl(scores, criterion).mask === trueMask) acc.all++;
      const fit = fitLinearMl({ X: d.X, y: d.y, n, p, columns: own.members, rho: own.rho });
      const t = testMetrics(fit, d, s);
      acc.mse += t.mse;
      acc.logPred += t.logPred;
    });
  }
  // Thesis-style: maximise the criterion averaged over the repetitions, then average at that (k, ρ).
  const table = ML_ROWS.map((row, c) =>
    criterionRow(row, data, s, mlRhoGrid, nested, sumLogLik, sumScore, perData[c]),
  );
  const mlCurves: MlCurves = {
    inputs: Array.from({ length: p }, (_, k) => k + 1),
    logLikelihood: Array.from(curve.ell, (v) => v / reps),
    penalisedLogLikelihood: Array.from(curve.ell, (v, k) => v / reps - (k + 2)),
    trainVariance: Array.from(curve.train, (v) => v / reps),
    testVariance: Array.from(curve.test, (v) => v / reps),
    logPredictive: Array.from(curve.logPred, (v) => v / reps),
    rhoGrid: Array.from(mlRhoGrid),
    logLikelihoodByRho: sumLogLik.map((row) => Array.from(row, (v) => v / reps)),
  };

  return { table, mlCurves };
}

/**
 * One criterion's row of Table 6.1, as the thesis made it: the (k, ρ) maximising the criterion summed
 * over the repetitions, and every metric averaged over the repetitions at that fixed (k, ρ).
 */
function criterionRow(
  [method, criterion]: readonly [string, MlCriterion],
  data: readonly DataSet[],
  s: Settings,
  mlRhoGrid: Float64Array,
  nested: Uint32Array,
  sumLogLik: readonly Float64Array[],
  sumScore: Readonly<Record<"bic" | "fpe", Float64Array>>,
  acc: { right: number; all: number; inputs: number; hist: number[]; mse: number; logPred: number },
): MlTableRow {
  const { reps, n, p } = s;
  const R = mlRhoGrid.length;
  let bestK = 1;
  let bestR = 0;
  let best = Number.NEGATIVE_INFINITY;
  const regular = criterion === "regularised" || criterion === "penalised-regularised";
  for (let k = 1; k <= p; k++) {
    for (let i = 0; i < (regular ? R : 1); i++) {
      const rIndex = regular ? i : mlRhoGrid.indexOf(0);
      let v: number;
      if (criterion === "bic" || criterion === "fpe") v = sumScore[criterion][k - 1];
      else {
        if (rIndex < 0)
          throw invalidArgument(
            "runFabriciusLinearExperiment",
            "mlRhoGrid must contain 0 (pure maximum likelihood).",
          );
        v = sumLogLik[k - 1][rIndex];
        if (criterion === "penalised" || criterion === "penalised-regularised") v -= reps * (k + 1);
      }
      if (v > best) {
        best = v;
        bestK = k;
        bestR = rIndex;
      }
    }
  }
  const rho = regular ? mlRhoGrid[bestR] : 0;
  let ell = 0;
  let train = 0;
  let test = 0;
  let logPred = 0;
  for (const d of data) {
    const fit = fitLinearMl({ X: d.X, y: d.y, n, p, columns: maskMembers(nested[bestK - 1]), rho });
    const t = testMetrics(fit, d, s);
    ell += fit.logLikelihood;
    train += fit.noiseVariance;
    test += t.mse;
    logPred += t.logPred;
  }
  return {
    method,
    criterion,
    rho,
    inputs: bestK,
    logLikelihood: ell / reps,
    penalisedLogLikelihood: ell / reps - (bestK + 1),
    trainVariance: train / reps,
    testVariance: test / reps,
    logPredictive: logPred / reps,
    perDataSet: {
      rightNested: acc.right / reps,
      meanInputs: acc.inputs / reps,
      inputsHistogram: acc.hist,
      rightAllSubsets: acc.all / reps,
      testVariance: acc.mse / reps,
      logPredictive: acc.logPred / reps,
    },
    thesis: THESIS_TABLE_6_1[method] ?? null,
  };
}

/** The truth's row of Table 6.1: the data's density at the true parameters. */
function truthRow(data: readonly DataSet[], s: Settings): MlTableRow {
  const { reps, n, p, q, sigma } = s;
  let ell = 0;
  let train = 0;
  let test = 0;
  let logPred = 0;
  const s2 = sigma * sigma;
  const residuals = (X: Float64Array, y: Float64Array, rows: number) => {
    let sse = 0;
    for (let i = 0; i < rows; i++) {
      let r = y[i];
      for (let j = 0; j < q; j++) r -= X[i * p + j];
      sse += r * r;
    }
    return sse;
  };
  for (const d of data) {
    const sseTrain = residuals(d.X, d.y, n);
    const sseTest = residuals(d.Xt, d.yt, s.m);
    ell += -0.5 * n * (LOG_2PI + Math.log(s2)) - sseTrain / (2 * s2);
    train += sseTrain / n;
    test += sseTest / s.m;
    logPred += -0.5 * (LOG_2PI + Math.log(s2)) - sseTest / (2 * s2 * s.m);
  }
  return {
    method: "Truth",
    criterion: "truth",
    rho: 0,
    inputs: q,
    logLikelihood: ell / reps,
    penalisedLogLikelihood: ell / reps - q,
    trainVariance: train / reps,
    testVariance: test / reps,
    logPredictive: logPred / reps,
    perDataSet: null,
    thesis: THESIS_TABLE_6_1.Truth,
  };
}

/**
 * Part 2, exact Bayes with the NIG prior τ_w = ρτ (Figures 6.4–6.5): for each noise prior and ρ, the
 * evidence of every subset on every data set, the winners and the model average's test log predictive.
 */
function exactBayesSelections(
  data: readonly DataSet[],
  s: Settings,
  noisePriors: readonly NoisePrior[],
  nigRhoGrid: Float64Array,
  nested: Uint32Array,
  progress: (step: string) => void,
): NigResult[] {
  const { reps, n, p, q } = s;
  const trueMask = 2 ** q - 1;
  const nigResults: NigResult[] = [];
  const inputNames = Array.from({ length: p }, (_, j) => `x${j + 1}`);
  const logW = new Float64Array(2 ** p);
  const mix = new Float64Array(2 ** p);
  for (const prior of noisePriors) {
    for (const rho of nigRhoGrid) {
      progress(`exact Bayes, ${prior.name} prior, ρ = ${rho}`);
      const acc = {
        ev: new Float64Array(p),
        lp: new Float64Array(p),
        rightNested: 0,
        rightAll: 0,
        winnerProb: 0,
        trueProb: 0,
        winnerInputs: 0,
        avgLp: 0,
        winnerLp: 0,
      };
      for (const d of data) {
        // w | τ ~ N(0, (ρτ)⁻¹I), τ ~ Gamma(α, scale β)  ⇔  w | σ² ~ N(0, σ²/ρ I), σ² ~ IG(α, 1/β).
        const { design } = numericDesign({ X: d.X, y: d.y, n, p, inputNames, targetName: "y" });
        const family = nigFamily(design, centredStatistics(design), {
          intercept: false,
          standardize: false,
          v: 1 / rho,
          a: prior.alpha,
          b: 1 / prior.beta,
        });
        const le = new Float64Array(2 ** p);
        family.enumerate(p, (view) => {
          le[view.mask] = view.score;
        });
        const predictive = family.predictive as NonNullable<typeof family.predictive>;
        let bestNested = 0;
        for (let k = 1; k <= p; k++) {
          const mask = nested[k - 1];
          acc.ev[k - 1] += le[mask];
          if (le[mask] > le[nested[bestNested]]) bestNested = k - 1;
          acc.lp[k - 1] += meanLogPredictive(predictive(maskMembers(mask), d.Xt, s.m), d.yt);
        }
        if (nested[bestNested] === trueMask) acc.rightNested++;
        const total = logSumExp(le);
        let winner = 0;
        for (let mask = 1; mask < le.length; mask++) if (le[mask] > le[winner]) winner = mask;
        if (winner === trueMask) acc.rightAll++;
        acc.winnerProb += Math.exp(le[winner] - total);
        acc.trueProb += Math.exp(le[trueMask] - total);
        acc.winnerInputs += maskMembers(winner).length;
        acc.winnerLp += meanLogPredictive(predictive(maskMembers(winner), d.Xt, s.m), d.yt);
        // Model average: Σ_S p(S | D) t_S(y), over the subsets with weight > 10⁻⁸ of the winner's.
        const kept: number[] = [];
        for (let mask = 0; mask < le.length; mask++) {
          if (le[mask] - le[winner] > Math.log(1e-8)) kept.push(mask);
        }
        for (let i = 0; i < kept.length; i++) logW[i] = le[kept[i]];
        const norm = logSumExp(logW, 0, kept.length);
        const preds = kept.map((mask) => predictive(maskMembers(mask), d.Xt, s.m));
        const constant = studentTLogNormaliser(preds[0].dof); // every subset has ν = 2α + N
        let sum = 0;
        for (let t = 0; t < s.m; t++) {
          for (let i = 0; i < kept.length; i++) {
            const z = (d.yt[t] - preds[i].location[t]) / preds[i].scale[t];
            mix[i] =
              logW[i] -
              norm +
              constant -
              Math.log(preds[i].scale[t]) -
              0.5 * (preds[i].dof + 1) * Math.log1p((z * z) / preds[i].dof);
          }
          sum += logSumExp(mix, 0, kept.length);
        }
        acc.avgLp += sum / s.m;
      }
      nigResults.push({
        prior: prior.name,
        rho,
        meanLogEvidence: Array.from(acc.ev, (v) => v / reps),
        meanLogPredictive: Array.from(acc.lp, (v) => v / reps),
        rightNested: acc.rightNested / reps,
        rightAllSubsets: acc.rightAll / reps,
        meanWinnerProbability: acc.winnerProb / reps,
        meanTrueProbability: acc.trueProb / reps,
        meanWinnerInputs: acc.winnerInputs / reps,
        averageLogPredictive: acc.avgLp / reps,
        winnerLogPredictive: acc.winnerLp / reps,
      });
    }
  }

  return nigResults;
}

/**
 * Part 3 (Figures 6.6–6.7): the evidences of the nested models with 1 … `pathModels` inputs on the
 * first data set, by path sampling with the independent-precision Gibbs sampler, by stepping-stone
 * and by quadrature, under both readings of the thesis's prior; null when turned off.
 */
function pathSamplingEvidences(
  d: DataSet,
  s: Settings,
  options: FabriciusLinearOptions,
  quick: boolean,
  stream: Rng,
  progress: (step: string) => void,
): FabriciusLinearExperiment["pathSampling"] {
  const { n, p } = s;
  if (!(options.pathSampling ?? true)) return null;
  const temperatures = integer(options.temperatures, quick ? 200 : 1000, "temperatures", 2);
  const models = integer(options.pathModels, Math.min(9, p), "pathModels", 1);
  if (models > p)
    throw invalidArgument(
      "runFabriciusLinearExperiment",
      `pathModels (${models}) cannot exceed inputs (${p}).`,
    );
  const readingStreams = stream.split(PRIOR_READINGS.length);
  const readings: PathSamplingReading[] = PRIOR_READINGS.map((reading, ri) => {
    const modelStreams = readingStreams[ri].split(models);
    const rows: PathSamplingRow[] = [];
    for (let k = 1; k <= models; k++) {
      progress(`path sampling (β as a ${reading.reading}), model with ${k} inputs`);
      const t0 = performance.now();
      const X = new Float64Array(n * k);
      for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) X[i * k + j] = d.X[i * p + j];
      const model = independentPrecisionRegression({ X, y: d.y, n, p: k, ...reading.prior });
      const [randomStream, steppingStream] = modelStreams[k - 1].split(2);
      const random = pathSampling(model, {
        scheme: "random",
        temperatures,
        k: 0.9,
        kernel: "model",
        rng: randomStream,
      });
      const stepping = steppingStone(model, {
        move: "model",
        particles: quick ? 256 : 1024,
        rng: steppingStream,
      });
      const exact = independentPrecisionQuadrature(X, d.y, n, k, reading.prior, quick ? 0.2 : 0.1);
      rows.push({
        inputs: k,
        logZ: random.logZ,
        stdErr: random.stdErr,
        steppingStoneLogZ: stepping.logZ,
        steppingStoneStdErr: stepping.stdErr,
        exactLogZ: exact.logZ,
        quadratureError: exact.error,
        seconds: (performance.now() - t0) / 1000,
      });
    }
    const argmax = (key: "logZ" | "steppingStoneLogZ" | "exactLogZ") =>
      rows.reduce((best, row) => (row[key] > best[key] ? row : best), rows[0]).inputs;
    return {
      reading: reading.reading,
      prior: reading.prior,
      rows,
      winner: argmax("logZ"),
      steppingStoneWinner: argmax("steppingStoneLogZ"),
      exactWinner: argmax("exactLogZ"),
    };
  });
  return { repetition: 0, temperatures, k: 0.9, readings };
}

/** The mean log density of y under a Student-t predictive (one location and scale per row). */
function meanLogPredictive(
  pred: { dof: number; location: Float64Array; scale: Float64Array },
  y: Float64Array,
): number {
  const constant = studentTLogNormaliser(pred.dof);
  let s = 0;
  for (let t = 0; t < y.length; t++) {
    const z = (y[t] - pred.location[t]) / pred.scale[t];
    s += constant - Math.log(pred.scale[t]) - 0.5 * (pred.dof + 1) * Math.log1p((z * z) / pred.dof);
  }
  return s / y.length;
}
