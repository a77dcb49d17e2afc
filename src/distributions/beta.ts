import { betaln } from "../math/stdlib.js";
import type { Rng } from "../random/rng.js";
import {
  type ContinuousUnivariateDistribution,
  checkOptions,
  checkPositiveParameter,
  xLogY,
} from "./distribution.js";

/** Options of {@link beta}: the two shape parameters. */
export interface BetaOptions {
  /** The first shape a > 0 (the exponent of x is a − 1). */
  a: number;
  /** The second shape b > 0 (the exponent of 1 − x is b − 1). */
  b: number;
}

/** The Beta distribution on [0, 1]. */
export interface Beta extends ContinuousUnivariateDistribution {
  readonly family: "beta";
  readonly a: number;
  readonly b: number;
}

/**
 * The Beta(a, b) distribution on [0, 1]: log p(x) = (a − 1) log x + (b − 1) log(1 − x) − log B(a, b).
 * Mean a/(a + b), variance ab/((a + b)²(a + b + 1)).
 */
export function beta(options: BetaOptions): Beta {
  checkOptions(options, "beta", "a, b");
  const { a, b } = options;
  checkPositiveParameter(a, "beta: a");
  checkPositiveParameter(b, "beta: b");
  const logNorm = -betaln(a, b);
  const s = a + b;
  return Object.freeze({
    family: "beta" as const,
    a,
    b,
    mean: a / s,
    variance: (a * b) / (s * s * (s + 1)),
    logPdf(x: number): number {
      if (x < 0 || x > 1) return Number.NEGATIVE_INFINITY;
      return logNorm + xLogY(a - 1, x) + (b === 1 ? 0 : (b - 1) * Math.log1p(-x));
    },
    dLogPdf(x: number): number {
      return (a - 1) / x - (b - 1) / (1 - x);
    },
    sample(rng: Rng): number {
      return rng.beta(a, b);
    },
  });
}
