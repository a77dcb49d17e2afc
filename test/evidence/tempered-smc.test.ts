import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { powerLadder } from "../../src/evidence/schedule.js";
import {
  adaptiveLadder,
  nextTemperature,
  resolveAdaptiveLadderOptions,
  systematicResample,
  temperedSmc,
} from "../../src/evidence/tempered-smc.js";
import { kishEss } from "../../src/math/logspace.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { createRng } from "../../src/random/rng.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import {
  failingModel,
  gradientFreeModel,
  modelWithExactKernel,
  testModel,
  truncatedModel,
} from "./tempered-models.js";

describe("tempered SMC building blocks", () => {
  it("nextTemperature finds the β' whose incremental weights have the target ESS", () => {
    const rng = createRng(1);
    const ell = Float64Array.from({ length: 500 }, () => -50 * rng.uniform() ** 2 - 10);
    const scratch = new Float64Array(500);
    const next = nextTemperature(ell, 0.2, 250, scratch);
    expect(next).toBeGreaterThan(0.2);
    expect(next).toBeLessThan(1);
    const w = Array.from(ell, (l) => (next - 0.2) * l);
    expect(kishEss(w)).toBeCloseTo(250, 3);
    // A flat likelihood keeps every weight equal: straight to β = 1.
    expect(nextTemperature(new Float64Array(10).fill(-3), 0.5, 5, new Float64Array(10))).toBe(1);
  });

  it("systematic resampling gives each particle ⌊N w_i⌋ or ⌈N w_i⌉ copies (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -20, max: 0, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 1000 }),
        (logW, seed) => {
          const n = logW.length;
          const index = new Int32Array(n);
          systematicResample(Float64Array.from(logW), createRng(seed), index);
          const max = Math.max(...logW);
          const total = logW.reduce((s, v) => s + Math.exp(v - max), 0);
          const counts = new Array(n).fill(0);
          for (const i of index) counts[i]++;
          for (let i = 0; i < n; i++) {
            const expected = (n * Math.exp(logW[i] - max)) / total;
            expect(counts[i]).toBeGreaterThanOrEqual(Math.floor(expected - 1e-9));
            expect(counts[i]).toBeLessThanOrEqual(Math.ceil(expected + 1e-9));
          }
        },
      ),
    );
  });
});

