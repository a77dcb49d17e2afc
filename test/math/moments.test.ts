import { describe, expect, it } from "vitest";
import {
  centredProducts,
  columnMoments,
  lowerScatter,
  mirrorLower,
  rowMean,
} from "../../src/math/moments.js";
import { createRng } from "../../src/random/rng.js";

describe("rowMean and lowerScatter", () => {
  // Five rows of three columns; the subset takes rows 4, 0 and 2.
  const rng = createRng(3);
  const d = 3;
  const points = Float64Array.from({ length: 5 * d }, () => 10 + rng.normal());
  const subset = Int32Array.of(4, 0, 2);

  it("give the mean and scatter of the rows asked for, by the textbook sums", () => {
    for (const rows of [subset, 5] as const) {
      const picked = typeof rows === "number" ? [0, 1, 2, 3, 4] : Array.from(rows);
      const mean = rowMean(points, d, rows, new Float64Array(d).fill(Number.NaN));
      const scatter = lowerScatter(points, d, rows, mean, new Float64Array(d * d).fill(Number.NaN));
      for (let j = 0; j < d; j++) {
        const expected = picked.reduce((s, r) => s + points[r * d + j], 0) / picked.length;
        expect(mean[j]).toBeCloseTo(expected, 12);
      }
      for (let i = 0; i < d; i++) {
        for (let j = 0; j < d; j++) {
          const expected =
            j > i
              ? 0
              : picked.reduce((s, r) => s + (points[r * d + i] - mean[i]) * (points[r * d + j] - mean[j]), 0);
          expect(scatter[i * d + j]).toBeCloseTo(expected, 12);
        }
      }
    }
  });

  it("mirrorLower copies the lower triangle onto the upper one", () => {
    const a = Float64Array.of(1, 0, 0, 2, 3, 0, 4, 5, 6);
    expect(Array.from(mirrorLower(a, 3))).toEqual([1, 2, 4, 2, 3, 5, 4, 5, 6]);
  });
});

describe("centredProducts and columnMoments", () => {
  it("give the means, centred sums of products and sample variances of a worked example", () => {
    // a = 1, 2, 3, 4 (mean 2.5), b = 2, 4, 5, 9 (mean 5): Σ da db = 11, Σ da² = 5, Σ db² = 26.
    const p = centredProducts(Float64Array.of(1, 2, 3, 4), Float64Array.of(2, 4, 5, 9));
    expect(p).toEqual({ meanA: 2.5, meanB: 5, ab: 11, aa: 5, bb: 26 });
    // The same two samples as the columns of a 4 × 2 matrix: variances 5/3 and 26/3.
    const m = columnMoments(Float64Array.of(1, 2, 2, 4, 3, 5, 4, 9), 4, 2);
    expect(Array.from(m.means)).toEqual([2.5, 5]);
    expect(m.variances[0]).toBeCloseTo(5 / 3, 14);
    expect(m.variances[1]).toBeCloseTo(26 / 3, 14);
  });

  it("keep the digits of data far from zero, as two passes do", () => {
    // 1e9 + (1, 2, 3): one pass (E[x²] − E[x]²) loses every digit of the variance 1 here.
    const m = columnMoments(Float64Array.of(1e9 + 1, 1e9 + 2, 1e9 + 3), 3, 1);
    expect(m.variances[0]).toBe(1);
  });
});
