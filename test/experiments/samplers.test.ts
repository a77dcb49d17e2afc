import { describe, expect, it } from "vitest";
import { runSamplersExperiment } from "../../src/experiments/samplers.js";

describe("runSamplersExperiment (thesis ch. 4 and 5.1.1)", () => {
  const result = runSamplersExperiment({ seed: 3, quick: true });
  const row = (rho: number, sampler: string) => {
    const found = result.gaussians.find((r) => r.rho === rho && r.sampler === sampler);
    if (!found) throw new Error(`no row for ${sampler} at rho ${rho}`);
    return found;
  };

  it("gives every sampler the same budget of evaluations on both Gaussians", () => {
    expect(result.gaussians).toHaveLength(8);
    for (const r of result.gaussians) {
      expect(r.evaluations).toBeLessThanOrEqual(result.budget);
      // HMC spends whole trajectories, so it may fall short by less than one trajectory.
      expect(r.evaluations).toBeGreaterThan(result.budget - 20);
    }
  });

  it("recovers the mean and covariance within Monte Carlo error", () => {
    for (const r of result.gaussians) {
      for (let j = 0; j < 2; j++) {
        // Unit variances: the mean's Monte Carlo standard error is 1/√ESS.
        expect(Math.abs(r.mean[j])).toBeLessThan(4 / Math.sqrt(r.ess[j]));
        // The variance estimate's standard error is about √(2/ESS) for a Gaussian (the ESS of the mean as a proxy).
        expect(Math.abs(r.covariance[j][j] - 1)).toBeLessThan(4 * Math.sqrt(2 / Math.min(...r.ess)));
      }
      expect(r.covariance[0][1]).toBeCloseTo(r.covariance[1][0], 12);
    }
  });

  it("at rho = 0.99 HMC's ESS per gradient evaluation is at least 5 times Langevin's and Metropolis's", () => {
    const hmc = row(0.99, "hmc").essPer1000Evaluations;
    expect(hmc).toBeGreaterThan(5 * row(0.99, "langevin").essPer1000Evaluations);
    expect(hmc).toBeGreaterThan(5 * row(0.99, "metropolis").essPer1000Evaluations);
  });

  it("reproduces the thesis's Metropolis acceptance of about 68 % at rho = 0.8", () => {
    // Acceptance is an average of 20 000 correlated acceptance probabilities; ±0.03 is several standard errors.
    expect(Math.abs(row(0.8, "metropolis").acceptanceRate - 0.68)).toBeLessThan(0.03);
  });

  it("estimates log ∫ exp(−x²/2) dx within its standard error once the samples suffice", () => {
    expect(result.exactLogZ).toBeCloseTo(0.5 * Math.log(2 * Math.PI), 14);
    const sizes = new Set(result.importance.map((r) => r.samples));
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(100_000);
    for (const r of result.importance.filter((r) => r.samples >= 10_000)) {
      expect(Math.abs(r.logZ - result.exactLogZ)).toBeLessThan(4 * r.stdErr);
    }
    // The wide proposal wastes most samples: at equal size its error bar is far larger.
    const at = (v: number) =>
      result.importance.find((r) => r.proposalVariance === v && r.samples === 100_000);
    expect(at(1e4)?.stdErr).toBeGreaterThan(10 * (at(2)?.stdErr ?? Number.POSITIVE_INFINITY));
  });

  it("is reproducible: the same seed gives the same numbers", () => {
    expect(runSamplersExperiment({ seed: 3, quick: true })).toEqual(result);
  });
});
