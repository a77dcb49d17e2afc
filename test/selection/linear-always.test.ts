import { describe, expect, it } from "vitest";
import { betaln } from "../../src/math/stdlib.js";
import { compareLinearModels } from "../../src/selection/linear.js";
import { runCli } from "../support/cli.js";
import { regressionTable } from "../support/parallel.js";

const key = (inputs: readonly string[]) => [...inputs].sort().join(",");

describe("compareLinearModels with terms in every model (always)", () => {
  const table = regressionTable(40, 5, 3);
  const all = compareLinearModels(table, { top: 32 });
  const holding = all.models.filter((m) => m.inputs.includes("x3"));

  it("gives, under the uniform model prior, the probabilities of the full space conditioned on the terms", () => {
    const kept = compareLinearModels(table, { top: 32, always: ["x3"] });
    expect(kept.always).toEqual(["x3"]);
    expect(kept.modelCount).toBe(16);
    expect(kept.inclusionProbabilities.x3).toBe(1);
    const total = holding.reduce((s, m) => s + m.posteriorProbability, 0);
    for (const m of kept.models) {
      expect(m.inputs).toContain("x3");
      const same = holding.find((h) => key(h.inputs) === key(m.inputs));
      expect(m.posteriorProbability).toBeCloseTo((same?.posteriorProbability as number) / total, 12);
    }
  });

  it("puts a beta-binomial prior over the other terms only, in the enumeration and the MCMC over subsets", () => {
    const a = 1;
    const b = 3;
    const modelPrior = { name: "beta-binomial" as const, a, b };
    const kept = compareLinearModels(table, { top: 32, always: ["x3"], modelPrior });
    // p(M | y) ∝ BF(M) · B(a + k, b + 4 − k)/B(a, b), k the model's terms besides x3.
    const logWeight = (inputs: readonly string[]) => {
      const model = all.models.find((h) => key(h.inputs) === key(inputs));
      const k = inputs.length - 1;
      return (model?.logBayesFactor as number) + betaln(a + k, b + 4 - k);
    };
    const logs = holding.map((m) => logWeight(m.inputs));
    const top = Math.max(...logs);
    const norm = logs.reduce((s, l) => s + Math.exp(l - top), 0);
    for (const m of kept.models) {
      expect(m.posteriorProbability).toBeCloseTo(Math.exp(logWeight(m.inputs) - top) / norm, 12);
    }
    // 27 terms are sampled by MCMC over the other terms: every visited model holds x3.
    const wide = regressionTable(60, 27, 5);
    const sampled = compareLinearModels(wide, { always: ["x3"], mcmcSteps: 4000, top: 5 });
    expect(sampled.search).toBe("mcmc");
    expect(sampled.inclusionProbabilities.x3).toBe(1);
    for (const m of sampled.models) expect(m.inputs).toContain("x3");
  });

  it("refuses an unknown term, every term, and a size limit below the terms held", () => {
    expect(() => compareLinearModels(table, { always: ["x9"] })).toThrow(/--always: no term "x9"/);
    expect(() => compareLinearModels(table, { always: ["x1", "x2", "x3", "x4", "x5"] })).toThrow(
      /holds every term/,
    );
    expect(() => compareLinearModels(table, { always: ["x1", "x2"], subsets: { max: 1 } })).toThrow(
      /--subsets max=1 leaves no model/,
    );
  });

  it("is occam compare --always for a gaussian target, named in the output", async () => {
    const run = await runCli([
      "compare",
      "examples/wine-alcohol.csv",
      "--target",
      "alcohol",
      "--always",
      "proline,hue",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/hue, proline in every model, the model prior over the other terms/);
    expect(run.stdout).toMatch(/1024 models/);
  });
});
