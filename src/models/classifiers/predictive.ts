/**
 * What posterior draws of a classifier family predict: p(y | x, D, M) = E_θ|D p(y | x, θ) at new
 * inputs (Everson et al. eq. 4), with the per-draw probabilities of the observed classes kept for the
 * Monte Carlo error of scores; and the leave-one-out predictive densities p(y_i | x_i, D_−i, M) of the
 * training rows, for stacking, by truncated importance sampling from the same draws.
 */
import { effectiveSampleSize } from "../../diagnostics/ess.js";
import { OccamError } from "../../errors.js";
import { paretoKHat } from "../../evidence/importance-sampling.js";
import type { Draws } from "../../model/draws.js";
import type { ClassifierModel } from "./family.js";

/** The draws used: every draw, or evenly spaced ones within each chain when there are more than `maxDraws`. */
function usedDraws(draws: Draws, maxDraws: number): { perChain: number; stride: number } {
  const perChain = Math.max(1, Math.min(draws.nDraws, Math.floor(maxDraws / draws.nChains)));
  return { perChain, stride: Math.floor(draws.nDraws / perChain) };
}

/** The posterior predictive at m new rows. */
export interface PosteriorPredictive {
  readonly m: number;
  readonly classes: number;
  /** p(y = c | x_r, D, M), m × K row-major: the average over draws of p(y = c | x_r, θ). */
  readonly probabilities: Float64Array;
  /** Chains and draws per chain behind `observed`. */
  readonly chains: number;
  readonly perChain: number;
  /**
   * With labels: p(y_r | x_r, θ_s) of each row's observed class at each draw used, row-major m × S
   * (S = chains × perChain, chain after chain), from which a score's Monte Carlo error follows.
   */
  readonly observed: Float64Array | null;
}

/**
 * The posterior predictive of a classifier at the m rows of X (standardised like its training rows),
 * averaging p(y | x, θ) over at most `maxDraws` of the draws (evenly spaced within each chain).
 * With `labels`, keeps the probability of each row's class at each draw.
 */
export function posteriorPredictive(
  model: ClassifierModel,
  draws: Draws,
  X: Float64Array,
  m: number,
  labels: Int32Array | null = null,
  maxDraws = 1000,
): PosteriorPredictive {
  const K = model.classes;
  if (draws.dim !== model.dim) {
    throw new OccamError(
      "dimension-mismatch",
      `posteriorPredictive: draws of dimension ${draws.dim}, model ${model.dim}.`,
    );
  }
  const { perChain, stride } = usedDraws(draws, maxDraws);
  const S = perChain * draws.nChains;
  const probabilities = new Float64Array(m * K);
  const observed = labels === null ? null : new Float64Array(m * S);
  const logP = new Float64Array(m * K);
  let s = 0;
  for (let c = 0; c < draws.nChains; c++) {
    for (let j = 0; j < perChain; j++) {
      model.logPredictive(draws.draw(c, j * stride), X, m, logP);
      for (let r = 0; r < m; r++) {
        for (let k = 0; k < K; k++) probabilities[r * K + k] += Math.exp(logP[r * K + k]) / S;
        if (observed !== null && labels !== null) observed[r * S + s] = Math.exp(logP[r * K + labels[r]]);
      }
      s++;
    }
  }
  return Object.freeze({ m, classes: K, probabilities, chains: draws.nChains, perChain, observed });
}

/** Leave-one-out predictive densities of the training rows. */
export interface LeaveOneOut {
  /** log p(y_i | x_i, D_−i, M) for each training row. */
  readonly logDensity: Float64Array;
  /** Σ_i of them: the expected log predictive density (elpd) of the family. */
  readonly elpd: number;
  /** Its standard error over rows, √n · sd_i. */
  readonly elpdStdErr: number;
  /** The Pareto k̂ of each row's importance weights. */
  readonly paretoK: Float64Array;
  /** Rows with k̂ > 0.7, whose estimate may be far off. */
  readonly highParetoK: number;
}

/**
 * Leave-one-out predictive densities from posterior draws given all rows, by truncated importance
 * sampling (Ionides 2008): row i's weights w_s = 1/p(y_i | θ_s) (the ratio of p(θ | D_−i) to
 * p(θ | D)) are capped at √S times their mean, so that their variance stays finite, and
 * p(y_i | D_−i) ≈ Σ_s w_s p(y_i | θ_s) / Σ_s w_s. Each row's Pareto k̂ says whether its weights are
 * trustworthy (Vehtari et al. 2024): above 0.7 the estimate is unreliable and is counted. For the pknn
 * family the terms are its pseudo-likelihood's conditionals, so removing a row's term approximates
 * the posterior without that row (its label also enters its neighbours' terms).
 */
