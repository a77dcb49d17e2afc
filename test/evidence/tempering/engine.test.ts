import { describe, expect, it } from "vitest";
import { autoSweeps, runTempering, type TemperingSettings } from "../../../src/evidence/tempering/engine.js";
import {
  combineIslands,
  MAX_ISLAND_SD,
  runWarnings,
  studentFactor,
} from "../../../src/evidence/tempering/estimates.js";
import { IndependenceState } from "../../../src/evidence/tempering/independence-phase.js";
import {
  nodeMoments,
  pathIslands,
  ratioIslands,
  recordLadder,
} from "../../../src/evidence/tempering/ladder.js";
import { powerLadder } from "../../../src/evidence/tempering/schedule.js";
import { logMeanExp } from "../../../src/math/logspace.js";
import { hardProblem } from "../../../src/models/hard-problems/index.js";
import { createRng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";
import {
  expectedLogLikelihood,
  failingModel,
  logLikelihoodVariance,
  testModel,
  truncatedModel,
} from "../tempered-models.js";

const BASE: TemperingSettings = {
  particles: 256,
  islands: 8,
  ladder: undefined,
  targetEss: 0.5,
  resample: "always",
  move: "hmc",
  sweeps: "auto",
  draws: 0,
  maxSweeps: 50,
  memoryLeft: undefined,
  finalSweeps: false,
  maxStages: 1000,
};

describe("runTempering", () => {
  it("chooses each β so that the step keeps the target ESS, and ends at exactly 1", () => {
    const run = runTempering(testModel(5), createRng(1), BASE, "test");
    const betas = run.stages.map((s) => s.beta);
    expect(betas[betas.length - 1]).toBe(1);
    for (let k = 1; k < betas.length; k++) expect(betas[k]).toBeGreaterThan(betas[k - 1]);
    for (const s of run.stages.slice(0, -1)) {
      expect(s.essFraction).toBeCloseTo(0.5, 6);
      expect(s.sweeps).toBeGreaterThanOrEqual(2);
      expect(s.acceptanceRate).toBeGreaterThan(0.5);
    }
    // No moves after the last reweighting.
    expect(run.stages[run.stages.length - 1].sweeps).toBe(0);
    expect(run.islandLogZ.length).toBe(8);
  });

  it("records the cloud's mean log likelihood at each β, an estimate of the exact E_β[log L]", () => {
    const model = testModel(3);
    const run = runTempering(model, createRng(2), { ...BASE, particles: 512 }, "test");
    for (const stage of run.stages) {
      // Resampled particles are correlated and lag their target a little: allow six times the error of
      // 4096 independent draws, and 0.15 nats.
      const error = Math.sqrt(logLikelihoodVariance(model, stage.beta) / 4096);
      expect(Math.abs(stage.meanLogLikelihood - expectedLogLikelihood(model, stage.beta))).toBeLessThan(
        6 * error + 0.15,
      );
    }
  });

  it("gives each island an estimate of log Z, and their mean of Z is close to the exact value", () => {
    const model = testModel(3);
    const run = runTempering(model, createRng(2), { ...BASE, particles: 1024, islands: 16 }, "test");
    const estimate = combineIslands(run.islandLogZ, "product");
    expect(Math.abs(estimate.logZ - model.exactLogEvidence())).toBeLessThan(4 * estimate.stdErr);
  });

  it("follows a fixed ladder, sweeping there too", () => {
    const ladder = powerLadder(10, 3);
    const run = runTempering(testModel(2), createRng(3), { ...BASE, ladder, sweeps: 3 }, "test");
    expect(run.stages.map((s) => s.beta)).toEqual(Array.from(ladder.subarray(1)));
    expect(run.stages.slice(0, -1).every((s) => s.sweeps === 3)).toBe(true);
  });

  it("shows the observer the prior draws and each draw sweep, and sweeps at β = 1 when asked", () => {
    const { observer, record } = recordLadder(64, 4);
    runTempering(
      testModel(2),
      createRng(4),
      { ...BASE, particles: 64, islands: 4, sweeps: 2, draws: 3, finalSweeps: true },
      "test",
      observer,
    );
    expect(record.betas[0]).toBe(0);
    expect(record.betas[record.betas.length - 1]).toBe(1);
    expect(record.draws[0].length).toBe(1);
    expect(record.draws.slice(1).every((sweeps) => sweeps.length === 3)).toBe(true);
  });

  it("never resampled, carries the weights and keeps particles of zero likelihood at weight 0", () => {
    const model = truncatedModel();
    const run = runTempering(
      model,
      createRng(5),
      {
        ...BASE,
        particles: 2000,
        islands: 2,
        resample: "never",
        move: "random-walk",
        sweeps: 1,
        targetEss: 0.95,
      },
      "test",
    );
    expect(run.stages.every((s) => !s.resampled)).toBe(true);
    const dead = Array.from(run.logW).filter((w) => w === Number.NEGATIVE_INFINITY).length;
    expect(dead).toBeGreaterThan(500);
    expect(logMeanExp(run.logW)).toBeCloseTo(model.exactLogEvidence(), 1);
  });

  it("counts the random walk's proposals where the log likelihood is NaN as model failures, and stops after maxStages", () => {
    const run = runTempering(failingModel(2, 3000), createRng(6), { ...BASE, move: "random-walk" }, "test");
    expect(run.stages.reduce((n, s) => n + s.modelFailures, 0)).toBeGreaterThan(0);
    expect(
      thrown(() => runTempering(testModel(10), createRng(7), { ...BASE, maxStages: 2 }, "test")).message,
    ).toMatch(/2 stages did not reach β = 1/);
  });
});

describe("independence proposals first", () => {
  it("mix a near-Gaussian cloud at every temperature with a few likelihood evaluations per particle", () => {
    const model = testModel(5);
    const settings = { ...BASE, particles: 1024, memoryLeft: 0.001 };
    const run = runTempering(model, createRng(3), { ...settings, independence: true }, "test");
    const hmcOnly = runTempering(model, createRng(3), settings, "test");
    for (const stage of run.stages.slice(0, -1)) {
      expect(stage.independent?.mixed).toBe(true);
      expect(stage.independent?.unmoved).toBeLessThanOrEqual(0.01);
      // HMC still probes one particle in sixteen: the probe's trajectories are counted apart.
      expect(stage.probe?.trajectories).toBe(1024 / 16);
    }
    // A few sweeps of one evaluation each, against HMC's several leapfrog steps per sweep.
    expect(run.evaluations).toBeLessThan(hmcOnly.evaluations / 3);
    const estimate = combineIslands(run.islandLogZ, "product");
    expect(Math.abs(estimate.logZ - model.exactLogEvidence())).toBeLessThan(3 * estimate.stdErr);
  });

  it("give way to the move's own sweeps where the cloud is far from elliptical (two separated modes)", () => {
    const problem = hardProblem("mixture-d5");
    const run = runTempering(
      problem.model,
      createRng(4),
      { ...BASE, particles: 512, independence: true },
      "test",
    );
    const moved = run.stages.slice(0, -1);
    // Once the modes have parted, the Student-t over both proposes between them and is given up.
    expect(moved.some((s) => s.independent?.mixed === false && s.sweeps > s.independent.sweeps)).toBe(true);
    // After a stage where they did not mix, the next stage does not try them.
    moved.forEach((s, k) => {
      if (s.independent?.mixed === false && k + 1 < moved.length)
        expect(moved[k + 1].independent).toBeUndefined();
    });
  });

  it("sit out one stage after one where they did not mix, then two, four, …, until they mix again", () => {
    const state = new IndependenceState(2, 3);
    const tries = (stages: number) => Array.from({ length: stages }, () => state.tryNow());
    expect(tries(2)).toEqual([true, true]);
    state.record(false);
    expect(tries(2)).toEqual([false, true]);
    state.record(false);
    expect(tries(3)).toEqual([false, false, true]);
    state.record(false);
    expect(tries(5)).toEqual([false, false, false, false, true]);
    state.record(true);
    expect(tries(1)).toEqual([true]);
    state.record(false);
    expect(tries(2)).toEqual([false, true]);
  });

  it("stop moving the particles once maxEvaluations are spent, and say where", () => {
    const model = testModel(5);
    const run = runTempering(model, createRng(5), { ...BASE, maxEvaluations: 3000 }, "test");
    expect(run.budgetSpentAt).toBeGreaterThan(0);
    expect(run.budgetSpentAt).toBeLessThan(1);
    const after = run.stages.filter((s) => s.beta > (run.budgetSpentAt as number));
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((s) => s.sweeps === 0)).toBe(true);
    // The stage that crossed the budget ends at its next sweep: at most one sweep of leapfrog steps over.
    expect(run.evaluations).toBeLessThan(3000 + 256 * 17);
    const { unreliable } = runWarnings(run, { ...BASE, maxEvaluations: 3000 });
    expect(unreliable.join(" ")).toMatch(
      /budget of likelihood evaluations \(maxEvaluations\) ran out at β = /,
    );
  });
});

