import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { createRng } from "../random/rng.js";
import {
  type AnnealedImportanceSamplingOptions,
  annealedImportanceSampling,
} from "./annealed-importance-sampling.js";
import { type BridgeSamplingOptions, bridgeSampling } from "./bridge-sampling.js";
import { type ChainingOptions, chaining } from "./chaining.js";
import { type CrossValidatedEvidenceOptions, crossValidatedEvidence } from "./cross-validated.js";
import { type EntropyEvidenceOptions, entropyEvidence } from "./entropy.js";
import { harmonicMean } from "./harmonic-mean.js";
import { type ImportanceSamplingOptions, importanceSampling } from "./importance-sampling.js";
import { type LaplaceOptions, laplace } from "./laplace.js";
import { type PathSamplingOptions, pathSampling } from "./path-sampling.js";
import {
  type PosteriorSample,
  type PosteriorSamplingOptions,
  samplePosterior,
} from "./posterior-sampling.js";
import { type PriorMonteCarloOptions, priorMonteCarlo } from "./prior-monte-carlo.js";
import { type EvidenceResult, evidenceResult, type PosteriorDrawsInput } from "./result.js";
import { type SteppingStoneOptions, steppingStone } from "./stepping-stone.js";
import { type TemperedSmcOptions, temperedSmc } from "./tempered-smc.js";

type Settings<T> = Omit<T, "seed" | "rng" | "draws">;

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
  /** Cross-validated evidence; `form` defaults to "chain-rule", the one that estimates log Z. */
  cv: Partial<Settings<CrossValidatedEvidenceOptions>>;
  entropy: Settings<EntropyEvidenceOptions>;
}

/** The names of the evidence estimators. */
export type EvidenceMethod = keyof EvidenceMethodSettings;

/** Every method name, in the order occam lists them. */
export const EVIDENCE_METHODS: readonly EvidenceMethod[] = [
  "prior",
  "importance",
  "harmonic-mean",
  "laplace",
  "bridge",
  "bridge-warp3",
  "chaining",
  "stepping-stone",
  "path",
  "ais",
  "smc",
  "cv",
  "entropy",
];

/** The methods that start from posterior draws (made by occam unless given). */
const NEEDS_DRAWS: ReadonlySet<EvidenceMethod> = new Set([
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
  /** How occam samples the posterior when a method needs draws and none are given. */
  posterior?: Omit<PosteriorSamplingOptions, "seed" | "rng">;
  /** The estimator's own settings; every one has a default. */
  settings?: EvidenceMethodSettings[M];
}

/**
 * Estimates log Z = log p(D | M) by one method, choosing samplers and settings a user need not know:
 * posterior draws by HMC (or random-walk Metropolis for a model without gradients) for the methods
 * that need them, the model's exact power-posterior kernel (else HMC) along temperature ladders
 * adapted to the model by a pilot run (stepping-stone, path sampling, AIS), and each estimator's
 * defaults.
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
    sample = samplePosterior(model, { ...options.posterior, rng: posteriorRng });
    draws = sample.draws;
  }
  const result = runMethod(model, method, options.settings ?? {}, estimatorRng, draws);
  if (sample === undefined) return result;
  return evidenceResult({
    method: result.method,
    logZ: result.logZ,
    stdErr: result.stdErr,
    nLikelihoodEvals: result.nLikelihoodEvals + sample.nLikelihoodEvals,
    seconds: (performance.now() - start) / 1000,
    diagnostics: {
      ...result.diagnostics,
      posterior: {
        kernel: sample.kernel,
        chains: sample.draws.nChains,
        drawsPerChain: sample.draws.nDraws,
        maxRhat: sample.maxRhat,
        minEss: sample.minEss,
        divergences: sample.divergences,
        warnings: sample.warnings,
      },
    },
  });
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
    case "cv":
      return crossValidatedEvidence(model, { form: "chain-rule", ...settings, rng });
    case "entropy":
      return entropyEvidence(model, { ...settings, draws: withDraws() });
  }
}
