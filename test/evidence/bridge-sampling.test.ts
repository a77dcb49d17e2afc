import { describe, expect, it } from "vitest";
import type { OccamError } from "../../src/errors.js";
import { bridgeRatio, bridgeSampling } from "../../src/evidence/bridge-sampling.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { createRng } from "../../src/random/rng.js";
import { arPosteriorDraws, exactDraws, thrown, withNaNLikelihood } from "./support.js";

describe("bridgeSampling", () => {
  for (const dim of [1, 10]) {
    for (const method of ["normal", "warp3"] as const) {
      it(`(${method}) is within 4 standard errors of the exact log Z in d = ${dim}`, () => {
        const model = gaussianMeanModel({ dim, n: 20, seed: 61 });
        const r = bridgeSampling(model, { draws: exactDraws(model, 1, 2000), method, seed: 2 });
        expect(r.method).toBe(method === "normal" ? "bridge" : "bridge-warp3");
        expect(r.reliable).toBe(true);
        expect(r.diagnostics.converged).toBe(true);
        expect(r.stdErr).toBeGreaterThan(0);
        expect(r.stdErr).toBe(Math.sqrt(r.diagnostics.re2));
        expect(Math.abs(r.logZ - model.exactLogEvidence())).toBeLessThan(4 * r.stdErr);
        // 1000 bridge draws + 1000 proposal draws, twice each for warp3 (the draw and its reflection).
        expect(r.nLikelihoodEvals).toBe(method === "warp3" ? 4000 : 2000);
      });
    }
  }

  it("has calibrated standard errors: |z| < 2 in at least 80 % of 20 seeds (d = 10)", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 10, n: 20, seed: 600 + s });
      const r = bridgeSampling(model, { draws: exactDraws(model, 700 + s, 1000), seed: s });
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    // A calibrated stdErr puts 95 % inside; P(at most 15 of 20 | p = 0.95) ≈ 0.003.
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("corrects the posterior-side error for autocorrelation through the ESS of the draws", () => {
    const model = gaussianMeanModel({ dim: 3, n: 20, seed: 62 });
    const iid = bridgeSampling(model, { draws: exactDraws(model, 3, 2000), seed: 1 });
    const ar = bridgeSampling(model, { draws: arPosteriorDraws(model, 3, 4, 500, 0.9), seed: 1 });
    // ρ = 0.9 gives τ = 19 for the coordinates: the bridge draws' ESS (N_eff) is about 1000/19.
    expect(ar.diagnostics.neff).toBeLessThan(150);
    expect(ar.diagnostics.essF2).toBeLessThan(400);
    expect(ar.diagnostics.re2Posterior).toBeGreaterThan(3 * iid.diagnostics.re2Posterior);
    expect(Math.abs(ar.logZ - model.exactLogEvidence())).toBeLessThan(4 * ar.stdErr);
  });

  it("shrinks only the proposal-side error with more proposal draws", () => {
    const model = gaussianMeanModel({ dim: 4, n: 20, seed: 63 });
    const draws = exactDraws(model, 4, 1000);
    const more = bridgeSampling(model, { draws, samples: 4000, seed: 5 });
    const single = bridgeSampling(model, { draws, seed: 5 });
    expect(more.diagnostics.proposalDraws).toBe(4000);
    expect(more.diagnostics.re2Proposal).toBeLessThan(single.diagnostics.re2Proposal);
    expect(Math.abs(more.logZ - model.exactLogEvidence())).toBeLessThan(4 * more.stdErr);
  });

  it("gives the same result for the same seed", () => {
    const model = gaussianMeanModel({ dim: 2, seed: 64 });
    const draws = exactDraws(model, 5, 200);
    expect(bridgeSampling(model, { draws, seed: 9 }).logZ).toBe(
      bridgeSampling(model, { draws, seed: 9 }).logZ,
    );
  });

  it("rejects missing, too few and wrong-length draws and names a draw with a NaN log likelihood", () => {
    const model = gaussianMeanModel({ dim: 2, seed: 0 });
    const draws = exactDraws(model, 6, 100);
    expect(() => bridgeSampling(model, {} as { draws: Float64Array[] })).toThrow(/needs posterior draws/);
    expect(() => bridgeSampling(model, { draws: draws.slice(0, 15) })).toThrow(/at least 20/);
    const wrong = [...draws];
    wrong[12] = new Float64Array(1);
    expect((thrown(() => bridgeSampling(model, { draws: wrong })) as OccamError).message).toMatch(/draw 12/);
    // Draw 80 lies in the second half, which enters the bridge.
    draws[80] = new Float64Array([42.5, 0]);
    const bad = withNaNLikelihood(model, (t) => t[0] === 42.5);
    const e = thrown(() => bridgeSampling(bad, { draws })) as OccamError;
    expect(e.code).toBe("non-finite");
    expect(e.message).toMatch(/logLikelihood is NaN at posterior draw 80/);
    expect(() => bridgeSampling(model, { draws, method: "warp2" as "warp3" })).toThrow(/method/);
    expect(() => bridgeSampling(model, { draws, tolerance: 0 })).toThrow(/tolerance/);
  });
});

describe("bridgeRatio", () => {
  // q_A(θ) = e^{−θ²/2} and q_B = q_A e^{l} with l = −θ²/2 in each of d coordinates:
  // Z_B / Z_A = (1/√2)^d, and p_A = N(0, I), p_B = N(0, I/2) are sampled exactly.
  const sides = (d: number, n: number, seed: number) => {
    const rng = createRng(seed);
    const l = (sd: number) => {
      const out = new Float64Array(n);
      for (let t = 0; t < n; t++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += (sd * rng.normal()) ** 2;
        out[t] = -0.5 * s;
      }
      return out;
    };
    return { lA: [l(1)], lB: [l(Math.SQRT1_2)] };
  };

  it("is within 4 standard errors of the exact log ratio, in 1 and 10 dimensions", () => {
    for (const d of [1, 10]) {
      const { lA, lB } = sides(d, 2000, 40 + d);
      const r = bridgeRatio(lA, lB);
      expect(r.converged).toBe(true);
      expect(r.re2).toBeGreaterThan(0);
      expect(Math.abs(r.logRatio - d * Math.log(Math.SQRT1_2))).toBeLessThan(4 * Math.sqrt(r.re2));
      expect(r.kishA).toBeGreaterThan(200);
      expect(r.kishB).toBeGreaterThan(200);
    }
  });

  it("has calibrated standard errors: |z| < 2 in at least 16 of 20 seeds (d = 10)", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const { lA, lB } = sides(10, 1000, 500 + s);
      const r = bridgeRatio(lA, lB);
      if (Math.abs(r.logRatio - 10 * Math.log(Math.SQRT1_2)) < 2 * Math.sqrt(r.re2)) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("says when the two densities barely overlap: few draws carry the bridge", () => {
    // 400 coordinates: p_B = N(0, I/2) sits in the far tail of p_A = N(0, I)'s radius, and vice versa.
    const { lA, lB } = sides(400, 1000, 7);
    const r = bridgeRatio(lA, lB);
    expect(Math.min(r.kishA, r.kishB)).toBeLessThan(50);
  });
});
