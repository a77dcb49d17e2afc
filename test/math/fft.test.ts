import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { fft, inverseRealFft, isPowerOfTwo, nextPowerOfTwo, realFft } from "../../src/math/fft.js";
import { createRng } from "../../src/random/rng.js";

/** The O(n²) DFT from its definition, the reference the FFT must match. */
function naiveDft(re: Float64Array, im: Float64Array): [Float64Array, Float64Array] {
  const n = re.length;
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let sr = 0;
    let si = 0;
    for (let t = 0; t < n; t++) {
      const angle = (-2 * Math.PI * ((k * t) % n)) / n;
      sr += re[t] * Math.cos(angle) - im[t] * Math.sin(angle);
      si += re[t] * Math.sin(angle) + im[t] * Math.cos(angle);
    }
    outRe[k] = sr;
    outIm[k] = si;
  }
  return [outRe, outIm];
}

function normals(seed: number, n: number): Float64Array {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => rng.normal());
}

describe("power-of-two helpers", () => {
  it("finds the next power of two", () => {
    expect([0, 1, 2, 3, 4, 5, 1000, 1024, 1025].map(nextPowerOfTwo)).toEqual([
      1, 1, 2, 4, 4, 8, 1024, 1024, 2048,
    ]);
    expect(isPowerOfTwo(64)).toBe(true);
    expect(isPowerOfTwo(96)).toBe(false);
    expect(isPowerOfTwo(0)).toBe(false);
  });
});

describe("fft", () => {
  it("matches the direct DFT for every power-of-two length up to 256", () => {
    for (let n = 1; n <= 256; n *= 2) {
      const re = normals(n, n);
      const im = normals(n + 1000, n);
      const [dr, di] = naiveDft(re, im);
      fft(re, im);
      // Rounding error of both sums grows like ε·√n·‖x‖; 1e-12 leaves a wide margin at n = 256.
      for (let k = 0; k < n; k++) {
        expect(Math.abs(re[k] - dr[k])).toBeLessThan(1e-12);
        expect(Math.abs(im[k] - di[k])).toBeLessThan(1e-12);
      }
    }
  });

  it("inverts: fft then inverse fft is the identity (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 2 ** 31 }), (log2n, seed) => {
        const n = 2 ** log2n;
        const re = normals(seed, n);
        const im = normals(seed + 1, n);
        const re0 = re.slice();
        const im0 = im.slice();
        fft(re, im);
        fft(re, im, true);
        for (let i = 0; i < n; i++) {
          if (Math.abs(re[i] - re0[i]) > 1e-12 || Math.abs(im[i] - im0[i]) > 1e-12) return false;
        }
        return true;
      }),
      { numRuns: 50 },
    );
  });

  it("rejects lengths that are not powers of two", () => {
    expect(() => fft(new Float64Array(6), new Float64Array(6))).toThrow(OccamError);
    expect(() => fft(new Float64Array(4), new Float64Array(8))).toThrow(OccamError);
  });
});

describe("realFft", () => {
  it("matches the direct DFT of a real sequence and inverts exactly", () => {
    for (let n = 2; n <= 512; n *= 2) {
      const x = normals(7 * n, n);
      const [dr, di] = naiveDft(x, new Float64Array(n));
      const re = new Float64Array(n / 2 + 1);
      const im = new Float64Array(n / 2 + 1);
      realFft(x, re, im);
      for (let k = 0; k <= n / 2; k++) {
        expect(Math.abs(re[k] - dr[k])).toBeLessThan(1e-12);
        expect(Math.abs(im[k] - di[k])).toBeLessThan(1e-12);
      }
      const back = new Float64Array(n);
      inverseRealFft(re, im, back);
      for (let i = 0; i < n; i++) expect(Math.abs(back[i] - x[i])).toBeLessThan(1e-13);
    }
  });

  it("checks buffer lengths", () => {
    expect(() => realFft(new Float64Array(8), new Float64Array(4), new Float64Array(5))).toThrow(OccamError);
    expect(() => realFft(new Float64Array(1), new Float64Array(1), new Float64Array(1))).toThrow(OccamError);
    expect(() => inverseRealFft(new Float64Array(5), new Float64Array(5), new Float64Array(10))).toThrow(
      OccamError,
    );
  });
});
