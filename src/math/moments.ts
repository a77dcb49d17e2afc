/**
 * The mean and the scatter matrix of the rows of a row-major point matrix, the first step of every
 * covariance the samplers fit to a cloud or a set of live points. Callers divide the scatter by the
 * divisor they need (n, n − 1) and mirror it when they need the upper triangle too.
 */

/**
 * Writes the mean of rows `rows` (the first `rows` rows when it is a count) of the row-major `points` into `mean`
 * (length d), as the column sums divided by the count, and returns it.
 */
export function rowMean(
  points: Float64Array,
  d: number,
  rows: ArrayLike<number> | number,
  mean: Float64Array,
): Float64Array {
  const count = typeof rows === "number" ? rows : rows.length;
  mean.fill(0);
  for (let k = 0; k < count; k++) {
    const o = (typeof rows === "number" ? k : rows[k]) * d;
    for (let j = 0; j < d; j++) mean[j] += points[o + j];
  }
  for (let j = 0; j < d; j++) mean[j] /= count;
  return mean;
}

/**
 * Writes the lower triangle (i ≥ j) of the scatter Σ_r (x_r − m)(x_r − m)ᵀ of rows `rows` (the first
 * `rows` rows when it is a count) about `mean` into the d × d row-major `scatter`, and returns it; the upper triangle is
 * left at zero.
 */
export function lowerScatter(
  points: Float64Array,
  d: number,
  rows: ArrayLike<number> | number,
  mean: Float64Array,
  scatter: Float64Array,
): Float64Array {
  const count = typeof rows === "number" ? rows : rows.length;
  scatter.fill(0);
  for (let k = 0; k < count; k++) {
    const o = (typeof rows === "number" ? k : rows[k]) * d;
    for (let i = 0; i < d; i++) {
      const di = points[o + i] - mean[i];
      for (let j = 0; j <= i; j++) scatter[i * d + j] += di * (points[o + j] - mean[j]);
    }
  }
  return scatter;
}

/** Copies the lower triangle of the d × d row-major `a` onto its upper triangle, in place. */
export function mirrorLower(a: Float64Array, d: number): Float64Array {
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) a[j * d + i] = a[i * d + j];
  return a;
}
