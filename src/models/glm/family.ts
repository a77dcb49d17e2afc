/**
 * Generalised linear models' likelihoods: each observation's log likelihood as a function of its
 * linear predictor η, with the first derivative and the curvature −d²/dη² that Newton's method and
 * the Laplace approximation need. Every normalising constant is kept (the binomial coefficient, log y!),
 * so that log evidences of different models are comparable.
 */

import { OccamError } from "../../errors.js";
import { HALF_LOG_2PI } from "../../math/constants.js";
import { erfc, gammaln } from "../../math/stdlib.js";

/** The outcome's distribution. */
export type GlmFamilyName = "bernoulli" | "binomial" | "poisson";

/** How the mean depends on the linear predictor η. */
export type GlmLink = "logit" | "probit" | "log";

/** The links each family accepts, its canonical one first. */
export const GLM_LINKS: Readonly<Record<GlmFamilyName, readonly GlmLink[]>> = Object.freeze({
  bernoulli: ["logit", "probit"],
  binomial: ["logit", "probit"],
  poisson: ["log"],
});

/** The outcome of a GLM: y, and for a binomial the trials, for a Poisson the offset (log exposure). */
export interface GlmOutcome {
  readonly family: GlmFamilyName;
  readonly link: GlmLink;
  /** The outcomes: 0/1, successes, or counts. */
  readonly y: Float64Array;
  /** Binomial trials per row (1 for Bernoulli). */
  readonly trials: Float64Array;
  /** Added to η (Poisson: log exposure); zeros when none. */
  readonly offset: Float64Array;
  /** Σ of each row's constant (log binomial coefficient, −log y!), added once. */
  readonly constant: number;
}

/** Each observation's value, derivative and curvature, written by {@link GlmTerms}. */
export interface ObservationTerms {
  logLikelihood: number;
  /** d log L_i / dη. */
  gradient: number;
  /** −d² log L_i / dη² (≥ 0: every link here gives a log-concave likelihood). */
  curvature: number;
}

/**
 * Checks the outcome against its family and builds it: Bernoulli values two levels coded 0/1, binomial
 * successes whole numbers from 0 to their trials, Poisson counts whole numbers ≥ 0.
 */
export function glmOutcome(
  family: GlmFamilyName,
  link: GlmLink,
  y: Float64Array,
  options: { trials?: Float64Array; offset?: Float64Array; where?: string } = {},
): GlmOutcome {
  const where = options.where ?? "the target";
  const n = y.length;
  if (!GLM_LINKS[family]?.includes(link)) {
    throw new OccamError(
      "invalid-argument",
      `the ${family} family takes the link ${GLM_LINKS[family]?.join(" or ") ?? "(unknown family)"}, not "${link}".`,
    );
  }
  const trials = options.trials ?? new Float64Array(n).fill(1);
  const offset = options.offset ?? new Float64Array(n);
  let constant = 0;
  for (let i = 0; i < n; i++) {
    const v = y[i];
    if (family === "bernoulli" && v !== 0 && v !== 1) {
      throw new OccamError(
        "invalid-data",
        `${where}: row ${i + 1} is ${v}; a bernoulli target has two levels.`,
      );
    }
    if (family === "binomial") {
      const m = trials[i];
      if (!(Number.isInteger(m) && m >= 1)) {
        throw new OccamError("invalid-data", `--trials: row ${i + 1} is ${m}; trials are whole numbers ≥ 1.`);
      }
      if (!(Number.isInteger(v) && v >= 0 && v <= m)) {
        throw new OccamError(
          "invalid-data",
          `${where}: row ${i + 1} has ${v} successes out of ${m} trials; successes are whole numbers from 0 to the trials.`,
        );
      }
      constant += gammaln(m + 1) - gammaln(v + 1) - gammaln(m - v + 1);
    }
    if (family === "poisson") {
      if (!(Number.isInteger(v) && v >= 0)) {
        throw new OccamError(
          "invalid-data",
          `${where}: row ${i + 1} is ${v}; a poisson target holds counts, whole numbers ≥ 0.`,
        );
      }
      if (!Number.isFinite(offset[i])) {
        throw new OccamError(
          "invalid-data",
          `--offset: row ${i + 1} is ${offset[i]}; offsets are finite numbers.`,
        );
      }
      constant -= gammaln(v + 1);
    }
  }
  return { family, link, y, trials, offset, constant };
}

/**
 * The mean response per trial at the linear predictor η (the offset included): the probability under
 * the logit and probit links, the rate under the log link.
 */
