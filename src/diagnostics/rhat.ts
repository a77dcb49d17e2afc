import { OccamError } from "../errors.js";
import type { Draws } from "../model/draws.js";
import { allEqual, checkChains, mean, splitChains, variance } from "./chains.js";

/** Options of {@link splitRhat}. */
export interface RhatOptions {
  /**
   * Split each chain into halves first, so that a trend within a chain raises R̂ (split-R̂). With
   * `false` the classic Gelman–Rubin R̂, which needs at least two chains.
   * @defaultValue true
   */
  split?: boolean;
}

/**
 * The potential scale reduction factor R̂ of one parameter (Gelman et al., Bayesian Data Analysis,
 * 3rd ed., §11.4; as Stan's split-R̂ and `posterior::rhat_basic`, without rank normalisation): with m
 * split chains of n draws, W the mean within-chain variance and B/n the variance of the chain means,
 * R̂ = √(((n − 1)/n W + B/n) / W). Near 1 when the chains agree; above 1.01 – 1.1 they have not mixed.
 *
 * Returns NaN when R̂ is undefined (every draw equal, or fewer than 2 draws per split chain) and
 * Infinity when every chain is constant but they differ. Throws an `OccamError` for non-finite draws,
 * chains of unequal length, or a single chain with `split: false`.
 */
export function splitRhat(chains: readonly Float64Array[], options: RhatOptions = {}): number {
  const split = options.split ?? true;
  checkChains(chains, "splitRhat");
  if (!split && chains.length < 2) {
    throw new OccamError(
      "invalid-argument",
      "splitRhat: R̂ without splitting needs at least two chains; run more chains or use split: true.",
    );
  }
  const parts = split ? splitChains(chains) : chains.slice();
  const m = parts.length;
  const n = parts[0].length;
  if (n < 2 || allEqual(parts)) return Number.NaN;
  const means = new Float64Array(m);
  let within = 0;
  for (let c = 0; c < m; c++) {
    means[c] = mean(parts[c]);
    within += variance(parts[c]);
  }
  within /= m;
  const betweenOverN = variance(means); // B / n
  if (within === 0) return Number.POSITIVE_INFINITY;
  return Math.sqrt((n - 1) / n + betweenOverN / within);
}

/** {@link splitRhat} of every parameter of `draws`, over all its chains. */
export function rhatPerParameter(draws: Draws, options: RhatOptions = {}): Float64Array {
  const out = new Float64Array(draws.dim);
  for (let j = 0; j < draws.dim; j++) out[j] = splitRhat(draws.chains(j), options);
  return out;
}
