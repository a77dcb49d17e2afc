import { describe, expect, it } from "vitest";
import { beta } from "../../src/distributions/beta.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { expectMoments, QUADRATURE_TOL, totalProbability } from "./support.js";

describe("beta (a, b)", () => {
  it("matches reference values (scipy.stats.beta(a, b).logpdf)", () => {
    expect(beta({ a: 0.5, b: 2.5 }).logPdf(0.3)).toBeCloseTo(-0.0969266465828045, 12);
    expect(beta({ a: 7, b: 3 }).logPdf(0.85)).toBeCloseTo(0.7600755407530118, 12);
    // Beta(2, 2) = 6x(1 − x).
    expect(beta({ a: 2, b: 2 }).logPdf(0.25)).toBeCloseTo(Math.log(6 * 0.25 * 0.75), 14);
  });

  it.each([
    [0.5, 2.5],
    [7, 3],
    [2, 0.8],
  ])("integrates to 1 for a = %s, b = %s", (a, b) => {
    const d = beta({ a, b });
    // In u = logit x the integrand decays like e^{−a|u|} and e^{−b u}; at |u| = 36, 1 − x is still
    // representable and the cut tails hold < e^{−0.5·36} ≈ 1.5e-8.
    const total = totalProbability(d.logPdf, { kind: "unit" }, 36);
    expect(Math.abs(total - 1)).toBeLessThan(QUADRATURE_TOL);
  });

  it("handles the boundary and outside of [0, 1]", () => {
    expect(beta({ a: 2, b: 2 }).logPdf(-0.1)).toBe(Number.NEGATIVE_INFINITY);
    expect(beta({ a: 2, b: 2 }).logPdf(1.1)).toBe(Number.NEGATIVE_INFINITY);
    expect(beta({ a: 2, b: 2 }).logPdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(beta({ a: 1, b: 3 }).logPdf(0)).toBeCloseTo(Math.log(3), 14);
    expect(beta({ a: 3, b: 1 }).logPdf(1)).toBeCloseTo(Math.log(3), 14);
    expect(beta({ a: 0.5, b: 1 }).logPdf(0)).toBe(Number.POSITIVE_INFINITY);
  });

  it.each([
    [0.5, 2.5],
    [7, 3],
  ])("has sample moments within 4 SE for a = %s, b = %s", (a, b) => {
    const d = beta({ a, b });
    expectMoments(d.sample, createRng(46), 50_000, d, true);
  });

  it("rejects bad parameters", () => {
    expect(() => beta({ a: 0, b: 1 })).toThrow(OccamError);
    expect(() => beta({ a: 1, b: Number.NaN })).toThrow(/b/);
  });
});
