import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkPartition,
  checkSubsetIndices,
  complement,
  holdOut,
  kFolds,
  union,
} from "../../src/data/folds.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";

/** Checks that `folds` partition 0 … n − 1 into sorted blocks whose sizes differ by at most one. */
function expectBalancedPartition(folds: Int32Array[], n: number, G: number): void {
  expect(folds).toHaveLength(G);
  const seen = new Uint8Array(n);
  const sizes = folds.map((f) => f.length);
  expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  for (const f of folds) {
    for (let i = 0; i < f.length; i++) {
      expect(seen[f[i]]).toBe(0);
      seen[f[i]] = 1;
      if (i > 0) expect(f[i]).toBeGreaterThan(f[i - 1]);
    }
  }
  expect(seen.every((v) => v === 1)).toBe(true);
}

describe("kFolds", () => {
  it("splits into contiguous blocks without an rng, the larger blocks first", () => {
    const folds = kFolds(10, 3);
    expect(folds.map((f) => Array.from(f))).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
  });

  it("partitions 0…n−1 into G balanced sorted folds, contiguous or shuffled (property)", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 300 })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n }))),
        fc.integer({ min: 0, max: 1000 }),
        ([n, G], seed) => {
          expectBalancedPartition(kFolds(n, G), n, G);
          expectBalancedPartition(kFolds(n, G, createRng(seed)), n, G);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("shuffles reproducibly by the seed", () => {
    const a = kFolds(50, 5, createRng(3));
    const b = kFolds(50, 5, createRng(3));
    const c = kFolds(50, 5, createRng(4));
    expect(a.map((f) => Array.from(f))).toEqual(b.map((f) => Array.from(f)));
    expect(a.map((f) => Array.from(f))).not.toEqual(c.map((f) => Array.from(f)));
    // A shuffled first fold is not the first block.
    expect(Array.from(a[0])).not.toEqual(Array.from(kFolds(50, 5)[0]));
  });

  it("rejects G > n, G < 1 and a bad n with an OccamError", () => {
    expect(() => kFolds(4, 5)).toThrow(OccamError);
    expect(() => kFolds(4, 5)).toThrow(/G = 5 .*use G ≤ n/);
    expect(() => kFolds(4, 0)).toThrow(/positive integer/);
    expect(() => kFolds(4.5, 2)).toThrow(/n must be a positive integer/);
    expect(() => kFolds(0, 1)).toThrow(OccamError);
  });
});

describe("holdOut", () => {
  it("takes the first round(fraction n) observations for training without an rng", () => {
    const { train, test } = holdOut(10, 0.7);
    expect(Array.from(train)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(Array.from(test)).toEqual([7, 8, 9]);
  });

  it("draws a random, sorted, reproducible split with an rng", () => {
    const a = holdOut(40, 0.25, createRng(7));
    const b = holdOut(40, 0.25, createRng(7));
    expect(a.train).toHaveLength(10);
    expect(a.test).toHaveLength(30);
    expect(Array.from(a.train)).toEqual(Array.from(b.train));
    expectBalancedPartition([union([a.train, a.test])], 40, 1);
    expect(Array.from(a.train)).not.toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("rejects fractions outside (0, 1) and splits that leave a side empty", () => {
    expect(() => holdOut(10, 0)).toThrow(/strictly between 0 and 1/);
    expect(() => holdOut(10, 1)).toThrow(OccamError);
    expect(() => holdOut(10, 0.01)).toThrow(/no training/);
    expect(() => holdOut(10, 0.99)).toThrow(/no evidence/);
  });
});

describe("index helpers", () => {
  it("complement and union invert each other", () => {
    const a = new Int32Array([5, 1, 3]);
    expect(Array.from(complement(a, 7))).toEqual([0, 2, 4, 6]);
    expect(Array.from(union([a, complement(a, 7)]))).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("checkSubsetIndices sorts and rejects duplicates, out-of-range indices, empty and non-Int32Array input", () => {
    expect(Array.from(checkSubsetIndices(new Int32Array([4, 0, 2]), 5, "m"))).toEqual([0, 2, 4]);
    expect(() => checkSubsetIndices(new Int32Array([1, 1]), 5, "m.subset")).toThrow(
      /m.subset: .*appears twice/,
    );
    expect(() => checkSubsetIndices(new Int32Array([5]), 5, "m")).toThrow(/outside \[0, 4\]/);
    expect(() => checkSubsetIndices(new Int32Array(0), 5, "m")).toThrow(/empty/);
    expect(() => checkSubsetIndices([1, 2], 5, "m")).toThrow(/Int32Array/);
  });

  it("checkPartition accepts a partition and names overlapping, missing and invalid indices", () => {
    expect(checkPartition([[2, 0], [1]], 3, "cv").map((b) => Array.from(b))).toEqual([[0, 2], [1]]);
    expect(() =>
      checkPartition(
        [
          [0, 1],
          [1, 2],
        ],
        3,
        "cv",
      ),
    ).toThrow(/observation 1 is in block 0 and again in block 1/);
    expect(() => checkPartition([[0], [1]], 3, "cv")).toThrow(/observation 2 is in no block/);
    expect(() => checkPartition([[0, 1.5], [2]], 3, "cv")).toThrow(/holds 1.5/);
    expect(() => checkPartition([[0, 1, 2], []], 3, "cv")).toThrow(/block 1 .*empty/);
  });
});
