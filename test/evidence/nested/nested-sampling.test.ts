import { describe, expect, it } from "vitest";
import { nestedSampling } from "../../../src/evidence/nested/nested-sampling.js";
import { islandRatio } from "../../../src/evidence/nested/uncertainty.js";
import { logSumExp } from "../../../src/math/logspace.js";
import { expectAccurate } from "../../support/assertions.js";
import { meanModel, withTransform } from "./models.js";

describe("nestedSampling on the conjugate gaussian-mean model", () => {
  it("matches the exact log Z from samplePrior alone, by slices in θ", () => {
    const model = meanModel(2);
    const r = nestedSampling(model, { livePoints: 100, seed: 1 });
    expect(r.method).toBe("nested");
    expect(r.reliable).toBe(true);
    expect(r.diagnostics.space).toBe("theta");
    expect(r.diagnostics.sampler).toBe("slice");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    // The simulated error is of the size Skilling's √(H/K) predicts, and the run stopped by the dlogz rule.
    expect(r.stdErr / r.diagnostics.informationError).toBeGreaterThan(0.5);
    expect(r.stdErr / r.diagnostics.informationError).toBeLessThan(2);
    expect(r.diagnostics.stop).toBe("dlogz");
    expect(r.diagnostics.remaining).toBeLessThan(0.1);
  });

  it("matches the exact log Z from the prior transform, by ellipsoids and by slices in the cube", () => {
    const model = withTransform(meanModel(3));
    for (const sampler of ["ellipsoid", "slice"] as const) {
      const r = nestedSampling(model, { livePoints: 100, sampler, seed: 2 });
      expect(r.diagnostics.space).toBe("cube");
      expect(r.diagnostics.sampler).toBe(sampler);
      expect(r.reliable).toBe(true);
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    }
  });

  it("gives weighted posterior draws whose mean is the exact posterior mean within its error, and a record that sums to Z", () => {
    const model = withTransform(meanModel(2));
    const r = nestedSampling(model, { livePoints: 200, seed: 3 });
    const { points, logWeights, size, ess } = r.posterior;
    expect(logSumExp(Array.from(logWeights))).toBeCloseTo(0, 10);
    expect(ess).toBeCloseTo(r.diagnostics.posteriorEss, 10);
    expect(ess).toBeGreaterThan(100);
    const exact = model.posterior();
    for (let j = 0; j < 2; j++) {
      let mean = 0;
      for (let i = 0; i < size; i++) mean += Math.exp(logWeights[i]) * points[i * 2 + j];
      expect(Math.abs(mean - exact.mean[j])).toBeLessThan((4 * exact.sd) / Math.sqrt(ess));
    }
    const record = r.diagnostics.record;
    expect(record.logX).toHaveLength(size);
    expect(logSumExp(record.logWeight)).toBeCloseTo(r.logZ, 10);
    for (let i = 1; i < size; i++) {
      expect(record.logX[i]).toBeLessThan(record.logX[i - 1]);
      expect(record.logL[i]).toBeGreaterThanOrEqual(record.logL[i - 1]);
    }
    // 200 live points until the end, then one fewer at each of the final deaths.
    expect(record.nLive[0]).toBe(200);
    expect(record.nLive[size - 1]).toBe(1);
    expect(record.evaluations.reduce((a, b) => a + b, 0)).toBe(r.nLikelihoodEvals - 200);
  });

  it("has a standard error that matches the spread of log Z over seeds", () => {
    const model = withTransform(meanModel(2));
    const exact = model.exactLogEvidence();
    const z: number[] = [];
    let errors = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const r = nestedSampling(model, { livePoints: 50, seed, simulations: 100 });
      z.push((r.logZ - exact) / r.stdErr);
      errors += r.stdErr;
    }
    const meanZ = z.reduce((a, b) => a + b, 0) / z.length;
    const rms = Math.sqrt(z.reduce((a, b) => a + b * b, 0) / z.length);
    // For 30 standard normal z's: |mean| < 3/√30 and the rms within its sampling range.
    expect(Math.abs(meanZ)).toBeLessThan(3 / Math.sqrt(30));
    expect(rms).toBeGreaterThan(0.6);
    expect(rms).toBeLessThan(1.45);
    expect(errors / 30).toBeLessThan(0.5);
  });

  it("is reproducible bit for bit from its seed", () => {
    const model = withTransform(meanModel(2));
    const a = nestedSampling(model, { livePoints: 50, seed: 9 });
    const b = nestedSampling(model, { livePoints: 50, seed: 9 });
    expect(a.logZ).toBe(b.logZ);
    expect(a.stdErr).toBe(b.stdErr);
  });
});

