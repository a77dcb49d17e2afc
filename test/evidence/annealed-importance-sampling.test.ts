import { describe, expect, it } from "vitest";
import { annealedImportanceSampling } from "../../src/evidence/annealed-importance-sampling.js";
import { powerLadder } from "../../src/evidence/schedule.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import {
  exactPowerPosteriorKernel,
  failingModel,
  gradientFreeModel,
  modelWithExactKernel,
  testModel,
  truncatedModel,
} from "./tempered-models.js";

describe("annealedImportanceSampling", () => {
  for (const d of [1, 10]) {
    it(`matches the exact log evidence in d = ${d} (HMC transitions tuned by a pilot)`, () => {
      const model = testModel(d);
      const r = annealedImportanceSampling(model, { seed: 1 });
      expect(r.method).toBe("annealed-importance-sampling");
      expect(r.diagnostics.kernel).toBe("hmc");
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThan(0.12);
      expect(r.diagnostics.essFraction as number).toBeGreaterThan(0.1);
    });
  }

  it("matches with random-walk transitions on a model without gradients (d = 2)", () => {
    const model = gradientFreeModel(2);
    const r = annealedImportanceSampling(model, { seed: 2, stepsPerTemperature: 3 });
    expect(r.diagnostics.kernel).toBe("random-walk");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("gives zero weight to prior draws of zero likelihood (bounded support, d = 1)", () => {
    const model = truncatedModel();
    const r = annealedImportanceSampling(model, { seed: 8, kernel: "random-walk", stepsPerTemperature: 3 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("uses the model's kernel at every intermediate temperature", () => {
    const model = modelWithExactKernel(2);
    const ladder = [0, 0.01, 0.1, 0.5, 1];
    const r = annealedImportanceSampling(model, { ladder, particles: 50, seed: 3 });
    expect(r.diagnostics.kernel).toBe("model");
    expect(model.betasAsked).toEqual([0.01, 0.1, 0.5]);
  });

  it("has calibrated standard errors: |z| < 2 in ≥ 80 % of 20 seeds (d = 10, exact transitions)", () => {
    let inside = 0;
    let meanSe = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 10, n: 20, seed: 600 + s });
      const r = annealedImportanceSampling(
        { ...model, powerPosteriorKernel: (b: number) => exactPowerPosteriorKernel(model, b) },
        { ladder: powerLadder(100, 4), particles: 150, seed: s },
      );
      meanSe += r.stdErr / 20;
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
    expect(meanSe).toBeGreaterThan(0.03);
    expect(meanSe).toBeLessThan(0.12);
  });

  it("reports the spread of independent repetitions and is deterministic for a seed", () => {
    const model = testModel(2);
    const options = { ladder: powerLadder(50, 4), particles: 100, repetitions: 3, seed: 5 };
    const a = annealedImportanceSampling(model, options);
    const b = annealedImportanceSampling(model, options);
    expect(a.logZ).toBe(b.logZ);
    expect((a.diagnostics.repetitionLogZ as number[]).length).toBe(3);
    expect(a.diagnostics.repetitionStdErr as number).toBeGreaterThan(0);
  });

  it("names the temperature when the log likelihood is NaN, and rejects bad options", () => {
    const e = thrown(() => annealedImportanceSampling(failingModel(1, 3000), { seed: 1 }));
    expect(e.code).toBe("non-finite");
    expect(e.message).toMatch(/β = [0-9.e-]+/);
    const model = testModel(1);
    expect(thrown(() => annealedImportanceSampling(model, { ladder: [0, 0.7, 0.6, 1] })).message).toMatch(
      /entry 2/,
    );
    expect(thrown(() => annealedImportanceSampling(model, { particles: 1 })).code).toBe("invalid-argument");
    expect(thrown(() => annealedImportanceSampling(gradientFreeModel(1), { kernel: "hmc" })).message).toMatch(
      /gradLogPrior/,
    );
    expect(thrown(() => annealedImportanceSampling(model, { kernel: "model" })).message).toMatch(
      /powerPosteriorKernel/,
    );
  });
});
