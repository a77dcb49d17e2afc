import type { NumericTable } from "../data/csv.js";
import { type FactorSummary, type LinearData, numericDesign } from "../data/design.js";
import { OccamError } from "../errors.js";
import {
  type EstimateEvidenceOptions,
  type EvidenceMethodSettings,
  estimateEvidence,
} from "../evidence/estimate.js";
import type { SubsetFamily } from "../models/family.js";
import { type CentredStatistics, centredStatistics } from "../models/linear/design.js";
import { gPriorsFamily, unitInformationScorer } from "../models/linear/g-prior.js";
import type { GTableStats } from "../models/linear/g-table.js";
import { HYPER_G_DEFAULT_A, hyperGFamily } from "../models/linear/hyper-g.js";
import { independentFamily } from "../models/linear/independent.js";
import { nigFamily } from "../models/linear/nig-subsets.js";
import { binomial } from "../models/linear/subsets.js";
import { ZELLNER_SIOW_MEDIUM_SCALE, zellnerSiowFamily } from "../models/linear/zellner-siow.js";
import { createRng } from "../random/rng.js";
import { logModelPrior, type ModelPrior, probabilityIntervals } from "./compare.js";
import {
  hereditaryFilter,
  MAX_ENUMERATED_INPUTS,
  type SubsetSummary,
  sampleSubsets,
  searchSubsets,
  summarizeSubsets,
} from "./subsets.js";

/** The priors over each model's coefficients that {@link compareLinearModels} offers. */
export type LinearPrior = "zellner-siow" | "g-prior" | "hyper-g" | "hyper-g-n" | "nig" | "independent";

/** Every prior {@link compareLinearModels} accepts, the default first. */
export const LINEAR_PRIORS: readonly LinearPrior[] = [
  "zellner-siow",
  "g-prior",
  "hyper-g",
  "hyper-g-n",
  "nig",
  "independent",
];

/** The g-priors: scale-free, an intercept with a flat prior, Bayes factors against the intercept-only model. */
const G_PRIORS: readonly LinearPrior[] = ["zellner-siow", "g-prior", "hyper-g", "hyper-g-n"];

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
 * hundred rows takes well under a second (smc about 1.5 s): posterior draws over 4 chains (importance,
 * bridge; importance also draws as many proposal points), draws per temperature (stepping-stone,
 * path), particles (ais, smc), posterior draws per fold (cv).
 */