describe("temperedSmc", () => {
  for (const d of [1, 10]) {
    it(`matches the exact log evidence in d = ${d} (HMC moves)`, () => {
      const model = testModel(d);
      const r = temperedSmc(model, { seed: 1 });
      expect(r.method).toBe("tempered-smc");
      expect(r.diagnostics.move).toBe("hmc");
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThan(0.1);
      // The schedule found: increasing from above 0 to exactly 1.
      for (const schedule of r.diagnostics.schedule as number[][]) {
        expect(schedule[0]).toBeGreaterThan(0);
        expect(schedule[schedule.length - 1]).toBe(1);
        for (let i = 1; i < schedule.length; i++) expect(schedule[i]).toBeGreaterThan(schedule[i - 1]);
      }
      expect((r.diagnostics.stages as number[]).length).toBe(8); // one entry per run, 8 runs by default
    });
  }

  it("matches with random-walk moves on a model without gradients (d = 3)", () => {
    const model = gradientFreeModel(3);
    const r = temperedSmc(model, { seed: 2, particles: 500 });
    expect(r.diagnostics.move).toBe("random-walk");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    for (const rates of r.diagnostics.acceptanceRates as number[][]) {
      // Every stage but the last (β = 1, no moves) moved its particles with a healthy acceptance rate.
      expect(rates[rates.length - 1]).toBeNaN();
      for (const a of rates.slice(0, -1)) expect(a).toBeGreaterThan(0.1);
    }
    for (const fractions of r.diagnostics.essFractions as number[][]) {
      for (const f of fractions.slice(0, -1)) expect(f).toBeCloseTo(0.5, 2);
    }
  });

  it("drops prior draws of zero likelihood (bounded support, d = 1), adaptively and on a fixed ladder", () => {
    const model = truncatedModel();
    const adaptive = temperedSmc(model, { seed: 7, particles: 500 });
    expectAccurate(adaptive.logZ, adaptive.stdErr, model.exactLogEvidence());
    const fixed = temperedSmc(model, { seed: 7, particles: 500, ladder: powerLadder(20, 4) });
    expectAccurate(fixed.logZ, fixed.stdErr, model.exactLogEvidence());
  });

  it("follows a fixed ladder when given one", () => {
    const model = testModel(2);
    const r = temperedSmc(model, { ladder: powerLadder(20, 4), particles: 300, seed: 3 });
    expect((r.diagnostics.schedule as number[][])[0]).toEqual(Array.from(powerLadder(20, 4).subarray(1)));
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("has calibrated standard errors: |z| < 2 in ≥ 80 % of 20 seeds (d = 10)", () => {
    let inside = 0;
    let meanSe = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 10, n: 20, seed: 700 + s });
      const r = temperedSmc(model, { particles: 120, repetitions: 6, seed: s });
      meanSe += r.stdErr / 20;
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
    expect(meanSe).toBeLessThan(0.12);
  });

  it("names the temperature when the log likelihood is NaN, and rejects bad options", () => {
    const e = thrown(() => temperedSmc(failingModel(2, 5000), { seed: 1, particles: 200 }));
    expect(e.code).toBe("non-finite");
    expect(e.message).toMatch(/^temperedSmc: model.logLikelihood is NaN at .*β = [0-9.e-]+/);
    const model = testModel(1);
    expect(thrown(() => temperedSmc(model, { targetEss: 1 })).message).toMatch(/targetEss/);
    expect(thrown(() => temperedSmc(model, { move: "nuts" as "hmc" })).message).toMatch(/move must be/);
    expect(thrown(() => temperedSmc(gradientFreeModel(1), { move: "hmc" })).message).toMatch(/gradLogPrior/);
    expect(thrown(() => temperedSmc(model, { particles: 1 })).code).toBe("invalid-argument");
    expect(thrown(() => temperedSmc(model, { ladder: [0, 0.5] })).message).toMatch(/end at exactly 1/);
  });

  it("with one repetition reports an infinite standard error and a warning", () => {
    const r = temperedSmc(testModel(1), { repetitions: 1, particles: 100, seed: 4 });
    expect(r.stdErr).toBe(Number.POSITIVE_INFINITY);
    expect((r.diagnostics.warnings as string[])[0]).toMatch(/one repetition/);
  });
});

describe("temperedSmc with the model's kernel, and the adaptive ladder", () => {
  it("moves the particles with the model's powerPosteriorKernel (one exact draw per stage)", () => {
    const model = modelWithExactKernel(10);
    const r = temperedSmc(model, { particles: 300, seed: 5 });
    expect(r.diagnostics.move).toBe("model");
    expect(model.betasAsked.length).toBeGreaterThan(0);
    for (const steps of r.diagnostics.mcmcSteps as number[][]) {
      expect(steps.slice(0, -1).every((s) => s === 1)).toBe(true);
    }
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    expect(thrown(() => temperedSmc(testModel(1), { move: "model" })).message).toMatch(
      /powerPosteriorKernel/,
    );
  });

  it("adaptiveLadder places stages whose incremental weights keep the target ESS, then refines them", () => {
    const model = modelWithExactKernel(10);
    const options = resolveAdaptiveLadderOptions({ targetEss: 0.5 }, "test");
    const a = adaptiveLadder(model, createRng(2), options, 3, "test");
    const K = a.pilotLadder.length - 1;
    expect(a.move).toBe("model");
    expect(a.ladder.length).toBe(3 * K + 1);
    expect(a.pilotLadder[0]).toBe(0);
    expect(a.pilotLadder[K]).toBe(1);
    // Every stage but the last (which reached β = 1 with ESS to spare) sits at the target.
    for (const s of a.stages.slice(0, -1)) expect(s.essFraction).toBeCloseTo(0.5, 6);
    expect(thrown(() => resolveAdaptiveLadderOptions({ targetEss: 1 }, "test")).message).toMatch(/targetEss/);
  });
});
