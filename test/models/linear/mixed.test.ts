import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { csvColumns, parseCsv } from "../../../src/data/csv.js";
import { formulaDesign, parseFormula } from "../../../src/data/formula.js";
import { OccamError } from "../../../src/errors.js";
import type { RandomTermData } from "../../../src/models/glm/random-effects.js";
import { zellnerSiowDensity } from "../../../src/models/linear/g-mixture.js";
import { LinearMixedPosterior, linearMixedEvidence } from "../../../src/models/linear/mixed.js";
import { ZELLNER_SIOW_MEDIUM_SCALE } from "../../../src/models/linear/zellner-siow.js";
import { createRng } from "../../../src/random/rng.js";
import { compareLinearModels } from "../../../src/selection/linear.js";
import { runCli } from "../../support/cli.js";

interface Fixture {
  columns: { y: number[]; x1: number[]; x2: number[] };
  group: string[];
  models: { fixed: string[]; logBayesFactor: number; stdErr?: number; quadratureChange?: number }[];
}
const reference = JSON.parse(
  readFileSync(new URL("fixtures/mixed-reference.json", import.meta.url), "utf8"),
) as { intercept: Fixture; slope: Fixture };

/** The fixture as a CSV's text. */
function csvText(f: Fixture): string {
  const { y, x1, x2 } = f.columns;
  return ["y,x1,x2,g", ...y.map((v, i) => `${v},${x1[i]},${x2[i]},${f.group[i]}`)].join("\n");
}

function compare(f: Fixture, formula: string, options: Parameters<typeof compareLinearModels>[1] = {}) {
  return compareLinearModels(
    formulaDesign(csvColumns(parseCsv(csvText(f))), parseFormula(formula), { heredity: true }),
    options,
  );
}

/** A model's row by its terms. */
function row(result: ReturnType<typeof compare>, inputs: string[]) {
  const found = result.models.find((m) => m.inputs.join(",") === inputs.join(","));
  if (found === undefined) throw new Error(`no model ${inputs}`);
  return found;
}

