import { describe, expect, it } from "vitest";
import { gamma } from "../../src/distributions/gamma.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { expectMoments, QUADRATURE_TOL, totalProbability } from "./support.js";

describe("gamma (shape, rate)", () => {
  it("matches reference values (scipy.stats.gamma(a, scale=1/b).logpdf)", () => {
    expect(gamma({ shape: 0.3, rate: 2.5 }).logPdf(0.2)).toBeCloseTo(-0.19430423655195883, 12);
    expect(gamma({ shape: 4.2, rate: 0.7 }).logPdf(6.1)).toBeCloseTo(-2.0300663337296165, 12);
    // Shape 2, rate 3: 9 x e^{−3x}.
    expect(gamma({ shape: 2, rate: 3 }).logPdf(0.5)).toBeCloseTo(Math.log(9 * 0.5) - 1.5, 13);
  });

  it.each([
    [0.3, 2.5],
    [4.2, 0.7],
    [1, 1],
  ])("integrates to 1 for shape %s, rate %s", (shape, rate) => {
    const d = gamma({ shape, rate });
    // In u = log x the integrand decays like e^{shape·u} as u → −∞: shape 0.3 needs u down to −80.
    const total = totalProbability(d.logPdf, { kind: "positive" }, 80, 40_000);
    expect(Math.abs(total - 1)).toBeLessThan(QUADRATURE_TOL);
  });

  it("is −Infinity below 0 and handles x = 0 by shape", () => {
    expect(gamma({ shape: 2, rate: 1 }).logPdf(-1)).toBe(Number.NEGATIVE_INFINITY);
    expect(gamma({ shape: 2, rate: 1 }).logPdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(gamma({ shape: 1, rate: 3 }).logPdf(0)).toBeCloseTo(Math.log(3), 15);
    expect(gamma({ shape: 0.5, rate: 1 }).logPdf(0)).toBe(Number.POSITIVE_INFINITY);
  });

  it.each([
    [0.3, 2.5],
    [4.2, 0.7],
  ])("has sample moments within 4 SE for shape %s, rate %s", (shape, rate) => {
    const d = gamma({ shape, rate });
    expect(d.mean).toBeCloseTo(shape / rate, 15);
    expectMoments(d.sample, createRng(42), 50_000, d, true);
  });

  it("rejects bad parameters", () => {
    expect(() => gamma({ shape: 0, rate: 1 })).toThrow(OccamError);
    expect(() => gamma({ shape: 1, rate: Number.POSITIVE_INFINITY })).toThrow(/rate/);
    expect(() => gamma({ shape: 1 } as never)).toThrow(/rate/);
  });
});
