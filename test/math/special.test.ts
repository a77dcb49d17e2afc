import digamma from "@stdlib/math-base-special-digamma";
import gammaln from "@stdlib/math-base-special-gammaln";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { logGammaRatio } from "../../src/math/special.js";

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
