import digamma from "@stdlib/math-base-special-digamma";
import gammaln from "@stdlib/math-base-special-gammaln";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { logGammaRatio, standardNormalQuantile } from "../../src/math/special.js";

describe("logGammaRatio", () => {
  it.each([
    // Reference values: mpmath.loggamma(a + h) − mpmath.loggamma(a) at 40 digits.
    [100, 0.5, 2.3013350982022227],
    [150.3, 1.5, 7.5214394354939405],
    [5e8, 1.5, 30.045177985329698],
    [1e15, 0.5, 17.269388197455342],
    [1234.5, -0.7, -4.982412783409226],
    [3, 0.5, 0.5078264217871289],
  ])("log Γ(%s + %s) − log Γ(a) to full relative precision", (a, h, exact) => {
    expect(Math.abs(logGammaRatio(a, h) - exact)).toBeLessThanOrEqual(8 * Number.EPSILON * Math.abs(exact));
  });

  it("is continuous across the switch to Stirling's series at a = 100", () => {
    const delta = 1e-9;
    const below = logGammaRatio(100 - delta, 0.5); // gammaln path
    // Move it to a = 100 with the derivative ψ(a + h) − ψ(a); the gammaln path itself carries a
    // rounding error of a few ε · log Γ(100) ≈ 8e-14.
    const shifted = below + delta * (digamma(100.5) - digamma(100));
    expect(Math.abs(logGammaRatio(100, 0.5) - shifted)).toBeLessThan(8 * Number.EPSILON * gammaln(100));
  });

  it("rejects arguments outside the domain", () => {
    expect(() => logGammaRatio(0, 1)).toThrow(OccamError);
    expect(() => logGammaRatio(1, -1)).toThrow(OccamError);
  });
});

describe("standardNormalQuantile", () => {
  it.each([
    // Reference values: √2 · mpmath.erfinv(2p − 1) at 800 digits, p the double as written, rounded to doubles.
    [5e-324, -38.467405617144344],
    [1e-300, -37.0470962993612],
    [1e-20, -9.262340089798407],
    [1e-5, -4.264890793922825],
    [0.02, -2.053748910631823],
    [0.0749, -1.4402382675279637],
    [0.3, -0.5244005127080408],
    [0.5, 0],
    [0.7, 0.5244005127080407],
    [0.93, 1.4757910281791711],
    [0.99999, 4.264890793923841],
  ])("Φ⁻¹(%s) = %s to a few units in the last place, in the centre and both tails", (p, exact) => {
    expect(Math.abs(standardNormalQuantile(p) - exact)).toBeLessThanOrEqual(
      4 * Number.EPSILON * Math.abs(exact),
    );
  });

  it("is odd about ½ and increasing", () => {
    let last = Number.NEGATIVE_INFINITY;
    for (let k = 1; k < 1000; k++) {
      const p = k / 1000;
      const x = standardNormalQuantile(p);
      expect(x).toBeGreaterThan(last);
      last = x;
      if (k < 500) expect(standardNormalQuantile(1 - p)).toBeCloseTo(-x, 13);
    }
  });
});