describe("the number of sweeps", () => {
  it("stops when the log likelihoods' correlation with the start falls below 0.1, or stops falling", () => {
    const none = [0, 0, 0];
    expect(autoSweeps([0.5], none, 2048, undefined)).toBeUndefined();
    expect(autoSweeps([0.5, 0.09], none, 2048, undefined)).toBe(2);
    expect(autoSweeps([0.5, 0.3, 0.2], none, 2048, undefined)).toBeUndefined();
    // A floor: particles in modes of different height stay correlated whatever the moves do.
    expect(autoSweeps([0.61, 0.6, 0.595], none, 2048, undefined)).toBe(3);
    expect(autoSweeps([0.61, 0.6, 0.595], none, 2048, 0.001)).toBe(3);
  });

  it("with memoryLeft, goes on until the memory extrapolated from its decay falls below it", () => {
    // The 50-dimensional box-bounded Gaussian's first temperature: λ = 0.159^(1/3) = 0.542 from the log
    // prior, and 0.542^12 < 0.001 < 0.542^11.
    const likelihood = [0.326, 0.183, 0.108, 0.034];
    const prior = [0.474, 0.269, 0.159, 0.083];
    expect(autoSweeps(likelihood, prior, 2048, 0.001)).toBe(12);
    expect(autoSweeps(likelihood, prior, 2048, undefined)).toBe(4);
    // Correlations within the noise of N particles (3/√N = 0.066 at N = 2048) do not set the rate.
    expect(autoSweeps([0.05, 0.02], [0.06, 0.01], 2048, 0.001)).toBe(2);
    // A fast move: one sweep leaves 0.05, so three leave 0.05³ < 0.001 (0.05 clears 3/√N for N = 8192).
    expect(autoSweeps([0.05, 0.0], [0.04, 0.0], 8192, 0.001)).toBe(3);
  });
});

