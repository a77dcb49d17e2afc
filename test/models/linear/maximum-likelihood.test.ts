import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../../src/errors.js";
import { symmetricEigenvalues } from "../../../src/math/linalg.js";
import {
  bicScore,
  fitLinearMl,
  fpeScore,
  ML_CRITERIA,
  maskMembers,
  maxLogLikelihood,
  nestedMasks,
  scoreMlSubsets,
  selectMl,
  unbiasedLogLikelihood,
} from "../../../src/models/linear/maximum-likelihood.js";
import { createRng } from "../../../src/random/rng.js";

/** The thesis's toy data: inputs N(0, 1), y = x₀ + x₁ + x₂ + σε. */
function toy(seed: number, n: number, p: number, sigma: number) {
  const rng = createRng(seed);
  const X = new Float64Array(n * p);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) X[i * p + j] = rng.normal();
    y[i] = X[i * p] + X[i * p + 1] + X[i * p + 2] + sigma * rng.normal();
  }
  return { X, y };
}

/** Naive ridge fit by Gaussian elimination on the normal equations, γ_eff from the eigenvalues. */
function naive(X: Float64Array, y: Float64Array, n: number, p: number, cols: number[], rho: number) {
  const k = cols.length;
  const A = Array.from({ length: k }, (_, a) =>
    Array.from({ length: k + 1 }, (_, c) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += X[i * p + cols[a]] * (c < k ? X[i * p + cols[c]] : y[i]);
      return s + (c === a ? rho : 0);
    }),
  );
  const G = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let c = 0; c < k; c++) G[a * k + c] = A[a][c] - (a === c ? rho : 0);
  for (let col = 0; col < k; col++) {
    for (let r = col + 1; r < k; r++) {
      const f = A[r][col] / A[col][col];
      for (let c = col; c <= k; c++) A[r][c] -= f * A[col][c];
    }
  }
  const w = new Array(k).fill(0);
  for (let r = k - 1; r >= 0; r--) {
    let s = A[r][k];
    for (let c = r + 1; c < k; c++) s -= A[r][c] * w[c];
    w[r] = s / A[r][r];
  }
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let r = y[i];
    for (let a = 0; a < k; a++) r -= X[i * p + cols[a]] * w[a];
    rss += r * r;
  }
  const gamma = k === 0 ? 0 : [...symmetricEigenvalues(G, k)].reduce((s, l) => s + l / (l + rho), 0);
  // The Gaussian log likelihood written out at τ = (N − γ)/RSS and at τ = N/RSS.
  const gauss = (tau: number) => 0.5 * n * Math.log(tau / (2 * Math.PI)) - 0.5 * tau * rss;
  return { w, rss, gamma, ell: gauss((n - gamma) / rss), ellMax: gauss(n / rss) };
}

