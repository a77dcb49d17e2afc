import { describe, expect, it } from "vitest";
import { effectiveSampleSize, monteCarloStandardError } from "../../src/diagnostics/ess.js";
import { splitRhat } from "../../src/diagnostics/rhat.js";
import { summarize } from "../../src/diagnostics/summary.js";
import { Draws } from "../../src/model/draws.js";
import { createRng } from "../../src/random/rng.js";

describe("summarize", () => {
  it("reports name, mean, sd, mcse, ess and rhat per parameter, consistent with the single functions", () => {
    const rng = createRng(8);
    const samples = [0, 1, 2].map(() =>
      Array.from({ length: 400 }, () => Float64Array.of(rng.normal(), 10 + 2 * rng.normal())),
    );
    const draws = Draws.fromArrays(samples, undefined, ["mu", "sigma"]);
    const summary = summarize(draws);
    expect(summary.map((s) => s.name)).toEqual(["mu", "sigma"]);
    for (let j = 0; j < 2; j++) {
      const chains = draws.chains(j);
      const all = draws.parameter(j);
      const mean = all.reduce((a, b) => a + b, 0) / all.length;
      const sd = Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / (all.length - 1));
      expect(summary[j].mean).toBeCloseTo(mean, 12);
      expect(summary[j].sd).toBeCloseTo(sd, 12);
      expect(summary[j].ess).toBe(effectiveSampleSize(chains));
      expect(summary[j].rhat).toBe(splitRhat(chains));
      expect(summary[j].mcse).toBeCloseTo(monteCarloStandardError(chains), 14);
    }
    // The second coordinate has sd 2 (sample sd of 1200 draws: within 4·2/√2400 = 0.16).
    expect(Math.abs(summary[1].sd - 2)).toBeLessThan(0.17);
    expect(Object.isFrozen(summary[0])).toBe(true);
  });

  it("reports NaN diagnostics for a constant parameter instead of throwing", () => {
    const samples = Array.from({ length: 50 }, (_, t) => Float64Array.of(t % 7, 3));
    const [, constant] = summarize(Draws.fromArrays(samples));
    expect(constant.mean).toBe(3);
    expect(constant.sd).toBe(0);
    expect(constant.ess).toBeNaN();
    expect(constant.mcse).toBeNaN();
    expect(constant.rhat).toBeNaN();
  });
});
