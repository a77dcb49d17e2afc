import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  conditionalEss,
  linearLadder,
  nextTemperature,
  powerLadder,
  randomTemperatures,
  refineLadder,
  temperatureDensity,
  validateLadder,
} from "../../../src/evidence/tempering/schedule.js";
import { kishEss } from "../../../src/math/logspace.js";
import { createRng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";

describe("powerLadder and linearLadder", () => {
  it("give (i/n)^p and i/n from exactly 0 to exactly 1", () => {
    expect(Array.from(powerLadder(4, 2))).toEqual([0, 0.0625, 0.25, 0.5625, 1]);
    expect(Array.from(linearLadder(4))).toEqual([0, 0.25, 0.5, 0.75, 1]);
    const p = powerLadder(32);
    expect(p.length).toBe(33);
    expect(p[1]).toBeCloseTo((1 / 32) ** 5, 20);
  });

  it("always pass validateLadder (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0.2, max: 8, noNaN: true }),
        (n, exponent) => {
          const ladder = powerLadder(n, exponent);
          expect(ladder.length).toBe(n + 1);
          expect(() => validateLadder(ladder)).not.toThrow();
        },
      ),
    );
  });

  it("reject a bad number of rungs or exponent", () => {
    expect(thrown(() => powerLadder(0)).message).toMatch(/n must be an integer ≥ 1/);
    expect(thrown(() => powerLadder(2.5)).code).toBe("invalid-argument");
    expect(thrown(() => powerLadder(4, -1)).message).toMatch(/exponent/);
    expect(thrown(() => linearLadder(-3)).code).toBe("invalid-argument");
  });
});

describe("validateLadder", () => {
  it("returns a copy of a valid ladder", () => {
    const input = [0, 0.1, 0.5, 1];
    const ladder = validateLadder(input);
    expect(ladder).toBeInstanceOf(Float64Array);
    expect(Array.from(ladder)).toEqual(input);
  });

  it("rejects a ladder that does not start at 0, naming the entry", () => {
    const e = thrown(() => validateLadder([0.01, 0.5, 1]));
    expect(e.code).toBe("invalid-argument");
    expect(e.message).toMatch(/entry 0 is 0.01.*start at exactly 0/);
  });

  it("rejects a ladder that does not end at 1, naming the entry", () => {
    expect(thrown(() => validateLadder([0, 0.5, 0.99])).message).toMatch(
      /last entry \(2\) is 0.99.*end at exactly 1/,
    );
  });

  it("rejects a ladder that does not increase strictly, naming the entry", () => {
    expect(thrown(() => validateLadder([0, 0.5, 0.5, 1])).message).toMatch(
      /entry 2 \(0.5\) is not greater than entry 1/,
    );
    expect(thrown(() => validateLadder([0, 0.6, 0.3, 1])).message).toMatch(/entry 2 \(0.3\)/);
  });

  it("rejects non-finite entries, too few entries and non-arrays", () => {
    expect(thrown(() => validateLadder([0, Number.NaN, 1])).message).toMatch(/entry 1 is NaN/);
    expect(thrown(() => validateLadder([1])).message).toMatch(/at least two/);
    expect(thrown(() => validateLadder(null as unknown as number[])).code).toBe("invalid-argument");
  });
});