describe("fitLinearMl", () => {
  it("matches the normal equations, eq. 6.14's γ_eff and the Gaussian log likelihood", () => {
    const { X, y } = toy(1, 20, 6, 0.3);
    for (const [cols, rho] of [
      [[0, 1, 2], 0],
      [[4, 0, 5, 2], 0.7],
      [[0, 1, 2, 3, 4, 5], 1e-3],
      [[], 0],
    ] as [number[], number][]) {
      const fit = fitLinearMl({ X, y, n: 20, p: 6, columns: cols, rho });
      const ref = naive(X, y, 20, 6, cols, rho);
      for (let a = 0; a < cols.length; a++) expect(fit.weights[a]).toBeCloseTo(ref.w[a], 10);
      expect(fit.rss).toBeCloseTo(ref.rss, 10);
      expect(fit.effectiveParameters).toBeCloseTo(ref.gamma, 10);
      expect(fit.logLikelihood).toBeCloseTo(ref.ell, 9);
      expect(fit.maxLogLikelihood).toBeCloseTo(ref.ellMax, 9);
      expect(fit.noiseVariance).toBeCloseTo(ref.rss / (20 - ref.gamma), 12);
    }
  });

  it("recovers exact weights from noiseless data (eq. 6.10)", () => {
    const rng = createRng(3);
    const X = Float64Array.from({ length: 30 }, () => rng.normal());
    const y = new Float64Array(10);
    for (let i = 0; i < 10; i++) y[i] = 2 * X[i * 3] - X[i * 3 + 1] + 0.5 * X[i * 3 + 2];
    const fit = fitLinearMl({ X, y, n: 10, p: 3 });
    expect(Array.from(fit.weights).map((v) => Number(v.toFixed(10)))).toEqual([2, -1, 0.5]);
    expect(fit.rss).toBeLessThan(1e-20);
  });

  it("rejects bad input with OccamError", () => {
    const { X, y } = toy(1, 5, 3, 0.1);
    expect(() => fitLinearMl({ X, y, n: 5, p: 3, rho: -1 })).toThrow(OccamError);
    expect(() => fitLinearMl({ X, y, n: 5, p: 3, columns: [0, 0] })).toThrow(/twice/);
    expect(() => fitLinearMl({ X, y, n: 5, p: 3, columns: [3] })).toThrow(OccamError);
    expect(() => fitLinearMl({ X, y: y.subarray(1), n: 5, p: 3 })).toThrow(/y must have/);
    const bad = Float64Array.from(X);
    bad[4] = Number.NaN;
    expect(() => fitLinearMl({ X: bad, y, n: 5, p: 3 })).toThrow(/X\[1\]\[1\]/);
    // Six columns from three observations: singular at ρ = 0, fine at ρ > 0.
    const wide = toy(2, 3, 6, 0.1);
    expect(() => fitLinearMl({ ...wide, n: 3, p: 6 })).toThrow(/singular/);
    expect(fitLinearMl({ ...wide, n: 3, p: 6, rho: 0.1 }).effectiveParameters).toBeLessThan(3);
  });
});

