import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  multivariateNormal,
  multivariateNormalFromCovariance,
} from "../../src/distributions/multivariate-normal.js";
import { normal } from "../../src/distributions/normal.js";
import { OccamError } from "../../src/errors.js";
import {
  cholesky,
  invertFromCholesky,
  logDetFromCholesky,
  matMul,
  transpose,
} from "../../src/math/linalg.js";
import { createRng } from "../../src/random/rng.js";
import { centralDifference } from "../support/assertions.js";
import { simpson } from "./support.js";

const MEAN = [1, -2, 0.5];
const COV = [2, 0.3, -0.4, 0.3, 1, 0.2, -0.4, 0.2, 0.5];

describe("multivariateNormal (mean, choleskyL)", () => {
  it("matches a reference value (scipy.stats.multivariate_normal)", () => {
    const d = multivariateNormalFromCovariance({ mean: MEAN, covariance: COV });
    expect(d.logPdf(new Float64Array([0.3, -1, 1.2]))).toBeCloseTo(-3.4122790100672677, 12);
    const viaL = multivariateNormal({ mean: MEAN, choleskyL: cholesky(Float64Array.from(COV), 3) });
    expect(viaL.logPdf(new Float64Array([0.3, -1, 1.2]))).toBe(d.logPdf(new Float64Array([0.3, -1, 1.2])));
    for (let i = 0; i < 9; i++) expect(d.covariance[i]).toBeCloseTo(COV[i], 14);
  });

  it("is the product of normals for a diagonal covariance", () => {
    const d = multivariateNormal({ mean: [1, 2], choleskyL: [0.5, 0, 0, 3] });
    const x = new Float64Array([0.2, 5]);
    const expected = normal({ mean: 1, sd: 0.5 }).logPdf(0.2) + normal({ mean: 2, sd: 3 }).logPdf(5);
    expect(d.logPdf(x)).toBeCloseTo(expected, 13);
  });

  it("integrates to 1 in two dimensions", () => {
    const L = cholesky(new Float64Array([1, 0.8, 0.8, 2]), 2);
    const d = multivariateNormal({ mean: [0.5, -1], choleskyL: L });
    const x = new Float64Array(2);
    // ±10 standard deviations on each axis; the integrand is smooth, so Simpson's error is O(h⁴).
    const total = simpson(
      (u) =>
        simpson(
          (v) => {
            x[0] = u;
            x[1] = v;
            return Math.exp(d.logPdf(x));
          },
          -1 - 10 * Math.SQRT2,
          -1 + 10 * Math.SQRT2,
          300,
        ),
      0.5 - 10,
      0.5 + 10,
      300,
    );
    expect(Math.abs(total - 1)).toBeLessThan(1e-6);
  });

  it("agrees with −½(x − μ)ᵀΣ⁻¹(x − μ) − ½ log det 2πΣ computed through the inverse", () => {
    const spdCase = fc.integer({ min: 1, max: 6 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        b: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: n * n, maxLength: n * n }),
        x: fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: n, maxLength: n }),
      }),
    );
    fc.assert(
      fc.property(spdCase, ({ n, b, x }) => {
        const B = Float64Array.from(b);
        const cov = matMul(transpose(B, n, n), B, n, n, n);
        for (let i = 0; i < n; i++) cov[i * n + i] += 0.1;
        const L = cholesky(cov, n);
        const d = multivariateNormal({ mean: new Float64Array(n), choleskyL: L });
        const inv = invertFromCholesky(L, n);
        let q = 0;
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) q += x[i] * inv[i * n + j] * x[j];
        const expected = -0.5 * q - 0.5 * (n * Math.log(2 * Math.PI) + logDetFromCholesky(L, n));
        // κ(Σ) < 650 (see linalg tests) bounds the relative error of q.
        expect(Math.abs(d.logPdf(Float64Array.from(x)) - expected)).toBeLessThan(
          650 * 64 * Number.EPSILON * (q + 10),
        );
      }),
      { seed: 50, numRuns: 100 },
    );
  });

  it("has gradLogPdf = −Σ⁻¹(x − μ) (central differences)", () => {
    const d = multivariateNormalFromCovariance({ mean: MEAN, covariance: COV });
    const x = new Float64Array([0.3, -1, 1.2]);
    const grad = new Float64Array(3);
    expect(d.gradLogPdf(x, grad)).toBe(d.logPdf(x));
    const h = 1e-6;
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(grad[i] - centralDifference((y) => d.logPdf(y), x, i, h))).toBeLessThan(1e-7);
    }
  });

  it("has sample means within 4 SE of μ", () => {
    const d = multivariateNormalFromCovariance({ mean: MEAN, covariance: COV });
    const rng = createRng(51);
    const n = 20_000;
    const sums = new Float64Array(3);
    const out = new Float64Array(3);
    for (let s = 0; s < n; s++) {
      d.sample(rng, out);
      for (let i = 0; i < 3; i++) sums[i] += out[i];
    }
    for (let i = 0; i < 3; i++)
      expect(Math.abs(sums[i] / n - MEAN[i])).toBeLessThan(4 * Math.sqrt(COV[i * 4] / n));
  });

  it("rejects bad parameters with clear codes", () => {
    expect(() => multivariateNormal({ mean: [0, 0], choleskyL: [1, 0.5, 0, 1] })).toThrow(/lower triangular/);
    expect(() => multivariateNormal({ mean: [0, 0], choleskyL: [1, 0, 0.5, 0] })).toThrow(/diagonal/);
    expect(() => multivariateNormal({ mean: [0, 0], choleskyL: [1, 0, 0] })).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
    expect(() => multivariateNormal({ mean: [], choleskyL: [] })).toThrow(OccamError);
    expect(() => multivariateNormalFromCovariance({ mean: [0, 0], covariance: [1, 2, 2, 1] })).toThrow(
      expect.objectContaining({ code: "not-positive-definite" }),
    );
    expect(() => multivariateNormalFromCovariance({ mean: [0, 0], covariance: [1, 0.5, 0.2, 1] })).toThrow(
      /not symmetric/,
    );
    const d = multivariateNormal({ mean: [0, 0], choleskyL: [1, 0, 0, 1] });
    expect(() => d.logPdf(new Float64Array(3))).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
  });
});
