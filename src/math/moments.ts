/**
 * Means, variances and centred cross-products, each in two passes (the mean first), so that data far
 * from zero keep their digits: the mean and scatter matrix of a point matrix's rows (the first step of
 * every covariance the samplers fit to a cloud or a set of live points; callers divide the scatter by
 * the divisor they need, n or n − 1, and mirror it when they need the upper triangle too), columns'
 * means and variances, and the centred products of two samples.
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

/** The means of two equally long samples and their centred sums of products (see {@link centredProducts}). */
export interface CentredProducts {
  readonly meanA: number;
  readonly meanB: number;
  /** Σ (a_i − ā)(b_i − b̄). */
  readonly ab: number;
  /** Σ (a_i − ā)². */
  readonly aa: number;
  /** Σ (b_i − b̄)². */
  readonly bb: number;
}

/**
 * The means of `a` and `b` (equally long) and their centred sums of products, two-pass: the
 * correlation is ab / √(aa · bb), the slope of a on b is ab / bb.
 */
export function centredProducts(a: ArrayLike<number>, b: ArrayLike<number>): CentredProducts {
  const n = a.length;
  let meanA = 0;
  let meanB = 0;
  for (let i = 0; i < n; i++) {
    meanA += a[i];
    meanB += b[i];
  }
  meanA /= n;
  meanB /= n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i] - meanA;
    const db = b[i] - meanB;
    ab += da * db;
    aa += da * da;
    bb += db * db;
  }
  return { meanA, meanB, ab, aa, bb };
}

/**
 * The column means and sample variances (denominator n − 1) of the n × p row-major `X`, two-pass (the
 * squared deviations from the mean, without the cancellation of E[x²] − E[x]²).
 */
export function columnMoments(
  X: ArrayLike<number>,
  n: number,
  p: number,
): { means: Float64Array; variances: Float64Array } {
  const means = new Float64Array(p);
  const variances = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    let mean = 0;
    for (let i = 0; i < n; i++) mean += X[i * p + j];
    mean /= n;
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const d = X[i * p + j] - mean;
      ss += d * d;
    }
    means[j] = mean;
    variances[j] = ss / (n - 1);
  }
  return { means, variances };
}