export function leaveOneOut(model: ClassifierModel, draws: Draws, maxDraws = 1000): LeaveOneOut {
  const n = model.nObservations;
  const { perChain, stride } = usedDraws(draws, maxDraws);
  const S = perChain * draws.nChains;
  const logLik = new Float64Array(n * S);
  const row = new Float64Array(n);
  let s = 0;
  for (let c = 0; c < draws.nChains; c++) {
    for (let j = 0; j < perChain; j++) {
      model.logLikelihoodPointwise(draws.draw(c, j * stride), row);
      for (let i = 0; i < n; i++) logLik[i * S + s] = row[i];
      s++;
    }
  }
  const logDensity = new Float64Array(n);
  const paretoK = new Float64Array(n);
  const logW = new Float64Array(S);
  let high = 0;
  const cap = 0.5 * Math.log(S);
  for (let i = 0; i < n; i++) {
    let max = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < S; t++) {
      logW[t] = -logLik[i * S + t];
      if (logW[t] > max) max = logW[t];
    }
    let mean = 0;
    for (let t = 0; t < S; t++) mean += Math.exp(logW[t] - max) / S;
    const logCap = max + Math.log(mean) + cap;
    let num = 0;
    let den = 0;
    for (let t = 0; t < S; t++) {
      const w = Math.exp(Math.min(logW[t], logCap) - max);
      num += w * Math.exp(logLik[i * S + t]);
      den += w;
    }
    logDensity[i] = Math.log(num / den);
    const k = paretoKHat(logW);
    paretoK[i] = Number.isFinite(k) ? k : 0;
    if (paretoK[i] > 0.7) high++;
  }
  let elpd = 0;
  for (let i = 0; i < n; i++) elpd += logDensity[i];
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (logDensity[i] - elpd / n) ** 2;
  return Object.freeze({
    logDensity,
    elpd,
    elpdStdErr: Math.sqrt((n * ss) / Math.max(1, n - 1)),
    paretoK,
    highParetoK: high,
  });
}

/** Test scores of predicted class probabilities against the observed classes. */
export interface ClassificationScores {
  /** Fraction of rows whose most probable class is the observed one. */
  readonly accuracy: number;
  /** Mean −log p(y_r | x_r) over rows (nats). */
  readonly logLoss: number;
  /** Mean over rows of Σ_c (p_c − [c = y_r])² (0 best, 2 worst). */
  readonly brier: number;
}

/** Accuracy, log loss and Brier score of probabilities (m × K) against labels. */
export function classificationScores(
  probabilities: Float64Array,
  labels: Int32Array,
  K: number,
): ClassificationScores {
  const m = labels.length;
  let right = 0;
  let logLoss = 0;
  let brier = 0;
  for (let r = 0; r < m; r++) {
    if (mostProbableClass(probabilities, r, K) === labels[r]) right++;
    logLoss -= Math.log(probabilities[r * K + labels[r]]);
    for (let c = 0; c < K; c++) brier += (probabilities[r * K + c] - (c === labels[r] ? 1 : 0)) ** 2;
  }
  return Object.freeze({ accuracy: right / m, logLoss: logLoss / m, brier: brier / m });
}

/** Row r's most probable class (ties to the first), from probabilities rows × K. */
export function mostProbableClass(probabilities: Float64Array, r: number, K: number): number {
  let best = 0;
  for (let c = 1; c < K; c++) if (probabilities[r * K + c] > probabilities[r * K + best]) best = c;
  return best;
}

/** The confusion matrix of the most probable class: counts[observed][predicted]. */
export function confusionMatrix(probabilities: Float64Array, labels: Int32Array, K: number): number[][] {
  const counts = Array.from({ length: K }, () => new Array<number>(K).fill(0));
  for (let r = 0; r < labels.length; r++) {
    counts[labels[r]][mostProbableClass(probabilities, r, K)]++;
  }
  return counts;
}

/** One bin of a reliability diagram. */
export interface ReliabilityBin {
  /** The bin's predicted-probability range, [lower, upper) (the last bin includes 1). */
  readonly lower: number;
  readonly upper: number;
  /** Predictions that fell in the bin. */
  readonly count: number;
  /** Their mean predicted probability. */
  readonly meanPredicted: number;
  /** The fraction of them whose class was observed, and its Wilson 95 % interval. */
  readonly observed: number;
  readonly observedLow: number;
  readonly observedHigh: number;
}

