import { describe, expect, it } from "vitest";
import { categorical } from "../../src/distributions/categorical.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";

describe("categorical (probabilities)", () => {
  const p = [0.2, 0.5, 0, 0.3];
  const d = categorical({ probabilities: p });

  it("has log probabilities log p_k that sum (exponentiated) to 1, −Infinity off the support", () => {
    expect(d.logPdf(1)).toBe(Math.log(0.5));
    expect(d.logPdf(2)).toBe(Number.NEGATIVE_INFINITY);
    expect(d.logPdf(4)).toBe(Number.NEGATIVE_INFINITY);
    expect(d.logPdf(0.5)).toBe(Number.NEGATIVE_INFINITY);
    expect(d.logPdf(-1)).toBe(Number.NEGATIVE_INFINITY);
    let total = 0;
    for (let k = 0; k < 4; k++) total += Math.exp(d.logPdf(k));
    expect(Math.abs(total - 1)).toBeLessThan(4 * Number.EPSILON);
  });

  it("draws each category with its probability within 4 binomial SE", () => {
    const rng = createRng(48);
    const n = 50_000;
    const counts = new Float64Array(4);
    for (let i = 0; i < n; i++) counts[d.sample(rng)]++;
    for (let k = 0; k < 4; k++) {
      expect(Math.abs(counts[k] / n - p[k])).toBeLessThanOrEqual(4 * Math.sqrt((p[k] * (1 - p[k])) / n));
    }
    expect(d.mean).toBeCloseTo(0.5 + 0.9, 14);
  });

  it("rejects probabilities that are negative, do not sum to 1, or are empty", () => {
    expect(() => categorical({ probabilities: [0.5, 0.6] })).toThrow(/sum to 1/);
    expect(() => categorical({ probabilities: [1.5, -0.5] })).toThrow(OccamError);
    expect(() => categorical({ probabilities: [] })).toThrow(OccamError);
  });
});
