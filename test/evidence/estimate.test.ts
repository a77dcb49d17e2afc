import {
  CROSS_CHECK_SETTINGS,
  compareEstimators,
  defineModel,
  EVIDENCE_METHODS,
  estimateEvidence,
  OccamError,
} from "occam";
import { describe, expect, it } from "vitest";
import { DEFAULT_POSTERIOR_SIZE } from "../../src/evidence/compare.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";

// A user's own model, written as a plain script would: y_i ~ N(mu, 1), mu ~ N(0, 2²), 12 observations.
const y = [0.8, 1.9, 1.1, 0.4, 1.6, 1.3, 0.9, 2.2, 1.0, 1.5, 0.7, 1.2];
const LOG_2PI = Math.log(2 * Math.PI);
const PRIOR_SD = 2;
const logPrior = (t: Float64Array) => -0.5 * (LOG_2PI + 2 * Math.log(PRIOR_SD) + (t[0] / PRIOR_SD) ** 2);
const logLikelihood = (t: Float64Array) => y.reduce((s, v) => s - 0.5 * (LOG_2PI + (v - t[0]) ** 2), 0);
const model = defineModel({
  dim: 1,
  logPrior,
  logLikelihood,
  samplePrior: (rng) => Float64Array.of(PRIOR_SD * rng.normal()),
  gradLogPrior: (t, g) => {
    g[0] = -t[0] / PRIOR_SD ** 2;
    return logPrior(t);
  },
  gradLogLikelihood: (t, g) => {
    g[0] = y.reduce((s, v) => s + (v - t[0]), 0);
    return logLikelihood(t);
  },
});

/** The exact evidence: y ~ N(0, I + PRIOR_SD² 11ᵀ), by the matrix determinant lemma and Sherman–Morrison. */
function exactLogEvidence(): number {
  const n = y.length;
  const s2 = PRIOR_SD ** 2;
  const sum = y.reduce((a, b) => a + b, 0);
  const sumSq = y.reduce((a, b) => a + b * b, 0);
  const quad = sumSq - (s2 * sum * sum) / (1 + n * s2);
  return -0.5 * (n * LOG_2PI + Math.log(1 + n * s2) + quad);
}

