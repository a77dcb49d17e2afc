import { describe, expect, it } from "vitest";
import { lowerSolve, lowerTimesPlus, lowerTransposeTimes } from "../../src/math/triangular.js";
import { createRng } from "../../src/random/rng.js";

/** A random lower-triangular d × d matrix with a positive diagonal, garbage above it, and a vector. */
function randomCase(d: number, seed: number) {
  const rng = createRng(seed);
  const L = new Float64Array(d * d);
  for (let a = 0; a < d; a++) {
    for (let b = 0; b < d; b++)
      L[a * d + b] = b < a ? 0.2 * rng.normal() : b === a ? 0.5 + rng.uniform() : 1e300;
  }
  const x = Float64Array.from({ length: d }, () => rng.normal());
  const shift = Float64Array.from({ length: d }, () => rng.normal());
  return { L, x, shift };
}

// The plain loops the kernels replace: the kernels must agree with them to the last bit.
function plainTimesPlus(L: Float64Array, d: number, x: Float64Array, shift: Float64Array | null) {
  const out = new Float64Array(d);
  for (let a = 0; a < d; a++) {
    let v = shift === null ? 0 : shift[a];
    for (let b = 0; b <= a; b++) v += L[a * d + b] * x[b];
    out[a] = v;
  }
  return out;
}

function plainTransposeTimes(L: Float64Array, d: number, x: Float64Array) {
  const out = new Float64Array(d);
  for (let b = 0; b < d; b++) {
    let v = 0;
    for (let a = b; a < d; a++) v += L[a * d + b] * x[a];
    out[b] = v;
  }
  return out;
}

function plainSolve(L: Float64Array, d: number, rhs: Float64Array) {
  const out = new Float64Array(d);
  for (let a = 0; a < d; a++) {
    let v = rhs[a];
    for (let b = 0; b < a; b++) v -= L[a * d + b] * out[b];
    out[a] = v / L[a * d + a];
  }
  return out;
}

describe("triangular kernels", () => {
  // Sizes below, at and past a block of four, and with each remainder.
  const sizes = [1, 2, 3, 4, 5, 6, 7, 8, 13, 50];

  it("L x and m + L x equal the plain loop's bits, reading only the lower triangle", () => {
    for (const d of sizes) {
      const { L, x, shift } = randomCase(d, d);
      const out = new Float64Array(d);
      lowerTimesPlus(L, d, x, shift, out);
      expect(out).toEqual(plainTimesPlus(L, d, x, shift));
      lowerTimesPlus(L, d, x, null, out);
      expect(out).toEqual(plainTimesPlus(L, d, x, null));
    }
  });

  it("Lᵀ x equals the plain loop's bits, overwriting whatever `out` held", () => {
    for (const d of sizes) {
      const { L, x } = randomCase(d, 100 + d);
      const out = new Float64Array(d).fill(7);
      lowerTransposeTimes(L, d, x, out);
      expect(out).toEqual(plainTransposeTimes(L, d, x));
    }
  });

  it("the forward solve equals the plain loop's bits, in place too, and inverts L x", () => {
    for (const d of sizes) {
      const { L, x } = randomCase(d, 200 + d);
      const out = new Float64Array(d);
      lowerSolve(L, d, x, out);
      expect(out).toEqual(plainSolve(L, d, x));
      const inPlace = Float64Array.from(x);
      lowerSolve(L, d, inPlace, inPlace);
      expect(inPlace).toEqual(out);
      const back = new Float64Array(d);
      lowerTimesPlus(L, d, out, null, back);
      for (let a = 0; a < d; a++) expect(back[a]).toBeCloseTo(x[a], 10);
    }
  });
});
