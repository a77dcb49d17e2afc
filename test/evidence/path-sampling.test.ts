import { describe, expect, it } from "vitest";
import { PRIOR_TAIL_K, pathSampling } from "../../src/evidence/path-sampling.js";
import type { BayesModel } from "../../src/model/model.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import {
  exactPowerPosteriorKernel,
  expectReferenceRuns,
  failingModel,
  overflowingModel,
  testModel,
  truncatedModel,
} from "./tempered-models.js";

describe("pathSampling, ladder scheme", () => {
  for (const d of [1, 10]) {
    it(`matches the exact log evidence in d = ${d} (corrected trapezoid on the adaptive ladder, HMC)`, () => {
      const model = testModel(d);
      const r = pathSampling(model, { seed: 1 });
      expect(r.method).toBe("path");
      expect(r.reliable).toBe(true);
      if (r.diagnostics.scheme !== "ladder") throw new Error("expected the ladder scheme");
      expect(r.diagnostics.rule).toBe("hermite");
      expect(r.diagnostics.ladder[0]).toBe(0);
      expect(r.diagnostics.ladder[r.diagnostics.ladder.length - 1]).toBe(1);
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThan(0.1);
      // The standard error counts the estimated discretisation error; with the many temperatures of
      // d = 10 it is small next to the Monte Carlo error.
      expect(r.stdErr).toBeCloseTo(
        Math.hypot(r.diagnostics.monteCarloStdErr, r.diagnostics.discretisationError),
        12,
      );
      if (d === 10) expect(r.diagnostics.discretisationError).toBeLessThan(r.diagnostics.monteCarloStdErr);
      // A pilot of 256 particles, then two full runs at least, pooled on the log scale.
      const [pilot, ...runs] = r.diagnostics.runs;
      expect([pilot.particles, pilot.pooled]).toEqual([256, false]);
      expect(runs.every((run) => run.start === "reference" && run.particles === 1024)).toBe(true);
      const pooled = r.diagnostics.runs.filter((run) => run.pooled);
      expect(pooled.length).toBeGreaterThanOrEqual(2);
      const mean = pooled.reduce((sum, run) => sum + run.logZ, 0) / pooled.length;
      expect(r.logZ).toBeCloseTo(mean, 12);
    });
  }

  it("runs at least twice from a normal fitted to its first run, their spread counted (d = 10)", () => {
    // From the normal, E_β[log p L / q] is nearly flat in β, and a run costs a fraction of one from the prior.
    expectReferenceRuns((model, options) => {
      const r = pathSampling(model, options);
      if (r.diagnostics.scheme !== "ladder") throw new Error("expected the ladder scheme");
      return { ...r, diagnostics: r.diagnostics };
    }, 2);
  });

  it("makes one run when particles are given", () => {
    const r = pathSampling(testModel(1), { particles: 512, seed: 4 });
    if (r.diagnostics.scheme !== "ladder") throw new Error("expected the ladder scheme");
    expect(r.diagnostics.runs).toHaveLength(1);
    expect(r.logZ).toBe(r.diagnostics.runs[0].logZ);
  });

  it("matches with the trapezoid rule in d = 1", () => {
    const model = testModel(1);
    const r = pathSampling(model, { rule: "trapezoid", seed: 2 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("starts at β_1 with a warning when some prior draws have log L = −∞", () => {
    const model = truncatedModel();
    const r = pathSampling(model, { seed: 1 });
    if (r.diagnostics.scheme !== "ladder") throw new Error("expected the ladder scheme");
    expect(r.diagnostics.priorTailK).toBeNull();
    expect(r.warnings.some((w) => /−Infinity.*starts at β_1/.test(w))).toBe(true);
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("detects an infinite E_prior[log L] from the prior draws' tail and starts at β_1 (θ ~ U(0, 1), log L = −1/θ)", () => {
    // E_prior[1/θ] = ∞, while Z = ∫₀¹ e^{−1/θ} dθ is finite; computed here by the midpoint rule.
    const model: BayesModel = {
      dim: 1,
      bounds: { lower: [0], upper: [1] },
      logPrior: (t) => (t[0] > 0 && t[0] < 1 ? 0 : Number.NEGATIVE_INFINITY),
      samplePrior: (rng) => Float64Array.of(rng.uniform()),
      logLikelihood: (t) => -1 / t[0],
    };
    let z = 0;
    const m = 200_000;
    for (let i = 0; i < m; i++) z += Math.exp(-m / (i + 0.5)) / m;
    // From the prior every run (a run from a reference starts from the reference's draws).
    const r = pathSampling(model, { seed: 2, referenceRuns: false });
    if (r.diagnostics.scheme !== "ladder") throw new Error("expected the ladder scheme");
    expect(r.diagnostics.priorTailK as number).toBeGreaterThan(PRIOR_TAIL_K);
    expect(r.warnings.some((w) => /heavy lower tail/.test(w))).toBe(true);
    expectAccurate(r.logZ, r.stdErr, Math.log(z));
  });

  it("rejects moves into a region where the model overflows, and says a model broken everywhere is unreliable", () => {
    const model = overflowingModel();
    const r = pathSampling(model, { seed: 1 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    expect(r.warnings.join(" ")).toMatch(/NaN or \+Infinity/);
    expect(pathSampling(failingModel(1, 3000), { seed: 1 }).reliable).toBe(false);
  });

  it("rejects bad options", () => {
    const model = testModel(1);
    expect(thrown(() => pathSampling(model, { rule: "midpoint" as "simpson" })).message).toMatch(
      /rule must be/,
    );
    expect(thrown(() => pathSampling(model, { scheme: "fixed" as "ladder" })).message).toMatch(
      /scheme must be/,
    );
    expect(thrown(() => pathSampling(model, { ladder: [0, 1.2] })).code).toBe("invalid-argument");
  });
});

describe("pathSampling, the thesis's random-temperature scheme (eq. 5.23)", () => {
  it("is unbiased within its (large) standard error in d = 1", () => {
    const model = testModel(1);
    const r = pathSampling(model, { scheme: "random", temperatures: 2000, seed: 3 });
    expect(r.method).toBe("path");
    if (r.diagnostics.scheme !== "random") throw new Error("expected the random scheme");
    expect(r.diagnostics.k).toBe(0.9);
    // Its standard error treats warm-started draws as independent: never reliable.
    expect(r.reliable).toBe(false);
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("with exact draws has a calibrated error: |z| < 2 in ≥ 80 % of 20 seeds (d = 3)", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 3, n: 20, seed: 500 + s });
      const r = pathSampling(
        { ...model, powerPosteriorKernel: (b: number) => exactPowerPosteriorKernel(model, b) },
        { scheme: "random", temperatures: 300, warmupPerTemperature: 0, seed: s },
      );
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("rejects k ≥ 1 and fewer than 2 temperatures", () => {
    const model = testModel(1);
    expect(thrown(() => pathSampling(model, { scheme: "random", k: 1 })).message).toMatch(/k must be/);
    expect(thrown(() => pathSampling(model, { scheme: "random", temperatures: 1 })).message).toMatch(
      /temperatures must be/,
    );
  });
});
