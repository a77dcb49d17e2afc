import { OccamError } from "../errors.js";
import { gammaln } from "./stdlib.js";

/**
 * Special-function combinations that lose precision when computed naively. The special functions
 * themselves come from @stdlib.
 */

/** Above this argument the Stirling series is used for log Γ ratios (truncation error < 1e-15). */
const STIRLING_THRESHOLD = 100;

/** The Stirling series of log Γ(z) without the (z − ½) log z − z + ½ log 2π part. */
function stirlingCorrection(z: number): number {
  const z2 = z * z;
  return (1 / 12 - (1 / 360 - 1 / (1260 * z2)) / z2) / z;
}

/**
 * log Γ(a + h) − log Γ(a) for a > 0, a + h > 0. Subtracting two `gammaln` values loses about
 * log10(log Γ(a)) digits when a is large (at a = 5e8 the difference is off by ~1e-6); for a ≥ 100 the
 * ratio is taken from Stirling's series with log1p, which keeps full relative precision. Used by the
 * Student-t normalising constants, where a = ν/2 may be huge.
 */
export function logGammaRatio(a: number, h: number): number {
  if (!(a > 0 && a + h > 0)) {
    throw new OccamError(
      "invalid-argument",
      `logGammaRatio: need a > 0 and a + h > 0, got a = ${a}, h = ${h}.`,
    );
  }
  if (a < STIRLING_THRESHOLD || a + h < STIRLING_THRESHOLD || !Number.isFinite(a)) {
    return gammaln(a + h) - gammaln(a);
  }
  // (a + h − ½) log(a + h) − (a − ½) log a − h = (a − ½) log1p(h/a) + h log(a + h) − h.
  return (
    (a - 0.5) * Math.log1p(h / a) +
    h * Math.log(a + h) -
    h +
    stirlingCorrection(a + h) -
    stirlingCorrection(a)
  );
}