describe("scoreMlSubsets", () => {
  it("scores every subset as the naive fit does, by every criterion", () => {
    const n = 15;
    const p = 5;
    const { X, y } = toy(4, n, p, 0.5);
    const rhoGrid = [0, 0.01, 0.3, 2];
    const s = scoreMlSubsets({ X, y, n, p, rhoGrid });
    expect(s.count).toBe(32);
    for (let mask = 0; mask < 32; mask++) {
      const cols = Array.from(maskMembers(mask));
      expect(s.sizes[mask]).toBe(cols.length);
      const fits = rhoGrid.map((rho) => naive(X, y, n, p, cols, rho));
      const k = cols.length;
      const ref0 = fits[0];
      expect(s.rss[mask]).toBeCloseTo(ref0.rss, 9);
      expect(s.scores.ml[mask]).toBeCloseTo(ref0.ell, 8);
      expect(s.scores.penalised[mask]).toBeCloseTo(ref0.ell - (k + 1), 8);
      expect(s.scores.bic[mask]).toBeCloseTo(ref0.ellMax - 0.5 * (k + 1) * Math.log(n), 8);
      expect(s.scores.fpe[mask]).toBeCloseTo((-(n + k) / (n - k)) * (ref0.rss / n), 10);
      for (let r = 0; r < rhoGrid.length; r++) {
        expect(s.logLikelihoodByRho[r][mask]).toBeCloseTo(fits[r].ell, 8);
      }
      const best = Math.max(...fits.map((f) => f.ell));
      expect(s.scores.regularised[mask]).toBeCloseTo(best, 8);
      expect(s.scores["penalised-regularised"][mask]).toBeCloseTo(best - (k + 1), 8);
      expect(fits[rhoGrid.indexOf(s.rho[mask])].ell).toBeCloseTo(best, 8);
    }
  });

  it("the closed forms agree with their definitions (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 200 }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.integer({ min: 0, max: 2 }),
        (n, rss, k) => {
          const tau = (n - k) / rss;
          const direct = 0.5 * n * Math.log(tau / (2 * Math.PI)) - 0.5 * tau * rss;
          expect(unbiasedLogLikelihood(n, rss, k)).toBeCloseTo(direct, 8);
          const tauMax = n / rss;
          expect(maxLogLikelihood(n, rss)).toBeCloseTo(
            0.5 * n * Math.log(tauMax / (2 * Math.PI)) - 0.5 * n,
            8,
          );
          expect(bicScore(n, rss, k)).toBeLessThanOrEqual(maxLogLikelihood(n, rss));
          expect(fpeScore(n, rss, k)).toBeLessThanOrEqual(-rss / n + 1e-12);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("gives −Infinity to subsets that cannot be fitted (k ≥ N) at ρ = 0 only", () => {
    const { X, y } = toy(5, 4, 5, 0.1);
    const s = scoreMlSubsets({ X, y, n: 4, p: 5, rhoGrid: [0, 0.1] });
    expect(s.scores.ml[0b11111]).toBe(Number.NEGATIVE_INFINITY);
    expect(s.scores.fpe[0b1111]).toBe(Number.NEGATIVE_INFINITY);
    expect(Number.isFinite(s.scores.regularised[0b11111])).toBe(true);
    expect(s.rho[0b11111]).toBe(0.1);
  });

  it("the thesis's ℓ of the full model has the mean of Table 6.1's ML row", () => {
    // E[ℓ] = (N/2) log((N − k)/2π) − (N/2) E[log RSS] − (N − k)/2 with RSS ~ σ²χ²_{N−k}:
    // E[log χ²_10] = ψ(5) + log 2 = (1 + 1/2 + 1/3 + 1/4 − γ_Euler) + log 2. (Thesis: 23.7301.)
    const n = 20;
    const p = 10;
    const psi5 = 1 + 1 / 2 + 1 / 3 + 1 / 4 - 0.5772156649015329;
    const expected = 10 * Math.log(10 / (2 * Math.PI)) - 10 * (Math.log(0.01) + psi5 + Math.log(2)) - 5;
    expect(expected).toBeCloseTo(23.71, 2);
    const reps = 300;
    const values: number[] = [];
    const rng = createRng(6);
    for (let r = 0; r < reps; r++) {
      const { X, y } = toy(rng.integer(2 ** 31), n, p, 0.1);
      values.push(fitLinearMl({ X, y, n, p }).logLikelihood);
    }
    const mean = values.reduce((a, b) => a + b, 0) / reps;
    const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (reps - 1));
    expect(Math.abs(mean - expected)).toBeLessThan(4 * (sd / Math.sqrt(reps)));
  });
});

describe("selectMl", () => {
  it("penalised ML finds the true inputs most of the time at small noise; pure ML prefers large models", () => {
    const reps = 100;
    let right = 0;
    let mlRight = 0;
    let mlFull = 0;
    for (let r = 0; r < reps; r++) {
      const { X, y } = toy(100 + r, 20, 6, 0.1);
      const s = scoreMlSubsets({ X, y, n: 20, p: 6, rhoGrid: [0] });
      if (selectMl(s, "penalised", nestedMasks(6)).mask === 0b111) right++;
      const ml = selectMl(s, "ml", nestedMasks(6)).mask;
      if (ml === 0b111) mlRight++;
      if (ml === 0b111111) mlFull++;
      // Over all subsets, every criterion keeps the three relevant inputs (σ = 0.1 ≪ the unit weights).
      for (const c of ML_CRITERIA) expect(selectMl(s, c).mask & 0b111).toBe(0b111);
    }
    // A 2000-repetition run gives rates 0.69 (penalised right) and 0.58 (ML full); the bounds sit
    // three binomial standard deviations (√(100·0.69·0.31) ≈ 4.6, √(100·0.58·0.42) ≈ 4.9) below.
    expect(right).toBeGreaterThanOrEqual(55);
    expect(mlFull).toBeGreaterThanOrEqual(43);
    expect(mlRight).toBeLessThan(right);
  });

  it("reports members and ρ, and rejects unknown criteria", () => {
    const { X, y } = toy(7, 20, 4, 0.1);
    const s = scoreMlSubsets({ X, y, n: 20, p: 4 });
    const sel = selectMl(s, "penalised-regularised");
    expect(Array.from(sel.members)).toEqual(Array.from(maskMembers(sel.mask)));
    expect(s.rhoGrid).toContain(sel.rho);
    expect(selectMl(s, "penalised").rho).toBe(0);
    expect(Array.from(nestedMasks(3))).toEqual([1, 3, 7]);
    expect(() => selectMl(s, "aicc" as never)).toThrow(OccamError);
    expect(() => selectMl(s, "ml", [99])).toThrow(OccamError);
    expect(() => scoreMlSubsets({ X, y, n: 20, p: 4, rhoGrid: [1, 0] })).toThrow(/increase/);
  });
});
