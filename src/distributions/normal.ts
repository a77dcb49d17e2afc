import { HALF_LOG_2PI } from "../math/constants.js";
import type { Rng } from "../random/rng.js";
import {
  type ContinuousUnivariateDistribution,
  checkFiniteParameter,
  checkOptions,
  checkPositiveParameter,
} from "./distribution.js";

/** Options of {@link normal}: mean and standard deviation. */
export interface NormalOptions {
  /** The mean μ. */
  mean: number;
  /** The standard deviation σ > 0 (not the variance). */
  sd: number;
}

/** The normal distribution N(μ, σ²). */
export interface Normal extends ContinuousUnivariateDistribution {
  readonly family: "normal";
  /** The standard deviation σ. */
  readonly sd: number;
}

/**
 * The normal distribution with mean `mean` and standard deviation `sd`:
 * log p(x) = −½((x − μ)/σ)² − log σ − ½ log 2π.
 */
export function normal(options: NormalOptions): Normal {
  checkOptions(options, "normal", "mean, sd");
  const { mean, sd } = options;
  checkFiniteParameter(mean, "normal: mean");
  checkPositiveParameter(sd, "normal: sd");
  const logNorm = -Math.log(sd) - HALF_LOG_2PI;
  const precision = 1 / (sd * sd);
  return Object.freeze({
    family: "normal" as const,
    mean,
    sd,
    variance: sd * sd,
    logPdf(x: number): number {
      const z = (x - mean) / sd;
      return logNorm - 0.5 * z * z;
    },
    dLogPdf(x: number): number {
      return -(x - mean) * precision;
    },
    sample(rng: Rng): number {
      return mean + sd * rng.normal();
    },
  });
}
