import gammaln from "@stdlib/math-base-special-gammaln";
import type { NumericTable } from "../data/csv.js";
import { standardize } from "../data/csv.js";
import { OccamError } from "../errors.js";
import {
  type EstimateEvidenceOptions,
  type EvidenceMethod,
  type EvidenceMethodSettings,
  estimateEvidence,
} from "../evidence/estimate.js";
import type { BayesModel } from "../model/model.js";
import { independentPrecisionRegression } from "../models/linear/independent.js";
import { nigRegression } from "../models/linear/nig.js";
import {
  rSquared,
  ZELLNER_SIOW_MEDIUM_SCALE,
  zellnerSiowLogBayesFactor,
} from "../models/linear/zellner-siow.js";
import { createRng } from "../random/rng.js";
import { compareSubsets, type ModelPrior, type SubsetCollection, subsetMembers } from "./compare.js";
import {
  binomial,
  MAX_ENUMERATED_INPUTS,
  nigSubsets,
  type SubsetSystem,
  type SubsetTable,
  sampleSubsets,
  scoreSubsets,
} from "./subsets.js";

const LOG_TWO_PI = Math.log(2 * Math.PI);

/** The priors over each model's weights that {@link compareLinearModels} offers. */
export type LinearPrior = "nig" | "zellner-siow" | "independent";

/** Every prior {@link compareLinearModels} accepts, the default first. */
export const LINEAR_PRIORS: readonly LinearPrior[] = ["nig", "zellner-siow", "independent"];

/**
 * How each model's log evidence is computed: `"exact"` (closed form), or one of occam's estimators run
 * on the model (`estimateEvidence` with the method of the same name; `"cv"` is the chain-rule
 * cross-validated evidence). Everything but `"exact"` needs a prior with a sampleable model (NIG).
 */
export type LinearEstimator =
  | "exact"
  | "laplace"
  | "importance"
  | "bridge"
  | "stepping-stone"
  | "path"
  | "ais"
  | "smc"
  | "cv";

/** Every estimator {@link compareLinearModels} accepts, exact first. */
export const LINEAR_ESTIMATORS: readonly LinearEstimator[] = [
  "exact",
  "laplace",
  "importance",
  "bridge",
  "stepping-stone",
  "path",
  "ais",
  "smc",
  "cv",
];

/** The estimators whose cost is set by a number of samples. */
export type SampledLinearEstimator = Exclude<LinearEstimator, "exact" | "laplace">;

/**
 * Default `samples` of each sampled estimator, chosen so that one model of a few inputs and a few
 * hundred rows takes well under a second (smc about 1.5 s): posterior draws over 4 chains (importance,
 * bridge; importance also draws as many proposal points), draws per temperature (stepping-stone,
 * path), particles (ais, smc), posterior draws per fold (cv).
 */
export const DEFAULT_SAMPLES: Readonly<Record<SampledLinearEstimator, number>> = Object.freeze({
  importance: 4000,
  bridge: 4000,
  "stepping-stone": 512,
  path: 512,
  ais: 256,
  smc: 512,
  cv: 1000,
});

/**
 * The work limit of estimated (non-exact) evidences: models × samples / DEFAULT_SAMPLES[estimator]
 * may be at most this, i.e. at most 128 models at the default sample size, proportionally fewer with
 * more samples (laplace: at most 128 models).
 */
export const MAX_ESTIMATED_MODELS = 128;

/**
 * Default number of Metropolis–Hastings steps over subsets when there are too many inputs to
 * enumerate (a tenth as many more are discarded first as burn-in).
 */
export const DEFAULT_MCMC_STEPS = 20000;

