/**
 * Transitional Markov chain Monte Carlo (Ching & Chen 2007, "Transitional Markov chain Monte Carlo
 * method for Bayesian model updating, model class selection, and model averaging", Journal of
 * Engineering Mechanics 133(7); seed 002 names it for model-class selection), on the tempering engine.
 */
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import { checkCount, checkModel, type RandomOptions, resolveRng } from "./checks.js";
import type { EvidenceEstimate } from "./result.js";
import { runTempering } from "./tempering/engine.js";
import {
  combineIslands,
  DEFAULT_ISLANDS,
  resolveTemperingOptions,
  type TemperingDefaults,
  type TemperingDiagnostics,
  temperingResult,
} from "./tempering/estimates.js";

/** Options of {@link transitionalMcmc}. */
export interface TransitionalMcmcOptions extends RandomOptions {
  /**
   * Samples N in all (split evenly over the islands).
   * @defaultValue 2048
   */
  samples?: number;
  /**
   * Each next tempering exponent is chosen so that the coefficient of variation of the plausibility
   * weights L^{Δβ} is this (Ching & Chen: 1, i.e. an effective sample size of N/2).
   * @defaultValue 1
   */
  targetCov?: number;
  /**
   * β of the proposal: a Metropolis step from θ proposes θ' ~ N(θ, β² Σ), Σ the weighted sample
   * covariance of the samples (Ching & Chen's 0.2).
   * @defaultValue 0.2
   */
  proposalScale?: number;
  /**
   * Metropolis steps per sample and stage: a number, or "auto" (until the samples' log likelihoods
   * have forgotten where the stage began; see the tempering engine). Ching & Chen take about one per
   * sample, which leaves the samples of a high-dimensional posterior strongly correlated.
   * @defaultValue "auto"
   */
  steps?: number | "auto";
  /**
   * Islands G: groups of samples resampled only among themselves, whose spread is the standard
   * error.
   * @defaultValue 32
   */
  islands?: number;
  /**
   * The most stages before stopping with an `OccamError`.
   * @defaultValue 10000
   */
  maxStages?: number;
}

/** Diagnostics of {@link transitionalMcmc}: the engine's, the target coefficient of variation and the proposal's β. */
export interface TransitionalMcmcDiagnostics extends TemperingDiagnostics {
  readonly targetCov: number;
  readonly proposalScale: number;
}

/** The result of {@link transitionalMcmc}. */
export type TransitionalMcmcResult = EvidenceEstimate<"tmcmc", TransitionalMcmcDiagnostics>;

const TMCMC_DEFAULTS: TemperingDefaults = {
  particles: 2048,
  sweeps: "auto",
  draws: 0,
  targetEss: 0.5,
  resample: "always",
  finalSweeps: false,
};

/**
 * Evidence by transitional MCMC (Ching & Chen 2007). N samples start from the prior; at each stage
 * the next tempering exponent β' is chosen so that the plausibility weights w = L^{β' − β} have a
 * coefficient of variation of `targetCov` (1: equivalently an effective sample size of N/2), the
 * stage's evidence factor is the mean weight, the samples are resampled in proportion to their
 * weights and each takes Metropolis steps from a Gaussian proposal N(θ, β² Σ), Σ the weighted sample
 * covariance and β = `proposalScale` (0.2), fixed rather than tuned; the evidence is the product of
 * the stages' mean weights. It is the tempered SMC of `temperedSmc` with Ching and Chen's choices:
 * random-walk moves at a fixed scale, whatever gradients the model has.
 *
 * The standard error is the spread of 32 islands' estimates, as for `temperedSmc` (Ching & Chen
 * suggest independent runs): unreliable when the islands disagree by more than a nat or the steps
 * are accepted less than 5 % of the time. A model with `bounds` is sampled on its unbounded scale.
 *
 * @example
 * const result = transitionalMcmc(model, { samples: 4096, seed: 1 });
 */
export function transitionalMcmc(
  model: BayesModel,
  options: TransitionalMcmcOptions = {},
): TransitionalMcmcResult {
  const start = performance.now();
  const where = "transitionalMcmc";
  checkModel(model, where);
  const targetCov = options.targetCov ?? 1;
  const proposalScale = options.proposalScale ?? 0.2;
  if (!(Number.isFinite(targetCov) && targetCov > 0)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: targetCov must be a finite number > 0, got ${targetCov}.`,
    );
  }
  if (!(Number.isFinite(proposalScale) && proposalScale > 0)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: proposalScale must be a finite number > 0, got ${proposalScale}.`,
    );
  }
  if (options.samples !== undefined) {
    checkCount(options.samples, "samples", where, 2 * (options.islands ?? DEFAULT_ISLANDS));
  }
  const target = unbounded(model, where).model;
  // Kish's ESS of weights with coefficient of variation c is N / (1 + c²).
  const settings = {
    ...resolveTemperingOptions(
      target,
      {
        particles: options.samples,
        islands: options.islands,
        move: "random-walk",
        sweeps: options.steps,
        targetEss: 1 / (1 + targetCov * targetCov),
        maxStages: options.maxStages,
      },
      TMCMC_DEFAULTS,
      where,
    ),
    fixedStepSize: proposalScale,
  };
  const run = runTempering(target, resolveRng(options, where), settings, where);
  const estimate = combineIslands(run.islandLogZ, "product");
  return temperingResult("tmcmc", start, run, settings, estimate, { targetCov, proposalScale });
}
