import { describe, expect, it } from "vitest";
import { beta } from "../../src/distributions/beta.js";
import { dirichlet } from "../../src/distributions/dirichlet.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { simpson } from "./support.js";

describe("dirichlet (alpha)", () => {
  it("matches a reference value (scipy.stats.dirichlet([0.4, 2, 3.5]).logpdf([0.2, 0.3, 0.5]))", () => {
    const d = dirichlet({ alpha: [0.4, 2, 3.5] });
    expect(d.logPdf(new Float64Array([0.2, 0.3, 0.5]))).toBeCloseTo(0.6489626771797243, 12);
  });

  it("reduces to Beta(a, b) for K = 2", () => {
    const d = dirichlet({ alpha: [0.7, 2.5] });
    const b = beta({ a: 0.7, b: 2.5 });
    for (const x of [0.01, 0.3, 0.9]) {
      expect(d.logPdf(new Float64Array([x, 1 - x]))).toBeCloseTo(b.logPdf(x), 12);
    }
  });

  it("integrates to 1 over the 2-simplex", () => {
    const d = dirichlet({ alpha: [2, 3, 4] });
    const x = new Float64Array(3);
    // x₁ = u, x₂ = (1 − u)v, x₃ = 1 − x₁ − x₂ maps the unit square onto the simplex with Jacobian
    // 1 − u; with integer α the integrand is a polynomial, on which Simpson's rule is accurate to O(h⁴).
    const total = simpson(
      (u) =>
        simpson(
          (v) => {
            x[0] = u;
            x[1] = (1 - u) * v;
            x[2] = 1 - x[0] - x[1];
            return Math.exp(d.logPdf(x)) * (1 - u);
          },
          0,
          1,
          200,
        ),
      0,
      1,
      200,
    );
    expect(Math.abs(total - 1)).toBeLessThan(1e-6);
  });

  it("is −Infinity off the simplex and rejects wrong lengths", () => {
    const d = dirichlet({ alpha: [2, 3, 4] });
    expect(d.logPdf(new Float64Array([0.5, 0.6, -0.1]))).toBe(Number.NEGATIVE_INFINITY);
    expect(d.logPdf(new Float64Array([0.5, 0.5, 0.5]))).toBe(Number.NEGATIVE_INFINITY);
    expect(() => d.logPdf(new Float64Array([0.5, 0.5]))).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
  });

  it("has sample means within 4 SE of α/α₀", () => {
    const alpha = [0.3, 1.2, 2.5];
    const d = dirichlet({ alpha });
    const a0 = 4;
    const rng = createRng(49);
    const n = 30_000;
    const sums = new Float64Array(3);
    const out = new Float64Array(3);
    for (let s = 0; s < n; s++) {
      d.sample(rng, out);
      for (let i = 0; i < 3; i++) sums[i] += out[i];
    }
    for (let i = 0; i < 3; i++) {
      const variance = (alpha[i] * (a0 - alpha[i])) / (a0 * a0 * (a0 + 1));
      expect(Math.abs(sums[i] / n - d.mean[i])).toBeLessThan(4 * Math.sqrt(variance / n));
    }
  });

  it("rejects bad parameters", () => {
    expect(() => dirichlet({ alpha: [1] })).toThrow(OccamError);
    expect(() => dirichlet({ alpha: [1, 0] })).toThrow(/alpha\[1\]/);
    expect(() => dirichlet({ alpha: [1, Number.NaN] })).toThrow(OccamError);
  });
});