describe("linear models with random terms", () => {
  it("matches quadrature over g and the random intercept's scale, within max(0.01, 3 s.e.)", () => {
    const result = compare(reference.intercept, "y ~ x1 + x2 + (1 | g)");
    expect(result.models).toHaveLength(8);
    for (const model of reference.intercept.models) {
      const r = row(result, [...model.fixed, "(1 | g)"]);
      const stdErr = r.logBayesFactorStdErr as number;
      expect(stdErr).toBeGreaterThan(0);
      expect(stdErr).toBeLessThan(0.02);
      expect(Math.abs(r.logBayesFactor - model.logBayesFactor)).toBeLessThan(Math.max(0.01, 3 * stdErr));
      expect(r.reliable).toBe(true);
    }
    // The models without the random term keep their exact Bayes factors (standard error 0).
    const plain = compare(reference.intercept, "y ~ x1 + x2");
    expect(row(result, ["x1", "x2"]).logBayesFactor).toBeCloseTo(row(plain, ["x1", "x2"]).logBayesFactor, 12);
    expect(row(result, ["x1", "x2"]).logBayesFactorStdErr).toBe(0);
  });

  it("matches importance sampling on the marginal covariance for a random intercept and slope", () => {
    const result = compare(reference.slope, "y ~ x1 + (x1 | g)");
    const [model] = reference.slope.models;
    const r = row(result, ["x1", "(x1 | g)"]);
    const joint = Math.hypot(r.logBayesFactorStdErr as number, model.stdErr as number);
    expect(Math.abs(r.logBayesFactor - model.logBayesFactor)).toBeLessThan(Math.max(0.01, 3 * joint));
  });

  it("gives a random term whose effects are all zero no weight: the model's evidence is the one without it", () => {
    const f = reference.intercept;
    const n = f.columns.y.length;
    const X = new Float64Array(n * 2);
    for (let i = 0; i < n; i++) [X[2 * i], X[2 * i + 1]] = [f.columns.x1[i], f.columns.x2[i]];
    const silent: RandomTermData = {
      name: "(1 | g)",
      groups: 4,
      codes: Int32Array.from({ length: n }, (_, i) => i % 4),
      effects: 1,
      Z: new Float64Array(n),
      effectNames: ["(intercept)"],
    };
    const density = zellnerSiowDensity(n, ZELLNER_SIOW_MEDIUM_SCALE);
    const post = new LinearMixedPosterior(X, Float64Array.from(f.columns.y), n, 2, [silent], {
      kind: "mixture",
      density,
    });
    const fit = linearMixedEvidence(post, { rng: createRng(1) }, "test");
    const plain = compare(f, "y ~ x1 + x2");
    const exact = row(plain, ["x1", "x2"]).logBayesFactor;
    expect(Math.abs(fit.logBayesFactor - exact)).toBeLessThan(Math.max(0.01, 3 * fit.stdErr));
    // The slopes' moments are the model's without the random term, to within a tenth of their sd (the
    // moments rest on 200 weighted draws of g).
    const full = compare(f, "y ~ x1 + x2", { subsets: "none" }).coefficients;
    full.forEach((c, a) => {
      expect(Math.abs(fit.mean[a] - (c.mean as number))).toBeLessThan(0.1 * (c.sd as number));
      expect(Math.sqrt(fit.variance[a])).toBeCloseTo(c.sd as number, 2);
    });
  });

  it("is the same whatever the units of an input, and depends only on the seed", () => {
    const f = reference.intercept;
    const scaled = { ...f, columns: { ...f.columns, x1: f.columns.x1.map((v) => v * 1000) } };
    const a = compare(f, "y ~ x1 + x2 + (1 | g)", { seed: 4 });
    const b = compare(scaled, "y ~ x1 + x2 + (1 | g)", { seed: 4 });
    a.models.forEach((m, i) => {
      expect(b.models[i].inputs).toEqual(m.inputs);
      expect(b.models[i].logBayesFactor).toBeCloseTo(m.logBayesFactor, 6);
    });
    expect(compare(f, "y ~ x1 + x2 + (1 | g)", { seed: 4 }).models).toEqual(a.models);
    expect(a.settings?.seed).toBe(4);
  });

  it("keeps a random term in every model with --always, and refuses what it cannot do", () => {
    const f = reference.intercept;
    const held = compare(f, "y ~ x1 + x2 + (1 | g)", { always: ["(1 | g)"] });
    expect(held.models).toHaveLength(4);
    for (const m of held.models) expect(m.inputs).toContain("(1 | g)");
    const refuse = (options: Parameters<typeof compareLinearModels>[1], message: RegExp) => {
      expect(() => compare(f, "y ~ x1 + (1 | g)", options)).toThrowError(message);
      expect(() => compare(f, "y ~ x1 + (1 | g)", options)).toThrowError(OccamError);
    };
    refuse({ prior: "nig" }, /random terms take a g-prior/);
    refuse({ estimator: "laplace", prior: "nig" }, /random terms|g-prior/);
    refuse(
      { predict: { X: new Float64Array(1), rows: 1 } },
      /--predict is not yet available with random terms/,
    );
  });

  it("is occam compare with a random term in the formula: the models, their errors and how they were computed", async () => {
    const run = await runCli([
      "compare",
      "examples/real-models/chickweight.csv",
      "--formula",
      "weight ~ Time + Diet + (Time | Chick)",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.models).toHaveLength(8);
    expect(result.models[0].inputs).toEqual(["Time", "(Time | Chick)"]);
    for (const m of result.models) {
      expect(m.logBayesFactorStdErr).toBeLessThan(0.05);
      expect(m.reliable).toBe(m.inputs.includes("(Time | Chick)") ? true : undefined);
    }
    const text = await runCli([
      "compare",
      "examples/real-models/chickweight.csv",
      "--formula",
      "weight ~ Time + (1 | Chick)",
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /Models with random terms: log Bayes factors by importance sampling .*\(seed 1\)/,
    );
    expect(text.stdout).toMatch(/log BF vs best ± s\.e\./);
  });
});
