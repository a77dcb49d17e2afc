import { OccamError } from "../errors.js";
import type { Draws } from "../model/draws.js";
import { autocovariance } from "./autocorrelation.js";
import { allEqual, checkChains, mean, splitChains, variance } from "./chains.js";

/** Options of {@link effectiveSampleSize}. */
export interface EssOptions {
  /**
   * Split each chain into halves first (split-ESS), so that a chain that has not settled counts as two
   * chains that disagree, which lowers the ESS.
   * @defaultValue true
   */
  split?: boolean;
}

/**
 * The effective sample size of the mean of one parameter from one or more chains: Stan's multi-chain
 * estimator with Geyer's initial monotone sequence, as in `posterior::ess_basic` and ArviZ
 * `ess(method="mean")` (split chains, no rank normalisation — the "basic" ESS; Vehtari et al. 2021,
 * Rank-normalization, folding, and localization, Bayesian Analysis 16(2)).
 *
 * With m (split) chains of n draws, ρ̂_t = 1 − (W − mean_c γ̂_{c,t}) / var⁺, where W is the mean
 * within-chain variance and var⁺ = (n−1)/n W + B/n the pooled variance; the autocorrelations are summed
 * in pairs until a pair sum turns negative (Geyer's initial positive sequence), the pair sums are made
 * non-increasing (initial monotone sequence), τ̂ = −1 + 2 Σ_{t<T} ρ̂_t + ρ̂_T, and ESS = m n / τ̂, capped
 * at m n log10(m n) as Stan does.
 *
 * Returns NaN, as Stan and ArviZ do, when the ESS is undefined: every draw equal, or fewer than 4
 * draws per (split) chain. Throws an `OccamError` for non-finite draws or chains of unequal length.
 */
export function effectiveSampleSize(chains: readonly Float64Array[], options: EssOptions = {}): number {
  const split = options.split ?? true;
  checkChains(chains, "effectiveSampleSize");
  const parts = split ? splitChains(chains) : chains.slice();
  const m = parts.length;
  const n = parts[0].length;
  if (n < 4 || allEqual(parts)) return Number.NaN;

  const acov: Float64Array[] = [];
  const chainMeans = new Float64Array(m);
  for (let c = 0; c < m; c++) {
    acov.push(autocovariance(parts[c]));
    chainMeans[c] = mean(parts[c]);
  }
  const meanAcov = (t: number): number => {
    let s = 0;
    for (let c = 0; c < m; c++) s += acov[c][t];
    return s / m;
  };
  // W: mean within-chain variance (n − 1 denominator); var⁺: pooled variance estimate.
  const meanVar = (meanAcov(0) * n) / (n - 1);
  let varPlus = (meanVar * (n - 1)) / n;
  if (m > 1) varPlus += variance(chainMeans);

  // Geyer's initial positive sequence, indexed as in posterior::ess_basic: pairs (t, t+1), t even.
  const rho = new Float64Array(n);
  let t = 0;
  let rhoEven = 1;
  let rhoOdd = 1 - (meanVar - meanAcov(1)) / varPlus;
  rho[0] = rhoEven;
  rho[1] = rhoOdd;
  while (t < n - 5 && rhoEven + rhoOdd > 0) {
    t += 2;
    rhoEven = 1 - (meanVar - meanAcov(t)) / varPlus;
    rhoOdd = 1 - (meanVar - meanAcov(t + 1)) / varPlus;
    if (rhoEven + rhoOdd >= 0) {
      rho[t] = rhoEven;
      rho[t + 1] = rhoOdd;
    }
  }
  const maxT = t;
  // The last even lag enters once (not doubled): this reduces the variance for antithetic chains.
  if (rhoEven > 0) rho[maxT] = rhoEven;

  // Geyer's initial monotone sequence: pair sums may not increase.
  t = 0;
  while (t <= maxT - 4) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
      rho[t + 1] = rho[t];
    }
  }

  const total = m * n;
  let tau: number;
  if (maxT === 0) {
    // Too few draws for a second pair (n ≤ 5): Geyer's estimate from the first pair alone.
    tau = 1 + 2 * rho[1];
  } else {
    let sum = 0;
    for (let k = 0; k < maxT; k++) sum += rho[k];
    tau = -1 + 2 * sum + rho[maxT];
  }
  // As Stan: keep τ̂ positive, which caps the ESS at total · log10(total).
  tau = Math.max(tau, 1 / Math.log10(total));
  return total / tau;
}

/** {@link effectiveSampleSize} of every parameter of `draws`, over all its chains. */
export function essPerParameter(draws: Draws, options: EssOptions = {}): Float64Array {
  const out = new Float64Array(draws.dim);
  for (let j = 0; j < draws.dim; j++) out[j] = effectiveSampleSize(draws.chains(j), options);
  return out;
}

/**
 * The Monte Carlo standard error of the posterior mean of one parameter: sd / √ESS, with sd the
 * standard deviation of all draws pooled (n − 1 denominator) and ESS from {@link effectiveSampleSize}
 * (as `posterior::mcse_mean`). NaN when the ESS is undefined.
 */
export function monteCarloStandardError(chains: readonly Float64Array[], options: EssOptions = {}): number {
  const ess = effectiveSampleSize(chains, options);
  if (Number.isNaN(ess)) return Number.NaN;
  return pooledSd(chains) / Math.sqrt(ess);
}

/** Standard deviation of all draws of all chains pooled, n − 1 denominator. */
export function pooledSd(chains: readonly Float64Array[]): number {
  let count = 0;
  let sum = 0;
  for (const chain of chains) {
    for (let i = 0; i < chain.length; i++) sum += chain[i];
    count += chain.length;
  }
  if (count < 2) {
    throw new OccamError("invalid-argument", `pooledSd: needs at least 2 draws, got ${count}.`);
  }
  const m = sum / count;
  let ss = 0;
  for (const chain of chains) {
    for (let i = 0; i < chain.length; i++) {
      const d = chain[i] - m;
      ss += d * d;
    }
  }
  return Math.sqrt(ss / (count - 1));
}

/**
 * The effective sample size of the mean of importance weights e^{logW} computed along MCMC chains
 * (`logW` chain after chain, `nChains` × `nDraws`): the ESS of the weight traces, capped at the number
 * of draws, and that number when the ESS is not finite (e.g. constant weights). The error of the mean
 * weight is then sd(w)/√ESS rather than sd(w)/√N.
 */
export function weightTraceEss(logW: Float64Array, nChains: number, nDraws: number): number {
  const total = nChains * nDraws;
  let max = Number.NEGATIVE_INFINITY;
  for (let t = 0; t < total; t++) if (logW[t] > max) max = logW[t];
  const chains: Float64Array[] = [];
  for (let c = 0; c < nChains; c++) {
    const w = new Float64Array(nDraws);
    for (let t = 0; t < nDraws; t++) w[t] = Math.exp(logW[c * nDraws + t] - max);
    chains.push(w);
  }
  return cappedEss(chains, total);
}

/**
 * The effective sample size of the chains' mean capped at `count` (the number of draws), and `count`
 * itself when the ESS is not a positive finite number (e.g. constant draws): the size an error bar
 * sd/√ESS may rest on.
 */
export function cappedEss(chains: readonly Float64Array[], count: number): number {
  const e = effectiveSampleSize(chains as Float64Array[]);
  return Number.isFinite(e) && e > 0 ? Math.min(count, e) : count;
}