describe("the thesis's temperature density (1 − k) θ^−k (eq. 5.31, corrected)", () => {
  it("is normalised: ∫_a^1 p(θ) dθ = 1 − a^(1−k) (the printed θ^−k/(1 − k) is not)", () => {
    for (const k of [-1, 0, 0.5, 0.9]) {
      // Composite Simpson on [a, 1], away from the integrable singularity at 0.
      const a = 0.01;
      const m = 2000;
      const h = (1 - a) / m;
      let s = temperatureDensity(a, k) + temperatureDensity(1, k);
      for (let i = 1; i < m; i++) s += (i % 2 === 1 ? 4 : 2) * temperatureDensity(a + i * h, k);
      expect((s * h) / 3).toBeCloseTo(1 - a ** (1 - k), 6);
    }
    expect(temperatureDensity(1.5, 0.9)).toBe(0);
  });

  it("random temperatures are sorted, lie in (0, 1] and have the density's mean (1 − k)/(2 − k)", () => {
    for (const k of [0, 0.5, 0.9]) {
      const n = 20_000;
      const t = randomTemperatures(n, createRng(7), k);
      let sorted = true;
      for (let i = 1; i < n; i++) sorted &&= t[i] >= t[i - 1];
      expect(sorted).toBe(true);
      expect(t[0]).toBeGreaterThan(0);
      expect(t[n - 1]).toBeLessThanOrEqual(1);
      let mean = 0;
      for (const v of t) {
        mean += v / n;
      }
      const expected = (1 - k) / (2 - k);
      const variance = (1 - k) / (3 - k) - expected ** 2;
      expect(Math.abs(mean - expected)).toBeLessThan(4 * Math.sqrt(variance / n));
    }
  });

  it("random temperatures follow the CDF θ^(1−k) (Kolmogorov–Smirnov at the 0.1 % level)", () => {
    const n = 5000;
    const k = 0.9;
    const t = randomTemperatures(n, createRng(11), k);
    let dMax = 0;
    for (let i = 0; i < n; i++) {
      const cdf = t[i] ** (1 - k);
      dMax = Math.max(dMax, Math.abs(cdf - i / n), Math.abs(cdf - (i + 1) / n));
    }
    expect(dMax).toBeLessThan(1.95 / Math.sqrt(n));
  });

  it("rejects k ≥ 1 and a bad count", () => {
    expect(thrown(() => randomTemperatures(10, createRng(1), 1)).message).toMatch(
      /k must be a finite number < 1/,
    );
    expect(thrown(() => temperatureDensity(0.5, 2)).code).toBe("invalid-argument");
    expect(thrown(() => randomTemperatures(0, createRng(1))).code).toBe("invalid-argument");
  });
});

describe("refineLadder", () => {
  it("splits each rung into m: evenly from 0, geometrically elsewhere, keeping every old rung (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 6 }), (n, m) => {
        const base = powerLadder(n, 4);
        const fine = refineLadder(base, m);
        expect(fine.length).toBe(n * m + 1);
        expect(() => validateLadder(fine)).not.toThrow();
        for (let k = 0; k <= n; k++) expect(fine[k * m]).toBe(base[k]);
      }),
    );
    expect(Array.from(refineLadder([0, 0.01, 1], 2))).toEqual([0, 0.005, 0.01, 0.1, 1]);
  });

  it("rejects a bad m or ladder", () => {
    expect(() => refineLadder([0, 1], 0)).toThrow(/m must be an integer/);
    expect(() => refineLadder([0, 0.5], 2)).toThrow(/end at exactly 1/);
  });
});

describe("choosing the next temperature", () => {
  it("the conditional ESS is Kish's ESS of the incremental weights when the current weights are equal", () => {
    const rng = createRng(1);
    const ell = Float64Array.from({ length: 300 }, () => -30 * rng.uniform() ** 2);
    const w = Float64Array.from(ell, (l) => 0.2 * l);
    expect(conditionalEss(new Float64Array(300), ell, 0.2)).toBeCloseTo(kishEss(w), 9);
  });

  it("the conditional ESS of unequal current weights is N (Σ W w)² / Σ W w² with W normalised", () => {
    const logW = Float64Array.of(0, -1, -2, 500);
    const ell = Float64Array.of(-1, -3, 0, -2);
    const W = Array.from(logW, (v) => Math.exp(v - 500));
    const total = W.reduce((a, b) => a + b, 0);
    const w = Array.from(ell, (l) => Math.exp(0.7 * l));
    const s1 = W.reduce((s, x, i) => s + (x / total) * w[i], 0);
    const s2 = W.reduce((s, x, i) => s + (x / total) * w[i] ** 2, 0);
    expect(conditionalEss(logW, ell, 0.7)).toBeCloseTo((4 * s1 * s1) / s2, 9);
  });

  it("finds the β' whose step keeps the target ESS, and goes straight to 1 when even that keeps it", () => {
    const rng = createRng(2);
    const ell = Float64Array.from({ length: 500 }, () => -50 * rng.uniform() ** 2 - 10);
    const logW = new Float64Array(500);
    const next = nextTemperature(logW, ell, 0.2, 250);
    expect(next).toBeGreaterThan(0.2);
    expect(next).toBeLessThan(1);
    expect(conditionalEss(logW, ell, next - 0.2)).toBeCloseTo(250, 3);
    expect(nextTemperature(new Float64Array(10), new Float64Array(10).fill(-3), 0.5, 5)).toBe(1);
  });
});
