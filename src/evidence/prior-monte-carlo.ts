import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { paretoKHat } from "./importance-sampling.js";
import {
  checkCount,
  checkLogValue,
  checkModel,
  type EvidenceResult,
  evidenceResult,
  logWeightSummary,
  type RandomOptions,
  repetitionSpread,
  resolveRng,
  secondsSince,
} from "./result.js";

const WHERE = "priorMonteCarlo";

/** Options of {@link priorMonteCarlo}. */
export interface PriorMonteCarloOptions extends RandomOptions {
  /**
   * Number of prior draws (per repetition).
   * @defaultValue 10000
   */
  samples?: number;
  /**
   * Independent repetitions, each on its own `rng.split` stream. The estimate pools every
   * repetition's draws; the spread of the per-repetition estimates is reported in `diagnostics`.
   * @defaultValue 1
   */
  repetitions?: number;
}

function resolvePriorMonteCarloOptions(options: PriorMonteCarloOptions): {
  samples: number;
  repetitions: number;
} {
  const samples = options.samples ?? 10_000;
  const repetitions = options.repetitions ?? 1;
  checkCount(samples, "samples", WHERE, 2);
  checkCount(repetitions, "repetitions", WHERE, 1);
  return { samples, repetitions };
}

/**
 * Evidence by simple Monte Carlo over the prior (seed 002 option 2): Z = E_prior[L(θ)] ≈ (1/N) Σ L(θ_i),
 * θ_i ~ p(θ), as log Z = logMeanExp(log L(θ_i)).
 *
 * Unbiased for Z but inefficient when the likelihood is much narrower than the prior: most draws
 * miss it. The standard error is the delta method in log space, sd(L / L̄) / √N; when only a handful
 * of draws carry the weight (small `diagnostics.ess`, `paretoK` > 0.7) it is unreliable and too small.
 *
 * Throws an `OccamError` for a NaN or +Infinity log likelihood (naming the prior draw), a prior draw
 * of the wrong length or with non-finite values, and when every draw has zero likelihood.
 */
export function priorMonteCarlo(model: BayesModel, options: PriorMonteCarloOptions = {}): EvidenceResult {
  const start = performance.now();
  checkModel(model, WHERE);
  if (typeof model.samplePrior !== "function") {
    throw new OccamError("invalid-argument", `${WHERE}: model.samplePrior must be a function.`);
  }
  const { samples, repetitions } = resolvePriorMonteCarloOptions(options);
  const rng = resolveRng(options, WHERE);
  const d = model.dim;
  const total = samples * repetitions;
  const logLik = new Float64Array(total);
  const streams = rng.split(repetitions);
  for (let r = 0; r < repetitions; r++) {
    const stream = streams[r];
    for (let s = 0; s < samples; s++) {
      const i = r * samples + s;
      const theta = model.samplePrior(stream);
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
  }
  const summary = logWeightSummary(logLik, WHERE);
  const diagnostics: Record<string, unknown> = {
    samples,
    repetitions,
    ess: summary.ess,
    essFraction: summary.ess / total,
    maxWeightShare: summary.maxWeightShare,
    paretoK: paretoKHat(logLik),
  };
  if (repetitions > 1) {
    const perRep: number[] = [];
    for (let r = 0; r < repetitions; r++) {
      perRep.push(logWeightSummary(logLik.subarray(r * samples, (r + 1) * samples), WHERE).logZ);
    }
    Object.assign(diagnostics, repetitionSpread(perRep));
  }
  return evidenceResult({
    method: "prior-monte-carlo",
    logZ: summary.logZ,
    stdErr: summary.stdErr,
    nLikelihoodEvals: total,
    seconds: secondsSince(start),
    diagnostics,
  });
}