/** Options of {@link compareLinearModels}. */
export interface CompareLinearOptions {
  /**
   * The prior of each model: the conjugate Normal–Inverse-Gamma (exact log evidence), the
   * Zellner–Siow mixture of g-priors (Bayes factors against the intercept-only model), or independent
   * Gamma priors on the noise and weight precisions (thesis 6.2.3; sampled estimators only).
   * @defaultValue "nig"
   */
  prior?: LinearPrior;
  /** NIG: prior scale v of every weight, w | σ² ~ N(0, σ² v I). @defaultValue 10000 */
  v?: number;
  /** NIG: shape of the inverse-gamma prior of σ². @defaultValue 1 */
  a?: number;
  /** NIG: scale of the inverse-gamma prior of σ². @defaultValue 1 */
  b?: number;
  /** Zellner–Siow: prior scale r. @defaultValue √2/4 */
  r?: number;
  /** Independent: shape of the Gamma prior of the noise precision τ. @defaultValue 1/2 */
  alpha?: number;
  /** Independent: scale of the Gamma prior of τ. @defaultValue 200 */
  beta?: number;
  /** Independent: shape of the Gamma prior of the weights' shared precision τ_w. @defaultValue 1/4 */
  alphaW?: number;
  /** Independent: scale of the Gamma prior of τ_w. @defaultValue 1600 */
  betaW?: number;
  /** Put an intercept in every model. @defaultValue true */
  intercept?: boolean;
  /** Standardise the inputs first (recorded in the result). @defaultValue false */
  standardize?: boolean;
  /**
   * Which models: every subset, every subset of at most `max` inputs, or only the full model. With
   * "all" and more than MAX_ENUMERATED_INPUTS (25) inputs, subsets are sampled by MCMC instead.
   * @defaultValue "all"
   */
  subsets?: "all" | "none" | { max: number };
  /** Prior over models. @defaultValue "uniform" */
  modelPrior?: ModelPrior;
  /** Keep only the best `top` models in the list. @defaultValue all */
  top?: number;
  /**
   * How each model's log evidence is computed (see {@link LinearEstimator}); only "exact" under
   * Zellner–Siow and when subsets are sampled by MCMC, only a sampled one under the independent prior.
   * @defaultValue "exact", or "stepping-stone" under the independent prior
   */
  estimator?: LinearEstimator;
  /**
   * The sample size of a sampled estimator (see {@link DEFAULT_SAMPLES} for what it counts).
   * @defaultValue DEFAULT_SAMPLES[estimator]
   */
  samples?: number;
  /** Number of folds G of the cv estimator (2 ≤ G ≤ n). @defaultValue 5 */
  folds?: number;
  /**
   * Seed of everything random: model i's estimator runs with {@link subsetSeed}(seed, its inputs),
   * and the MCMC over subsets with `seed` itself.
   * @defaultValue 1
   */
  seed?: number;
  /** Metropolis–Hastings steps kept when subsets are sampled by MCMC. @defaultValue 20000 */
  mcmcSteps?: number;
  /** Called after each estimated model (sampled estimators only) with the count done and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** One model of a comparison. */
export interface LinearModelRow {
  inputs: string[];
  /** log p(y | X, M) in nats (the estimate, for a sampled estimator); null under Zellner–Siow. */
  logEvidence: number | null;
  /** The estimator's standard error; 0 for exact values (and Laplace, an approximation without Monte Carlo error). */
  stdErr: number;
  /** The exact log evidence, present only when `logEvidence` is an estimate: its error is then visible. */
  exactLogEvidence?: number;
  /** Against the intercept-only model (the empty model without an intercept). */
  logBayesFactor: number;
  posteriorProbability: number;
}

/** What an MCMC search over subsets did. */
export interface SubsetSearchSummary {
  /** Metropolis–Hastings steps kept. */
  steps: number;
  /** Steps discarded first. */
  burnIn: number;
  /** Number of distinct models visited (the models compared). */
  distinctModels: number;
  acceptanceRate: number;
  /**
   * Total-variation distance between the visit frequencies and the renormalised posterior
   * probabilities over the visited models: near 0 when the chain has mixed; large values mean more
   * steps are needed.
   */
  frequencyDiscrepancy: number;
}

/** The result of {@link compareLinearModels}, as `occam compare --json` prints it. */
export interface LinearComparison {
  family: "linear";
  prior:
    | { name: "nig"; v: number; a: number; b: number }
    | { name: "zellner-siow"; r: number }
    | { name: "independent"; alpha: number; beta: number; alphaW: number; betaW: number };
  estimator: LinearEstimator;
  /**
   * "enumerated": every subset asked for was scored; "mcmc": too many inputs to enumerate, the
   * models are those an MCMC over subsets visited, and probabilities are their exact evidences times
   * model priors, renormalised over the visited models.
   */
  search: "enumerated" | "mcmc";
  n: number;
  inputs: string[];
  intercept: boolean;
  standardized: boolean;
  modelPrior: ModelPrior;
  /** Number of models compared. */
  modelCount: number;
  /** The seed and sample sizes, present when anything was random (a sampled estimator or MCMC search). */
  settings?: { seed: number; samples?: number; folds?: number };
  /**
   * How the estimates compare with the exact log evidences, over every model compared (present for
   * a sampled estimator under NIG): the largest |estimate − exact| in nats, and how many models'
   * estimates lie more than 4 standard errors from the exact value (about 1 in 16 000 if the standard
   * errors are right; Laplace, with standard error 0, counts every inexact value).
   */
  agreement?: { maxAbsError: number; beyondFourStdErr: number };
  /** Present when search is "mcmc". */
  mcmc?: SubsetSearchSummary;
  models: LinearModelRow[];
  inclusionProbabilities: Record<string, number>;
  /** Inputs whose inclusion probability is at least ½. */
  medianModel: string[];
  seconds: number;
}

/**
 * The seed of the estimator run on the model with the given (candidate-index) inputs: a 32-bit hash
 * of `seed` and the inputs. Each model's estimate thus depends only on the seed and the model, not on
 * which other models are compared or in what order.
 */
export function subsetSeed(seed: number, members: ArrayLike<number>): number {
  let h = fmix32((seed ^ 0x9e3779b9) >>> 0);
  for (let i = 0; i < members.length; i++) {
    h = fmix32((Math.imul(h, 0x85ebca6b) ^ (members[i] + 1)) >>> 0);
  }
  return fmix32((h ^ members.length) >>> 0);
}

/** MurmurHash3's 32-bit finaliser (full avalanche). */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * What compareLinearModels needs of a prior over each model's weights. A new prior is one more
 * function returning this (and one more case in {@link priorFamily}).
 */
interface PriorFamily {
  readonly summary: LinearComparison["prior"];
  /** True when `score` is a log evidence; false when it is a log Bayes factor against the null (no evidence). */
  readonly givesEvidence: boolean;
  /** False when no closed form exists: the table's scores are NaN and only sampled estimators apply. */
  readonly exact: boolean;
  /** Scores of every subset of at most maxSize inputs (p ≤ MAX_ENUMERATED_INPUTS when maxSize = p). */
  enumerate(maxSize: number): SubsetTable;
  /** The score of one subset (candidate indices). */
  score(members: ArrayLike<number>): number;
  /** The model of a subset for sampled estimators (null: no parameters to sample); absent when only exact scores exist. */
  model?(members: ArrayLike<number>): BayesModel | null;
}

interface PreparedData {
  X: Float64Array;
  y: Float64Array;
  n: number;
  p: number;
  names: string[];
  intercept: boolean;
}

function priorFamily(prior: LinearPrior, d: PreparedData, o: CompareLinearOptions): PriorFamily {
  switch (prior) {
    case "nig":
      return nigFamily(d, o.v ?? 1e4, o.a ?? 1, o.b ?? 1);
    case "zellner-siow":
      return zellnerSiowFamily(d, o.r ?? ZELLNER_SIOW_MEDIUM_SCALE);
    case "independent":
      return independentFamily(d, o);
    default:
      throw new OccamError(
        "invalid-argument",
        `compareLinearModels: unknown prior "${String(prior)}"; choose one of: ${LINEAR_PRIORS.join(", ")}.`,
      );
  }
}

/** The design [1, X_S] (or X_S without an intercept) of a subset, n × k row-major. */
function subsetDesign(d: PreparedData, members: ArrayLike<number>): { Z: Float64Array; k: number } {
  const { X, n, p, intercept } = d;
  const k = members.length + (intercept ? 1 : 0);
  const Z = new Float64Array(n * k);
  const off = intercept ? 1 : 0;
  for (let i = 0; i < n; i++) {
    if (intercept) Z[i * k] = 1;
    for (let c = 0; c < members.length; c++) Z[i * k + off + c] = X[i * p + members[c]];
  }
  return { Z, k };
}

function weightNames(d: PreparedData, members: ArrayLike<number>): string[] {
  return [...(d.intercept ? ["(intercept)"] : []), ...Array.from(members, (j) => d.names[j])];
}

/**
 * Independent Gamma priors on the noise precision τ and on one precision τ_w shared by the weights
 * (the intercept included), as the thesis's Gibbs-sampled linear model (6.2.3): no closed-form
 * evidence, so every model is estimated, by default with stepping-stone over its tempered Gibbs
 * kernel. One τ_w for all weights is not invariant to the inputs' units: standardise them.
 */
function independentFamily(d: PreparedData, o: CompareLinearOptions): PriorFamily {
  const hyper = {
    alpha: o.alpha ?? 0.5,
    beta: o.beta ?? 200,
    alphaW: o.alphaW ?? 0.25,
    betaW: o.betaW ?? 1600,
  };
  const model = (members: ArrayLike<number>) => {
    const { Z, k } = subsetDesign(d, members);
    if (k === 0) return null;
    return independentPrecisionRegression({
      X: Z,
      y: d.y,
      n: d.n,
      p: k,
      ...hyper,
      names: weightNames(d, members),
    });
  };
  const noExactEvidence = (): never => {
    throw new OccamError(
      "invalid-argument",
      "the independent-precision prior has no closed-form evidence; choose a sampled estimator (stepping-stone, path, ais, smc, bridge, importance, cv or laplace).",
    );
  };
  return {
    summary: { name: "independent", ...hyper },
    givesEvidence: true,
    exact: false,
    enumerate: (maxSize) => {
      if (d.p > 31) throw new OccamError("invalid-argument", tooManyToEnumerate(d.p));
      const subsets: number[][] = [];
      const grow = (from: number, chosen: number[]) => {
        subsets.push([...chosen]);
        if (chosen.length === maxSize) return;
        for (let j = from; j < d.p; j++) grow(j + 1, [...chosen, j]);
      };
      grow(0, []);
      // Only the model without weights (no inputs, no intercept) has a closed form.
      return singleModels(d.p, d.names, subsets, (m) =>
        m.length === 0 && !d.intercept ? emptyIndependentLogEvidence(d, hyper) : Number.NaN,
      );
    },
    score: noExactEvidence,
    model,
  };
}

/** The Normal–Inverse-Gamma prior w | σ² ~ N(0, σ² v I), σ² ~ IG(a, b), the intercept included in w. */
function nigFamily(d: PreparedData, v: number, a: number, b: number): PriorFamily {
  const { X, y, n, p, names, intercept } = d;
  // nigSubsets keeps subsets as 32-bit masks; beyond 31 inputs a subset's evidence is computed alone.
  const nig = p <= 31 ? nigSubsets({ X, y, n, p, intercept, v, a, b, names }) : null;
  const model = (members: ArrayLike<number>) => {
    const { Z, k } = subsetDesign(d, members);
    if (k === 0) return null;
    return nigRegression({ X: Z, y, n, p: k, v, a, b, names: weightNames(d, members) });
  };
  return {
    summary: { name: "nig", v, a, b },
    givesEvidence: true,
    exact: true,
    enumerate: (maxSize) => {
      if (nig === null) throw new OccamError("invalid-argument", tooManyToEnumerate(p));
      return nig.enumerate({ maxSize });
    },
    score: (members) => {
      if (nig !== null) return nig.logEvidence(members);
      const m = model(members);
      return m === null ? emptyNigLogEvidence(y, n, a, b) : m.exactLogEvidence();
    },
    model,
  };
}

/** log p(y) when y_i ~ N(0, σ²), σ² ~ IG(a, b): the model with no weights. */
function emptyNigLogEvidence(y: Float64Array, n: number, a: number, b: number): number {
  let yy = 0;
  for (let i = 0; i < n; i++) yy += y[i] * y[i];
  const aStar = a + 0.5 * n;
  return (
    -0.5 * n * LOG_TWO_PI + a * Math.log(b) - aStar * Math.log(b + 0.5 * yy) + gammaln(aStar) - gammaln(a)
  );
}

/** log p(y) when y_i ~ N(0, 1/τ), τ ~ Gamma(α, scale β): the independent-precision model without weights. */
function emptyIndependentLogEvidence(d: PreparedData, hyper: { alpha: number; beta: number }): number {
  let yy = 0;
  for (let i = 0; i < d.n; i++) yy += d.y[i] * d.y[i];
  const { alpha, beta } = hyper;
  const shape = alpha + 0.5 * d.n;
  return (
    -0.5 * d.n * LOG_TWO_PI +
    gammaln(shape) -
    gammaln(alpha) -
    alpha * Math.log(beta) -
    shape * Math.log(1 / beta + 0.5 * yy)
  );
}

/** Zellner–Siow: Bayes factors against the intercept-only model through each subset's R². */
function zellnerSiowFamily(d: PreparedData, r: number): PriorFamily {
  const { X, y, n, p, names, intercept } = d;
  if (!intercept) {
    throw new OccamError(
      "invalid-argument",
      "the Zellner–Siow prior compares models that all have an (unpenalised) intercept; drop --no-intercept or use --prior nig.",
    );
  }
  const logBf = (size: number, r2: number) =>
    size === 0 ? 0 : zellnerSiowLogBayesFactor(Math.min(Math.max(r2, 0), 1 - 1e-15), n, size, { rScale: r });
  return {
    summary: { name: "zellner-siow", r },
    givesEvidence: false,
    exact: true,
    enumerate: (maxSize) => {
      if (p > 31) throw new OccamError("invalid-argument", tooManyToEnumerate(p));
      const { system, yy } = centredSystem(X, y, n, p);
      // R² of a subset is the share of the centred y's sum of squares its least-squares fit explains.
      return scoreSubsets(system, { maxSize, names }, (view) => logBf(view.size, view.quad / yy));
    },
    score: (members) => logBf(members.length, members.length === 0 ? 0 : rSquared(X, y, n, p, members)),
  };
}

function tooManyToEnumerate(p: number): string {
  return `${p} inputs are too many to enumerate subsets of (subsets are 32-bit masks); use --subsets all (MCMC) or narrow with --inputs.`;
}

interface ResolvedOptions {
  prior: LinearPrior;
  intercept: boolean;
  modelPrior: ModelPrior;
  subsets: "all" | "none" | { max: number };
  estimator: LinearEstimator;
  samples: number | undefined;
  folds: number | undefined;
  seed: number;
  mcmcSteps: number | undefined;
}

function resolveOptions(options: CompareLinearOptions): ResolvedOptions {
  const bad = (message: string) => new OccamError("invalid-argument", message);
  const prior = options.prior ?? "nig";
  const subsets = options.subsets ?? "all";
  if (subsets !== "all" && subsets !== "none" && !(Number.isInteger(subsets.max) && subsets.max >= 1)) {
    throw bad(`the largest subset size must be a whole number of at least 1, got ${subsets.max}.`);
  }
  const estimator = options.estimator ?? (prior === "independent" ? "stepping-stone" : "exact");
  if (!LINEAR_ESTIMATORS.includes(estimator)) {
    throw bad(`unknown estimator "${String(estimator)}"; choose one of: ${LINEAR_ESTIMATORS.join(", ")}.`);
  }
  if (prior === "independent" && estimator === "exact") {
    throw bad(
      "the independent-precision prior has no closed-form evidence; choose a sampled estimator (stepping-stone, the default, path, ais, smc, bridge, importance, cv or laplace).",
    );
  }
  if (prior === "zellner-siow" && estimator !== "exact") {
    throw bad(
      `the Zellner–Siow prior gives only exact Bayes factors (it has no sampleable model here); drop --estimator ${estimator} or use --prior nig.`,
    );
  }
  const { samples, folds, mcmcSteps } = options;
  if (samples !== undefined) {
    if (estimator === "exact" || estimator === "laplace") {
      throw bad(`--samples applies only to a sampled estimator, not to --estimator ${estimator}.`);
    }
    if (!(Number.isInteger(samples) && samples >= 4)) {
      throw bad(`--samples must be a whole number of at least 4, got ${samples}.`);
    }
  }
  if (folds !== undefined) {
    if (estimator !== "cv") throw bad(`--folds applies only to --estimator cv, not to ${estimator}.`);
    if (!(Number.isInteger(folds) && folds >= 2)) {
      throw bad(`--folds must be a whole number of at least 2, got ${folds}.`);
    }
  }
  const seed = options.seed ?? 1;
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw bad(`the seed must be an integer from 0 to 4294967295, got ${seed}.`);
  }
  if (mcmcSteps !== undefined && !(Number.isInteger(mcmcSteps) && mcmcSteps >= 1)) {
    throw bad(`--mcmc-steps must be a whole number of at least 1, got ${mcmcSteps}.`);
  }
  return {
    prior,
    intercept: options.intercept ?? true,
    modelPrior: options.modelPrior ?? "uniform",
    subsets,
    estimator,
    samples,
    folds,
    seed,
    mcmcSteps,
  };
}

