import { logGammaRatio } from "../math/special.js";
import type { Rng } from "../random/rng.js";
import { studentT as studentTVariate } from "../random/variates.js";
import {
  type ContinuousUnivariateDistribution,
  checkFiniteParameter,
  checkOptions,
  checkPositiveParameter,
} from "./distribution.js";

/** Options of {@link studentT}: degrees of freedom, location and scale. */
export interface StudentTOptions {
  /** Degrees of freedom ν > 0. */
  dof: number;
  /**
   * The location μ (the median; the mean when ν > 1).
   * @defaultValue 0
   */
  location?: number;
  /**
   * The scale s > 0 (not the standard deviation, which is s √(ν/(ν − 2)) for ν > 2).
   * @defaultValue 1
   */
  scale?: number;
}

/** The location–scale Student-t distribution. */
export interface StudentT extends ContinuousUnivariateDistribution {
  readonly family: "student-t";
  readonly dof: number;
  readonly location: number;
  readonly scale: number;
}

/** log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ): the log normaliser of the standard Student-t density. */
export function studentTLogNormaliser(dof: number): number {
  return logGammaRatio(0.5 * dof, 0.5) - 0.5 * Math.log(dof * Math.PI);
}

/**
 * The Student-t distribution with ν degrees of freedom, location μ and scale s:
 * log p(x) = log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ) − log s − (ν+1)/2 · log(1 + z²/ν), z = (x − μ)/s.
 */
export function studentT(options: StudentTOptions): StudentT {
  checkOptions(options, "studentT", "dof, location, scale");
  const { dof } = options;
  const location = options.location ?? 0;
  const scale = options.scale ?? 1;
  checkPositiveParameter(dof, "studentT: dof");
  checkFiniteParameter(location, "studentT: location");
  checkPositiveParameter(scale, "studentT: scale");
  const logNorm = studentTLogNormaliser(dof) - Math.log(scale);
  const halfDofPlusOne = 0.5 * (dof + 1);
  let variance = Number.NaN;
  if (dof > 2) variance = (scale * scale * dof) / (dof - 2);
  else if (dof > 1) variance = Number.POSITIVE_INFINITY;
  return Object.freeze({
    family: "student-t" as const,
    dof,
    location,
    scale,
    mean: dof > 1 ? location : Number.NaN,
    variance,
    logPdf(x: number): number {
      const z = (x - location) / scale;
      return logNorm - halfDofPlusOne * Math.log1p((z * z) / dof);
    },
    dLogPdf(x: number): number {
      const z = (x - location) / scale;
      return (-(dof + 1) * z) / (scale * (dof + z * z));
    },
    sample(rng: Rng): number {
      return location + scale * studentTVariate(rng, dof);
    },
  });
}
