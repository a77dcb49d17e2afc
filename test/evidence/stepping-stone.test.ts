import { describe, expect, it } from "vitest";
import { chaining } from "../../src/evidence/chaining.js";
import { steppingStone } from "../../src/evidence/stepping-stone.js";
import { powerLadder } from "../../src/evidence/tempering/schedule.js";
import { logMeanExp } from "../../src/math/logspace.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import {
  expectReferenceRuns,
  failingModel,
  gradientFreeModel,
  modelWithExactKernel,
  overflowingModel,
  testModel,
  truncatedModel,
} from "./tempered-models.js";

describe("steppingStone", () => {
  for (const d of [1, 10]) {
    it(`matches the exact log evidence of the Gaussian-mean model in d = ${d} (HMC)`, () => {
      const model = testModel(d);
      const r = steppingStone(model, { seed: 1 });
      expect(r.method).toBe("stepping-stone");
      expect(r.reliable).toBe(true);
      expect(r.diagnostics.move).toBe("hmc");
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThan(0.1);
      // One rung per temperature with draws, each from a β to the next, the last to 1.
      const rungs = r.diagnostics.rungs;
      expect(rungs[0].from).toBe(0);
      expect(rungs[rungs.length - 1].to).toBe(1);
      for (let k = 1; k < rungs.length; k++) expect(rungs[k].from).toBe(rungs[k - 1].to);
      for (const s of r.diagnostics.stages.slice(0, -1)) expect(s.essFraction).toBeCloseTo(0.7, 6);
      expect(Object.isFrozen(r)).toBe(true);
    });
  }

  it("matches with random-walk Metropolis on a model without gradients (d = 2)", () => {
    const model = gradientFreeModel(2);
    const r = steppingStone(model, { seed: 2 });
    expect(r.diagnostics.move).toBe("random-walk");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("moves with the model's exact kernel at every temperature below 1", () => {
    const model = modelWithExactKernel(2);
    const r = steppingStone(model, { ladder: [0, 0.1, 0.5, 1], particles: 256, seed: 1 });
    expect([...new Set(model.betasAsked)]).toEqual([0.1, 0.5]);
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("is unreliable on a ladder whose rungs are too long for their importance weights, and runs no more", () => {
    const r = steppingStone(testModel(10), { ladder: powerLadder(2, 4), seed: 3, targetStdErr: 0.01 });
    expect(r.reliable).toBe(false);
    expect(r.warnings.some((w) => /rung\(s\) have importance weights/.test(w))).toBe(true);
    expect(r.stdErr).toBeGreaterThan(0.01);
    expect(r.diagnostics.runs).toHaveLength(1);
  });

  it("runs again, as many particles each time, until its standard error is at most targetStdErr (d = 10)", () => {
    const model = testModel(10);
    const one = steppingStone(model, { particles: 256, seed: 4 });
    expect(one.diagnostics.runs).toHaveLength(1);
    // Above the default target too: giving `particles` is what makes it one run.
    expect(one.stdErr).toBeGreaterThan(0.05);
    const r = steppingStone(model, { particles: 256, seed: 4, targetStdErr: 0.03, referenceRuns: false });
    const runs = r.diagnostics.runs;
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs[0].logZ).toBe(one.logZ);
    expect(runs.every((run) => run.pooled)).toBe(true);
    expect(runs.every((run) => run.particles === 256)).toBe(true);
    expect(r.stdErr).toBeLessThanOrEqual(0.03);
    expect(r.nLikelihoodEvals).toBe(runs.reduce((n, run) => n + run.evaluations, 0));
    // The rungs reported are the last run's, whose particles the stages' ESS fractions count.
    expect(r.diagnostics.particles).toBe(runs.at(-1)?.particles);
    expect(r.diagnostics.rungs.map((rung) => rung.to)).toEqual(
      r.diagnostics.stages.map((stage) => stage.beta),
    );
    expect(r.reliable).toBe(true);
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("runs again from a Student-t fitted to its first run, at a fraction of the cost (d = 10)", () => {
    // The rungs of the runs from the reference cross the little that separates it from the posterior.
    expectReferenceRuns(steppingStone, 1);
    expect(
      thrown(() => steppingStone(testModel(1), { referenceRuns: 1 as unknown as boolean })).message,
    ).toBe("steppingStone: referenceRuns must be true or false, got 1.");
  });

  it("handles prior draws of zero likelihood (a likelihood with bounded support, d = 1)", () => {
    const model = truncatedModel();
    const r = steppingStone(model, { seed: 6 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("validates the ladder and names the temperature of a NaN log likelihood", () => {
    const model = testModel(1);
    expect(thrown(() => steppingStone(model, { ladder: [0.1, 0.5, 1] })).message).toMatch(
      /start at exactly 0/,
    );
    expect(thrown(() => steppingStone(model, { ladder: [0, 0.5, 0.4, 1] })).message).toMatch(
      /increase strictly/,
    );
    expect(thrown(() => steppingStone(model, { targetStdErr: -1 })).message).toMatch(
      /^steppingStone: targetStdErr must be a positive number of nats or "none"/,
    );
    expect(thrown(() => steppingStone(model, { particles: 512, maxParticles: 500 })).message).toMatch(
      /maxParticles must be an integer ≥ 512/,
    );
  });

  it("rejects moves into a region where the model overflows, and says a model broken everywhere is unreliable", () => {
    const model = overflowingModel();
    const r = steppingStone(model, { seed: 1 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    expect(r.warnings.join(" ")).toMatch(/NaN or \+Infinity/);
    expect(steppingStone(failingModel(1, 3000), { seed: 1 }).reliable).toBe(false);
  });
});

describe("chaining", () => {
  for (const ends of ["both", "lower"] as const) {
    it(`matches the exact log evidence in d = 10 with draws at the ${ends} end(s)`, () => {
      const model = testModel(10);
      const r = chaining(model, { ends, seed: 4 });
      expect(r.method).toBe("chaining");
      expect(r.diagnostics.ends).toBe(ends);
      expect(r.reliable).toBe(true);
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThanOrEqual(0.05);
      // A pilot of 256 particles from the prior, then runs of 1024 from the reference, which are pooled.
      expect(r.diagnostics.runs[0]).toMatchObject({ particles: 256, start: "prior", pooled: false });
      const runs = r.diagnostics.runs.slice(1);
      expect(runs.every((run) => run.particles === 1024 && run.start === "reference" && run.pooled)).toBe(
        true,
      );
      // Geometric bridges: runs averaged on the log scale; lower ends: on Z's scale, as stepping-stone.
      const pooled =
        ends === "both"
          ? runs.reduce((sum, run) => sum + run.logZ, 0) / runs.length
          : logMeanExp(runs.map((run) => run.logZ));
      expect(r.logZ).toBeCloseTo(pooled, 12);
    });
  }

  it("says a run stopped by maxEvaluations is unreliable, its bridges lacking draws at β = 1", () => {
    const r = chaining(testModel(10), { particles: 256, seed: 1, maxEvaluations: 5000 });
    expect(r.reliable).toBe(false);
    expect(r.warnings.join(" ")).toMatch(/maxEvaluations\) ran out at β = /);
    expect(Number.isFinite(r.logZ)).toBe(true);
  });

  it("pools two runs at least with geometric bridges, whose islands share an error, and one with lower ends", () => {
    const model = testModel(2);
    const pooled = (ends: "both" | "lower") =>
      chaining(model, { ends, targetStdErr: 1, seed: 7 }).diagnostics.runs.filter((run) => run.pooled);
    expect(pooled("both")).toHaveLength(2);
    expect(pooled("lower")).toHaveLength(1);
  });

  it("runs from a normal fitted to its pilot with geometric bridges, at a fraction of the cost (d = 10)", () => {
    // Its runs sweep at both ends of each link, at β = 1 too: from the reference they take 4 % of a
    // full run here.
    expectReferenceRuns(chaining, 2);
  });

  it("averages a single run's islands on the log scale with geometric bridges, on Z's with lower ends", () => {
    const r = chaining(testModel(2), { particles: 512, seed: 6 });
    expect(r.diagnostics.runs).toHaveLength(1);
    const islands = r.diagnostics.islandLogZ.map((v) => v ?? Number.NEGATIVE_INFINITY);
    expect(r.logZ).toBeCloseTo(islands.reduce((a, b) => a + b, 0) / islands.length, 12);
    const lower = chaining(testModel(2), { ends: "lower", particles: 512, seed: 6 });
    expect(lower.logZ).toBeCloseTo(
      logMeanExp(lower.diagnostics.islandLogZ.map((v) => v ?? Number.NEGATIVE_INFINITY)),
      12,
    );
  });

  it("runs Barber and Bishop's fixed chain of 18 intermediate distributions when given it", () => {
    const model = testModel(2);
    const r = chaining(model, { ladder: powerLadder(19, 4), ends: "lower", particles: 1024, seed: 5 });
    expect(r.diagnostics.rungs.length).toBe(19);
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("rejects a bad ends option", () => {
    expect(thrown(() => chaining(testModel(1), { ends: "upper" as "lower" })).message).toMatch(
      /ends must be/,
    );
  });
});
