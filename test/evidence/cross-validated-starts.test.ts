import { describe, expect, it } from "vitest";
import { crossValidatedEvidence } from "../../src/evidence/cross-validated.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";

describe("crossValidatedEvidence: where the chains start", () => {
  it("rejects a start that is neither tempered nor prior", () => {
    const model = gaussianMeanModel({ n: 20, seed: 1 });
    expect(() =>
      crossValidatedEvidence(model, { form: "chain-rule", starts: "mode" as "prior", seed: 1 }),
    ).toThrow(/starts must be "tempered" or "prior"/);
  });

  it("with prior starts, MCMC draws still give the exact chain-rule evidence within its error", () => {
    const model = gaussianMeanModel({ n: 40, seed: 3 });
    const exact = model.exactLogEvidence?.() as number;
    const r = crossValidatedEvidence(model, {
      form: "chain-rule",
      sampler: "random-walk",
      starts: "prior",
      draws: 2000,
      warmup: 300,
      seed: 4,
    });
    expect(r.reliable).toBe(true);
    expect(Math.abs(r.logZ - exact)).toBeLessThan(4 * r.stdErr + 0.01);
  });
});
