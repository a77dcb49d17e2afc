/**
 * Part 1 of the Fabricius linear experiment, maximum likelihood (thesis §6.2.1, Table 6.1, Figures
 * 6.2–6.3): the criteria over the nested models, the thesis-style table rows and the curves.
 */
import { invalidArgument } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import {
  fitLinearMl,
  type LinearMlFit,
  type MlCriterion,
  maskMembers,
  scoreMlSubsets,
  selectMl,
} from "../../models/linear/maximum-likelihood.js";
import type { DataSet, Settings } from "./data.js";

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

/**
 * One selection method: the thesis-style row and the per-data-set selection rates. The row's numbers
 * are occam's, over the data sets: ρ and k chosen from the averaged surface (k among the nested
 * models), the mean ℓ (unbiased τ̂; for the truth, the log density at the true parameters), the mean
 * ℓ − (k + 1) (truth: minus 3, as the thesis), the mean RSS/(N − γ_eff) (truth: the mean squared true
 * residual), the mean squared test error, and the mean test log predictive density (a plug-in Gaussian
 * with variance RSS/(N − γ_eff)).
 */
export interface MlTableRow extends ThesisTableRow {
  /** "ML", "Reg. ML", "Pen. ML", "P., r. ML", "BIC", "FPE" or "Truth". */
  readonly method: string;
  readonly criterion: MlCriterion | "truth";
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

/** The rows of Table 6.1 computed by maximum likelihood: the thesis's name and occam's criterion. */
const ML_ROWS: readonly [string, MlCriterion][] = [
  ["ML", "ml"],
  ["Reg. ML", "regularised"],
  ["Pen. ML", "penalised"],
  ["P., r. ML", "penalised-regularised"],
  ["BIC", "bic"],
  ["FPE", "fpe"],
];

/**
 * Part 1, maximum likelihood: Table 6.1's rows (each criterion maximised over its surface averaged
 * over the repetitions, then the metrics averaged at that (k, ρ)) and the curves of Figures 6.2–6.3.
 */
export function maximumLikelihoodSelections(
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
export function truthRow(data: readonly DataSet[], s: Settings): MlTableRow {
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
