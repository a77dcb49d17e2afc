import { describe, expect, it } from "vitest";
import { chaining } from "../../src/evidence/chaining.js";
import { powerLadder } from "../../src/evidence/schedule.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import { exactPowerPosteriorKernel, failingModel, testModel } from "./tempered-models.js";

describe("chaining (Barber & Bishop)", () => {
  it("uses 20 values of λ by default: 18 intermediate distributions", () => {
    const r = chaining(testModel(1), { drawsPerTemperature: 50, warmupPerTemperature: 50, seed: 1 });
    const ladder = r.diagnostics.ladder as number[];
    expect(ladder.length).toBe(20);
    expect(ladder[0]).toBe(0);
    expect(ladder[19]).toBe(1);
    expect(r.method).toBe("chaining");
  });

  for (const d of [1, 10]) {
    for (const ends of ["lower", "both"] as const) {
      it(`matches the exact log evidence in d = ${d} with draws at the ${ends} end(s) (HMC)`, () => {
        const model = testModel(d);
        const r = chaining(model, { ends, seed: 2 });
        expect(r.diagnostics.kernel).toBe("hmc");
        expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
        expect(r.stdErr).toBeLessThan(0.2);
      });
    }
  }

  it("has calibrated standard errors with draws at both ends (shared draws counted once): ≥ 16 of 20 seeds within 2 SE", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 10, n: 20, seed: 200 + s });
      const r = chaining(
        { ...model, powerPosteriorKernel: (b: number) => exactPowerPosteriorKernel(model, b) },
        { ends: "both", seed: s, drawsPerTemperature: 300, warmupPerTemperature: 0 },
      );
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("with draws at both ends has a smaller standard error than at the lower end when the links are long", () => {
    const model = gaussianMeanModel({ dim: 10, n: 20, seed: 3 });
    const withExact = { ...model, powerPosteriorKernel: (b: number) => exactPowerPosteriorKernel(model, b) };
    // Six links: the lower-end weights L^Δ are far from flat, the geometric bridge's L^{±Δ/2} much less.
    const settings = {
      ladder: powerLadder(6, 4),
      seed: 4,
      drawsPerTemperature: 2000,
      warmupPerTemperature: 0,
    };
    const lower = chaining(withExact, settings);
    const both = chaining(withExact, { ...settings, ends: "both" });
    expect(both.stdErr).toBeLessThan(0.8 * lower.stdErr);
    expect(Math.abs(both.logZ - model.exactLogEvidence())).toBeLessThan(4 * both.stdErr);
  });

  it("rejects a bad ends option and a bad ladder, and names the temperature of a NaN", () => {
    expect(thrown(() => chaining(testModel(1), { ends: "upper" as "lower" })).message).toMatch(
      /ends must be/,
    );
    expect(thrown(() => chaining(testModel(1), { ladder: [0, 0.3, 0.3, 1] })).message).toMatch(/entry 2/);
    const e = thrown(() => chaining(failingModel(1, 2000), { drawsPerTemperature: 100, seed: 1 }));
    expect(e.message).toMatch(/^chaining at β = [0-9.e-]+ \(temperature \d+\)/);
  });
});
