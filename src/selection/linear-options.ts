/**
 * What `compareLinearModels` takes and gives: the priors and estimators it offers, its options and their
 * checks, and the typed result. Kept apart from the computation so that the CLI can describe its options
 * without loading it.
 */
import type { FactorSummary, NewRowsGroups } from "../data/design.js";
import { OccamError } from "../errors.js";
import type { ModelPrior } from "./compare.js";
import {
  G_PRIORS,
  type LinearPrior,
  type LinearPriorName,
  type ResolvedLinearPrior,
  resolveLinearPrior,
} from "./linear-prior.js";

// The prior is part of the options: its type, defaults, schema and check.
export {
  G_PRIORS,
  type GammaPrior,
  LINEAR_PRIOR_DEFAULTS,
  LINEAR_PRIORS,
  type LinearPrior,
  type LinearPriorName,
  linearPriorSchema,
  type ResolvedLinearPrior,
  resolveLinearPrior,
} from "./linear-prior.js";

/**
 * How each model's log evidence is computed: `"exact"` (closed form, or quadrature with a stated error),
 * or one of occam's estimators run on the model (`estimateEvidence` with the method of the same name;
 * `"cv"` is the chain-rule cross-validated evidence). Everything but `"exact"` needs a prior with a
 * sampleable model (NIG, independent).
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
 * hundred rows takes about a second: posterior draws over 4 chains (importance, bridge; importance
 * also draws as many proposal points), particles of the tempered run (stepping-stone, path, ais, smc),
 * posterior draws per fold (cv).
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
 * may be at most this, i.e. at most 128 models at the default sample size (laplace: 128 models).
 */
export const MAX_ESTIMATED_MODELS = 128;

/** Default Metropolis–Hastings steps over subsets when there are too many terms to enumerate. */
export const DEFAULT_MCMC_STEPS = 20000;

/** Models listed by default: all of them up to this many (the JSON document), else the best this many. */
export const DEFAULT_LISTED = 10000;

/** Options of {@link compareLinearModels}. */
export interface CompareLinearOptions {
  /**
   * The prior of each model's coefficients, with its parameters (see {@link LinearPrior}); a name
   * alone is that prior with its defaults ({@link LINEAR_PRIOR_DEFAULTS}).
   * @defaultValue "zellner-siow"
   */
  prior?: LinearPrior | LinearPriorName;
  /** NIG, independent: put an intercept in every model (the g-priors always have one). @defaultValue true */
  intercept?: boolean;
  /**
   * NIG, independent: standardise the candidate columns before the prior applies (the g-priors are
   * invariant to the columns' units, so the option does not apply to them).
   * @defaultValue true
   */
  standardize?: boolean;
  /**
   * Which models: every subset of terms, every subset of at most `max` terms, or only the full model.
   * With "all" and more than MAX_ENUMERATED_INPUTS (25) terms, subsets are sampled by MCMC instead.
   * @defaultValue "all"
   */
  subsets?: "all" | "none" | { max: number };
  /** Prior over models. @defaultValue "uniform" */
  modelPrior?: ModelPrior;
  /** A model holds an interaction only with its main effects (BAS's force.heredity). @defaultValue true */
  heredity?: boolean;
  /**
   * Terms held by every model (BAS's `include.always`), by name: the model prior then applies to the
   * other terms. @defaultValue none
   */
  always?: readonly string[];
  /** List only the best `top` models. @defaultValue all, up to DEFAULT_LISTED */
  top?: number;
  /**
   * How each model's log evidence is computed (see {@link LinearEstimator}).
   * @defaultValue "exact", or "stepping-stone" under the independent prior
   */
  estimator?: LinearEstimator;
  /** The sample size of a sampled estimator (see {@link DEFAULT_SAMPLES}). @defaultValue DEFAULT_SAMPLES[estimator] */
  samples?: number;
  /** Number of folds G of the cv estimator (2 ≤ G ≤ n). @defaultValue 5 */
  folds?: number;
  /**
   * Seed of everything random: model i's estimator runs with {@link subsetSeed}(seed, its terms), the
   * MCMC over subsets and the probability intervals with `seed` itself.
   * @defaultValue 1
   */
  seed?: number;
  /** Metropolis–Hastings steps kept when subsets are sampled by MCMC. @defaultValue 20000 */
  mcmcSteps?: number;
  /** Called after each estimated model (sampled estimators only) with the count done and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * New rows at which to predict: `rows` × the design's columns, row-major, coded as the training rows
   * (factors by their training levels). The result then holds the model-averaged predictions (every
   * prior but the independent one, which has no closed-form predictive).
   */
  predict?: {
    readonly X: Float64Array;
    readonly rows: number;
    /** With random terms: the new rows' groups and slope values, by the term's name (`(1 | g)`). */
    readonly groups?: Readonly<Record<string, NewRowsGroups>>;
  };
}

