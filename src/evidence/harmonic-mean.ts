import { effectiveSampleSize } from "../diagnostics/ess.js";
import type { BayesModel } from "../model/model.js";
import { checkLogValue, checkModel } from "./checks.js";
import { type PosteriorDrawsInput, posteriorDraws } from "./draws-input.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";

const WHERE = "harmonicMean";

/** Options of {@link harmonicMean}. */
export interface HarmonicMeanOptions {
  /** Posterior draws (a Draws store from a sampler, or an array of Float64Array draws). Required. */
  draws: PosteriorDrawsInput;
}

/** Why every harmonic-mean result is unreliable. */
export const HARMONIC_MEAN_WARNING =
  "the harmonic mean estimator has infinite variance whenever the prior is wider than the likelihood " +
  "(nearly always): its estimate is biased upwards, converges very slowly, and its standard error understates the " +
  "error. Use it only for comparison (Newton & Raftery 1994; Neal's discussion there).";

/** Diagnostics of {@link harmonicMean}. */
export interface HarmonicMeanDiagnostics {
  readonly draws: number;
  /** The effective sample size of 1/L over the chains. */
  readonly ess: number;
  /** The largest term's share of the sum of 1/L. */
  readonly maxWeightShare: number;
}

/** The result of {@link harmonicMean}. */
export type HarmonicMeanResult = EvidenceEstimate<"harmonic-mean", HarmonicMeanDiagnostics>;

/**
 * The harmonic mean estimator (Newton & Raftery 1994): 1/Z = E_post[1/L(θ)], so
 * log Z ≈ −logMeanExp(−log L(θ_i)) over posterior draws θ_i.
 *
 * Included as the classic cautionary example. E_post[1/L²] = ∫ p(θ)/L(θ) dθ / Z is infinite unless the
 * prior is narrower than the likelihood, so the estimator's variance is usually infinite; it then
 * overestimates log Z, and the reported stdErr (delta method, sd(u/ū)/√ESS with u = 1/L and ESS the
 * effective sample size of u over the chains, capped at the number of draws) measures only the scatter
 * of the draws seen, not the error. Every result is therefore marked unreliable.
 *
 * Throws an `OccamError` when draws are missing, fewer than 10, of the wrong length or non-finite, and
 * when the log likelihood at a draw is NaN, +Infinity or −Infinity (naming the draw).
 */
export function harmonicMean(model: BayesModel, options: HarmonicMeanOptions): HarmonicMeanResult {
  const start = performance.now();
  checkModel(model, WHERE);
  const draws = posteriorDraws(options?.draws, model.dim, WHERE, 10);
  const { dim, nChains, nDraws, values } = draws;
  const n = draws.size;
  const minusLogLik = new Float64Array(n);
  const theta = new Float64Array(dim);
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    theta.set(values.subarray(i * dim, (i + 1) * dim));
    const ll = checkLogValue(
      model.logLikelihood(theta),
      "logLikelihood",
      WHERE,
      "posterior draw",
      i,
      theta,
      false,
    );
    minusLogLik[i] = -ll;
    if (-ll > max) max = -ll;
  }
  // u_i = 1/L_i scaled by the largest, in (0, 1]; log mean(1/L) = max + log ū.
  const chains: Float64Array[] = [];
  let sum = 0;
  for (let c = 0; c < nChains; c++) {
    const chain = new Float64Array(nDraws);
    for (let t = 0; t < nDraws; t++) {
      const u = Math.exp(minusLogLik[c * nDraws + t] - max);
      chain[t] = u;
      sum += u;
    }
    chains.push(chain);
  }
  const mean = sum / n;
  let ss = 0;
  for (const chain of chains) for (let t = 0; t < nDraws; t++) ss += (chain[t] - mean) ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  const essRaw = effectiveSampleSize(chains);
  const ess = Number.isNaN(essRaw) ? n : Math.min(essRaw, n);
  return evidenceResult({
    method: "harmonic-mean",
    logZ: -(max + Math.log(mean)),
    stdErr: sd / (mean * Math.sqrt(ess)),
    nLikelihoodEvals: n,
    seconds: secondsSince(start),
    unreliable: [HARMONIC_MEAN_WARNING],
    diagnostics: {
      draws: n,
      ess,
      maxWeightShare: 1 / sum,
    },
  });
}
