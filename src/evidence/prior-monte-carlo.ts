import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { checkCount, checkLogValue, checkModel, type RandomOptions, resolveRng } from "./checks.js";
import { paretoKHat } from "./importance-sampling.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";
import { logWeightSummary, weightReasons } from "./weights.js";

const WHERE = "priorMonteCarlo";

/** Options of {@link priorMonteCarlo}. */
export interface PriorMonteCarloOptions extends RandomOptions {
  /**
   * Number of prior draws (per repetition).
   * @defaultValue 10000
   */
  samples?: number;
}

/** Diagnostics of {@link priorMonteCarlo}: how many prior draws carry the estimate. */
export interface PriorMonteCarloDiagnostics {
  readonly samples: number;
  /** Kish's effective sample size of the likelihood weights, and as a fraction of the draws. */
  readonly ess: number;
  readonly essFraction: number;
  /** The largest weight's share of the total. */
  readonly maxWeightShare: number;
  /** Pareto k̂ of the weights' upper tail (null when it cannot be estimated, e.g. a flat likelihood). */
  readonly paretoK: number | null;
}

/** The result of {@link priorMonteCarlo}. */
export type PriorMonteCarloResult = EvidenceEstimate<"prior", PriorMonteCarloDiagnostics>;

/**
 * Evidence by simple Monte Carlo over the prior (seed 002 option 2): Z = E_prior[L(θ)] ≈ (1/N) Σ L(θ_i),
 * θ_i ~ p(θ), as log Z = logMeanExp(log L(θ_i)).
 *
 * Unbiased for Z but inefficient when the likelihood is much narrower than the prior: most draws
 * miss it. The standard error is the delta method in log space, sd(L / L̄) / √N, from the weights'
 * variance. When only a handful of draws carry the weight (Kish ESS below 100) or the weights' tail
 * is too heavy for a finite variance (Pareto k̂ > 0.7), that standard error is far too small and the
 * estimate far too low (on a 10-dimensional Gaussian mean, −3251 ± 1 against an exact −752): the
 * result is then marked unreliable.
 *
 * Throws an `OccamError` for a NaN or +Infinity log likelihood (naming the prior draw), a prior draw
 * of the wrong length or with non-finite values, and when every draw has zero likelihood.
 */
export function priorMonteCarlo(
  model: BayesModel,
  options: PriorMonteCarloOptions = {},
): PriorMonteCarloResult {
  const start = performance.now();
  checkModel(model, WHERE);
  if (typeof model.samplePrior !== "function") {
    throw new OccamError("invalid-argument", `${WHERE}: model.samplePrior must be a function.`);
  }
  const samples = options.samples ?? 10_000;
  checkCount(samples, "samples", WHERE, 2);
  const rng = resolveRng(options, WHERE);
  const d = model.dim;
  const logLik = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const theta = model.samplePrior(rng);
    if (!(theta instanceof Float64Array) || theta.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${WHERE}: model.samplePrior must return a Float64Array of length ${d} (model.dim); prior draw ${i} does not.`,
      );
    }
    for (let j = 0; j < d; j++) {
      if (!Number.isFinite(theta[j])) {
        throw new OccamError("non-finite", `${WHERE}: prior draw ${i} has coordinate ${j} = ${theta[j]}.`);
      }
    }
    logLik[i] = checkLogValue(
      model.logLikelihood(theta),
      "logLikelihood",
      WHERE,
      "prior draw",
      i,
      theta,
      true,
    );
  }
  const summary = logWeightSummary(logLik, WHERE);
  const paretoK = paretoKHat(logLik);
  return evidenceResult({
    method: "prior",
    logZ: summary.logZ,
    stdErr: summary.stdErr,
    nLikelihoodEvals: samples,
    seconds: secondsSince(start),
    unreliable: weightReasons(summary.ess, samples, paretoK, "the likelihoods of the prior draws"),
    diagnostics: {
      samples,
      ess: summary.ess,
      essFraction: summary.ess / samples,
      maxWeightShare: summary.maxWeightShare,
      paretoK: Number.isFinite(paretoK) ? paretoK : null,
    },
  });
}
