import { describe, expect, it } from "vitest";
import { inverseGamma } from "../../src/distributions/inverse-gamma.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { expectMoments, QUADRATURE_TOL, totalProbability } from "./support.js";

describe("inverseGamma (shape, scale)", () => {
  it("matches reference values (scipy.stats.invgamma(a, scale=b).logpdf) and the stated density", () => {
    expect(inverseGamma({ shape: 3.5, scale: 2.2 }).logPdf(0.9)).toBeCloseTo(-0.41169496505635517, 12);
    expect(inverseGamma({ shape: 0.4, scale: 0.3 }).logPdf(5)).toBeCloseTo(-3.591480016839898, 12);
    // Shape 2, scale 3: b²/Γ(2) x^−3 e^{−b/x} = 9 x^−3 e^{−3/x}.
    expect(inverseGamma({ shape: 2, scale: 3 }).logPdf(1.5)).toBeCloseTo(Math.log(9 / 1.5 ** 3) - 2, 13);
  });

  it.each([
    [3.5, 2.2],
    [0.4, 0.3],
  ])("integrates to 1 for shape %s, scale %s", (shape, scale) => {
    const d = inverseGamma({ shape, scale });
    // In u = log x the right tail decays like e^{−shape·u}: shape 0.4 needs u up to 80.
    const total = totalProbability(d.logPdf, { kind: "positive" }, 80, 40_000);
    expect(Math.abs(total - 1)).toBeLessThan(QUADRATURE_TOL);
  });

  it("is −Infinity at and below 0", () => {
    const d = inverseGamma({ shape: 2, scale: 1 });
    expect(d.logPdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(d.logPdf(-2)).toBe(Number.NEGATIVE_INFINITY);
  });

  it("has sample mean and variance within 4 SE (shape 9, so the fourth moment exists)", () => {
    const d = inverseGamma({ shape: 9, scale: 4 });
    expect(d.mean).toBeCloseTo(0.5, 15);
    expectMoments(d.sample, createRng(43), 50_000, d, true);
  });

  it("reports infinite or undefined moments for small shapes", () => {
    expect(inverseGamma({ shape: 1.5, scale: 1 }).variance).toBe(Number.POSITIVE_INFINITY);
    expect(inverseGamma({ shape: 0.5, scale: 1 }).mean).toBe(Number.POSITIVE_INFINITY);
    expect(Number.isNaN(inverseGamma({ shape: 0.5, scale: 1 }).variance)).toBe(true);
  });

  it("samples 1/X ~ Gamma(shape, rate = scale): the mean of 1/X is shape/scale", () => {
    const d = inverseGamma({ shape: 0.05, scale: 2 });
    const rng = createRng(44);
    const n = 50_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += 1 / d.sample(rng);
    // Var(1/X) = shape/scale².
    expect(Math.abs(sum / n - 0.025)).toBeLessThan(4 * Math.sqrt(0.05 / 4 / n));
  });

  it("rejects bad parameters", () => {
    expect(() => inverseGamma({ shape: -1, scale: 1 })).toThrow(OccamError);
    expect(() => inverseGamma({ shape: 1, scale: 0 })).toThrow(/scale/);
  });
});