/**
 * Compares linear regressions of y on subsets of the inputs by their evidence: every subset (in
 * Gray-code order, one Cholesky row per step), those of at most K inputs, or only the full model.
 * Returns posterior model probabilities, Bayes factors against the intercept-only model, each input's
 * inclusion probability and the median-probability model.
 *
 * - With a sampled `estimator` (NIG prior only) each model is `nigRegression` on its columns (and the
 *   intercept), its log evidence comes from `estimateEvidence` seeded by {@link subsetSeed}, and the
 *   probabilities use the estimates. At most {@link MAX_ESTIMATED_MODELS} models (at the default
 *   sample size; see there) are estimated: narrow the set with `subsets: { max }` or fewer inputs.
 * - With `subsets: "all"` and more than MAX_ENUMERATED_INPUTS inputs, subsets are sampled by
 *   Metropolis–Hastings (`sampleSubsets`) and probabilities are the visited models' exact evidences
 *   times their model priors, renormalised over the visited models (`search: "mcmc"`). This beats
 *   visit frequencies: the relative probabilities of visited models are then exact, with no Monte
 *   Carlo noise, and the only error is the mass of the unvisited models, which a chain that has mixed
 *   leaves small (`mcmc.frequencyDiscrepancy` checks it).
 */
export function compareLinearModels(
  data: NumericTable,
  options: CompareLinearOptions = {},
): LinearComparison {
  const start = performance.now();
  const o = resolveOptions(options);
  const { estimator, subsets, modelPrior, intercept } = o;
  const { n, p } = data;
  const X = options.standardize ? standardize(data.X, n, p).X : Float64Array.from(data.X);
  const names = [...data.inputNames];
  const prepared: PreparedData = { X, y: Float64Array.from(data.y), n, p, names, intercept };
  const family = priorFamily(o.prior, prepared, options);
  const search: LinearComparison["search"] =
    subsets === "all" && p > MAX_ENUMERATED_INPUTS ? "mcmc" : "enumerated";
  const base = {
    family: "linear" as const,
    prior: family.summary,
    estimator,
    search,
    n,
    inputs: names,
    intercept,
    standardized: options.standardize === true,
    modelPrior,
  };

  if (search === "mcmc") {
    if (!family.exact) {
      throw new OccamError(
        "invalid-argument",
        `${p} inputs are too many to enumerate, and sampling subsets needs exact evidences, which the ` +
          `${family.summary.name} prior does not have; narrow with --subsets max=K or --inputs.`,
      );
    }
    if (estimator !== "exact") {
      throw new OccamError(
        "invalid-argument",
        `${p} inputs are too many to enumerate, and sampling subsets needs exact evidences; use the exact ` +
          `estimator, or narrow with --subsets max=K or --inputs to estimate with ${estimator}.`,
      );
    }
    return { ...base, ...searchByMcmc(family, prepared, o, options.top), seconds: secondsSince(start) };
  }
  if (o.mcmcSteps !== undefined) {
    throw new OccamError(
      "invalid-argument",
      `--mcmc-steps applies only when subsets are sampled (--subsets all with more than ${MAX_ENUMERATED_INPUTS} inputs); ` +
        `these ${p} inputs are enumerated exactly.`,
    );
  }

  const maxSize = subsets === "all" || subsets === "none" ? p : Math.min(subsets.max, p);
  if (estimator !== "exact") {
    const count = subsets === "none" ? 2 : countSubsets(p, maxSize);
    checkWork(estimator, count, o.samples);
  }
  const table =
    subsets === "none"
      ? singleModels(p, names, [[], range(p)], (m) => family.score(m))
      : family.enumerate(maxSize);

  let stdErr: Float64Array | null = null;
  let scores = table.logEvidence;
  let agreement: LinearComparison["agreement"];
  if (estimator !== "exact") {
    const estimated = estimateAll(family, table, estimator, o, options.onProgress);
    scores = estimated.logEvidence;
    stdErr = estimated.stdErr;
  }
  if (stdErr !== null && family.exact) {
    let maxAbsError = 0;
    let beyondFourStdErr = 0;
    for (let i = 0; i < table.count; i++) {
      const error = Math.abs(scores[i] - table.logEvidence[i]);
      maxAbsError = Math.max(maxAbsError, error);
      if (error > 4 * stdErr[i]) beyondFourStdErr++;
    }
    agreement = { maxAbsError, beyondFourStdErr };
  }
  const scored: SubsetTable = { ...table, logEvidence: scores };
  const reference = indexOfMask(table, 0);
  const comparison = compareSubsets(scored, {
    prior: modelPrior,
    reference,
    top: options.top ?? table.count,
  });
  const listed = subsets === "none" ? [indexOfMask(table, fullMask(p))] : Array.from(comparison.top);
  const models = listed.map(
    (i): LinearModelRow => ({
      inputs: Array.from(subsetMembers(table, i), (j) => names[j]),
      logEvidence: family.givesEvidence ? scores[i] : null,
      stdErr: stdErr === null ? 0 : stdErr[i],
      ...(stdErr !== null && family.exact ? { exactLogEvidence: table.logEvidence[i] } : {}),
      logBayesFactor: comparison.logBayesFactor[i],
      posteriorProbability: subsets === "none" ? 1 : comparison.probability[i],
    }),
  );
  const inclusionProbabilities: Record<string, number> = {};
  names.forEach((name, j) => {
    inclusionProbabilities[name] = subsets === "none" ? 1 : comparison.inclusion[j];
  });
  return {
    ...base,
    modelCount: subsets === "none" ? 1 : table.count,
    ...(estimator === "exact"
      ? {}
      : {
          settings: {
            seed: o.seed,
            ...(estimator === "laplace" ? {} : { samples: o.samples ?? DEFAULT_SAMPLES[estimator] }),
            ...(estimator === "cv" ? { folds: o.folds ?? 5 } : {}),
          },
          agreement,
        }),
    models,
    inclusionProbabilities,
    medianModel: names.filter((name) => inclusionProbabilities[name] >= 0.5),
    seconds: secondsSince(start),
  };
}

