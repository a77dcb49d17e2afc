import { describe, expect, it } from "vitest";
import { powerLadder } from "../../src/evidence/schedule.js";
import { steppingStone } from "../../src/evidence/stepping-stone.js";
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

describe("steppingStone", () => {
  for (const d of [1, 10]) {
    it(`matches the exact log evidence of the Gaussian-mean model in d = ${d} (HMC)`, () => {
      const model = testModel(d);
      const r = steppingStone(model, { seed: 1 });
      expect(r.method).toBe("stepping-stone");
      expect(r.diagnostics.kernel).toBe("hmc");
      // The adaptive ladder: the pilot's stages, each split in two.
      const adaptive = r.diagnostics.adaptiveLadder as { pilotLadder: number[]; refine: number };
      const K = adaptive.pilotLadder.length - 1;
      expect(adaptive.refine).toBe(2);
      expect(r.diagnostics.temperatures).toBe(2 * K + 1);
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThan(0.15);
      expect(r.nLikelihoodEvals).toBeGreaterThan(2 * K * 1000);
      expect(r.diagnostics.warnings).toEqual([]);
      expect(Object.isFrozen(r)).toBe(true);
    });
  }

  it("matches with random-walk Metropolis on a model without gradients (d = 2)", () => {
    const model = gradientFreeModel(2);
    const r = steppingStone(model, { seed: 2, drawsPerTemperature: 2000 });
    expect(r.diagnostics.kernel).toBe("random-walk");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("uses the model's exact kernel, and its standard errors are calibrated: |z| < 2 in ≥ 80 % of 20 seeds (d = 10)", () => {
    let inside = 0;
    let meanSe = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 10, n: 20, seed: 100 + s });
      const exact = model.exactLogEvidence();
      const r = steppingStone(
        { ...model, powerPosteriorKernel: (b: number) => exactPowerPosteriorKernel(model, b) },
        { seed: s, drawsPerTemperature: 300, warmupPerTemperature: 0 },
      );
      expect(r.diagnostics.kernel).toBe("model");
      meanSe += r.stdErr / 20;
      if (Math.abs(r.logZ - exact) < 2 * r.stdErr) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
    expect(meanSe).toBeGreaterThan(0.05);
    expect(meanSe).toBeLessThan(0.2);
  });

  it("asks the model's kernel for every temperature below 1 and not at 1", () => {
    const model = modelWithExactKernel(2);
    steppingStone(model, {
      ladder: [0, 0.1, 0.5, 1],
      drawsPerTemperature: 50,
      warmupPerTemperature: 0,
      seed: 1,
    });
    expect(model.betasAsked).toEqual([0.1, 0.5]);
  });

  it("accepts a user ladder and warns when a rung is too long", () => {
    const model = testModel(10);
    const r = steppingStone(model, {
      ladder: powerLadder(3, 4),
      drawsPerTemperature: 200,
      warmupPerTemperature: 100,
      seed: 3,
    });
    expect(r.diagnostics.temperatures).toBe(4);
    expect((r.diagnostics.warnings as string[]).length).toBeGreaterThan(0);
    expect((r.diagnostics.warnings as string[])[0]).toMatch(/add temperatures/);
  });

  it("handles prior draws of zero likelihood (a likelihood with bounded support, d = 1)", () => {
    const model = truncatedModel();
    const r = steppingStone(model, { seed: 6, kernel: "random-walk" });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("validates the ladder", () => {
    const model = testModel(1);
    expect(thrown(() => steppingStone(model, { ladder: [0.1, 0.5, 1] })).message).toMatch(
      /start at exactly 0/,
    );
    expect(thrown(() => steppingStone(model, { ladder: [0, 0.5, 0.9] })).message).toMatch(/end at exactly 1/);
    expect(thrown(() => steppingStone(model, { ladder: [0, 0.5, 0.4, 1] })).message).toMatch(
      /increase strictly/,
    );
  });

  it("names the temperature when the log likelihood is NaN, in the sampling and in the ladder's pilot", () => {
    const ladder = powerLadder(32, 4);
    const e = thrown(() =>
      steppingStone(failingModel(1, 3000), { ladder, drawsPerTemperature: 100, seed: 1 }),
    );
    expect(e.code).toBe("non-finite");
    expect(e.message).toMatch(/^steppingStone at β = [0-9.e-]+ \(temperature \d+\)/);
    const p = thrown(() => steppingStone(failingModel(1, 300), { drawsPerTemperature: 100, seed: 1 }));
    expect(p.code).toBe("non-finite");
    expect(p.message).toMatch(/^steppingStone \(adaptive ladder pilot\).*β = /);
  });
});
