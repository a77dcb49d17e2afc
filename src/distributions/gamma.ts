import { gammaln } from "../math/stdlib.js";
import type { Rng } from "../random/rng.js";
import {
  type ContinuousUnivariateDistribution,
  checkOptions,
  checkPositiveParameter,
  xLogY,
} from "./distribution.js";

/** Options of {@link gamma}: shape and rate (not scale). */
export interface GammaOptions {
  /** The shape a > 0. */
  shape: number;
  /** The rate b > 0 (the inverse of the scale): the mean is a / b. */
  rate: number;
}

/** The Gamma distribution with shape a and rate b. */
export interface Gamma extends ContinuousUnivariateDistribution {
  readonly family: "gamma";
  readonly shape: number;
  readonly rate: number;
}

/** The log of the Gamma(shape a, rate b) density's normaliser, a log b − log Γ(a). */
export function gammaLogNormaliser(shape: number, rate: number): number {
  return shape * Math.log(rate) - gammaln(shape);
}

/**
 * The log density of u = log x for x ~ Gamma(shape a, rate b) (the Gamma density times the Jacobian
 * eᵘ): a log b − log Γ(a) + a u − b eᵘ. Hot loops pass `logNormaliser` ({@link gammaLogNormaliser})
 * computed once.
 */
export function gammaLogDensityOfLog(
  u: number,
  shape: number,
  rate: number,
  logNormaliser = gammaLogNormaliser(shape, rate),
): number {
  return logNormaliser + shape * u - rate * Math.exp(u);
}

/**
 * The Gamma(shape a, rate b) distribution on x > 0:
 * log p(x) = a log b − log Γ(a) + (a − 1) log x − b x. Mean a/b, variance a/b².
 * At x = 0 the density is +Infinity for a < 1, b for a = 1 and 0 for a > 1.
 */
export function gamma(options: GammaOptions): Gamma {
  checkOptions(options, "gamma", "shape, rate");
  const { shape, rate } = options;
  checkPositiveParameter(shape, "gamma: shape");
  checkPositiveParameter(rate, "gamma: rate");
  const logNorm = gammaLogNormaliser(shape, rate);
  return Object.freeze({
    family: "gamma" as const,
    shape,
    rate,
    mean: shape / rate,
    variance: shape / (rate * rate),
    logPdf(x: number): number {
      if (x < 0 || x === Number.POSITIVE_INFINITY) return Number.NEGATIVE_INFINITY;
      return logNorm + xLogY(shape - 1, x) - rate * x;
    },
    dLogPdf(x: number): number {
      return (shape - 1) / x - rate;
    },
    sample(rng: Rng): number {
      return rng.gamma(shape) / rate;
    },
  });
}