function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}

function countSubsets(p: number, maxSize: number): number {
  let count = 0;
  for (let k = 0; k <= maxSize; k++) count += binomial(p, k);
  return count;
}

/** Refuses a run of estimated evidences whose work exceeds MAX_ESTIMATED_MODELS default-size models. */
function checkWork(estimator: Exclude<LinearEstimator, "exact">, models: number, samples?: number): void {
  const scale =
    estimator === "laplace" ? 1 : (samples ?? DEFAULT_SAMPLES[estimator]) / DEFAULT_SAMPLES[estimator];
  const work = models * scale;
  if (work <= MAX_ESTIMATED_MODELS) return;
  const allowed = Math.max(0, Math.floor(MAX_ESTIMATED_MODELS / scale));
  throw new OccamError(
    "invalid-argument",
    `estimating the evidence of ${models} models with ${estimator}` +
      (estimator === "laplace" || samples === undefined ? "" : ` at --samples ${samples}`) +
      ` is too slow (limit ${allowed} models${estimator === "laplace" ? "" : " at that sample size"}); ` +
      "narrow with --subsets max=K or --inputs, or use --estimator exact.",
  );
}

/** The estimator's settings for a sample size (see DEFAULT_SAMPLES). */
function methodOptions(
  estimator: Exclude<LinearEstimator, "exact">,
  samples: number,
  folds: number,
): Omit<EstimateEvidenceOptions, "method" | "seed"> {
  const chains = 4;
  const posterior = { chains, draws: Math.ceil(samples / chains) };
  switch (estimator) {
    case "laplace":
      return {};
    case "importance":
      return { posterior, settings: { samples } };
    case "bridge":
      return { posterior };
    case "stepping-stone":
    case "path":
    case "ais":
    case "smc":
      return { settings: { particles: samples } };
    case "cv":
      // EvidenceMethodSettings omits every `draws` key (meant for posterior draws), also cv's own count
      // of draws per fold; estimateEvidence passes the settings through unchanged, so it arrives.
      return { settings: { folds, draws: samples } as EvidenceMethodSettings["cv"] };
  }
}