/**
 * A reliability diagram's bins: predicted probabilities (m × K) grouped into `bins` equal-width bins
 * of [0, 1], each with the frequency with which the predicted class was the observed one. With two
 * classes a row gives one prediction, that of the second class; with more, every class of every row
 * gives one (one-vs-rest, pooled), so the K predictions of a row are not independent and the Wilson
 * intervals are a guide rather than exact. Empty bins are left out. A calibrated predictor's bins lie
 * on the diagonal.
 */
export function reliabilityBins(
  probabilities: Float64Array,
  labels: Int32Array,
  K: number,
  bins = 10,
): ReliabilityBin[] {
  if (!(Number.isInteger(bins) && bins >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `reliabilityBins: bins must be a positive integer, got ${bins}.`,
    );
  }
  const count = new Float64Array(bins);
  const predicted = new Float64Array(bins);
  const hits = new Float64Array(bins);
  const first = K === 2 ? 1 : 0;
  for (let r = 0; r < labels.length; r++) {
    for (let c = first; c < K; c++) {
      const p = probabilities[r * K + c];
      const b = Math.min(bins - 1, Math.floor(p * bins));
      count[b]++;
      predicted[b] += p;
      if (labels[r] === c) hits[b]++;
    }
  }
  const z2 = 1.959963984540054 ** 2;
  const out: ReliabilityBin[] = [];
  for (let b = 0; b < bins; b++) {
    const n = count[b];
    if (n === 0) continue;
    const f = hits[b] / n;
    const centre = (f + z2 / (2 * n)) / (1 + z2 / n);
    const half = (Math.sqrt(z2) / (1 + z2 / n)) * Math.sqrt((f * (1 - f)) / n + z2 / (4 * n * n));
    out.push(
      Object.freeze({
        lower: b / bins,
        upper: (b + 1) / bins,
        count: n,
        meanPredicted: predicted[b] / n,
        observed: f,
        observedLow: Math.max(0, centre - half),
        observedHigh: Math.min(1, centre + half),
      }),
    );
  }
  return out;
}

/**
 * The Monte Carlo standard error of the log loss of a weighted mixture of posterior predictives,
 * −(1/m) Σ_r log Σ_i a_i p̂_i(y_r | x_r), each p̂_i an average over draws of one family. To first order
 * the error is the mean over each family's draws of z_s = −(1/m) Σ_r a_i (p_i(y_r | θ_s) − p̂_i,r)/p̄_r
 * (p̄ the mixture), so its variance is Σ_i sd(z)²/ESS(z), the ESS over that family's chains. One family
 * with weight 1 gives its own log loss's error.
 */
export function logLossMonteCarloError(
  parts: readonly { weight: number; predictive: PosteriorPredictive }[],
): number {
  if (parts.length === 0) return Number.NaN;
  const { m } = parts[0].predictive;
  const mixture = new Float64Array(m);
  for (const { weight, predictive } of parts) {
    if (predictive.observed === null)
      throw new OccamError("invalid-argument", "logLossMonteCarloError: needs labelled predictives.");
    const S = predictive.chains * predictive.perChain;
    for (let r = 0; r < m; r++) {
      // The observed class's averaged probability is the mean of the kept per-draw values.
      let mean = 0;
      for (let s = 0; s < S; s++) mean += predictive.observed[r * S + s] / S;
      mixture[r] += weight * mean;
    }
  }
  let variance = 0;
  for (const { weight, predictive } of parts) {
    const S = predictive.chains * predictive.perChain;
    const observed = predictive.observed as Float64Array;
    const means = new Float64Array(m);
    for (let r = 0; r < m; r++) for (let s = 0; s < S; s++) means[r] += observed[r * S + s] / S;
    const chains: Float64Array[] = [];
    for (let c = 0; c < predictive.chains; c++) {
      const z = new Float64Array(predictive.perChain);
      for (let j = 0; j < predictive.perChain; j++) {
        const s = c * predictive.perChain + j;
        let v = 0;
        for (let r = 0; r < m; r++) v -= (weight * (observed[r * S + s] - means[r])) / mixture[r];
        z[j] = v / m;
      }
      chains.push(z);
    }
    let sd = 0;
    let count = 0;
    for (const z of chains)
      for (const v of z) {
        sd += v * v;
        count++;
      }
    sd = Math.sqrt(sd / Math.max(1, count - 1));
    const e = sd > 0 ? effectiveSampleSize(chains) : count;
    const ess = Number.isFinite(e) && e > 0 ? Math.min(e, count) : count;
    variance += (sd * sd) / ess;
  }
  return Math.sqrt(variance);
}
