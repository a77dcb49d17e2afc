import { describe, expect, it } from "vitest";
import { multivariateNormal } from "../../src/distributions/multivariate-normal.js";
import { multivariateStudentT } from "../../src/distributions/multivariate-student-t.js";
import { studentT } from "../../src/distributions/student-t.js";
import { OccamError } from "../../src/errors.js";
import { cholesky } from "../../src/math/linalg.js";
import { createRng } from "../../src/random/rng.js";
import { centralDifference } from "../support/assertions.js";
import { simpson } from "./support.js";

const MEAN = [1, -2, 0.5];
const COV = [2, 0.3, -0.4, 0.3, 1, 0.2, -0.4, 0.2, 0.5];
const L3 = cholesky(Float64Array.from(COV), 3);

describe("multivariateStudentT (dof, location, choleskyL)", () => {
  it("matches a reference value (scipy.stats.multivariate_t(df = 4.5))", () => {
    const d = multivariateStudentT({ dof: 4.5, location: MEAN, choleskyL: L3 });
    expect(d.logPdf(new Float64Array([0.3, -1, 1.2]))).toBeCloseTo(-3.620153882343585, 12);
  });

  it("reduces to the univariate t for d = 1 and approaches the normal as ν → ∞", () => {
    const d = multivariateStudentT({ dof: 3, location: [2], choleskyL: [0.5] });
    const t = studentT({ dof: 3, location: 2, scale: 0.5 });
    for (const x of [-1, 2, 4.5]) expect(d.logPdf(new Float64Array([x]))).toBeCloseTo(t.logPdf(x), 13);
    const big = multivariateStudentT({ dof: 1e9, location: MEAN, choleskyL: L3 });
    const mvn = multivariateNormal({ mean: MEAN, choleskyL: L3 });
    const x = new Float64Array([0.3, -1, 1.2]);
    // The difference is O(1/ν).
    expect(Math.abs(big.logPdf(x) - mvn.logPdf(x))).toBeLessThan(1e-7);
  });

  it("integrates to 1 in two dimensions (ν = 3)", () => {
    const L = cholesky(new Float64Array([1, 0.5, 0.5, 2]), 2);
    const d = multivariateStudentT({ dof: 3, location: [0, 0], choleskyL: L });
    const x = new Float64Array(2);
    // x_i = s_i sinh(u_i) with |u| ≤ 12: the tails beyond hold ~ e^{−3·12} of the mass.
    const s = [1, Math.SQRT2];
    const total = simpson(
      (u) =>
        simpson(
          (v) => {
            x[0] = s[0] * Math.sinh(u);
            x[1] = s[1] * Math.sinh(v);
            return Math.exp(d.logPdf(x)) * s[0] * Math.cosh(u) * s[1] * Math.cosh(v);
          },
          -12,
          12,
          400,
        ),
      -12,
      12,
      400,
    );
    expect(Math.abs(total - 1)).toBeLessThan(1e-6);
  });

  it("has sample mean μ and covariance ν/(ν − 2)·LLᵀ within 4 SE (ν = 10)", () => {
    const dof = 10;
    const d = multivariateStudentT({ dof, location: MEAN, choleskyL: L3 });
    const rng = createRng(52);
    const n = 40_000;
    const out = new Float64Array(3);
    const sums = new Float64Array(3);
    const prod = new Float64Array(n);
    let sumProd = 0;
    for (let s = 0; s < n; s++) {
      d.sample(rng, out);
      for (let i = 0; i < 3; i++) sums[i] += out[i];
      prod[s] = (out[0] - MEAN[0]) * (out[1] - MEAN[1]);
      sumProd += prod[s];
    }
    const factor = dof / (dof - 2);
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(sums[i] / n - MEAN[i])).toBeLessThan(4 * Math.sqrt((factor * COV[i * 4]) / n));
    }
    // Covariance (0, 1) from centred products, standard error from their sample variance.
    const meanProd = sumProd / n;
    let v = 0;
    for (let s = 0; s < n; s++) v += (prod[s] - meanProd) ** 2;
    expect(Math.abs(meanProd - factor * COV[1])).toBeLessThan(4 * Math.sqrt(v / n / n));
  });

  it("has the right gradient (central differences)", () => {
    const d = multivariateStudentT({ dof: 4.5, location: MEAN, choleskyL: L3 });
    const x = new Float64Array([0.3, -1, 1.2]);
    const grad = new Float64Array(3);
    expect(d.gradLogPdf(x, grad)).toBe(d.logPdf(x));
    const h = 1e-6;
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(grad[i] - centralDifference((y) => d.logPdf(y), x, i, h))).toBeLessThan(1e-7);
    }
  });

  it("rejects bad parameters", () => {
    expect(() => multivariateStudentT({ dof: 0, location: [0], choleskyL: [1] })).toThrow(/dof/);
    expect(() => multivariateStudentT({ dof: 3, location: [0, 0], choleskyL: [1, 1, 1, 1] })).toThrow(
      OccamError,
    );
    expect(() => multivariateStudentT({ dof: 3, location: [0, 0], choleskyL: [1] })).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
  });
});
