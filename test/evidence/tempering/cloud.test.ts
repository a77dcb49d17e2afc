import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cloudShape,
  IslandComplementShapes,
  islandStart,
  measureCloud,
  type ParticleCloud,
  reorderCloud,
  resampleIslands,
} from "../../../src/evidence/tempering/cloud.js";
import { createRng } from "../../../src/random/rng.js";

function cloudOf(positions: number[][]): ParticleCloud {
  const n = positions.length;
  const d = positions[0].length;
  return {
    n,
    dim: d,
    positions: Float64Array.from(positions.flat()),
    logPrior: Float64Array.from({ length: n }, (_, i) => -i),
    logLikelihood: Float64Array.from({ length: n }, (_, i) => -10 * i),
  };
}

describe("the particle cloud", () => {
  it("splits particles into contiguous islands whose sizes differ by at most one", () => {
    const sizes = Array.from({ length: 7 }, (_, g) => islandStart(g + 1, 7, 100) - islandStart(g, 7, 100));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(100);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it("resamples within each island: ⌊n_g w_i⌋ or ⌈n_g w_i⌉ copies of each particle, never from another island (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -20, max: 0, noNaN: true }), { minLength: 4, maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        (logW, islands, seed) => {
          const n = logW.length;
          const index = new Int32Array(n);
          resampleIslands(Float64Array.from(logW), islands, createRng(seed), index);
          for (let g = 0; g < islands; g++) {
            const a = islandStart(g, islands, n);
            const b = islandStart(g + 1, islands, n);
            const max = Math.max(...logW.slice(a, b));
            const total = logW.slice(a, b).reduce((s, v) => s + Math.exp(v - max), 0);
            const counts = new Array(n).fill(0);
            for (let i = a; i < b; i++) {
              expect(index[i]).toBeGreaterThanOrEqual(a);
              expect(index[i]).toBeLessThan(b);
              counts[index[i]]++;
            }
            for (let i = a; i < b; i++) {
              const expected = ((b - a) * Math.exp(logW[i] - max)) / total;
              expect(counts[i]).toBeGreaterThanOrEqual(Math.floor(expected - 1e-9));
              expect(counts[i]).toBeLessThanOrEqual(Math.ceil(expected + 1e-9));
            }
          }
        },
      ),
    );
  });

  it("reorders positions, log priors and log likelihoods together", () => {
    const cloud = cloudOf([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
    reorderCloud(cloud, Int32Array.of(2, 2, 0), new Float64Array(6), new Float64Array(3));
    expect(Array.from(cloud.positions)).toEqual([4, 5, 4, 5, 0, 1]);
    expect(Array.from(cloud.logPrior)).toEqual([-2, -2, -0]);
    expect(Array.from(cloud.logLikelihood)).toEqual([-20, -20, -0]);
  });

  it("measures the weighted mean and the Cholesky factor of the weighted covariance", () => {
    const rng = createRng(4);
    const points = Array.from({ length: 50 }, () => [rng.normal(), 2 * rng.normal() + 1, rng.normal()]);
    const logW = Float64Array.from({ length: 50 }, () => rng.normal());
    const cloud = cloudOf(points);
    const shape = cloudShape(3);
    measureCloud(cloud, logW, shape, new Float64Array(9));
    // Direct computation with normalised weights and the reliability-weights correction.
    const w = Array.from(logW, Math.exp);
    const total = w.reduce((a, b) => a + b, 0);
    const v = w.map((x) => x / total);
    const mean = [0, 1, 2].map((j) => points.reduce((s, p, i) => s + v[i] * p[j], 0));
    const correction = 1 / (1 - v.reduce((s, x) => s + x * x, 0));
    const cov = (a: number, b: number) =>
      correction * points.reduce((s, p, i) => s + v[i] * (p[a] - mean[a]) * (p[b] - mean[b]), 0);
    for (let j = 0; j < 3; j++) expect(shape.mean[j]).toBeCloseTo(mean[j], 12);
    const L = shape.cholesky;
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b <= a; b++) {
        let llt = 0;
        for (let k = 0; k < 3; k++) llt += L[a * 3 + k] * L[b * 3 + k];
        expect(llt).toBeCloseTo(cov(a, b), 12);
      }
    }
  });

  it("measures, for each island, the shape of the other islands' particles", () => {
    const rng = createRng(5);
    const n = 23;
    const G = 4;
    const points = Array.from({ length: n }, () => [rng.normal(), 3 * rng.normal() - 2, rng.normal()]);
    const logW = Float64Array.from({ length: n }, () => 2 * rng.normal());
    // The last island alone carries weight in the second case.
    const onlyLast = logW.map((w, i) => (i >= islandStart(G - 1, G, n) ? w : Number.NEGATIVE_INFINITY));
    for (const weights of [logW, onlyLast]) {
      const complements = new IslandComplementShapes(G, 3);
      complements.measure(cloudOf(points), weights);
      for (let g = 0; g < G; g++) {
        const own = (i: number) => i >= islandStart(g, G, n) && i < islandStart(g + 1, G, n);
        const othersWeigh = [...weights.keys()].some((i) => !own(i) && weights[i] > Number.NEGATIVE_INFINITY);
        const keep = [...weights.keys()].filter((i) => !othersWeigh || !own(i));
        const expected = cloudShape(3);
        measureCloud(
          cloudOf(keep.map((i) => points[i])),
          Float64Array.from(keep, (i) => weights[i]),
          expected,
          new Float64Array(9),
        );
        const got = complements.shapes[g];
        for (let j = 0; j < 3; j++) expect(got.mean[j]).toBeCloseTo(expected.mean[j], 10);
        for (let k = 0; k < 9; k++) expect(got.cholesky[k]).toBeCloseTo(expected.cholesky[k], 10);
      }
    }
  });

  it("adds a small jitter when the cloud has collapsed to fewer points than dimensions", () => {
    const cloud = cloudOf([
      [1, 1],
      [1, 1],
      [2, 2],
    ]);
    const shape = cloudShape(2);
    measureCloud(cloud, new Float64Array(3), shape, new Float64Array(4));
    expect(shape.cholesky[3]).toBeGreaterThan(0);
    expect(shape.cholesky[3]).toBeLessThan(1e-3);
  });
});
