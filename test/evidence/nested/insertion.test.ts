import { describe, expect, it } from "vitest";
import { InsertionRanks, kolmogorovTail } from "../../../src/evidence/nested/insertion.js";
import { createRng } from "../../../src/random/rng.js";

describe("the insertion-rank test", () => {
  it("has Kolmogorov's tail probabilities (1.36 and 1.63 are the 5 % and 1 % points)", () => {
    expect(kolmogorovTail(1.358)).toBeCloseTo(0.05, 3);
    expect(kolmogorovTail(1.628)).toBeCloseTo(0.01, 3);
    expect(kolmogorovTail(0.1)).toBe(1);
  });

  it("accepts uniform ranks and rejects ranks that pile up near the top", () => {
    const k = 50;
    const live = Float64Array.from({ length: k }, (_, i) => i);
    const rng = createRng(1);
    const uniform = new InsertionRanks(k);
    const skewed = new InsertionRanks(k);
    for (let t = 0; t < 5000; t++) {
      // Skip entry 0 (the dead point): a new value uniform over the gaps ranks uniformly on 0 … K − 1.
      uniform.add(k * rng.uniform(), live, 0);
      skewed.add(k * Math.sqrt(rng.uniform()), live, 0);
    }
    expect(uniform.total).toBe(5000);
    expect(uniform.test().pValue).toBeGreaterThan(0.01);
    expect(skewed.test().pValue).toBeLessThan(1e-6);
    expect(new InsertionRanks(k).test().pValue).toBeNull();
  });
});
