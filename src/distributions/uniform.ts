import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { uniformRange } from "../random/variates.js";
import { type ContinuousUnivariateDistribution, checkFiniteParameter, checkOptions } from "./distribution.js";

/** Options of {@link uniform}: the interval's end points. */
export interface UniformOptions {
  /** The lower end a. */
  lower: number;
  /** The upper end b > a. */
  upper: number;
}

/** The continuous uniform distribution on [lower, upper]. */
export interface Uniform extends ContinuousUnivariateDistribution {
  readonly family: "uniform";
  readonly lower: number;
  readonly upper: number;
}

/** The uniform distribution on [lower, upper]: log p(x) = −log(upper − lower) inside, −Infinity outside. */
export function uniform(options: UniformOptions): Uniform {
  checkOptions(options, "uniform", "lower, upper");
  const { lower, upper } = options;
  checkFiniteParameter(lower, "uniform: lower");
  checkFiniteParameter(upper, "uniform: upper");
  const width = upper - lower;
  if (!(width > 0 && Number.isFinite(width))) {
    throw new OccamError(
      "invalid-argument",
      `uniform: need lower < upper with a finite width, got lower = ${lower}, upper = ${upper}.`,
    );
  }
  const logDensity = -Math.log(width);
  return Object.freeze({
    family: "uniform" as const,
    lower,
    upper,
    mean: lower + 0.5 * width,
    variance: (width * width) / 12,
    logPdf(x: number): number {
      if (x >= lower && x <= upper) return logDensity;
      return Number.isNaN(x) ? x : Number.NEGATIVE_INFINITY;
    },
    dLogPdf(_x: number): number {
      return 0;
    },
    sample(rng: Rng): number {
      return uniformRange(rng, lower, upper);
    },
  });
}