/** The model-averaged prediction at one new row, with central 90 % intervals. */
export interface LinearPrediction {
  /** The predictive mean (of the mean response and of a new observation alike). */
  readonly mean: number;
  /** The interval of the mean response E[y | x], the regression at x. */
  readonly lower: number;
  readonly upper: number;
  /** The interval of a new observation y at x (the noise included). */
  readonly observationLower: number;
  readonly observationUpper: number;
}

/** One model of a comparison. */
export interface LinearModelRow {
  /** Its terms (inputs, factors, interactions); [] is the intercept-only model. */
  inputs: string[];
  /** R² of its least-squares fit. */
  rSquared: number;
  /** log p(y | M) in nats (the estimate, for a sampled estimator); null under the g-priors. */
  logEvidence: number | null;
  /** The standard error of `logEvidence`: 0 for an exact value, null where `logEvidence` is. */
  stdErr: number | null;
  /** The exact log evidence, present only when `logEvidence` is an estimate and the exact value is known. */
  exactLogEvidence?: number;
  /** Against the intercept-only model. */
  logBayesFactor: number;
  /** √(s² + s_0²) with a sampled estimator (s_0: the intercept-only model's standard error). */
  logBayesFactorStdErr?: number;
  /** Against the most probable model (≤ 0 for every other model under a uniform model prior). */
  logBayesFactorVsBest: number;
  /** √(s² + s_best²) with a sampled estimator (0 for the best model itself). */
  logBayesFactorVsBestStdErr?: number;
  posteriorProbability: number;
  /** With a sampled estimator: the 5 % and 95 % quantiles of the probability over the evidences' errors. */
  probabilityInterval?: [number, number];
  /** For a model with random terms: false when its sampled evidence may be wrong, with `warnings` saying why. */
  reliable?: boolean;
  warnings?: string[];
}

/** One design column's coefficient, averaged over the models. */
export interface CoefficientSummary {
  /** The column: an input, `factor=level`, or an interaction's column. */
  name: string;
  /** The inclusion probability of the term the column belongs to. */
  inclusionProbability: number;
  /** Model-averaged posterior mean (0 in models without it), in units of the target per unit of the column. */
  mean: number | null;
  /** Model-averaged posterior standard deviation; null when the prior has no closed-form posterior. */
  sd: number | null;
}

/** What an MCMC search over subsets did. */
export interface SubsetSearchSummary {
  steps: number;
  burnIn: number;
  distinctModels: number;
  acceptanceRate: number;
  /**
   * Total-variation distance between the visit frequencies and the renormalised posterior
   * probabilities over the visited models: near 0 when the chain has mixed.
   */
  frequencyDiscrepancy: number;
}

/** The prior of a comparison, with its settings. */
export type LinearPriorSummary =
  | { name: "zellner-siow"; r: number }
  | { name: "g-prior"; g: number }
  | { name: "hyper-g" | "hyper-g-n"; a: number }
  | { name: "nig"; v: number; a: number; b: number; standardized: boolean }
  | {
      name: "independent";
      /** The Gamma priors (shape, scale) of the noise precision and of the weights' shared precision. */
      noise: { shape: number; scale: number };
      weights: { shape: number; scale: number };
      standardized: boolean;
    };

/** The result of {@link compareLinearModels}, as `occam compare --json` prints it. */
export interface LinearComparison {
  family: "linear";
  prior: LinearPriorSummary;
  estimator: LinearEstimator;
  /** "enumerated": every subset asked for was scored; "mcmc": the models an MCMC over subsets visited. */
  search: "enumerated" | "mcmc";
  n: number;
  /** The candidate terms. */
  inputs: string[];
  intercept: boolean;
  /** Whether the columns were standardised before the prior applied (NIG, independent). */
  standardized: boolean;
  modelPrior: ModelPrior;
  heredity: boolean;
  /** The terms every model holds (`always`); the model prior is over the others. */
  always: string[];
  /** Number of models compared. */
  modelCount: number;
  /** The seed and sample sizes, present when anything was random. */
  settings?: { seed: number; samples?: number; folds?: number };
  /** How estimates compare with exact log evidences (a sampled estimator under NIG). */
  agreement?: { maxAbsError: number; beyondFourStdErr: number };
  /**
   * Mixtures of g-priors: how their Bayes factors were computed — tabulated panels (each with a proven
   * error bound) and direct quadratures — and the largest error bound of any value used.
   */
  quadrature?: { panels: number; directEvaluations: number; maxError: number };
  mcmc?: SubsetSearchSummary;
  models: LinearModelRow[];
  inclusionProbabilities: Record<string, number>;
  coefficients: CoefficientSummary[];
  factors: FactorSummary[];
  /** Terms whose inclusion probability is at least ½. */
  medianModel: string[];
  /** The model-averaged predictions at the `predict` rows, when asked for. */
  predictions?: LinearPrediction[];
  seconds: number;
}

/** {@link CompareLinearOptions} checked, with their defaults filled in. */
export interface ResolvedLinearOptions {
  prior: ResolvedLinearPrior;
  intercept: boolean;
  standardize: boolean;
  modelPrior: ModelPrior;
  heredity: boolean;
  subsets: "all" | "none" | { max: number };
  estimator: LinearEstimator;
  samples: number | undefined;
  folds: number | undefined;
  seed: number;
  mcmcSteps: number | undefined;
  /** The indices of the terms every model holds: [] here, resolved against the design by `prepareLinearComparison`. */
  always: readonly number[];
}

