/**
 * Quadrature rules of thermodynamic integration, log Z = ∫₀¹ E_β[log L] dβ, on any (unequal)
 * spacing of the inverse temperatures: the one home of these weights for path sampling and the
 * networks' temperature sweeps.
 */

/**
 * `"trapezoid"`, `"simpson"` (the quadratic through each pair of intervals), or `"hermite"`: the
 * trapezoid rule corrected by the slopes at the nodes, ∫_a^b f ≈ h (f(a) + f(b))/2 − h² (f'(b) −
 * f'(a))/12 (the integral of the cubic Hermite interpolant), with the exact slope d/dβ E_β[log L] =
 * Var_β[log L] (Friel, Hurn & Wyse 2014). Each interval is integrated on its own, so "hermite" suits
 * the very unequal spacing of an adaptive ladder, where Simpson's quadratic through three nodes of
 * very different spacing can overshoot.
 */
export type QuadratureRule = "trapezoid" | "simpson" | "hermite";

/**
 * Weights of the nodes a < b < c for ∫_lo^hi of the quadratic interpolating them (Lagrange basis
 * integrated exactly; coordinates shifted to b to limit cancellation).
 */
function quadraticWeights(a: number, b: number, c: number, lo: number, hi: number): [number, number, number] {
  const A = a - b;
  const C = c - b;
  const L = lo - b;
  const H = hi - b;
  // ∫ (u − p)(u − q) du from L to H, with u = x − b.
  const integral = (p: number, q: number): number => {
    const f = (u: number) => (u * u * u) / 3 - ((p + q) * u * u) / 2 + p * q * u;
    return f(H) - f(L);
  };
  return [
    integral(0, C) / (A * (A - C)),
    integral(A, C) / ((0 - A) * (0 - C)),
    integral(A, 0) / (C * (C - A)),
  ];
}

/**
 * Quadrature weights of `rule` on the nodes `x` (sorted increasing, at least 2): ∫ f ≈ Σ w_k f(x_k).
 * For "hermite" these are the trapezoid weights; the slopes' weights are {@link slopeWeights}.
 */
export function quadratureWeights(x: ArrayLike<number>, rule: QuadratureRule): Float64Array {
  const n = x.length;
  const w = new Float64Array(n);
  if (rule === "trapezoid" || rule === "hermite" || n < 3) {
    for (let k = 0; k + 1 < n; k++) {
      const h = x[k + 1] - x[k];
      w[k] += h / 2;
      w[k + 1] += h / 2;
    }
    return w;
  }
  let k = 0;
  for (; k + 2 < n; k += 2) {
    const [wa, wb, wc] = quadraticWeights(x[k], x[k + 1], x[k + 2], x[k], x[k + 2]);
    w[k] += wa;
    w[k + 1] += wb;
    w[k + 2] += wc;
  }
  if (k + 1 < n) {
    // An odd number of intervals: the last one by the quadratic through the last three nodes.
    const [wa, wb, wc] = quadraticWeights(x[k - 1], x[k], x[k + 1], x[k], x[k + 1]);
    w[k - 1] += wa;
    w[k] += wb;
    w[k + 1] += wc;
  }
  return w;
}

/**
 * The weights c_k of the slopes in the corrected trapezoid rule ("hermite"): ∫ f ≈ Σ w_k f(x_k) +
 * Σ c_k f'(x_k), c_k = (h_k² − h_{k−1}²)/12 with h_k = x_{k+1} − x_k (h_{−1} = h_K = 0).
 */
export function slopeWeights(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const c = new Float64Array(n);
  for (let k = 0; k + 1 < n; k++) {
    const h2 = (x[k + 1] - x[k]) ** 2 / 12;
    c[k] += h2;
    c[k + 1] -= h2;
  }
  return c;
}

/**
 * ∫ of `rule` over the nodes `x` with values `means` (E_β[log L]) and, for "hermite", slopes
 * `variances` (Var_β[log L]).
 */
export function integrate(
  x: ArrayLike<number>,
  means: ArrayLike<number>,
  variances: ArrayLike<number>,
  rule: QuadratureRule,
): number {
  const w = quadratureWeights(x, rule);
  let sum = 0;
  for (let k = 0; k < x.length; k++) sum += w[k] * means[k];
  if (rule === "hermite") {
    const c = slopeWeights(x);
    for (let k = 0; k < x.length; k++) sum += c[k] * variances[k];
  }
  return sum;
}
