/** Summaries of importance weights and of repeated estimates that several estimators share. */
import { OccamError } from "../errors.js";

/** The minimum Kish effective sample size of importance weights for their delta-method error to be trusted. */
export const MIN_WEIGHT_ESS = 100;

/** Above this Pareto k̂ importance weights probably have an infinite variance (Vehtari et al. 2024). */
export const MAX_PARETO_K = 0.7;

/**
 * Why an importance-sampling estimate's standard error cannot be trusted, if it cannot: too few
 * effective draws (Kish ESS below {@link MIN_WEIGHT_ESS}) or a tail too heavy for a finite variance
 * (Pareto k̂ above {@link MAX_PARETO_K}). `what` names the weights in the message.
 */
export function weightReasons(ess: number, total: number, paretoK: number, what: string): string[] {
  const reasons: string[] = [];
  if (ess < MIN_WEIGHT_ESS) {
    reasons.push(
      `${what} have an effective sample size of ${ess.toFixed(1)} of ${total}: a handful of draws carry the estimate, so its ` +
        "standard error means nothing.",
    );
  }
  if (paretoK > MAX_PARETO_K) {
    reasons.push(
      `${what} have a Pareto k̂ of ${paretoK.toFixed(2)} (> ${MAX_PARETO_K}): their variance is probably infinite, so the ` +
        "standard error is too small and the estimate too low.",
    );
  }
  return reasons;
}

/**
 * Summary of log weights log w_i for an importance-sampling type estimate of log Z = log mean w:
 * the estimate, its delta-method standard error sd(w)/(√n · mean(w)) (the sd of the normalised
 * weights over √n), and the effective sample size (Σw)²/Σw² of the weights. −Infinity weights count
 * as zero weights. Throws `non-finite` when every weight is zero.
 */
export function logWeightSummary(
  logWeights: Float64Array,
  where: string,
): { logZ: number; stdErr: number; ess: number; maxWeightShare: number } {
  const n = logWeights.length;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) if (logWeights[i] > max) max = logWeights[i];
  if (max === Number.NEGATIVE_INFINITY) {
    throw new OccamError(
      "non-finite",
      `${where}: every one of the ${n} weights is zero (log weight −Infinity): the draws missed the likelihood's support; ` +
        "use more draws or a proposal closer to the posterior.",
    );
  }
  // Weights scaled by the largest, so that each lies in [0, 1] and no exponential overflows. Two
  // passes: Σ(w − w̄)² keeps the small variance of nearly equal weights that Σw² − n w̄² loses.
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < n; i++) {
    const w = Math.exp(logWeights[i] - max);
    sum += w;
    sumSq += w * w;
  }
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (Math.exp(logWeights[i] - max) - mean) ** 2;
  const variance = n > 1 ? ss / (n - 1) : Number.POSITIVE_INFINITY;
  return {
    logZ: max + Math.log(mean),
    stdErr: Math.sqrt(variance / n) / mean,
    ess: (sum * sum) / sumSq,
    maxWeightShare: 1 / sum,
  };
}

/** Mean and sample standard deviation (n − 1 denominator) of a list of numbers. */
export function meanAndSd(values: ArrayLike<number>): { mean: number; sd: number } {
  const n = values.length;
  let s = 0;
  for (let i = 0; i < n; i++) s += values[i];
  const mean = s / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i] - mean) ** 2;
  return { mean, sd: n > 1 ? Math.sqrt(ss / (n - 1)) : Number.NaN };
}

/**
 * The spread of independent repetitions as a second error measure: the log Z of each repetition,
 * their standard deviation and that divided by √R (the standard error of their mean).
 */
export function repetitionSpread(logZs: readonly number[]): {
  repetitionLogZ: number[];
  repetitionSd: number;
  repetitionStdErr: number;
} {
  const { sd } = meanAndSd(logZs);
  return { repetitionLogZ: [...logZs], repetitionSd: sd, repetitionStdErr: sd / Math.sqrt(logZs.length) };
}