/** Runs the estimator on every model of the table, each with its own seed. */
function estimateAll(
  family: PriorFamily,
  table: SubsetTable,
  estimator: Exclude<LinearEstimator, "exact">,
  o: ResolvedOptions,
  onProgress: ((done: number, total: number) => void) | undefined,
): { logEvidence: Float64Array; stdErr: Float64Array } {
  if (family.model === undefined) {
    throw new OccamError(
      "invalid-argument",
      `this prior supports only the exact estimator, not ${estimator}.`,
    );
  }
  const method: EvidenceMethod = estimator;
  const samples = estimator === "laplace" ? 0 : (o.samples ?? DEFAULT_SAMPLES[estimator]);
  const settings = methodOptions(estimator, samples, o.folds ?? 5);
  const logEvidence = new Float64Array(table.count);
  const stdErr = new Float64Array(table.count);
  for (let i = 0; i < table.count; i++) {
    const members = subsetMembers(table, i);
    const model = family.model(members);
    if (model === null) {
      // No weights and no intercept: nothing to sample; the closed form is the only sensible value.
      logEvidence[i] = table.logEvidence[i];
    } else {
      const result = estimateEvidence(model, {
        ...settings,
        method,
        seed: subsetSeed(o.seed, members),
      } as EstimateEvidenceOptions);
      if (!(Number.isFinite(result.logZ) && Number.isFinite(result.stdErr) && result.stdErr >= 0)) {
        throw new OccamError(
          "non-finite",
          `the ${estimator} estimate of the model on {${Array.from(members, (j) => table.names[j]).join(", ")}} ` +
            `is ${result.logZ} ± ${result.stdErr}; try more --samples or another estimator.`,
        );
      }
      logEvidence[i] = result.logZ;
      stdErr[i] = result.stdErr;
    }
    onProgress?.(i + 1, table.count);
  }
  return { logEvidence, stdErr };
}

