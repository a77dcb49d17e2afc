import { expect } from "vitest";
import type { Rng } from "../../src/random/rng.js";

/**
 * Shared checks for distribution tests: quadrature of a density, and sample moments compared with
 * exact ones within 4 standard errors.
 */

/** Composite Simpson's rule for ∫_a^b g(u) du with n (even) intervals. */
export function simpson(g: (u: number) => number, a: number, b: number, n: number): number {
  const h = (b - a) / n;
  let s = g(a) + g(b);
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * g(a + i * h);
  return (s * h) / 3;
}

/**
 * ∫ p(x) dx over the whole support by Simpson's rule after a change of variable that makes the
 * integrand smooth and quickly decaying: x = μ + s·sinh(u) on the real line, x = e^u on (0, ∞),
 * x = 1/(1 + e^{−u}) on (0, 1).
 */
export function totalProbability(
  logPdf: (x: number) => number,
  support: { kind: "real"; centre: number; scale: number } | { kind: "positive" } | { kind: "unit" },
  range: number,
  n = 20_000,
): number {
  switch (support.kind) {
    case "real":
      return simpson(
        (u) => Math.exp(logPdf(support.centre + support.scale * Math.sinh(u))) * support.scale * Math.cosh(u),
        -range,
        range,
        n,
      );
    case "positive":
      return simpson((u) => Math.exp(logPdf(Math.exp(u)) + u), -range, range, n);
    case "unit":
      return simpson(
        (u) => {
          const x = 1 / (1 + Math.exp(-u));
          const oneMinusX = 1 / (1 + Math.exp(u));
          return Math.exp(logPdf(x)) * x * oneMinusX;
        },
        -range,
        range,
        n,
      );
  }
}

/** Draws n values and checks the mean (and, when asked, the variance) within 4 standard errors. */
export function expectMoments(
  sample: (rng: Rng) => number,
  rng: Rng,
  n: number,
  exact: { mean: number; variance: number },
  checkVariance: boolean,
): void {
  const xs = new Float64Array(n);
  for (let i = 0; i < n; i++) xs[i] = sample(rng);
  const { mean, variance: m2, seVariance } = moments(xs);
  // The exact variance gives the mean's standard error; the sample fourth moment the variance's.
  expect(Math.abs(mean - exact.mean)).toBeLessThan(4 * Math.sqrt(exact.variance / n));
  if (checkVariance) expect(Math.abs(m2 - exact.variance)).toBeLessThan(4 * seVariance);
}

/**
 * Quadrature tolerance. Simpson's rule on these smooth, transformed integrands with 20 000 intervals
 * has error O(h⁴) ≈ 1e-12 relative; the truncated tails carry well under 1e-7. A density with a wrong
 * normalising constant misses by far more than 1e-6.
 */
export const QUADRATURE_TOL = 1e-6;

/** Sample mean and variance, with the mean's standard error √(s²/n) and the variance's √((m4 − s⁴)/n). */
export function moments(xs: ArrayLike<number>): {
  mean: number;
  variance: number;
  seMean: number;
  seVariance: number;
} {
  const n = xs.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += xs[i];
  mean /= n;
  let m2 = 0;
  let m4 = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i] - mean;
    m2 += d * d;
    m4 += d * d * d * d;
  }
  m2 /= n;
  m4 /= n;
  return { mean, variance: m2, seMean: Math.sqrt(m2 / n), seVariance: Math.sqrt((m4 - m2 * m2) / n) };
}
