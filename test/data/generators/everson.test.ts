import { describe, expect, it } from "vitest";
import { eversonData } from "../../../src/data/generators/everson.js";
import { OccamError } from "../../../src/errors.js";

describe("eversonData (Everson et al. sec. 3, eq. 9)", () => {
  const n = 4000;
  const data = eversonData({ n, seed: 5 });

  it("has unit-normal inputs and two regimes, half the data each", () => {
    expect(data.X).toHaveLength(4 * n);
    expect(data.y).toHaveLength(n);
    expect(data.regime.reduce((s, r) => s + r, 0)).toBe(n / 2);
    for (let i = 0; i < n; i++) expect(data.regime[i]).toBe(i < n / 2 ? 0 : 1);
    for (let j = 0; j < 4; j++) {
      let m = 0;
      let ss = 0;
      for (let i = 0; i < n; i++) m += data.X[i * 4 + j] / n;
      for (let i = 0; i < n; i++) ss += (data.X[i * 4 + j] - m) ** 2;
      // Standard errors of a N(0, 1) sample's mean and variance: 1/√n and √(2/n).
      expect(Math.abs(m)).toBeLessThan(4 / Math.sqrt(n));
      expect(Math.abs(ss / (n - 1) - 1)).toBeLessThan(4 * Math.sqrt(2 / n));
    }
  });

  it("follows y = x_2 − 4x_3 + N(0, 1) in regime A and y = x_1 − x_3/2 + N(0, 0.2²) in regime B", () => {
    const residualVariance = (regime: number, f: (x: Float64Array) => number) => {
      let ss = 0;
      let count = 0;
      for (let i = 0; i < n; i++) {
        if (data.regime[i] !== regime) continue;
        ss += (data.y[i] - f(data.X.subarray(i * 4, i * 4 + 4))) ** 2;
        count++;
      }
      return { variance: ss / count, count };
    };
    const a = residualVariance(0, (x) => x[1] - 4 * x[2]);
    const b = residualVariance(1, (x) => x[0] - x[2] / 2);
    // Known means: the standard error of the mean of squares of N(0, σ²) is σ²√(2/m).
    expect(Math.abs(a.variance - 1)).toBeLessThan(4 * Math.sqrt(2 / a.count));
    expect(Math.abs(b.variance - 0.04)).toBeLessThan(4 * 0.04 * Math.sqrt(2 / b.count));
  });

  it("repeats with the seed and rejects a bad n", () => {
    expect(eversonData({ n: 10, seed: 5 }).y).toEqual(eversonData({ n: 10, seed: 5 }).y);
    expect(eversonData({ n: 10, seed: 6 }).y).not.toEqual(eversonData({ n: 10, seed: 5 }).y);
    expect(() => eversonData({ n: 0 })).toThrow(OccamError);
    expect(() => eversonData({ n: 2.5 })).toThrow(/n must be a positive integer/);
  });
});
