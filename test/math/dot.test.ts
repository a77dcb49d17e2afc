import { describe, expect, it } from "vitest";
import { dotAt, squaredDistanceAt } from "../../src/math/dot.js";

describe("unchecked dot products", () => {
  it("dotAt and squaredDistanceAt sum every length and offset as a single loop does", () => {
    const a = Float64Array.from({ length: 14 }, (_, i) => Math.sin(i + 1));
    const b = Float64Array.from({ length: 14 }, (_, i) => Math.cos(2 * i));
    for (let length = 0; length <= 9; length++) {
      for (const [ao, bo] of [
        [0, 0],
        [3, 5],
      ]) {
        let d = 0;
        let s = 0;
        for (let i = 0; i < length; i++) {
          d += a[ao + i] * b[bo + i];
          s += (a[ao + i] - b[bo + i]) ** 2;
        }
        expect(dotAt(a, ao, b, bo, length)).toBeCloseTo(d, 14);
        expect(squaredDistanceAt(a, ao, b, bo, length)).toBeCloseTo(s, 14);
      }
    }
  });
});
