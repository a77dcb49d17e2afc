/**
 * `compareLinearModels` with a sampled estimator: each model's log evidence estimated by one of occam's
 * evidence estimators, with a seed of its own, and the estimates' standard errors carried to the Bayes
 * factors and (as 90 % intervals) to the posterior probabilities.
 */
import { OccamError } from "../errors.js";
import {
  type EstimateEvidenceOptions,
  type EvidenceMethodSettings,
  estimateEvidence,
} from "../evidence/estimate.js";
import type { SubsetFamily } from "../models/family.js";
import { createRng } from "../random/rng.js";
import { logModelPrior, probabilityIntervals } from "./compare.js";
import {
  DEFAULT_SAMPLES,
  type LinearEstimator,
  MAX_ESTIMATED_MODELS,
  type ResolvedLinearOptions,
  type SubsetSearchSummary,
} from "./linear-options.js";
import { hereditaryFilter } from "./model-space.js";
import { MAX_ENUMERATED_INPUTS, type SubsetSummary, summarizeSubsets } from "./subsets.js";

/** Draws of the evidences from their sampling distributions behind each probability interval. */
const INTERVAL_DRAWS = 4000;

/** A run's summary, and with a sampled estimator the errors of each listed model. */
export interface Ranked {
  summary: SubsetSummary;
  errors?: {
    stdErr: number;
    exact?: number;
    nullScore: number;
    nullStdErr: number;
    vsBestStdErr: number;
    interval: [number, number];
  }[];
  settings?: { samples?: number; folds?: number };
  /** Models whose evidence may be wrong (by their ascending term lists joined with commas), and why. */
  unreliable?: ReadonlyMap<string, readonly string[]>;
  /** The family the ranking scored with, when it is not the comparison's own (models with random terms). */
  family?: SubsetFamily;
  agreement?: { maxAbsError: number; beyondFourStdErr: number };
  mcmc?: SubsetSearchSummary;
}

