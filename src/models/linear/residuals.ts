/**
 * The residual sum of squares of a linear model, expanded about a reference point so that the
 * regressions with a Gaussian likelihood evaluate it in O(p²) from XᵀX instead of O(np) from the data:
 * for d = w − w₀ and g₀ = Xᵀ(y − Xw₀),
 *   RSS(w) = RSS(w₀) − 2dᵀg₀ + dᵀXᵀXd,
 * an identity for any w₀ and, unlike yᵀy − 2wᵀXᵀy + wᵀXᵀXw, free of cancellation near w₀.
 */

/**
 * x · e with 0 · ∞ = ∞ · 0 = 0. Far in the tails a precision e^{±s} under- or overflows while x = 0 or
 * x overflows; the product is then dominated by the finite terms in s, and this keeps log densities
 * finite (or −∞) rather than NaN.
 */
export function scaled(x: number, e: number): number {
  return x === 0 || e === 0 ? 0 : x * e;
}

/** The residual y_i − x_iᵀw of row i of the n × p row-major design X (the first p entries of w). */
export function residualAt(X: Float64Array, y: Float64Array, p: number, i: number, w: Float64Array): number {
  const row = i * p;
  let r = y[i];
  for (let j = 0; j < p; j++) r -= X[row + j] * w[j];
  return r;
}

/** RSS(w) = ‖y − Xw‖², adding Xᵀ(y − Xw) into `g` (zero on entry for the gradient itself). */
export function residualsAt(
  X: Float64Array,
  y: Float64Array,
  n: number,
  p: number,
  w: Float64Array,
  g: Float64Array,
): number {
  let rss = 0;
  for (let i = 0; i < n; i++) {
    const row = i * p;
    const r = residualAt(X, y, p, i, w);
    rss += r * r;
    for (let j = 0; j < p; j++) g[j] += X[row + j] * r;
  }
  return rss;
}

/** RSS(w) from its expansion about a reference point, with what its gradient needs. */
export interface RssExpansion {
  /** RSS(w) for the first p entries of `w` (clamped at 0: a negative value is rounding). */
  rss(w: Float64Array): number;
  /** Entry j of Xᵀ(y − Xw) = g₀ − XᵀXd at the w of the last {@link rss} call. */
  xtResidual(j: number): number;
}

/**
 * The expansion of RSS about w₀ given XᵀX (p × p row-major), g₀ = Xᵀ(y − Xw₀) and RSS(w₀); its scratch
 * is made once, so evaluations allocate nothing.
 */
export function rssExpansion(
  XtX: Float64Array,
  p: number,
  w0: Float64Array,
  g0: Float64Array,
  rss0: number,
): RssExpansion {
  const dw = new Float64Array(p);
  const Ad = new Float64Array(p);
  return {
    rss(w) {
      for (let j = 0; j < p; j++) dw[j] = w[j] - w0[j];
      let lin = 0;
      let quad = 0;
      for (let j = 0; j < p; j++) {
        let s = 0;
        const row = j * p;
        for (let k = 0; k < p; k++) s += XtX[row + k] * dw[k];
        Ad[j] = s;
        lin += dw[j] * g0[j];
        quad += dw[j] * s;
      }
      // ≥ 0 in exact arithmetic.
      return Math.max(0, rss0 - 2 * lin + quad);
    },
    xtResidual(j) {
      return g0[j] - Ad[j];
    },
  };
}
