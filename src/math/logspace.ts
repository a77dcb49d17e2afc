/**
 * Log-space arithmetic. Every function is exact for ±Infinity arguments and stable for arguments
 * of any magnitude (±1e5 and beyond): it never exponentiates a large number.
 */

/** log(e^a + e^b). */
export function logAddExp(a: number, b: number): number {
  if (a === Number.NEGATIVE_INFINITY) return b;
  if (b === Number.NEGATIVE_INFINITY) return a;
  if (a === Number.POSITIVE_INFINITY || b === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/** log(e^a − e^b) for a ≥ b; −Infinity when a = b, NaN when a < b (the difference is negative). */
export function logDiffExp(a: number, b: number): number {
  if (b === Number.NEGATIVE_INFINITY) return a;
  if (a < b) return Number.NaN;
  if (a === b) return Number.NEGATIVE_INFINITY;
  if (a === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  const d = b - a;
  // log1p(−e^d) loses accuracy when e^d is near 1; log(−expm1(d)) is accurate there.
  return a + (d > -Math.LN2 ? Math.log(-Math.expm1(d)) : Math.log1p(-Math.exp(d)));
}

/** log Σ e^{x_i} over `values[start … start + length − 1]`; −Infinity for an empty range. */
export function logSumExp(values: ArrayLike<number>, start = 0, length = values.length - start): number {
  let max = Number.NEGATIVE_INFINITY;
  const end = start + length;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (Number.isNaN(v)) return Number.NaN;
    if (v > max) max = v;
  }
  if (max === Number.NEGATIVE_INFINITY || max === Number.POSITIVE_INFINITY) return max;
  let sum = 0;
  for (let i = start; i < end; i++) sum += Math.exp(values[i] - max);
  return max + Math.log(sum);
}

/** log( (1/n) Σ e^{x_i} ): the log of the mean of exponentiated values, as used to average likelihoods. */
export function logMeanExp(values: ArrayLike<number>, start = 0, length = values.length - start): number {
  if (length <= 0) return Number.NaN;
  return logSumExp(values, start, length) - Math.log(length);
}

/** Kish's effective sample size (Σw)²/Σw² of weights given as logs, e^{logW}, computed stably; 0 when all are zero. */
export function kishEss(logW: ArrayLike<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < logW.length; i++) if (logW[i] > max) max = logW[i];
  if (max === Number.NEGATIVE_INFINITY) return 0;
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < logW.length; i++) {
    const w = Math.exp(logW[i] - max);
    s += w;
    s2 += w * w;
  }
  return (s * s) / s2;
}

/** log(1 + eˣ) without overflow. */
export function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

/** The logistic function 1/(1 + e⁻ˣ) without overflow. */
export function logistic(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}
