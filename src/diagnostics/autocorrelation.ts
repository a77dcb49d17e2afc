import { OccamError } from "../errors.js";
import { inverseRealFft, nextPowerOfTwo, realFft } from "../math/fft.js";
import { mean } from "./chains.js";

function checkSeries(x: Float64Array, maxLag: number | undefined, where: string): number {
  if (!(x instanceof Float64Array)) {
    throw new OccamError("invalid-argument", `${where}: x must be a Float64Array.`);
  }
  const n = x.length;
  if (n < 1) throw new OccamError("invalid-argument", `${where}: x is empty; it needs at least one value.`);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(x[i])) {
      throw new OccamError("non-finite", `${where}: x[${i}] is ${x[i]}; every value must be finite.`);
    }
  }
  const lag = maxLag ?? n - 1;
  if (!(Number.isInteger(lag) && lag >= 0 && lag <= n - 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: maxLag must be an integer in [0, ${n - 1}] (the series has ${n} values), got ${maxLag}.`,
    );
  }
  return lag;
}

/**
 * The autocovariances γ̂_k = (1/n) Σ_{t<n−k} (x_t − x̄)(x_{t+k} − x̄) for k = 0 … maxLag: the "biased"
 * estimator (divisor n, not n − k) that Geyer (1992) recommends and Stan uses, which keeps the sequence
 * positive semi-definite. Computed by FFT in O(n log n) with zero padding to a power of two ≥ 2n, so the
 * circular correlation equals the linear one.
 *
 * @param maxLag - largest lag returned. @defaultValue n − 1
 */
export function autocovariance(x: Float64Array, maxLag?: number): Float64Array {
  const lag = checkSeries(x, maxLag, "autocovariance");
  const n = x.length;
  const m = mean(x);

  const size = Math.max(2, nextPowerOfTwo(2 * n));
  const buffer = new Float64Array(size);
  for (let i = 0; i < n; i++) buffer[i] = x[i] - m;
  const re = new Float64Array(size / 2 + 1);
  const im = new Float64Array(size / 2 + 1);
  realFft(buffer, re, im);
  // Wiener–Khinchin: the inverse transform of the power spectrum |X|² is the autocorrelation sum.
  for (let k = 0; k < re.length; k++) {
    re[k] = re[k] * re[k] + im[k] * im[k];
    im[k] = 0;
  }
  inverseRealFft(re, im, buffer);
  const out = new Float64Array(lag + 1);
  for (let k = 0; k <= lag; k++) out[k] = buffer[k] / n;
  return out;
}

/**
 * The normalised autocorrelation ρ̂_k = γ̂_k / γ̂_0 for k = 0 … maxLag (ρ̂_0 = 1), with the biased
 * autocovariance of {@link autocovariance}, by FFT in O(n log n).
 * Throws an `OccamError` when x has a non-finite value or is constant (ρ is then undefined).
 *
 * @param maxLag - largest lag returned. @defaultValue n − 1
 */
export function autocorrelation(x: Float64Array, maxLag?: number): Float64Array {
  const acov = autocovariance(x, maxLag);
  const variance = acov[0];
  // A constant series has γ̂_0 = 0 up to rounding of the mean (a few ulps of |x|).
  let scale = 0;
  for (let i = 0; i < x.length; i++) scale = Math.max(scale, Math.abs(x[i]));
  if (!(variance > (1e-14 * scale) ** 2)) {
    throw new OccamError(
      "invalid-argument",
      `autocorrelation: the series of ${x.length} values is constant, so its autocorrelation is undefined.`,
    );
  }
  for (let k = 0; k < acov.length; k++) acov[k] /= variance;
  acov[0] = 1;
  return acov;
}