describe("estimateEvidence on a user's model", () => {
  const exact = exactLogEvidence();

  it.each([
    "bridge",
    "bridge-warp3",
    "chaining",
    "stepping-stone",
    "path",
    "ais",
    "smc",
    "importance",
    "prior",
  ] as const)("%s is within max(0.05, 3 stdErr) of the exact log Z", (method) => {
    const result = estimateEvidence(model, { method, seed: 11 });
    expect(result.method.length).toBeGreaterThan(0);
    expect(result.stdErr).toBeGreaterThan(0);
    expect(Math.abs(result.logZ - exact)).toBeLessThan(Math.max(0.05, 3 * result.stdErr));
    expect(result.nLikelihoodEvals).toBeGreaterThan(0);
    expect(Object.isFrozen(result)).toBe(true);
  });

  it("laplace is exact on a Gaussian posterior", () => {
    expect(estimateEvidence(model, { method: "laplace" }).logZ).toBeCloseTo(exact, 6);
  });

  it("reports a result as reliable when its draws and its own checks are sound, under the method's name", () => {
    for (const method of ["bridge", "importance", "smc", "stepping-stone"] as const) {
      const result = estimateEvidence(model, { method, seed: 2 });
      expect(result.method).toBe(method);
      expect(result.reliable).toBe(true);
      expect(result.warnings).toEqual([]);
    }
    for (const method of ["harmonic-mean", "laplace"] as const) {
      expect(estimateEvidence(model, { method, seed: 2 }).reliable).toBe(false);
    }
  });

  it("gives every method a result, and the same seed the same number", () => {
    for (const method of EVIDENCE_METHODS.filter((m) => m !== "cv")) {
      const result = estimateEvidence(model, { method, seed: 5 });
      expect(Number.isFinite(result.logZ)).toBe(true);
    }
    // Cross-validation needs the data split into observations, which this model does not offer.
    expect(() => estimateEvidence(model, { method: "cv", seed: 5 })).toThrow(/add subset\(observations/);
    expect(estimateEvidence(model, { method: "smc", seed: 3 }).logZ).toBe(
      estimateEvidence(model, { method: "smc", seed: 3 }).logZ,
    );
  });

  it("rejects an unknown method by name", () => {
    expect(() => estimateEvidence(model, { method: "magic" as "bridge" })).toThrow(
      /unknown evidence method "magic"/,
    );
  });

  it("rejects a likelihood that is NaN at some draw with a clear error", () => {
    const broken = {
      ...model,
      logLikelihood: (t: Float64Array) => (t[0] > 1.5 ? Number.NaN : logLikelihood(t)),
    };
    expect(() => estimateEvidence(broken, { method: "prior", seed: 1 })).toThrow(OccamError);
  });
});

describe("compareEstimators", () => {
  it("finds the estimators in agreement with each other and with the exact value", () => {
    const comparison = compareEstimators(model, ["bridge", "stepping-stone", "smc", "laplace"], { seed: 4 });
    expect(comparison.results).toHaveLength(4);
    // Laplace has no Monte Carlo error, so only the three statistical estimates are paired.
    expect(comparison.pairs).toHaveLength(3);
    expect(comparison.agree).toBe(true);
    const exact = exactLogEvidence();
    const consensus = comparison.consensus;
    if (consensus === null) throw new Error("expected a consensus");
    expect(Math.abs(consensus.logZ - exact)).toBeLessThan(4 * consensus.stdErr);
  });

  it("leaves out of the cross-check the results that say they are unreliable (a missing prior, the harmonic mean)", () => {
    // In 10 dimensions with 20 observations the prior almost never reaches the likelihood: prior Monte
    // Carlo lands nats off with a standard error far too small, and says so.
    const hard = gaussianMeanModel({ dim: 10, n: 20, seed: 3 });
    const comparison = compareEstimators(hard, ["prior", "bridge", "smc", "harmonic-mean"], { seed: 4 });
    expect(comparison.results.map((r) => r.reliable)).toEqual([false, true, true, false]);
    expect(comparison.pairs.map((p) => `${p.a}/${p.b}`)).toEqual(["bridge/smc"]);
    expect(comparison.agree).toBe(true);
    // With fewer than two reliable results nothing was cross-checked.
    const alone = compareEstimators(hard, ["prior", "bridge"], { seed: 4 });
    expect(alone.pairs).toEqual([]);
    expect(alone.agree).toBe(false);
  });

  it("by default runs bridge sampling with a quick smc as its cross-check, and a named smc at its own size", () => {
    const quick = compareEstimators(model, undefined, { seed: 4 });
    // Both reliable: the fallback methods do not run.
    expect(quick.results.map((r) => r.method)).toEqual(["bridge", "smc"]);
    expect(quick.fellBack).toBeUndefined();
    const smc = quick.results[1];
    if (smc.method !== "smc") throw new Error("expected smc second");
    expect(smc.diagnostics.particles).toBe(CROSS_CHECK_SETTINGS.smc?.particles);
    expect(smc.diagnostics.islands).toBe(CROSS_CHECK_SETTINGS.smc?.islands);
    expect(quick.agree).toBe(true);
    const exact = exactLogEvidence();
    for (const r of quick.results) expect(Math.abs(r.logZ - exact)).toBeLessThan(3 * r.stdErr);
    // Four chains of the default size: 500 kept draws each.
    const { draws } = quick.posterior as NonNullable<typeof quick.posterior>;
    expect([draws.nChains, draws.nDraws]).toEqual([4, DEFAULT_POSTERIOR_SIZE.draws]);
    // The same methods named: each at its own defaults, a precise smc, and Stan's 1000 draws a chain.
    const named = compareEstimators(model, ["bridge", "smc"], { seed: 4 });
    const precise = named.results[1];
    if (precise.method !== "smc") throw new Error("expected smc second");
    expect(precise.diagnostics.particles).toBe(2048);
    expect(named.posterior?.draws.nDraws).toBe(1000);
  });

  it("needs at least two methods", () => {
    expect(() => compareEstimators(model, ["bridge"])).toThrow(OccamError);
  });
});