export function inverseLink(link: GlmLink, eta: number): number {
  if (link === "logit") return eta >= 0 ? 1 / (1 + Math.exp(-eta)) : Math.exp(eta) / (1 + Math.exp(eta));
  if (link === "probit") return Math.exp(logNormalCdf(eta));
  return Math.exp(eta);
}

/** log Φ(x), accurate far into both tails. */
export function logNormalCdf(x: number): number {
  if (x > -30) return Math.log(0.5 * erfc(-x / Math.SQRT2));
  // Φ(x) = φ(x) R(−x), R the Mills ratio.
  return -0.5 * x * x - HALF_LOG_2PI + Math.log(millsRatio(-x));
}

/** φ(x)/Φ(x), the inverse Mills ratio, accurate far into the left tail (where it approaches −x). */
export function inverseMillsRatio(x: number): number {
  if (x > -30) return Math.exp(-0.5 * x * x - HALF_LOG_2PI - logNormalCdf(x));
  return 1 / millsRatio(-x);
}

/** R(t) = (1 − Φ(t))/φ(t) for large t, by its continued fraction 1/(t + 1/(t + 2/(t + 3/(t + …)))). */
function millsRatio(t: number): number {
  let f = t;
  for (let k = 40; k >= 1; k--) f = t + k / f;
  return 1 / f;
}

/**
 * Σ_i log L_i at the linear predictors `eta` (without the rows' constants): the hot loop of importance
 * sampling, by hand with the link chosen once and one special function per row.
 */
export function logLikelihoodSum(outcome: GlmOutcome, eta: Float64Array): number {
  const { y, trials, offset } = outcome;
  const n = y.length;
  let total = 0;
  if (outcome.link === "logit") {
    for (let i = 0; i < n; i++) {
      const e = eta[i] + offset[i];
      total += y[i] * e - trials[i] * (Math.max(e, 0) + Math.log1p(Math.exp(-Math.abs(e))));
    }
  } else if (outcome.link === "probit") {
    for (let i = 0; i < n; i++) {
      const e = eta[i] + offset[i];
      const up = y[i];
      const down = trials[i] - up;
      if (up > 0) total += up * logNormalCdf(e);
      if (down > 0) total += down * logNormalCdf(-e);
    }
  } else {
    for (let i = 0; i < n; i++) {
      const e = eta[i] + offset[i];
      total += y[i] * e - Math.exp(e);
    }
  }
  return total;
}

/**
 * Σ_i log L_i at the linear predictors `eta` (without the rows' constants), each row's d log L_i / dη
 * written to `slopes` and −d² log L_i / dη² to `curvatures`: {@link observationTerms} for every row.
 */
export function rowTerms(
  outcome: GlmOutcome,
  eta: Float64Array,
  slopes: Float64Array,
  curvatures: Float64Array,
): number {
  const out: ObservationTerms = { logLikelihood: 0, gradient: 0, curvature: 0 };
  let total = 0;
  for (let i = 0; i < eta.length; i++) {
    observationTerms(outcome, i, eta[i], out);
    total += out.logLikelihood;
    slopes[i] = out.gradient;
    curvatures[i] = out.curvature;
  }
  return total;
}

/**
 * Writes observation i's log likelihood, gradient and curvature at linear predictor `eta` (without the
 * offset and without the row's constant, which {@link GlmOutcome.constant} carries).
 */
export function observationTerms(outcome: GlmOutcome, i: number, eta: number, out: ObservationTerms): void {
  const y = outcome.y[i];
  const m = outcome.trials[i];
  const e = eta + outcome.offset[i];
  if (outcome.link === "logit") {
    // log(1 + e^e) and σ(e) from one exponential, stable for either sign.
    const z = Math.exp(-Math.abs(e));
    const softplus = Math.max(e, 0) + Math.log1p(z);
    const sigma = e >= 0 ? 1 / (1 + z) : z / (1 + z);
    out.logLikelihood = y * e - m * softplus;
    out.gradient = y - m * sigma;
    out.curvature = m * sigma * (1 - sigma);
  } else if (outcome.link === "probit") {
    const up = inverseMillsRatio(e);
    const down = inverseMillsRatio(-e);
    out.logLikelihood = (y > 0 ? y * logNormalCdf(e) : 0) + (m - y > 0 ? (m - y) * logNormalCdf(-e) : 0);
    out.gradient = y * up - (m - y) * down;
    out.curvature = y * up * (e + up) + (m - y) * down * (down - e);
  } else {
    const mu = Math.exp(e);
    out.logLikelihood = y * e - mu;
    out.gradient = y - mu;
    out.curvature = mu;
  }
}
