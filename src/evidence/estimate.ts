import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { createRng } from "../random/rng.js";
import {
  type AisResult,
  type AnnealedImportanceSamplingOptions,
  annealedImportanceSampling,
} from "./annealed-importance-sampling.js";
import { type BridgeSamplingOptions, type BridgeSamplingResult, bridgeSampling } from "./bridge-sampling.js";
import { type ChainingOptions, type ChainingResult, chaining } from "./chaining.js";
import {
  type CrossValidatedEvidenceOptions,
  type CrossValidatedResult,
  crossValidatedEvidence,
} from "./cross-validated.js";
import type { PosteriorDrawsInput } from "./draws-input.js";
import { type EntropyEvidenceOptions, type EntropyResult, entropyEvidence } from "./entropy.js";
import { type HarmonicMeanResult, harmonicMean } from "./harmonic-mean.js";
import {
  type ImportanceSamplingOptions,
  type ImportanceSamplingResult,
  importanceSampling,
} from "./importance-sampling.js";
import { type LaplaceOptions, type LaplaceResult, laplace } from "./laplace.js";
import { EVIDENCE_METHODS } from "./methods.js";
import {
  type NestedSamplingOptions,
  type NestedSamplingResult,
  nestedSampling,
} from "./nested/nested-sampling.js";
import { type PathSamplingOptions, type PathSamplingResult, pathSampling } from "./path-sampling.js";
import {
  type PosteriorSample,
  type PosteriorSamplingOptions,
  samplePosterior,
} from "./posterior-sampling.js";
import {
  type PriorMonteCarloOptions,
  type PriorMonteCarloResult,
  priorMonteCarlo,
} from "./prior-monte-carlo.js";
import { evidenceResult } from "./result.js";
import { type SteppingStoneOptions, type SteppingStoneResult, steppingStone } from "./stepping-stone.js";
import { type TemperedSmcOptions, type TemperedSmcResult, temperedSmc } from "./tempered-smc.js";
import {
  type TransitionalMcmcOptions,
  type TransitionalMcmcResult,
  transitionalMcmc,
} from "./transitional-mcmc.js";

/** Options without the ones `estimateEvidence` sets itself (distributive, so a union keeps its members). */
type Settings<T> = T extends unknown ? Omit<T, "seed" | "rng" | "draws"> : never;

/** Each method's own settings, as `estimateEvidence(model, { method, settings })` takes them. */
export interface EvidenceMethodSettings {
  prior: Settings<PriorMonteCarloOptions>;
  importance: Settings<ImportanceSamplingOptions>;
  "harmonic-mean": Record<string, never>;
  laplace: Settings<LaplaceOptions>;
  bridge: Settings<BridgeSamplingOptions>;
  "bridge-warp3": Settings<BridgeSamplingOptions>;
  chaining: Settings<ChainingOptions>;
  "stepping-stone": Settings<SteppingStoneOptions>;
  path: Settings<PathSamplingOptions>;
  ais: Settings<AnnealedImportanceSamplingOptions>;
  smc: Settings<TemperedSmcOptions>;
  tmcmc: Settings<TransitionalMcmcOptions>;
  nested: Settings<NestedSamplingOptions>;
  /** Cross-validated evidence; `form` defaults to "chain-rule", the one that estimates log Z. */
  cv: Partial<Settings<CrossValidatedEvidenceOptions>>;
  entropy: Settings<EntropyEvidenceOptions>;
}

/** The names of the evidence estimators. */
export type EvidenceMethod = keyof EvidenceMethodSettings;

/**
 * What every estimator returns: a discriminated union on `method`, so that
 * `if (r.method === "smc") r.diagnostics.islandLogZ` is typed.
 */
export type EvidenceResult =
  | PriorMonteCarloResult
  | ImportanceSamplingResult
  | HarmonicMeanResult
  | LaplaceResult
  | BridgeSamplingResult
  | ChainingResult
  | SteppingStoneResult
  | PathSamplingResult
  | AisResult
  | TemperedSmcResult
  | TransitionalMcmcResult
  | NestedSamplingResult
  | CrossValidatedResult
  | EntropyResult;

/** The diagnostics of any method (narrow on the result's `method` to reach a method's own). */
export type MethodDiagnostics = EvidenceResult["diagnostics"];

export { EVIDENCE_METHODS };

/** The methods that start from posterior draws (made by occam unless given). */
export const NEEDS_DRAWS: ReadonlySet<EvidenceMethod> = new Set([
  "importance",
  "harmonic-mean",
  "bridge",
  "bridge-warp3",
  "entropy",
]);

