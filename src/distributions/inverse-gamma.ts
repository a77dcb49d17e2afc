import { gammaln } from "../math/stdlib.js";
import type { Rng } from "../random/rng.js";
import { logGammaVariate } from "../random/variates.js";
import {
  type ContinuousUnivariateDistribution,
  checkOptions,
  checkPositiveParameter,
} from "./distribution.js";

/** Options of {@link inverseGamma}: shape and scale. */
export interface InverseGammaOptions {
  /** The shape a > 0. */
  shape: number;
  /** The scale b > 0: if X ~ InverseGamma(a, b) then 1/X ~ Gamma(shape a, rate b). */
  scale: number;
}

/** The inverse-Gamma distribution with shape a and scale b. */
export interface InverseGamma extends ContinuousUnivariateDistribution {
  readonly family: "inverse-gamma";
  readonly shape: number;
  readonly scale: number;
}

/**
 * The inverse-Gamma(shape a, scale b) distribution on x > 0, with density
 * b^a / Γ(a) · x^−(a+1) · e^(−b/x). Mean b/(a − 1) for a > 1 (else Infinity); variance
 * b²/((a − 1)²(a − 2)) for a > 2 (Infinity for 1 < a ≤ 2, NaN for a ≤ 1).
 */
export function inverseGamma(options: InverseGammaOptions): InverseGamma {
  checkOptions(options, "inverseGamma", "shape, scale");
  const { shape, scale } = options;
  checkPositiveParameter(shape, "inverseGamma: shape");
  checkPositiveParameter(scale, "inverseGamma: scale");
  const logNorm = shape * Math.log(scale) - gammaln(shape);
  const mean = shape > 1 ? scale / (shape - 1) : Number.POSITIVE_INFINITY;
  let variance = Number.NaN;
  if (shape > 2) variance = (scale * scale) / ((shape - 1) * (shape - 1) * (shape - 2));
  else if (shape > 1) variance = Number.POSITIVE_INFINITY;
  return Object.freeze({
    family: "inverse-gamma" as const,
    shape,
    scale,
    mean,
    variance,
    logPdf(x: number): number {
      if (!(x > 0) || x === Number.POSITIVE_INFINITY) return Number.isNaN(x) ? x : Number.NEGATIVE_INFINITY;
      return logNorm - (shape + 1) * Math.log(x) - scale / x;
    },
    dLogPdf(x: number): number {
      return -(shape + 1) / x + scale / (x * x);
    },
    sample(rng: Rng): number {
      // b / G drawn as b·e^(−log G): a Gamma draw with a small shape can underflow to 0.
      // The result is +Infinity only when the true variate exceeds the double range.
      return scale * Math.exp(-logGammaVariate(rng, shape));
    },
  });
}
