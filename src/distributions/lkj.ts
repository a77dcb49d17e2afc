/**
 * The priors of a random term's covariance Σ = diag(σ) R diag(σ) on unbounded scales, shared by the
 * linear and the generalised linear models with random effects: each σ half-Cauchy(0, 1) on log σ, and
 * the correlation matrix R ~ LKJ(1) through its canonical partial correlations, each tanh(y) with y
 * unbounded (Lewandowski, Kurowicka & Joe 2009; Stan's `cholesky_corr` transform).
 */
import { LOG_PI } from "../math/constants.js";
import { gammaln } from "../math/stdlib.js";

/**
 * The canonical partial correlations' Beta(b, b) shapes on (−1, 1) under LKJ(η = 1), in the order the
 * Cholesky factor's rows use them: row i's j-th has b = 1 + (d − 2 − j)/2 (Lewandowski et al. 2009, C-vine).
 */
export function lkjShapes(d: number): Float64Array {
  const shapes: number[] = [];
  for (let i = 1; i < d; i++) for (let j = 0; j < i; j++) shapes.push(1 + (d - 2 - j) / 2);
  return Float64Array.from(shapes);
}

/** Each Beta(b, b) on (−1, 1)'s log normaliser: its density is ((1 − ρ²)/4)^(b−1) / (2 B(b, b)). */
export function lkjLogNormalisers(shapes: Float64Array): Float64Array {
  return shapes.map((b) => -Math.LN2 - (gammaln(b) * 2 - gammaln(2 * b)) - (b - 1) * Math.log(4));
}

/**
 * The Cholesky factor L (row-major d × d) of the correlation matrix whose canonical partial correlations
 * are tanh(y), y = `theta[from …]` (d(d − 1)/2 of them), written into `L`.
 */
export function correlationFactor(theta: Float64Array, from: number, d: number, L: Float64Array): void {
  L.fill(0);
  L[0] = 1;
  let c = from;
  for (let i = 1; i < d; i++) {
    let left = 1;
    for (let j = 0; j < i; j++) {
      const v = Math.tanh(theta[c++]) * Math.sqrt(left);
      L[i * d + j] = v;
      left -= v * v;
    }
    L[i * d + i] = Math.sqrt(Math.max(left, 0));
  }
}

/** log density of s = log σ when σ ~ half-Cauchy(0, 1): log(2/π · σ / (1 + σ²)). */
export function halfCauchyLogSdDensity(s: number): number {
  return Math.LN2 - LOG_PI + s - Math.log1p(Math.exp(2 * s));
}