/** Options of {@link estimateEvidence}. */
export interface EstimateEvidenceOptions<M extends EvidenceMethod = EvidenceMethod> {
  /** The estimator. */
  method: M;
  /**
   * Seed of everything random in the estimate.
   * @defaultValue 1
   */
  seed?: number;
  /**
   * Posterior draws made elsewhere (for importance, harmonic-mean, bridge, bridge-warp3 and
   * entropy). Without them occam samples the posterior itself, as `posterior` says.
   */
  draws?: PosteriorDrawsInput;
  /**
   * Posterior draws from `samplePosterior`, to share between several estimates: unlike `draws`, their
   * own checks (chains that disagree, too few effective draws) count as each draw-based result's.
   */
  sample?: PosteriorSample;
  /** How occam samples the posterior when a method needs draws and none are given. */
  posterior?: Omit<PosteriorSamplingOptions, "seed" | "rng">;
  /** The estimator's own settings; every one has a default. */
  settings?: EvidenceMethodSettings[M];
}

/**
 * Estimates log Z = log p(D | M) by one method, choosing samplers and settings a user need not know:
 * posterior draws by 4 NUTS chains started in the modes a small tempered run found (a random walk in
 * that run's metric for a model without gradients) for the methods that need them, whose disagreement (separated modes) or too few
 * effective draws make the result unreliable; the tempering engine for the tempered methods; and
 * each estimator's defaults. A model with `bounds` is sampled on its unbounded scale.
 *
 * The model's likelihood must keep every normalising constant: a constant dropped from log L(θ)
 * shifts log Z by that constant, and Bayes factors between models by the difference.
 *
 * @example
 * const { logZ, stdErr } = estimateEvidence(model, { method: "bridge", seed: 1 });
 */
export function estimateEvidence<M extends EvidenceMethod>(
  model: BayesModel,
  options: EstimateEvidenceOptions<M>,
): EvidenceResult {
  const { method } = options;
  if (!EVIDENCE_METHODS.includes(method)) {
    throw new OccamError(
      "invalid-argument",
      `unknown evidence method "${method}"; choose one of: ${EVIDENCE_METHODS.join(", ")}.`,
    );
  }
  const start = performance.now();
  const [posteriorRng, estimatorRng] = createRng(options.seed ?? 1).split(2);
  let sample: PosteriorSample | undefined;
  let draws = options.draws;
  if (NEEDS_DRAWS.has(method) && draws === undefined) {
    sample = options.sample ?? samplePosterior(model, { ...options.posterior, rng: posteriorRng });
    draws = sample.draws;
  }
  const result = runMethod(model, method, options.settings ?? {}, estimatorRng, draws);
  if (sample === undefined) return result;
  // The posterior draws' own checks are the draw-based estimate's too.
  return evidenceResult({
    method: result.method,
    logZ: result.logZ,
    stdErr: result.stdErr,
    nLikelihoodEvals: result.nLikelihoodEvals + (options.sample === undefined ? sample.nLikelihoodEvals : 0),
    seconds: (performance.now() - start) / 1000,
    unreliable: [...sample.unreliable, ...(result.reliable ? [] : result.warnings)],
    warnings: [...(result.reliable ? result.warnings : []), ...sample.warnings],
    diagnostics: result.diagnostics,
  }) as EvidenceResult;
}

function runMethod(
  model: BayesModel,
  method: EvidenceMethod,
  settings: object,
  rng: ReturnType<typeof createRng>,
  draws: PosteriorDrawsInput | undefined,
): EvidenceResult {
  const withDraws = () => {
    if (draws === undefined)
      throw new OccamError("internal", `estimateEvidence: ${method} was given no draws.`);
    return draws;
  };
  switch (method) {
    case "prior":
      return priorMonteCarlo(model, { ...settings, rng });
    case "importance":
      return importanceSampling(model, { ...settings, rng, draws: withDraws() });
    case "harmonic-mean":
      return harmonicMean(model, { draws: withDraws() });
    case "laplace":
      return laplace(model, { ...settings, rng });
    case "bridge":
      return bridgeSampling(model, { method: "normal", ...settings, rng, draws: withDraws() });
    case "bridge-warp3":
      return bridgeSampling(model, { ...settings, method: "warp3", rng, draws: withDraws() });
    case "chaining":
      return chaining(model, { ...settings, rng });
    case "stepping-stone":
      return steppingStone(model, { ...settings, rng });
    case "path":
      return pathSampling(model, { ...settings, rng });
    case "ais":
      return annealedImportanceSampling(model, { ...settings, rng });
    case "smc":
      return temperedSmc(model, { ...settings, rng });
    case "tmcmc":
      return transitionalMcmc(model, { ...settings, rng });
    case "nested":
      return nestedSampling(model, { ...settings, rng });
    case "cv":
      return crossValidatedEvidence(model, { form: "chain-rule", ...settings, rng });
    case "entropy":
      return entropyEvidence(model, { ...settings, draws: withDraws() });
  }
}