/** Options that only the priors with a sampleable model (NIG, independent) take. */
const SAMPLEABLE_PRIOR_OPTIONS = ["intercept", "standardize"] as const;

/** The prior's parameters as options of their own, as earlier versions took them. */
const LOOSE_PRIOR_FIELDS = ["v", "a", "b", "r", "hyperA", "alpha", "beta", "alphaW", "betaW"] as const;

/**
 * Refuses a prior parameter given beside `prior` rather than inside it: from JavaScript it would
 * otherwise be ignored, and the comparison run under the default instead of the prior asked for.
 */
function refuseLoosePriorFields(options: CompareLinearOptions): void {
  const given = LOOSE_PRIOR_FIELDS.filter((key) => (options as Record<string, unknown>)[key] !== undefined);
  if (given.length === 0) return;
  const what =
    given.length === 1
      ? `${given[0]} is a parameter of the prior, not an option of its own: give it`
      : `${given.join(", ")} are parameters of the prior, not options of their own: give them`;
  throw new OccamError(
    "invalid-argument",
    `compareLinearModels: ${what} inside prior, e.g. { prior: { name: "nig", v: 100 } } (see docs/choosing-a-prior.md).`,
  );
}

/**
 * Checks the options of {@link compareLinearModels} and fills their defaults: throws an
 * `invalid-argument` OccamError for an unknown prior or estimator, an option that does not apply to the
 * chosen prior or estimator, and a bad number.
 */
export function resolveLinearOptions(options: CompareLinearOptions): ResolvedLinearOptions {
  const bad = (message: string) => new OccamError("invalid-argument", message);
  refuseLoosePriorFields(options);
  const prior = resolveLinearPrior(options.prior);
  for (const key of SAMPLEABLE_PRIOR_OPTIONS) {
    if (options[key] !== undefined && G_PRIORS.includes(prior.name)) {
      throw bad(
        `${key} applies only to the nig and independent priors, not to ${prior.name}` +
          (key === "standardize" ? ": that prior is invariant to the columns' units." : "."),
      );
    }
  }
  const subsets = options.subsets ?? "all";
  if (subsets !== "all" && subsets !== "none" && !(Number.isInteger(subsets.max) && subsets.max >= 1)) {
    throw bad(`the largest subset size must be a whole number of at least 1, got ${subsets.max}.`);
  }
  const estimator = options.estimator ?? (prior.name === "independent" ? "stepping-stone" : "exact");
  if (!LINEAR_ESTIMATORS.includes(estimator)) {
    throw bad(`unknown estimator "${String(estimator)}"; choose one of: ${LINEAR_ESTIMATORS.join(", ")}.`);
  }
  if (prior.name === "independent" && estimator === "exact") {
    throw bad(
      "the independent-precision prior has no closed-form evidence; choose a sampled estimator (stepping-stone, the default, path, ais, smc, bridge, importance, cv or laplace).",
    );
  }
  if (G_PRIORS.includes(prior.name) && estimator !== "exact") {
    throw bad(
      `the ${prior.name} prior gives only exact Bayes factors (it has no sampleable model here); drop --estimator ${estimator} or use --prior nig.`,
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
  if (options.top !== undefined && !(Number.isInteger(options.top) && options.top >= 1)) {
    throw bad(`--top must be a whole number of at least 1, got ${options.top}.`);
  }
  return {
    prior,
    intercept: options.intercept ?? true,
    standardize: options.standardize ?? true,
    modelPrior: options.modelPrior ?? "uniform",
    heredity: options.heredity ?? true,
    subsets,
    estimator,
    samples,
    folds,
    seed,
    mcmcSteps,
    always: [],
  };
}

/** True when a comparison's evidences carry standard errors: a sampled estimator, or models with random terms. */
export function hasSampledEvidences(result: Pick<LinearComparison, "estimator" | "models">): boolean {
  return result.estimator !== "exact" || result.models.some((m) => m.probabilityInterval !== undefined);
}

/** The sentence that says how a comparison's evidences were estimated, or undefined when they are exact. */
export function sampledEvidencesNote(result: LinearComparison): string | undefined {
  if (result.estimator !== "exact") {
    return `Log evidences estimated by ${result.estimator}; probabilities carry 90 % intervals over the estimates' errors.`;
  }
  if (!hasSampledEvidences(result)) return undefined;
  const unreliable = result.models.filter((m) => m.reliable === false).length;
  return (
    `Models with random terms: log Bayes factors by importance sampling over g and the terms' scales (seed ${result.settings?.seed}); ` +
    "Bayes factors carry their standard errors and probabilities 90 % intervals over them." +
    (unreliable > 0
      ? ` ${unreliable} listed model${unreliable === 1 ? "'s" : "s'"} estimate may be wrong (marked ‼).`
      : "")
  );
}
