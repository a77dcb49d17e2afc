import { describe, expect, it } from "vitest";
import { linearRegressionData } from "../../../src/data/generators/linear.js";

describe("linearRegressionData", () => {
  it("gives the same data for the same seed, with an intercept column when asked", () => {
    const a = linearRegressionData({ n: 50, p: 3, noiseSd: 0.2, seed: 4, intercept: true });
    const b = linearRegressionData({ n: 50, p: 3, noiseSd: 0.2, seed: 4, intercept: true });
    expect(Array.from(a.y)).toEqual(Array.from(b.y));
    expect(Array.from(a.weights)).toEqual(Array.from(b.weights));
    expect(a.X).toHaveLength(150);
    for (let i = 0; i < 50; i++) expect(a.X[i * 3]).toBe(1);
  });

  it("has residuals y − Xw with the noise sd (within 4 standard errors of the sample sd)", () => {
    const n = 4000;
    const d = linearRegressionData({ n, p: 2, weights: [1.5, -2], noiseSd: 0.3, seed: 5 });
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (d.y[i] - 1.5 * d.X[i * 2] + 2 * d.X[i * 2 + 1]) ** 2;
    const sd = Math.sqrt(ss / n);
    // The sample sd of n normal residuals has standard error σ/√(2n).
    expect(Math.abs(sd - 0.3)).toBeLessThan((4 * 0.3) / Math.sqrt(2 * n));
  });

  it("rejects bad options", () => {
    expect(() => linearRegressionData({ n: 0, p: 2, noiseSd: 1 })).toThrow(/n must be a positive integer/);
    expect(() => linearRegressionData({ n: 5, p: 2, noiseSd: -1 })).toThrow(/noiseSd/);
    expect(() => linearRegressionData({ n: 5, p: 2, noiseSd: 1, weights: [1] })).toThrow(/expected p = 2/);
  });
});
