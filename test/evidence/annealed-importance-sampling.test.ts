import { describe, expect, it } from "vitest";
import { annealedImportanceSampling } from "../../src/evidence/annealed-importance-sampling.js";
import { eggboxProblem } from "../../src/models/hard-problems/index.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import {
  failingModel,
  gradientFreeModel,
  modelWithExactKernel,
  overflowingModel,
  testModel,
  truncatedModel,
} from "./tempered-models.js";

describe("annealedImportanceSampling", () => {
  for (const d of [1, 10]) {
    it(`matches the exact log evidence in d = ${d} (HMC in the cloud's metric)`, () => {
      const model = testModel(d);
      const r = annealedImportanceSampling(model, { seed: 1 });
      expect(r.method).toBe("ais");
      expect(r.reliable).toBe(true);
      expect(r.diagnostics.move).toBe("hmc");
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThan(0.12);
      expect(r.diagnostics.essFraction).toBeGreaterThan(0.2);
      // Every step kept 99 % of the conditional ESS.
      for (const s of r.diagnostics.stages.slice(0, -1)) expect(s.essFraction).toBeCloseTo(0.99, 6);
    });
  }

  it("matches with random-walk transitions on a model without gradients (d = 2)", () => {
    const model = gradientFreeModel(2);
    const r = annealedImportanceSampling(model, { seed: 2 });
    expect(r.diagnostics.move).toBe("random-walk");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("gives zero weight to prior draws of zero likelihood (bounded support, d = 1)", () => {
    const model = truncatedModel();
    const r = annealedImportanceSampling(model, { seed: 8, particles: 2048 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("uses the model's kernel at every intermediate temperature of a given ladder", () => {
    const model = modelWithExactKernel(2);
    const r = annealedImportanceSampling(model, { ladder: [0, 0.01, 0.1, 0.5, 1], particles: 64, seed: 3 });
    expect(r.diagnostics.move).toBe("model");
    expect([...new Set(model.betasAsked)]).toEqual([0.01, 0.1, 0.5]);
  });

  it("says its error is unknown, rather than give one, when a few particles carry the weights (the eggbox, few temperatures)", () => {
    const r = annealedImportanceSampling(eggboxProblem().model, { targetEss: 0.5, particles: 256, seed: 4 });
    expect(r.reliable).toBe(false);
    expect(r.warnings[0]).toMatch(/final annealing weights/);
    expect(Number.isFinite(r.stdErr)).toBe(true);
  });

  it("is deterministic for a seed", () => {
    const model = testModel(2);
    const a = annealedImportanceSampling(model, { particles: 128, seed: 5 });
    const b = annealedImportanceSampling(model, { particles: 128, seed: 5 });
    expect(a.logZ).toBe(b.logZ);
  });

  it("rejects moves into a region where the model overflows, and says a model broken everywhere is unreliable", () => {
    const model = overflowingModel();
    const r = annealedImportanceSampling(model, { seed: 1 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    expect(r.warnings.join(" ")).toMatch(/NaN or \+Infinity/);
    const broken = annealedImportanceSampling(failingModel(1, 3000), { seed: 1 });
    expect(broken.reliable).toBe(false);
  });

  it("rejects bad options", () => {
    const model = testModel(1);
    expect(thrown(() => annealedImportanceSampling(model, { ladder: [0, 0.7, 0.6, 1] })).message).toMatch(
      /entry 2/,
    );
    expect(thrown(() => annealedImportanceSampling(model, { particles: 1 })).code).toBe("invalid-argument");
    expect(thrown(() => annealedImportanceSampling(gradientFreeModel(1), { move: "hmc" })).message).toMatch(
      /gradLogPrior/,
    );
  });
});
