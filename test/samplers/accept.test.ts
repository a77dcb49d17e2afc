import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import {
  checkStartLogDensity,
  checkStartPosition,
  checkTarget,
  isFiniteVector,
  isUsableLogDensity,
  metropolisHastings,
} from "../../src/samplers/accept.js";

describe("metropolisHastings", () => {
  it("accepts with probability min(1, e^ratio), within 4 binomial standard errors", () => {
    const rng = createRng(1);
    const n = 40_000;
    for (const p of [0.05, 0.3, 0.7]) {
      expect(metropolisHastings(rng, Math.log(p)).acceptProbability).toBeCloseTo(p, 14);
      let accepted = 0;
      for (let i = 0; i < n; i++) if (metropolisHastings(rng, Math.log(p)).accepted) accepted++;
      expect(Math.abs(accepted / n - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
    }
  });

  it("always accepts a non-negative ratio and never accepts −Infinity", () => {
    const rng = createRng(2);
    let wrong = 0;
    for (let i = 0; i < 1000; i++) {
      if (!metropolisHastings(rng, 0).accepted) wrong++;
      if (!metropolisHastings(rng, Number.POSITIVE_INFINITY).accepted) wrong++;
      if (metropolisHastings(rng, Number.NEGATIVE_INFINITY).accepted) wrong++;
    }
    expect(wrong).toBe(0);
    expect(metropolisHastings(rng, 0)).toEqual({ accepted: true, acceptProbability: 1 });
    expect(metropolisHastings(rng, Number.NEGATIVE_INFINITY)).toEqual({
      accepted: false,
      acceptProbability: 0,
    });
  });

  it("draws exactly one uniform per call, so streams stay aligned whatever the ratio", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { maxLength: 20 }), (ratios) => {
        const a = createRng(3);
        const b = createRng(3);
        for (const r of ratios) metropolisHastings(a, r);
        for (let i = 0; i < ratios.length; i++) b.uniform();
        expect(a.uniform()).toBe(b.uniform());
      }),
    );
  });

  it("throws a non-finite OccamError on a NaN ratio", () => {
    expect(() => metropolisHastings(createRng(4), Number.NaN)).toThrow(OccamError);
    try {
      metropolisHastings(createRng(4), Number.NaN);
    } catch (e) {
      expect((e as OccamError).code).toBe("non-finite");
    }
  });
});

describe("kernel input checks", () => {
  it("calls NaN and +Infinity proposals unusable (a divergence) but lets −Infinity through, and finds non-finite gradients", () => {
    expect(isUsableLogDensity(Number.NaN)).toBe(false);
    expect(isUsableLogDensity(Number.POSITIVE_INFINITY)).toBe(false);
    expect(isUsableLogDensity(Number.NEGATIVE_INFINITY)).toBe(true);
    expect(isUsableLogDensity(-3)).toBe(true);
    expect(isFiniteVector(new Float64Array([1, -2e300]))).toBe(true);
    expect(isFiniteVector(new Float64Array([1, Number.NaN]))).toBe(false);
    expect(isFiniteVector(new Float64Array([Number.NEGATIVE_INFINITY, 0]))).toBe(false);
  });

  it("checks starting positions and densities", () => {
    expect(() => checkStartPosition("K", new Float64Array(2), 3)).toThrow(/3/);
    expect(() => checkStartPosition("K", new Float64Array([0, Number.NaN]), 2)).toThrow(/coordinate 1/);
    expect(() => checkStartPosition("K", [0, 1] as unknown as Float64Array, 2)).toThrow(/Float64Array/);
    expect(() => checkStartLogDensity("K", Number.NEGATIVE_INFINITY, new Float64Array(1))).toThrow(
      OccamError,
    );
    expect(() => checkTarget("K", { dim: 2, logDensity: () => 0 }, true)).toThrow(/gradLogDensity/);
    expect(() => checkTarget("K", { dim: 0, logDensity: () => 0 }, false)).toThrow(/dim/);
  });
});