describe("dynamic nested sampling", () => {
  it("adds batches where the posterior is, raising the posterior's effective sample size, with log Z still exact", () => {
    const model = withTransform(meanModel(2));
    const stat = nestedSampling(model, { livePoints: 100, seed: 4 });
    const dyn = nestedSampling(model, { livePoints: 100, seed: 4, dynamic: { batches: 3 } });
    expect(dyn.diagnostics.batches).toHaveLength(3);
    for (const b of dyn.diagnostics.batches) {
      expect(b.livePoints).toBe(100);
      expect(b.iterations).toBeGreaterThan(0);
      // Each batch starts above the prior's low likelihoods, where the posterior has no mass.
      expect(b.logLLow).not.toBeNull();
    }
    expect(dyn.posterior.ess).toBeGreaterThan(2 * stat.posterior.ess);
    expect(dyn.reliable).toBe(true);
    expectAccurate(dyn.logZ, dyn.stdErr, model.exactLogEvidence());
    // The merged run has more live points where the batches overlap it.
    expect(Math.max(...dyn.diagnostics.record.nLive)).toBeGreaterThan(100);
  });
});

describe("nestedSampling's limits", () => {
  it("marks slice moves with too few live points and slices per dimension unreliable, saying what to raise", () => {
    const r = nestedSampling(meanModel(6), { livePoints: 20, seed: 1 });
    expect(r.diagnostics.sampler).toBe("slice");
    expect(r.reliable).toBe(false);
    expect(r.warnings.join(" ")).toMatch(
      /20 live points and 9 slices in 6 dimensions.*Raise livePoints \(the default is 500\)/,
    );
    expect(
      nestedSampling(meanModel(6), { livePoints: 24, seed: 1, maxIterations: 10 }).warnings.join(" "),
    ).not.toMatch(/live points and .* slices in/);
  });

  it("widens its error bar to its islands' spread, and beyond it is unreliable: slice moves that remember their start", () => {
    // One slice per new point in 10 dimensions: the new points stay near the live points they started
    // from, log Z is nats off, and the simulated error (±0.24) does not see it; the islands do.
    const model = meanModel(10);
    const short = nestedSampling(model, { sampler: "slice", slices: 1, livePoints: 400, seed: 1 });
    const { islands, islandSd, shrinkageSd, threadSd } = short.diagnostics;
    expect(islands).toBe(8);
    expect(short.stdErr).toBe(islandSd);
    expect(short.stdErr).toBeGreaterThan(islandRatio(8, 0.99) * Math.max(shrinkageSd, threadSd));
    expect(short.warnings.join(" ")).toMatch(/8 islands' estimates of log Z spread [0-9.]+ times as much/);
    // With the default slices the islands agree with the simulated error, which stays the error bar.
    const sound = nestedSampling(model, { sampler: "slice", livePoints: 400, seed: 1 });
    expect(sound.reliable).toBe(true);
    expect(sound.stdErr).toBe(Math.max(sound.diagnostics.shrinkageSd, sound.diagnostics.threadSd));
    expectAccurate(sound.logZ, sound.stdErr, model.exactLogEvidence());
  });

  it("marks a run stopped by maxEvaluations unreliable, naming the limit", () => {
    const model = withTransform(meanModel(2));
    const r = nestedSampling(model, { livePoints: 50, maxEvaluations: 300, seed: 1 });
    expect(r.diagnostics.stop).toBe("maxEvaluations");
    expect(r.reliable).toBe(false);
    expect(r.warnings.join(" ")).toMatch(/maxEvaluations/);
  });
});
