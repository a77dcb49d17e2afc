import { describe, expect, it } from "vitest";
import { transitionalMcmc } from "../../src/evidence/transitional-mcmc.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import { failingModel, overflowingModel, testModel } from "./tempered-models.js";

describe("transitionalMcmc", () => {
  it("matches the exact log evidence in d = 1, with Ching and Chen's exponents and proposal", () => {
    const model = testModel(1);
    const r = transitionalMcmc(model, { seed: 1 });
    expect(r.method).toBe("tmcmc");
    expect(r.reliable).toBe(true);
    expect(r.diagnostics.move).toBe("random-walk");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    const stages = r.diagnostics.stages;
    expect(stages[stages.length - 1].beta).toBe(1);
    // A coefficient of variation of 1 is an effective sample size of N/2; the proposal's β stays 0.2.
    for (const s of stages.slice(0, -1)) expect(s.essFraction).toBeCloseTo(0.5, 6);
    for (const s of stages) expect(s.stepSize).toBe(0.2);
  });

  it("takes another target coefficient of variation and proposal scale", () => {
    const r = transitionalMcmc(testModel(2), { targetCov: 2, proposalScale: 0.5, seed: 2 });
    for (const s of r.diagnostics.stages.slice(0, -1)) expect(s.essFraction).toBeCloseTo(0.2, 6);
    expect(r.diagnostics.stages[0].stepSize).toBe(0.5);
    expectAccurate(r.logZ, r.stdErr, testModel(2).exactLogEvidence());
  });

  it("says its error is not to be trusted where its small fixed steps cannot mix (d = 10, few samples)", () => {
    const r = transitionalMcmc(testModel(10), { samples: 256, seed: 1 });
    expect(r.reliable).toBe(false);
  });

  it("rejects bad options and names the temperature of a NaN log likelihood", () => {
    const model = testModel(1);
    expect(thrown(() => transitionalMcmc(model, { targetCov: 0 })).message).toMatch(/targetCov/);
    expect(thrown(() => transitionalMcmc(model, { proposalScale: -1 })).message).toMatch(/proposalScale/);
    expect(thrown(() => transitionalMcmc(model, { samples: 10 })).message).toMatch(
      /samples must be an integer ≥ 64/,
    );
  });

  it("rejects moves into a region where the model overflows, and says a model broken everywhere is unreliable", () => {
    const model = overflowingModel();
    const r = transitionalMcmc(model, { seed: 1 });
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    expect(r.warnings.join(" ")).toMatch(/NaN or \+Infinity/);
    expect(transitionalMcmc(failingModel(1, 3000), { seed: 1 }).reliable).toBe(false);
  });
});