/** The subsets asked for, as ascending term lists (only for a few models: sampled estimators). */
function listSubsets(p: number, which: ResolvedLinearOptions["subsets"]): number[][] {
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

/**
 * What a run of estimated evidences will compute: the listed subsets (ascending term lists), then any
 * other model it needs (the intercept-only model, the reference of the Bayes factors, when not listed).
 */
export interface EstimationPlan {
  readonly estimator: Exclude<LinearEstimator, "exact">;
  /** The models compared. */
  readonly subsets: readonly number[][];
  /** `subsets` followed by the models needed besides: each is estimated once. */
  readonly estimated: readonly number[][];
}

/**
 * Lists the models of a run of estimated evidences and checks that the work is within
 * MAX_ESTIMATED_MODELS default-size models times `capacity` (the number of workers sharing it; Infinity
 * lifts the limit).
 */
export function planEstimation(family: SubsetFamily, o: ResolvedLinearOptions, capacity = 1): EstimationPlan {
  const p = family.terms.length;
  if (o.subsets === "all" && p > MAX_ENUMERATED_INPUTS) {
    throw new OccamError(
      "invalid-argument",
      `${p} inputs are too many to enumerate, and sampling subsets needs exact evidences; use the exact estimator, or narrow with --subsets max=K or --inputs to estimate with ${o.estimator}.`,
    );
  }
  const estimator = o.estimator as Exclude<LinearEstimator, "exact">;
  const subsets = listedSubsets(family, o);
  checkWork(estimator, subsets.length, o.samples, capacity);
  return { estimator, subsets, estimated: withNullModel(subsets) };
}

/** The subsets `o` asks for (ascending term lists), those holding the `--always` terms and, with heredity, their parents. */
export function listedSubsets(family: SubsetFamily, o: ResolvedLinearOptions): number[][] {
  const p = family.terms.length;
  const parents = hereditaryFilter(family, o.heredity);
  return listSubsets(p, o.subsets).filter(
    (m) =>
      o.always.every((t) => m.includes(t)) &&
      (parents === undefined || parents(Uint8Array.from({ length: p }, (_, j) => (m.includes(j) ? 1 : 0)))),
  );
}

/** `subsets`, followed by the intercept-only model (the reference of the Bayes factors) when it is not among them. */
export function withNullModel(subsets: number[][]): number[][] {
  return subsets.some((m) => m.length === 0) ? subsets : [...subsets, []];
}

/** The estimator's function of a subset: its log evidence and standard error (see {@link evidenceEstimator}). */
export function subsetEstimator(
  family: SubsetFamily,
  o: ResolvedLinearOptions,
): (members: number[]) => [number, number] {
  const estimator = o.estimator as Exclude<LinearEstimator, "exact">;
  const samples = estimator === "laplace" ? 0 : (o.samples ?? DEFAULT_SAMPLES[estimator]);
  return evidenceEstimator(family, estimator, methodOptions(estimator, samples, o.folds ?? 5), o.seed);
}

/** Each listed model's evidence by a sampled estimator, with the errors carried to Bayes factors and probabilities. */
export function estimatedEvidences(
  family: SubsetFamily,
  o: ResolvedLinearOptions,
  top: number,
  onProgress: ((done: number, total: number) => void) | undefined,
): Ranked {
  const plan = planEstimation(family, o);
  const estimate = subsetEstimator(family, o);
  const { estimated, estimator } = plan;
  const scores = new Float64Array(estimated.length);
  const stdErr = new Float64Array(estimated.length);
  estimated.forEach((members, i) => {
    [scores[i], stdErr[i]] = estimate(members);
    if (i < plan.subsets.length) onProgress?.(i + 1, plan.subsets.length);
  });
  return {
    ...rankEstimates(family, o, top, plan, scores, stdErr),
    settings: estimatorSettings(estimator, o),
  };
}

/**
 * The ranked models of a run of estimated evidences, from the estimates of `plan.estimated` (in its
 * order, however they were computed), with the errors carried to Bayes factors and probabilities.
 */
export function rankEstimates(
  family: SubsetFamily,
  o: ResolvedLinearOptions,
  top: number,
  plan: Pick<EstimationPlan, "subsets" | "estimated">,
  allScores: Float64Array,
  allStdErr: Float64Array,
): Ranked {
  const p = family.terms.length;
  const { subsets } = plan;
  const scores = allScores.subarray(0, subsets.length);
  const stdErr = allStdErr.subarray(0, subsets.length);
  const listed = subsets.map((members, i) => ({ members, score: scores[i] }));
  const summary = summarizeSubsets(family, listed, {
    prior: o.modelPrior,
    top: Math.min(top, subsets.length),
    always: o.always,
  });
  const indexOf = new Map(subsets.map((m, i) => [m.join(","), i]));
  const at = (members: ArrayLike<number>) => indexOf.get(Array.from(members).join(",")) as number;
  const fixed = o.always.length;
  const logPrior = subsets.map((m) => logModelPrior(o.modelPrior, p - fixed, m.length - fixed));
  const intervals = probabilityIntervals(
    Float64Array.from(scores, (s, i) => s + logPrior[i]),
    stdErr,
    createRng(o.seed),
    INTERVAL_DRAWS,
  );
  const best = at(summary.top[0].members);
  // The reference of log Bayes factors, the intercept-only model: estimated besides when not listed.
  const empty = plan.estimated.findIndex((m) => m.length === 0);
  const [nullScore, nullStdErr] = [allScores[empty], allStdErr[empty]];
  const exact = family.exact ? subsets.map((m) => family.score(m)) : null;
  const errors = summary.top.map((m) => {
    const i = at(m.members);
    return {
      stdErr: stdErr[i],
      ...(exact === null ? {} : { exact: exact[i] }),
      nullScore,
      nullStdErr: i === empty ? 0 : Math.hypot(stdErr[i], nullStdErr),
      vsBestStdErr: i === best ? 0 : Math.hypot(stdErr[i], stdErr[best]),
      interval: [intervals.lower[i], intervals.upper[i]] as [number, number],
    };
  });
  return {
    summary,
    errors,
    ...(exact === null ? {} : { agreement: agreement(scores, stdErr, exact) }),
  };
}

/** The sample size and folds a sampled estimator ran with, as the result reports them. */
export function estimatorSettings(
  estimator: Exclude<LinearEstimator, "exact">,
  o: ResolvedLinearOptions,
): Ranked["settings"] {
  return {
    ...(estimator === "laplace" ? {} : { samples: o.samples ?? DEFAULT_SAMPLES[estimator] }),
    ...(estimator === "cv" ? { folds: o.folds ?? 5 } : {}),
  };
}

/**
 * The log evidence and standard error of one subset's model by the estimator, with the seed hashed from
 * the subset ({@link subsetSeed}); a model without parameters (the intercept-only model of a prior with
 * a closed form) gets its exact score and error 0.
 */
function evidenceEstimator(
  family: SubsetFamily,
  estimator: Exclude<LinearEstimator, "exact">,
  settings: Omit<EstimateEvidenceOptions, "method" | "seed">,
  seed: number,
): (members: number[]) => [number, number] {
  const names = (members: number[]) => members.map((t) => family.terms[t].name).join(", ");
  return (members) => {
    const model = family.model?.(members) ?? null;
    if (model === null) {
      const score = family.exact ? family.score(members) : Number.NaN;
      if (!Number.isFinite(score)) {
        throw new OccamError(
          "invalid-argument",
          `the model on {${names(members)}} has no parameters to sample and no closed form here: it needs an intercept.`,
        );
      }
      return [score, 0];
    }
    const r = estimateEvidence(model, {
      ...settings,
      method: estimator,
      seed: subsetSeed(seed, members),
    } as EstimateEvidenceOptions);
    if (!(Number.isFinite(r.logZ) && Number.isFinite(r.stdErr) && r.stdErr >= 0)) {
      throw new OccamError(
        "non-finite",
        `the ${estimator} estimate of the model on {${names(members)}} is ${r.logZ} ± ${r.stdErr}; try more --samples or another estimator.`,
      );
    }
    return [r.logZ, r.stdErr];
  };
}

/** How estimates compare with the exact log evidences: the largest error, and how many miss by 4 errors. */
function agreement(
  scores: Float64Array,
  stdErr: Float64Array,
  exact: readonly number[],
): { maxAbsError: number; beyondFourStdErr: number } {
  let maxAbsError = 0;
  let beyondFourStdErr = 0;
  exact.forEach((x, i) => {
    const error = Math.abs(scores[i] - x);
    maxAbsError = Math.max(maxAbsError, error);
    if (error > 4 * stdErr[i]) beyondFourStdErr++;
  });
  return { maxAbsError, beyondFourStdErr };
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
function checkWork(
  estimator: Exclude<LinearEstimator, "exact">,
  models: number,
  samples: number | undefined,
  capacity: number,
): void {
  const scale =
    estimator === "laplace" ? 1 : (samples ?? DEFAULT_SAMPLES[estimator]) / DEFAULT_SAMPLES[estimator];
  const work = models * scale;
  const limit = MAX_ESTIMATED_MODELS * capacity;
  if (work <= limit) return;
  const allowed = Math.max(0, Math.floor(limit / scale));
  throw new OccamError(
    "invalid-argument",
    `estimating the evidence of ${models} models with ${estimator}` +
      (estimator === "laplace" || samples === undefined ? "" : ` at --samples ${samples}`) +
      ` is too slow (limit ${allowed} models${estimator === "laplace" ? "" : " at that sample size"}` +
      `${capacity > 1 ? ` on ${capacity} workers` : ""}); ` +
      "narrow with --subsets max=K or --inputs, use more --workers or a --redis queue, or use --estimator exact.",
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
