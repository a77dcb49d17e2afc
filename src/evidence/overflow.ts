/**
 * What an estimator says when the model's log likelihood was NaN or +∞ at points it drew from the
 * prior (whole, or restricted to a likelihood bound). Such a point is weighed as a zero likelihood,
 * which is right where the model overflows far from the posterior's mass (a user's log Φ in a probit
 * model's tail) and wrong where the posterior has mass: the first is a warning, and a share of the
 * whole prior's draws above {@link MAX_NON_FINITE_PRIOR_SHARE} makes the estimate unreliable.
 */

/** The share of draws from the whole prior with a NaN or +∞ log likelihood above which the estimate is unreliable. */
export const MAX_NON_FINITE_PRIOR_SHARE = 0.01;

/**
 * The warnings and reasons against the error bar for `total` NaN or +∞ log likelihoods among the
 * estimator's draws (`what` names them), of which `atPriorDraws` among its `priorDraws` draws from the
 * whole prior.
 */
export function nonFiniteChecks(
  total: number,
  atPriorDraws: number,
  priorDraws: number,
  what: string,
): { unreliable: string[]; warnings: string[] } {
  if (total === 0) return { unreliable: [], warnings: [] };
  const share = priorDraws > 0 ? atPriorDraws / priorDraws : 0;
  if (share > MAX_NON_FINITE_PRIOR_SHARE) {
    return {
      unreliable: [
        `model.logLikelihood was NaN or +Infinity at ${atPriorDraws} of ${priorDraws} prior draws ` +
          `(${(100 * share).toFixed(1)} %): the integrand is undefined on part of the prior, so log Z is too; fix the model there.`,
      ],
      warnings: [],
    };
  }
  return {
    unreliable: [],
    warnings: [
      `model.logLikelihood was NaN or +Infinity at ${total} ${what}, taken as zero likelihood: right when the model ` +
        "overflows where the posterior has no mass; check the model if not.",
    ],
  };
}
