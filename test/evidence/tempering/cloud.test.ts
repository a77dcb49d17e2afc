import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CloudShape,
  cloudShape,
  IslandComplementShapes,
  islandStart,
  measureCloud,
  type ParticleCloud,
  PooledPosterior,
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

  /** n draws of N(0, I/β) in d dimensions, the power posterior at β of log L = −|θ|²/2 under a flat prior. */
  function temperedCloud(n: number, d: number, beta: number, seed: number): ParticleCloud {
    const rng = createRng(seed);
    const points = Array.from({ length: n }, () =>
      Array.from({ length: d }, () => rng.normal() / Math.sqrt(beta)),
    );
    const cloud = cloudOf(points);
    points.forEach((p, i) => {
      cloud.logLikelihood[i] = -0.5 * p.reduce((s, x) => s + x * x, 0);
    });
    return cloud;
  }

  /** The covariance L Lᵀ of a shape, entry (a, b). */
  function covarianceOf(shape: CloudShape, d: number, a: number, b: number): number {
    let sum = 0;
    for (let k = 0; k < d; k++) sum += shape.cholesky[a * d + k] * shape.cholesky[b * d + k];
    return sum;
  }

  it("pools one stage as the cloud reweighted by L^{1−β} to the posterior", () => {
    const cloud = temperedCloud(300, 3, 0.6, 8);
    const logW = Float64Array.from({ length: 300 }, (_, i) => 0.001 * i);
    const pooled = new PooledPosterior(300, 3);
    pooled.add(cloud, logW, 0.6);
    const direct = cloudShape(3);
    const reweighted = Float64Array.from(logW, (w, i) => w + 0.4 * cloud.logLikelihood[i]);
    measureCloud(cloud, reweighted, direct, new Float64Array(9));
    const shape = pooled.shape() as CloudShape;
    for (let j = 0; j < 3; j++) expect(shape.mean[j]).toBeCloseTo(direct.mean[j], 12);
    for (let j = 0; j < 9; j++) expect(shape.cholesky[j]).toBeCloseTo(direct.cholesky[j], 12);
  });

  it("pools the stages near β = 1 into the posterior's shape and leaves out those few draws would carry", () => {
    const d = 2;
    const n = 2000;
    const pooled = new PooledPosterior(n, d);
    const zero = new Float64Array(n);
    expect(pooled.shape()).toBeUndefined();
    pooled.add(temperedCloud(n, d, 0.5, 1), zero, 0.5);
    pooled.add(temperedCloud(n, d, 0.8, 2), zero, 0.8);
    const shape = pooled.shape() as CloudShape;
    // The posterior is N(0, I); the two stages hold about 0.8 n + 0.97 n effective draws.
    const se = 1 / Math.sqrt(1.7 * n);
    for (let a = 0; a < d; a++) {
      expect(Math.abs(shape.mean[a])).toBeLessThan(4 * se);
      expect(Math.abs(covarianceOf(shape, d, a, a) - 1)).toBeLessThan(4 * Math.SQRT2 * se);
      for (let b = 0; b < a; b++) expect(Math.abs(covarianceOf(shape, d, a, b))).toBeLessThan(4 * se);
    }
    // At β = 0.01 the weights L^0.99 leave a handful of the draws: that stage changes nothing.
    pooled.add(temperedCloud(n, d, 0.01, 3), zero, 0.01);
    const again = pooled.shape() as CloudShape;
    expect(Array.from(again.mean)).toEqual(Array.from(shape.mean));
    expect(Array.from(again.cholesky)).toEqual(Array.from(shape.cholesky));
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