/** Too many inputs to enumerate: Metropolis–Hastings over subsets, exact evidences of the visited ones. */
function searchByMcmc(
  family: PriorFamily,
  d: PreparedData,
  o: ResolvedOptions,
  top: number | undefined,
): Pick<
  LinearComparison,
  "modelCount" | "settings" | "mcmc" | "models" | "inclusionProbabilities" | "medianModel"
> {
  const { p, names } = d;
  const steps = o.mcmcSteps ?? DEFAULT_MCMC_STEPS;
  const burnIn = Math.ceil(steps / 10);
  const sample = sampleSubsets({
    p,
    logEvidence: (members) => family.score(members),
    rng: createRng(o.seed),
    prior: o.modelPrior,
    iterations: steps,
    burnIn,
  });
  const collection: SubsetCollection = {
    p,
    logEvidence: sample.logEvidence,
    sizes: sample.sizes,
    members: sample.members,
    offsets: sample.offsets,
    names,
  };
  const comparison = compareSubsets(collection, { prior: o.modelPrior, top: top ?? sample.count });
  const nullScore = family.score([]);
  let discrepancy = 0;
  for (let i = 0; i < sample.count; i++) {
    discrepancy += Math.abs(sample.visits[i] / sample.iterations - comparison.probability[i]);
  }
  const models = Array.from(
    comparison.top,
    (i): LinearModelRow => ({
      inputs: Array.from(subsetMembers(collection, i), (j) => names[j]),
      logEvidence: family.givesEvidence ? sample.logEvidence[i] : null,
      stdErr: 0,
      logBayesFactor: sample.logEvidence[i] - nullScore,
      posteriorProbability: comparison.probability[i],
    }),
  );
  const inclusionProbabilities: Record<string, number> = {};
  names.forEach((name, j) => {
    inclusionProbabilities[name] = comparison.inclusion[j];
  });
  return {
    modelCount: sample.count,
    settings: { seed: o.seed },
    mcmc: {
      steps,
      burnIn,
      distinctModels: sample.count,
      acceptanceRate: sample.acceptanceRate,
      frequencyDiscrepancy: 0.5 * discrepancy,
    },
    models,
    inclusionProbabilities,
    medianModel: names.filter((name) => inclusionProbabilities[name] >= 0.5),
  };
}