describe("combining the islands", () => {
  it("'product' averages the islands' Z and 'sum' their log Z, each with the t-scaled delta-method error", () => {
    const values = [-1.2, -1, -0.9, -1.1, -0.95, -1.05];
    const product = combineIslands(values, "product");
    expect(product.logZ).toBeCloseTo(logMeanExp(values), 14);
    const z = values.map((v) => Math.exp(v - product.logZ));
    const mean = z.reduce((a, b) => a + b, 0) / 6;
    const sd = Math.sqrt(z.reduce((a, b) => a + (b - mean) ** 2, 0) / 5);
    expect(product.stdErr).toBeCloseTo((sd / Math.sqrt(6)) * studentFactor(5), 12);
    const sum = combineIslands(values, "sum");
    expect(sum.logZ).toBeCloseTo(-1.0333333333333334, 12);
    expect(sum.unreliable).toEqual([]);
  });

  it("scales by t_{0.975, ν}/1.96 (2.571 for ν = 5, 2.040 for ν = 31)", () => {
    expect(studentFactor(5) * 1.959963984540054).toBeCloseTo(2.570581836, 6);
    expect(studentFactor(31) * 1.959963984540054).toBeCloseTo(2.039513446, 6);
  });

  it("is unreliable when the islands spread by more than a nat", () => {
    const spread = combineIslands([0, 3, -2, 1, 0.5], "product");
    expect(spread.islandSd).toBeGreaterThan(MAX_ISLAND_SD);
    expect(spread.unreliable[0]).toMatch(/islands' estimates of log Z spread/);
  });
});

describe("the ladder estimators on a record", () => {
  // A hand-made record: 2 islands of 2 particles, temperatures 0, 0.5 (and 1 for both ends).
  const record = {
    betas: [0, 0.5, 1],
    draws: [
      [Float64Array.of(-1, -2, -3, -4)],
      [Float64Array.of(-1, -1, -2, -2), Float64Array.of(-0.5, -1, -1.5, -2)],
      [Float64Array.of(-0.2, -0.4, -0.6, -0.8)],
    ],
    particles: 4,
    islands: 2,
  };

  it("stepping-stone: per island, the sum over rungs of log mean L^Δ over the island's draws", () => {
    const lower = { ...record, betas: [0, 0.5], draws: record.draws.slice(0, 2) };
    const { islandLogZ, rungs } = ratioIslands(lower, "lower");
    const island0 = logMeanExp([-0.5, -1]) + logMeanExp([-0.5, -0.5, -0.25, -0.5]);
    expect(islandLogZ[0]).toBeCloseTo(island0, 14);
    expect(rungs.map((r) => [r.from, r.to])).toEqual([
      [0, 0.5],
      [0.5, 1],
    ]);
  });

  it("a run cut short before β = 1 has the lower ends' rungs, which are all it has draws for", () => {
    const cut = { ...record, betas: [0, 0.5], draws: record.draws.slice(0, 2) };
    expect(ratioIslands(cut, "both")).toEqual(ratioIslands(cut, "lower"));
    expect(ratioIslands(record, "both")).not.toEqual(ratioIslands(record, "lower"));
  });

  it("the geometric bridge uses both ends of each rung", () => {
    const { islandLogZ } = ratioIslands(record, "both");
    const island1 =
      logMeanExp([-0.75, -1]) -
      logMeanExp([0.5, 0.5, 0.375, 0.5]) +
      logMeanExp([-0.5, -0.5, -0.375, -0.5]) -
      logMeanExp([0.15, 0.2]);
    expect(islandLogZ[1]).toBeCloseTo(island1, 14);
  });

  it("path sampling: per island, the trapezoid rule over the island's mean log L", () => {
    const moments = nodeMoments(record);
    const trapezoid = pathIslands(record, moments, "trapezoid", 0);
    // Island 0: means −1.5, −0.875, −0.3 at β = 0, 0.5, 1.
    expect(trapezoid[0]).toBeCloseTo(0.25 * (-1.5 - 0.875) + 0.25 * (-0.875 - 0.3), 14);
    expect(moments.pooledMeans[1]).toBeCloseTo(-1.375, 14);
  });
});
