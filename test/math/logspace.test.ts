import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { logAddExp, logDiffExp, logMeanExp, logSumExp } from "../../src/math/logspace.js";

const INF = Number.POSITIVE_INFINITY;
const EPS = Number.EPSILON;

/** Finite doubles of any magnitude a log density might take. */
const logValue = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });

describe("logAddExp", () => {
  it("is exact at ±Infinity", () => {
    expect(logAddExp(-INF, -INF)).toBe(-INF);
    expect(logAddExp(-INF, 3)).toBe(3);
    expect(logAddExp(3, -INF)).toBe(3);
    expect(logAddExp(INF, 3)).toBe(INF);
    expect(logAddExp(-INF, INF)).toBe(INF);
  });

  it("is exact for arguments of ±1e5", () => {
    expect(logAddExp(1e5, 1e5)).toBe(1e5 + Math.LN2);
    expect(logAddExp(-1e5, -1e5)).toBe(-1e5 + Math.LN2);
    // log(e^{1e5} + e^{−1e5}) = 1e5 to double precision.
    expect(logAddExp(1e5, -1e5)).toBe(1e5);
    expect(logAddExp(0, 0)).toBe(Math.LN2);
  });

  it("is symmetric, at least its larger argument, and monotone", () => {
    fc.assert(
      fc.property(logValue, logValue, (a, b) => {
        const s = logAddExp(a, b);
        expect(s).toBe(logAddExp(b, a));
        expect(s).toBeGreaterThanOrEqual(Math.max(a, b));
        // log(e^a + e^b) ≤ max + log 2 (rounded up by one ulp of the result).
        expect(s).toBeLessThanOrEqual(Math.max(a, b) + Math.LN2 + 2 * EPS * Math.abs(s));
      }),
      { seed: 11 },
    );
  });

  it("is inverted by logDiffExp: logDiffExp(logAddExp(a, b), b) ≈ a", () => {
    fc.assert(
      // b = a − d with d ∈ [−30, 60], so that the regime of comparable a and b is sampled densely.
      fc.property(logValue, fc.double({ min: -30, max: 60, noNaN: true }), (a, d) => {
        const b = a - d;
        // e^a must survive next to e^b: log1p(e^{a−b}) must exceed the rounding of s ≈ b, i.e.
        // e^{a−b} ≫ ε|b|; otherwise s = b exactly and a is unrecoverable.
        fc.pre(Math.exp(a - b) > 1e3 * EPS * (Math.abs(b) + 1));
        const s = logAddExp(a, b);
        const back = logDiffExp(s, b);
        // s carries a rounding error of ~ε|s|; logDiffExp(s, b) amplifies it by ∂/∂s = e^s/e^a = 1 + e^{b−a}.
        const tol = 8 * EPS * (Math.abs(s) + 1) * (1 + Math.exp(b - a));
        expect(Math.abs(back - a)).toBeLessThanOrEqual(tol);
      }),
      { seed: 12 },
    );
  });
});

describe("logDiffExp", () => {
  it("handles equal arguments, ±Infinity and a < b", () => {
    expect(logDiffExp(5, 5)).toBe(-INF);
    expect(logDiffExp(5, -INF)).toBe(5);
    expect(logDiffExp(-INF, -INF)).toBe(-INF);
    expect(logDiffExp(INF, 3)).toBe(INF);
    expect(Number.isNaN(logDiffExp(1, 2))).toBe(true);
  });

  it("is accurate at ±1e5 and for nearly equal arguments", () => {
    // log(e^{1e5} − e^{1e5 − log 2}) = 1e5 − log 2.
    expect(logDiffExp(1e5, 1e5 - Math.LN2)).toBeCloseTo(1e5 - Math.LN2, 10);
    expect(logDiffExp(-1e5, -1e5 - Math.LN2)).toBeCloseTo(-1e5 - Math.LN2, 10);
    expect(logDiffExp(1e5, -1e5)).toBe(1e5);
    // log(1 − e^{−1e−10}) = log(1e−10) + O(1e−10): expm1 keeps it exact where log1p(−e^d) would not.
    expect(logDiffExp(0, -1e-10)).toBeCloseTo(Math.log(1e-10), 9);
  });
});

describe("logSumExp and logMeanExp", () => {
  it("are exact at ±Infinity and empty ranges", () => {
    expect(logSumExp([])).toBe(-INF);
    expect(logSumExp([-INF, -INF])).toBe(-INF);
    expect(logSumExp([1, INF])).toBe(INF);
    expect(logSumExp([-INF, 2])).toBe(2);
    expect(Number.isNaN(logSumExp([1, Number.NaN]))).toBe(true);
    expect(Number.isNaN(logMeanExp([]))).toBe(true);
  });

  it("are exact for arguments of ±1e5", () => {
    expect(logSumExp([-1e5, -1e5])).toBe(-1e5 + Math.LN2);
    expect(logSumExp([1e5, 1e5])).toBe(1e5 + Math.LN2);
    expect(logSumExp([1e5, -1e5])).toBe(1e5);
    expect(logMeanExp([1e5, 1e5, 1e5, 1e5])).toBe(1e5);
    expect(logMeanExp([-1e5, -1e5])).toBe(-1e5);
  });

  it("respect start and length", () => {
    const v = [100, 1, 1, 100];
    expect(logSumExp(v, 1, 2)).toBe(1 + Math.LN2);
    expect(logMeanExp(v, 1, 2)).toBe(1);
  });

  it("agree with folding logAddExp, and are shift-equivariant", () => {
    fc.assert(
      fc.property(fc.array(logValue, { minLength: 1, maxLength: 20 }), logValue, (xs, c) => {
        const s = logSumExp(xs);
        const folded = xs.reduce((acc, x) => logAddExp(acc, x), -INF);
        const scale = Math.max(...xs.map(Math.abs)) + 1;
        expect(Math.abs(s - folded)).toBeLessThanOrEqual(4 * xs.length * EPS * scale);
        const shifted = logSumExp(xs.map((x) => x + c));
        expect(Math.abs(shifted - (s + c))).toBeLessThanOrEqual(8 * xs.length * EPS * (scale + Math.abs(c)));
        expect(logMeanExp(xs)).toBeCloseTo(s - Math.log(xs.length), 6);
      }),
      { seed: 13 },
    );
  });
});