function range(p: number): number[] {
  return Array.from({ length: p }, (_, j) => j);
}

function fullMask(p: number): number {
  return p >= 32 ? 0xffffffff : (2 ** p - 1) >>> 0;
}

function indexOfMask(table: SubsetTable, mask: number): number {
  for (let i = 0; i < table.count; i++) if (table.masks[i] === mask) return i;
  throw new OccamError("internal", `subset ${mask} is not in the table.`);
}

/** A table of just the given subsets (by their members), scored one by one. */
function singleModels(
  p: number,
  names: readonly string[],
  subsets: readonly number[][],
  score: (members: number[]) => number,
): SubsetTable {
  const masks = Uint32Array.from(subsets, (m) => m.reduce((mask, j) => (mask | (1 << j)) >>> 0, 0));
  return {
    p,
    count: subsets.length,
    masks,
    sizes: Uint8Array.from(subsets, (m) => m.length),
    logEvidence: Float64Array.from(subsets, score),
    names,
  };
}

/** The centred cross-products of X and y, whose subset quadratic forms give each subset's R². */
function centredSystem(
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
): { system: SubsetSystem; yy: number } {
  const xBar = new Float64Array(p);
  let yBar = 0;
  for (let i = 0; i < n; i++) {
    yBar += y[i] / n;
    for (let j = 0; j < p; j++) xBar[j] += X[i * p + j] / n;
  }
  const gram = new Float64Array(p * p);
  const rhs = new Float64Array(p);
  const xc = new Float64Array(p);
  let yy = 0;
  for (let i = 0; i < n; i++) {
    const yc = y[i] - yBar;
    yy += yc * yc;
    for (let j = 0; j < p; j++) xc[j] = X[i * p + j] - xBar[j];
    for (let j = 0; j < p; j++) {
      rhs[j] += xc[j] * yc;
      for (let k = 0; k <= j; k++) gram[j * p + k] += xc[j] * xc[k];
    }
  }
  for (let j = 0; j < p; j++) for (let k = 0; k < j; k++) gram[k * p + j] = gram[j * p + k];
  return { system: { p, fixed: 0, gram, rhs }, yy };
}