export const DEFAULT_SAMPLES: Readonly<Record<SampledLinearEstimator, number>> = Object.freeze({
  importance: 4000,
  bridge: 4000,
  "stepping-stone": 500,
  path: 500,
  ais: 200,
  smc: 200,
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

/** Draws of the evidences from their sampling distributions behind each probability interval. */
const INTERVAL_DRAWS = 4000;

/** Options of {@link compareLinearModels}. */
export interface CompareLinearOptions {
  /**
   * The prior of each model's coefficients (see docs/choosing-a-prior.md).
   * @defaultValue "zellner-siow"
   */
  prior?: LinearPrior;
  /** NIG: prior scale v of every coefficient, w | σ² ~ N(0, σ² v I). @defaultValue 10000 */
  v?: number;
  /** NIG: shape of the inverse-gamma prior of σ². @defaultValue 1 */
  a?: number;
  /** NIG: scale of the inverse-gamma prior of σ². @defaultValue 1 */
  b?: number;
  /** Zellner–Siow: prior scale r, g ~ InverseGamma(½, r²n/2). @defaultValue √2/4 */
  r?: number;
  /** hyper-g, hyper-g/n: the prior's a > 2. @defaultValue 3 */
  hyperA?: number;
  /** Independent: shape of the Gamma prior of the noise precision τ. @defaultValue 1/2 */
  alpha?: number;
  /** Independent: scale of the Gamma prior of τ. @defaultValue 200 */
  beta?: number;
  /** Independent: shape of the Gamma prior of the weights' shared precision τ_w. @defaultValue 1/4 */
  alphaW?: number;
  /** Independent: scale of the Gamma prior of τ_w. @defaultValue 1600 */
  betaW?: number;
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
}

/** One model of a comparison. */
export interface LinearModelRow {
  /** Its terms (inputs, factors, interactions); [] is the intercept-only model. */
  inputs: string[];
  /** R² of its least-squares fit. */
  rSquared: number;
  /** log p(y | M) in nats (the estimate, for a sampled estimator); null under the g-priors. */
  logEvidence: number | null;
  /** The estimator's standard error; 0 for exact values. */
  stdErr: number;
  /** The exact log evidence, present only when `logEvidence` is an estimate and the exact value is known. */
  exactLogEvidence?: number;
  /** Against the intercept-only model. */
  logBayesFactor: number;
  /** Against the most probable model (≤ 0 for every other model under a uniform model prior). */
  logBayesFactorVsBest: number;
  /** √(s² + s_best²) with a sampled estimator (0 for the best model itself). */
  logBayesFactorVsBestStdErr?: number;
  posteriorProbability: number;
  /** With a sampled estimator: the 5 % and 95 % quantiles of the probability over the evidences' errors. */
  probabilityInterval?: [number, number];
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
      alpha: number;
      beta: number;
      alphaW: number;
      betaW: number;
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
  seconds: number;
}

interface ResolvedOptions {
  prior: LinearPrior;
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
}

/** The options that belong to each prior: any other prior refuses them. */
const PRIOR_OPTIONS: Record<string, readonly LinearPrior[]> = {
  v: ["nig"],
  a: ["nig"],
  b: ["nig"],
  r: ["zellner-siow"],
  hyperA: ["hyper-g", "hyper-g-n"],
  alpha: ["independent"],
  beta: ["independent"],
  alphaW: ["independent"],
  betaW: ["independent"],
  intercept: ["nig", "independent"],
  standardize: ["nig", "independent"],
};

const FLAG: Record<string, string> = {
  hyperA: "hyper-g's a",
  alphaW: "--alpha-w",
  betaW: "--beta-w",
  intercept: "--no-intercept",
};

function resolveOptions(options: CompareLinearOptions): ResolvedOptions {
  const bad = (message: string) => new OccamError("invalid-argument", message);
  const prior = options.prior ?? "zellner-siow";
  if (!LINEAR_PRIORS.includes(prior)) {
    throw bad(`unknown prior "${String(prior)}"; choose one of: ${LINEAR_PRIORS.join(", ")}.`);
  }
  for (const [key, priors] of Object.entries(PRIOR_OPTIONS)) {
    const value = options[key as keyof CompareLinearOptions];
    if (value !== undefined && !priors.includes(prior)) {
      throw bad(
        `${FLAG[key] ?? `--${key}`} applies only to --prior ${priors.join(" or ")}, not to ${prior}` +
          (key === "standardize" ? ": that prior is invariant to the columns' units." : "."),
      );
    }
  }
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
  if (G_PRIORS.includes(prior) && estimator !== "exact") {
    throw bad(
      `the ${prior} prior gives only exact Bayes factors (it has no sampleable model here); drop --estimator ${estimator} or use --prior nig.`,
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
  };
}

/** The family of the chosen prior over the design's terms, and the summary of the prior. */
function buildFamily(
  data: LinearData,
  stats: CentredStatistics,
  o: ResolvedOptions,
  options: CompareLinearOptions,
  tables: GTableStats,
): { family: SubsetFamily; summary: LinearPriorSummary } {
  const { design } = data;
  const { intercept, standardize } = o;
  switch (o.prior) {
    case "zellner-siow": {
      const r = options.r ?? ZELLNER_SIOW_MEDIUM_SCALE;
      return {
        family: zellnerSiowFamily(design, stats, { r, tables }),
        summary: { name: "zellner-siow", r },
      };
    }
    case "g-prior":
      return {
        family: gPriorsFamily(design, stats, unitInformationScorer(design.n)),
        summary: { name: "g-prior", g: design.n },
      };
    case "hyper-g":
    case "hyper-g-n": {
      const a = options.hyperA ?? HYPER_G_DEFAULT_A;
      const perN = o.prior === "hyper-g-n";
      return { family: hyperGFamily(design, stats, { a, perN, tables }), summary: { name: o.prior, a } };
    }
    case "nig": {
      const v = options.v ?? 1e4;
      const a = options.a ?? 1;
      const b = options.b ?? 1;
      return {
        family: nigFamily(design, stats, { v, a, b, intercept, standardize }),
        summary: { name: "nig", v, a, b, standardized: standardize },
      };
    }
    case "independent": {
      const hyper = {
        alpha: options.alpha ?? 0.5,
        beta: options.beta ?? 200,
        alphaW: options.alphaW ?? 0.25,
        betaW: options.betaW ?? 1600,
      };
      for (const [name, value] of Object.entries(hyper)) {
        if (!(Number.isFinite(value) && value > 0)) {
          throw new OccamError("invalid-argument", `--${name} must be a finite number > 0, got ${value}.`);
        }
      }
      return {
        family: independentFamily(design, stats, hyper, intercept, standardize),
        summary: { name: "independent", ...hyper, standardized: standardize },
      };
    }
  }
}

/**
 * Compares linear regressions of the target on subsets of the candidate terms (inputs, factors,
 * interactions) by their evidence under one prior, and returns posterior model probabilities, Bayes
 * factors against the best and the intercept-only model, R², each term's inclusion probability and each
 * coefficient's model-averaged posterior mean and standard deviation.
 *
 * - Exact scores (every prior but the independent one): all subsets are streamed through a running
 *   summary (`searchSubsets`), in memory independent of their number; with more than
 *   MAX_ENUMERATED_INPUTS terms they are sampled by Metropolis–Hastings and the visited models'
 *   probabilities are their exact scores renormalised over them (`search: "mcmc"`).
 * - A sampled `estimator` (NIG, independent): each model's evidence is estimated with a seed hashed from
 *   the seed and the model ({@link subsetSeed}); Bayes factors carry standard errors and probabilities
 *   90 % intervals over the evidences' errors. At most {@link MAX_ESTIMATED_MODELS} models.
 */
export function compareLinearModels(
  input: NumericTable | LinearData,
  options: CompareLinearOptions = {},
): LinearComparison {
  const start = performance.now();
  const o = resolveOptions(options);
  const data = "design" in input ? input : numericDesign(input);
  const { design } = data;
  const p = design.terms.length;
  if (p === 0) {
    throw new OccamError(
      "invalid-data",
      "there are no candidate inputs: give the CSV at least one column besides the target, or name some with --inputs or --formula.",
    );
  }
  const stats = centredStatistics(design);
  const tables: GTableStats = { panels: 0, directEvaluations: 0, maxError: 0 };
  const { family, summary } = buildFamily(data, stats, o, options, tables);
  const search: LinearComparison["search"] =
    o.subsets === "all" && p > MAX_ENUMERATED_INPUTS ? "mcmc" : "enumerated";
  if (search !== "mcmc" && o.mcmcSteps !== undefined) {
    throw new OccamError(
      "invalid-argument",
      `--mcmc-steps applies only when subsets are sampled (--subsets all with more than ${MAX_ENUMERATED_INPUTS} inputs); these ${p} inputs are enumerated exactly.`,
    );
  }
  const top = options.top ?? DEFAULT_LISTED;
  let result: Ranked;
  if (o.estimator !== "exact") result = estimated(family, o, top, options.onProgress);
  else if (search === "mcmc") result = sampled(family, o, top);
  else result = enumerated(family, o, top);
  const { summary: s } = result;
  const nullScore = family.exact ? family.score([]) : Number.NaN;
  const bestScore = s.top[0].score;
  const termNames = design.terms.map((t) => t.name);
  const models = s.top.map((m, i): LinearModelRow => {
    const e = result.errors?.[i];
    return {
      inputs: Array.from(m.members, (t) => termNames[t]),
      rSquared: family.rSquared(m.members),
      logEvidence: family.givesEvidence ? m.score : null,
      stdErr: e?.stdErr ?? 0,
      ...(e?.exact === undefined ? {} : { exactLogEvidence: e.exact }),
      logBayesFactor: m.score - (e?.nullScore ?? nullScore),
      logBayesFactorVsBest: m.score - bestScore,
      ...(e === undefined ? {} : { logBayesFactorVsBestStdErr: e.vsBestStdErr }),
      posteriorProbability: Math.exp(m.logPosterior),
      ...(e === undefined ? {} : { probabilityInterval: e.interval }),
    };
  });
  const inclusionProbabilities: Record<string, number> = {};
  termNames.forEach((name, t) => {
    inclusionProbabilities[name] = s.inclusion[t];
  });
  const termOf = new Int32Array(design.columns);
  design.terms.forEach((t, j) => {
    for (const c of t.columns) termOf[c] = j;
  });
  const coefficients = design.columnNames.map((name, c) => ({
    name,
    inclusionProbability: s.inclusion[termOf[c]],
    mean: Number.isFinite(s.coefficientMean[c]) ? s.coefficientMean[c] : null,
    sd: Number.isFinite(s.coefficientSd[c]) ? s.coefficientSd[c] : null,
  }));
  const random = o.estimator !== "exact" || search === "mcmc";
  return {
    family: "linear",
    prior: summary,
    estimator: o.estimator,
    search,
    n: design.n,
    inputs: termNames,
    intercept: G_PRIORS.includes(o.prior) || o.intercept,
    standardized: (o.prior === "nig" || o.prior === "independent") && o.standardize,
    modelPrior: o.modelPrior,
    heredity: o.heredity,
    modelCount: s.count,
    ...(random ? { settings: { seed: o.seed, ...result.settings } } : {}),
    ...(result.agreement === undefined ? {} : { agreement: result.agreement }),
    ...(tables.panels + tables.directEvaluations > 0 ? { quadrature: { ...tables } } : {}),
    ...(result.mcmc === undefined ? {} : { mcmc: result.mcmc }),
    models,
    inclusionProbabilities,
    coefficients,
    factors: data.factors,
    medianModel: termNames.filter((_, t) => s.inclusion[t] >= 0.5),
    seconds: (performance.now() - start) / 1000,
  };
}

/** A run's summary, and with a sampled estimator the errors of each listed model. */
interface Ranked {
  summary: SubsetSummary;
  errors?: {
    stdErr: number;
    exact?: number;
    nullScore: number;
    vsBestStdErr: number;
    interval: [number, number];
  }[];
  settings?: { samples?: number; folds?: number };
  agreement?: { maxAbsError: number; beyondFourStdErr: number };
  mcmc?: SubsetSearchSummary;
}

/** The subsets asked for, as ascending term lists (only for a few models: sampled estimators). */
function listSubsets(p: number, which: ResolvedOptions["subsets"]): number[][] {
  if (which === "none") return [Array.from({ length: p }, (_, j) => j)];
  const maxSize = which === "all" ? p : Math.min(which.max, p);
  const out: number[][] = [];
  const grow = (from: number, chosen: number[]) => {
    out.push([...chosen]);
    if (chosen.length === maxSize) return;
    for (let j = from; j < p; j++) grow(j + 1, [...chosen, j]);
  };
  grow(0, []);
  return out;
}

function enumerated(family: SubsetFamily, o: ResolvedOptions, top: number): Ranked {
  const p = family.terms.length;
  if (o.subsets === "none") {
    const members = Array.from({ length: p }, (_, j) => j);
    return { summary: summarizeSubsets(family, [{ members, score: family.score(members) }], { top }) };
  }
  const maxSize = o.subsets === "all" ? p : Math.min(o.subsets.max, p);
  return {
    summary: searchSubsets(family, { maxSize, prior: o.modelPrior, top, heredity: o.heredity }),
  };
}

/** Too many terms to enumerate: Metropolis–Hastings over subsets, exact scores of the visited ones. */
function sampled(family: SubsetFamily, o: ResolvedOptions, top: number): Ranked {
  const p = family.terms.length;
  const steps = o.mcmcSteps ?? DEFAULT_MCMC_STEPS;
  const burnIn = Math.ceil(steps / 10);
  const sample = sampleSubsets({
    p,
    logEvidence: (members) => family.score(members),
    rng: createRng(o.seed),
    prior: o.modelPrior,
    iterations: steps,
    burnIn,
    allowed: hereditaryFilter(family, o.heredity),
  });
  const visited = Array.from({ length: sample.count }, (_, i) => ({
    members: sample.members.subarray(sample.offsets[i], sample.offsets[i + 1]),
    score: sample.logEvidence[i],
  }));
  const summary = summarizeSubsets(family, visited, { prior: o.modelPrior, top });
  let discrepancy = 0;
  for (let i = 0; i < sample.count; i++) {
    const logPost =
      visited[i].score + logModelPrior(o.modelPrior, p, visited[i].members.length) - summary.logNormaliser;
    discrepancy += Math.abs(sample.visits[i] / sample.iterations - Math.exp(logPost));
  }
  return {
    summary,
    mcmc: {
      steps,
      burnIn,
      distinctModels: sample.count,
      acceptanceRate: sample.acceptanceRate,
      frequencyDiscrepancy: 0.5 * discrepancy,
    },
  };
}

/** Each listed model's evidence by a sampled estimator, with the errors carried to Bayes factors and probabilities. */
function estimated(
  family: SubsetFamily,
  o: ResolvedOptions,
  top: number,
  onProgress: ((done: number, total: number) => void) | undefined,
): Ranked {
  const p = family.terms.length;
  if (o.subsets === "all" && p > MAX_ENUMERATED_INPUTS) {
    throw new OccamError(
      "invalid-argument",
      `${p} inputs are too many to enumerate, and sampling subsets needs exact evidences; use the exact estimator, or narrow with --subsets max=K or --inputs to estimate with ${o.estimator}.`,
    );
  }
  const estimator = o.estimator as Exclude<LinearEstimator, "exact">;
  const parents = hereditaryFilter(family, o.heredity);
  const subsets = listSubsets(p, o.subsets).filter(
    (m) =>
      parents === undefined || parents(Uint8Array.from({ length: p }, (_, j) => (m.includes(j) ? 1 : 0))),
  );
  checkWork(estimator, subsets.length, o.samples);
  const samples = estimator === "laplace" ? 0 : (o.samples ?? DEFAULT_SAMPLES[estimator]);
  const settings = methodOptions(estimator, samples, o.folds ?? 5);
  const scores = new Float64Array(subsets.length);
  const stdErr = new Float64Array(subsets.length);
  subsets.forEach((members, i) => {
    const model = family.model?.(members) ?? null;
    if (model === null) {
      scores[i] = family.exact ? family.score(members) : Number.NaN;
      if (!Number.isFinite(scores[i])) {
        throw new OccamError("invalid-argument", "a model without coefficients needs an intercept here.");
      }
    } else {
      const r = estimateEvidence(model, {
        ...settings,
        method: estimator,
        seed: subsetSeed(o.seed, members),
      });
      if (!(Number.isFinite(r.logZ) && Number.isFinite(r.stdErr) && r.stdErr >= 0)) {
        throw new OccamError(
          "non-finite",
          `the ${estimator} estimate of the model on {${members.map((t) => family.terms[t].name).join(", ")}} is ${r.logZ} ± ${r.stdErr}; try more --samples or another estimator.`,
        );
      }
      scores[i] = r.logZ;
      stdErr[i] = r.stdErr;
    }
    onProgress?.(i + 1, subsets.length);
  });
  const listed = subsets.map((members, i) => ({ members, score: scores[i] }));
  const summary = summarizeSubsets(family, listed, {
    prior: o.modelPrior,
    top: Math.min(top, subsets.length),
  });
  const indexOf = new Map(subsets.map((m, i) => [m.join(","), i]));
  const at = (members: ArrayLike<number>) => indexOf.get(Array.from(members).join(",")) as number;
  const logPrior = subsets.map((m) => logModelPrior(o.modelPrior, p, m.length));
  const intervals = probabilityIntervals(
    Float64Array.from(scores, (s, i) => s + logPrior[i]),
    stdErr,
    createRng(o.seed),
    INTERVAL_DRAWS,
  );
  const best = at(summary.top[0].members);
  const empty = indexOf.get("");
  let agreement: Ranked["agreement"];
  const exact = family.exact ? subsets.map((m) => family.score(m)) : null;
  if (exact !== null) {
    let maxAbsError = 0;
    let beyondFourStdErr = 0;
    exact.forEach((x, i) => {
      const error = Math.abs(scores[i] - x);
      maxAbsError = Math.max(maxAbsError, error);
      if (error > 4 * stdErr[i]) beyondFourStdErr++;
    });
    agreement = { maxAbsError, beyondFourStdErr };
  }
  const errors = summary.top.map((m) => {
    const i = at(m.members);
    return {
      stdErr: stdErr[i],
      ...(exact === null ? {} : { exact: exact[i] }),
      nullScore: empty === undefined ? Number.NaN : scores[empty],
      vsBestStdErr: i === best ? 0 : Math.hypot(stdErr[i], stdErr[best]),
      interval: [intervals.lower[i], intervals.upper[i]] as [number, number],
    };
  });
  return {
    summary,
    errors,
    settings: {
      ...(estimator === "laplace" ? {} : { samples }),
      ...(estimator === "cv" ? { folds: o.folds ?? 5 } : {}),
    },
    agreement,
  };
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
      return { settings: { drawsPerTemperature: samples } };
    case "ais":
    case "smc":
      return { settings: { particles: samples } };
    case "cv":
      // EvidenceMethodSettings omits every `draws` key (meant for posterior draws), also cv's own count
      // of draws per fold; estimateEvidence passes the settings through unchanged, so it arrives.
      return { settings: { folds, draws: samples } as EvidenceMethodSettings["cv"] };
  }
}
