/** Predictions of the Bayesian network from its posterior draws: means, standard deviations and intervals. */

import { OccamError } from "../../errors.js";
import { erfc } from "../../math/stdlib.js";
import { MLP_FIT_DEFAULTS } from "./defaults.js";
import type { Mlp } from "./network.js";
import { BayesianMlpDraws } from "./sampling.js";

/** Options of {@link predictBayesianMlp}. */
export interface PredictBayesianMlpOptions {
  /**
   * Probability content of the central predictive interval.
   * @defaultValue 0.9
   */
  level?: number;
}

/** Posterior predictive summaries at new inputs, each n × O row-major. */
export interface MlpPredictive {
  readonly n: number;
  readonly outputs: number;
  /** The interval's probability content. */
  readonly level: number;
  /** Predictive mean: the network output averaged over draws (thesis eq. 6.72). */
  readonly mean: Float64Array;
  /** Predictive standard deviation: √(mean of τ⁻¹ + variance of f over draws). */
  readonly sd: Float64Array;
  /** Lower end of the central interval of the predictive mixture (1/S) Σ_s N(f(x; w_s), τ_s⁻¹). */
  readonly lower: Float64Array;
  /** Upper end of the interval. */
  readonly upper: Float64Array;
}

/** The draws {@link predictBayesianMlp} needs (a {@link BayesianMlpDraws} has them). */
export interface MlpPredictiveDraws {
  readonly nDraws: number;
  /** S × W weights. */
  readonly weights: Float64Array;
  /** τ at each draw. */
  readonly noisePrecision: Float64Array;
}

/**
 * The posterior predictive distribution at the n × I inputs `X`: the mixture over draws s of
 * N(f(x; w_s), τ_s⁻¹) for each output, summarised by its mean, standard deviation and central
 * interval (quantiles of the mixture found by bisection on its CDF, so they are exact for the draws).
 */
export function predictBayesianMlp(
  network: Mlp,
  draws: MlpPredictiveDraws,
  X: Float64Array,
  n: number,
  options: PredictBayesianMlpOptions = {},
): MlpPredictive {
  const where = "predictBayesianMlp";
  const level = options.level ?? MLP_FIT_DEFAULTS.level;
  if (!(level > 0 && level < 1)) {
    throw new OccamError("invalid-argument", `${where}: level must lie in (0, 1), got ${level}.`);
  }
  const I = network.inputs;
  const O = network.outputs;
  const W = network.size;
  const S = draws.nDraws;
  if (!(Number.isInteger(n) && n >= 1) || X.length !== n * I) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: X must hold n·I = ${n}·${I} values, got ${X.length}.`,
    );
  }
  if (draws.weights.length !== S * W || draws.noisePrecision.length !== S || S < 1) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: the draws do not match the network (need ${S} × ${W} weights and ${S} precisions).`,
    );
  }
  for (let k = 0; k < X.length; k++) {
    if (!Number.isFinite(X[k])) {
      throw new OccamError(
        "invalid-data",
        `${where}: input ${k % I} of case ${Math.floor(k / I)} is ${X[k]}.`,
      );
    }
  }
  const f = new Float64Array(S * n * O); // f[s][r][o]
  for (let s = 0; s < S; s++) {
    network.predict(draws.weights.subarray(s * W, (s + 1) * W), X, n, f.subarray(s * n * O, (s + 1) * n * O));
  }
  const noiseSd = new Float64Array(S);
  let meanNoiseVar = 0;
  for (let s = 0; s < S; s++) {
    noiseSd[s] = 1 / Math.sqrt(draws.noisePrecision[s]);
    meanNoiseVar += 1 / draws.noisePrecision[s] / S;
  }
  const mean = new Float64Array(n * O);
  const sd = new Float64Array(n * O);
  const lower = new Float64Array(n * O);
  const upper = new Float64Array(n * O);
  const mu = new Float64Array(S);
  const tail = (1 - level) / 2;
  for (let c = 0; c < n * O; c++) {
    let m = 0;
    for (let s = 0; s < S; s++) {
      mu[s] = f[s * n * O + c];
      m += mu[s];
    }
    m /= S;
    let v = 0;
    for (let s = 0; s < S; s++) v += (mu[s] - m) ** 2;
    mean[c] = m;
    sd[c] = Math.sqrt(meanNoiseVar + v / S);
    lower[c] = mixtureQuantile(mu, noiseSd, tail);
    upper[c] = mixtureQuantile(mu, noiseSd, 1 - tail);
  }
  return Object.freeze({ n, outputs: O, level, mean, sd, lower, upper });
}

/** The q-quantile of the equal-weight normal mixture (1/S) Σ N(mu_s, sd_s²), by bisection. */
function mixtureQuantile(mu: Float64Array, sd: Float64Array, q: number): number {
  const S = mu.length;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let s = 0; s < S; s++) {
    lo = Math.min(lo, mu[s] - 10 * sd[s]);
    hi = Math.max(hi, mu[s] + 10 * sd[s]);
  }
  const cdf = (x: number) => {
    let c = 0;
    for (let s = 0; s < S; s++) c += 0.5 * erfc((mu[s] - x) / (Math.SQRT2 * sd[s]));
    return c / S;
  };
  for (let it = 0; it < 100 && hi - lo > 1e-12 * (1 + Math.abs(lo) + Math.abs(hi)); it++) {
    const mid = 0.5 * (lo + hi);
    if (cdf(mid) < q) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// --- fitting on raw data -----------------------------------------------------------------------
