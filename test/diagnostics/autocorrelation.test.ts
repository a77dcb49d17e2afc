import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { autocorrelation, autocovariance } from "../../src/diagnostics/autocorrelation.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";

/** The O(n²) definition: γ̂_k = (1/n) Σ_{t<n−k} (x_t − x̄)(x_{t+k} − x̄), ρ̂_k = γ̂_k / γ̂_0. */
function directAutocorrelation(x: Float64Array, maxLag: number): Float64Array {
  const n = x.length;
  let mean = 0;
  for (const v of x) mean += v / n;
  const acov = new Float64Array(maxLag + 1);
  for (let k = 0; k <= maxLag; k++) {
    let s = 0;
    for (let t = 0; t < n - k; t++) s += (x[t] - mean) * (x[t + k] - mean);
    acov[k] = s / n;
  }
  return acov.map((v) => v / acov[0]);
}

function ar1(seed: number, n: number, phi: number): Float64Array {
  const rng = createRng(seed);
  const x = new Float64Array(n);
  let v = rng.normal();
  const s = Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    v = phi * v + s * rng.normal();
    x[i] = v;
  }
  return x;
}

describe("autocorrelation", () => {
  it("matches the direct sum to 1e-10 at every lag, for power-of-two and other lengths", () => {
    for (const n of [2, 3, 17, 64, 100, 1000, 1025]) {
      const x = ar1(n, n, 0.7).map((v) => v + 5); // an offset the mean removal must handle
      const fast = autocorrelation(x);
      const direct = directAutocorrelation(x, n - 1);
      expect(fast.length).toBe(n);
      expect(fast[0]).toBe(1);
      for (let k = 0; k < n; k++) expect(Math.abs(fast[k] - direct[k])).toBeLessThan(1e-10);
    }
  });

  it("returns lags 0 … maxLag only", () => {
    const x = ar1(1, 200, 0.5);
    const short = autocorrelation(x, 10);
    expect(short.length).toBe(11);
    const full = autocorrelation(x);
    for (let k = 0; k <= 10; k++) expect(short[k]).toBe(full[k]);
  });

  it("recovers ρ_1 = φ of an AR(1) process within its standard error", () => {
    const n = 20_000;
    const phi = 0.8;
    const rho = autocorrelation(ar1(3, n, phi), 2);
    // Bartlett's formula for an AR(1): var(ρ̂_k) ≈ [(1 + φ²)(1 − φ^{2k})/(1 − φ²) − 2kφ^{2k}] / n,
    // i.e. (1 − φ²)/n at lag 1 and (1 + 2φ² − 3φ⁴)/n at lag 2. The bias, O(1/n), is far smaller.
    const phi2 = phi * phi;
    expect(Math.abs(rho[1] - phi)).toBeLessThan(4 * Math.sqrt((1 - phi2) / n));
    expect(Math.abs(rho[2] - phi2)).toBeLessThan(4 * Math.sqrt((1 + 2 * phi2 - 3 * phi2 * phi2) / n));
  });

  it("gives the biased variance at lag 0 and |ρ̂_k| ≤ 1 (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 2, maxLength: 80 }),
        (values) => {
          const x = Float64Array.from(values);
          const n = x.length;
          let mean = 0;
          for (const v of x) mean += v / n;
          let ss = 0;
          for (const v of x) ss += (v - mean) ** 2;
          if (ss < 1e-6) return true; // (near-)constant series are rejected, tested below
          const acov = autocovariance(x);
          if (Math.abs(acov[0] - ss / n) > 1e-9 * (1 + ss / n)) return false;
          return autocorrelation(x).every((r) => Math.abs(r) <= 1 + 1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("rejects constant, empty and non-finite series and bad lags", () => {
    expect(() => autocorrelation(new Float64Array(10).fill(3.7))).toThrow(OccamError);
    expect(() => autocorrelation(new Float64Array(0))).toThrow(OccamError);
    expect(() => autocorrelation(Float64Array.of(1, Number.NaN, 2))).toThrow(/finite/);
    expect(() => autocorrelation(Float64Array.of(1, 2, 3), 3)).toThrow(/maxLag/);
    expect(() => autocorrelation(Float64Array.of(1, 2, 3), -1)).toThrow(/maxLag/);
  });
});
