import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { Draws } from "../../src/model/draws.js";

/** 2 chains × 3 draws × 2 coordinates; draw t of chain c is (10c + t, (10c + t)²). */
function small(): Draws {
  const samples = [0, 1].map((c) => [0, 1, 2].map((t) => Float64Array.of(10 * c + t, (10 * c + t) ** 2)));
  return Draws.fromArrays(samples, [
    [-1, -2, -3],
    [-4, -5, -6],
  ]);
}

describe("Draws", () => {
  it("stores chain-major values with index ((c·nDraws) + t)·dim + j", () => {
    const d = small();
    expect([d.dim, d.nChains, d.nDraws, d.size]).toEqual([2, 2, 3, 6]);
    expect(Array.from(d.values)).toEqual([0, 0, 1, 1, 2, 4, 10, 100, 11, 121, 12, 144]);
    expect(Array.from(d.logDensity)).toEqual([-1, -2, -3, -4, -5, -6]);
    expect(d.names).toEqual(["theta[0]", "theta[1]"]);
    expect(Array.from(d.draw(1, 2))).toEqual([12, 144]);
  });

  it("draw is a view; parameter and chains are copies", () => {
    const d = small();
    const view = d.draw(0, 1);
    view[0] = 99;
    expect(d.values[2]).toBe(99);
    const p = d.parameter(0, 0);
    p[0] = -7;
    expect(d.values[0]).toBe(0);
    expect(Array.from(d.parameter(1))).toEqual([0, 1, 4, 100, 121, 144]);
    expect(Array.from(d.parameter(1, 1))).toEqual([100, 121, 144]);
    expect(d.chains(0).map((c) => Array.from(c))).toEqual([
      [0, 99, 2],
      [10, 11, 12],
    ]);
  });

  it("computes the pooled mean and the n − 1 covariance by hand", () => {
    const d = small();
    // x = 0,1,2,10,11,12 (mean 6); y = x² = 0,1,4,100,121,144 (mean 370/6).
    const x = [0, 1, 2, 10, 11, 12];
    const y = x.map((v) => v * v);
    const mx = 6;
    const my = 370 / 6;
    const sxx = x.reduce((s, v) => s + (v - mx) ** 2, 0) / 5; // 154 / 5
    const syy = y.reduce((s, v) => s + (v - my) ** 2, 0) / 5;
    const sxy = x.reduce((s, v, i) => s + (v - mx) * (y[i] - my), 0) / 5;
    const mean = d.mean();
    expect(mean[0]).toBe(6);
    expect(mean[1]).toBeCloseTo(my, 12);
    const cov = d.covariance();
    expect(cov[0]).toBeCloseTo(154 / 5, 12);
    expect(cov[0]).toBeCloseTo(sxx, 12);
    expect(cov[3]).toBeCloseTo(syy, 9);
    expect(cov[1]).toBeCloseTo(sxy, 10);
    expect(cov[2]).toBe(cov[1]);
  });

  it("keeps the covariance accurate for a large offset", () => {
    // Values 1e9 + {−1, 0, 1}: the naive E[x²] − E[x]² loses every digit here.
    const d = Draws.fromArrays([Float64Array.of(1e9 - 1), Float64Array.of(1e9), Float64Array.of(1e9 + 1)]);
    expect(d.mean()[0]).toBe(1e9);
    expect(d.covariance()[0]).toBe(1);
  });

  it("builds an empty store and fills default stats", () => {
    const d = new Draws({ dim: 3, nChains: 2, nDraws: 4, names: ["a", "b", "c"] });
    expect(d.values.length).toBe(24);
    expect(d.logDensity.length).toBe(8);
    expect(d.stats).toHaveLength(2);
    expect(d.stats[0].acceptanceRate).toBeNaN();
    expect(d.names).toEqual(["a", "b", "c"]);
  });

  it("takes one chain or several, and flat or per-chain log densities", () => {
    const one = Draws.fromArrays([Float64Array.of(1), Float64Array.of(2)], Float64Array.of(-1, -2));
    expect([one.nChains, one.nDraws, one.dim]).toEqual([1, 2, 1]);
    expect(Array.from(one.logDensity)).toEqual([-1, -2]);
    const two = Draws.fromArrays([[Float64Array.of(1)], [Float64Array.of(2)]], [-1, -2]);
    expect([two.nChains, two.nDraws]).toEqual([2, 1]);
    expect(Array.from(two.logDensity)).toEqual([-1, -2]);
    const unknown = Draws.fromArrays([Float64Array.of(1)]);
    expect(unknown.logDensity[0]).toBeNaN();
  });

  it("rejects bad shapes, indices and values with OccamError", () => {
    expect(() => new Draws({ dim: 0, nChains: 1, nDraws: 1 })).toThrow(OccamError);
    expect(() => new Draws({ dim: 2, nChains: 1, nDraws: 1.5 })).toThrow(/nDraws/);
    expect(() => new Draws({ dim: 2, nChains: 1, nDraws: 1, names: ["a"] })).toThrow(/names/);
    expect(() => Draws.fromArrays([])).toThrow(OccamError);
    expect(() => Draws.fromArrays([Float64Array.of(1, 2), Float64Array.of(1)])).toThrow(/length 2/);
    expect(() => Draws.fromArrays([[Float64Array.of(1)], [Float64Array.of(1), Float64Array.of(2)]])).toThrow(
      /equal length/,
    );
    expect(() => Draws.fromArrays([Float64Array.of(Number.NaN)])).toThrow(/NaN/);
    expect(() => Draws.fromArrays([Float64Array.of(1)], [Number.NaN])).toThrow(/finite/);
    expect(() => Draws.fromArrays([Float64Array.of(1)], [1, 2])).toThrow(/logDensity/);
    const d = small();
    expect(() => d.draw(2, 0)).toThrow(/chain/);
    expect(() => d.draw(0, 3)).toThrow(/draw index/);
    expect(() => d.parameter(2)).toThrow(/parameter index/);
    expect(() => Draws.fromArrays([Float64Array.of(1)]).covariance()).toThrow(/at least 2/);
  });
});
