import type { Draws } from "../model/draws.js";
import { effectiveSampleSize, pooledSd } from "./ess.js";
import { splitRhat } from "./rhat.js";

/** The posterior summary of one parameter. */
export interface ParameterSummary {
  /** Parameter name. */
  readonly name: string;
  /** Posterior mean over all draws of all chains. */
  readonly mean: number;
  /** Posterior standard deviation over all draws (n − 1 denominator). */
  readonly sd: number;
  /** Monte Carlo standard error of the mean, sd / √ess; NaN when the ESS is undefined. */
  readonly mcse: number;
  /** Split-chain effective sample size (see `effectiveSampleSize`); NaN when undefined. */
  readonly ess: number;
  /** Split R̂ (see `splitRhat`); NaN when undefined. */
  readonly rhat: number;
}

/**
 * Per-parameter mean, sd, Monte Carlo standard error, ESS and split-R̂ of `draws`, in parameter order.
 * Needs at least 2 draws in all.
 */
export function summarize(draws: Draws): ParameterSummary[] {
  const means = draws.mean();
  const out: ParameterSummary[] = [];
  for (let j = 0; j < draws.dim; j++) {
    const chains = draws.chains(j);
    const ess = effectiveSampleSize(chains);
    const sd = pooledSd(chains);
    const rhat = splitRhat(chains);
    out.push(
      Object.freeze({
        name: draws.names[j],
        mean: means[j],
        sd,
        mcse: Number.isNaN(ess) ? Number.NaN : sd / Math.sqrt(ess),
        ess,
        rhat,
      }),
    );
  }
  return out;
}
