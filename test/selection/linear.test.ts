import { describe, expect, it } from "vitest";
import { numericTable, parseCsv } from "../../src/data/csv.js";
import { linearRegressionData } from "../../src/data/generators/linear.js";
import { nigRegression } from "../../src/models/linear/nig.js";
import { rSquared, zellnerSiowLogBayesFactor } from "../../src/models/linear/zellner-siow.js";
import { compareLinearModels } from "../../src/selection/linear.js";

const n = 80;
const p = 4;
const sim = linearRegressionData({ n, p, weights: [1.5, 0, -0.8, 0], noiseSd: 1, seed: 3 });
const names = ["a", "b", "c", "d"];
const data = { X: sim.X, y: sim.y, n, p, inputNames: names, targetName: "y" };

/** The design with a leading column of ones and the given inputs. */
function design(members: number[]): Float64Array {
  const k = members.length + 1;
  const X = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    X[i * k] = 1;
    members.forEach((j, c) => {
      X[i * k + c + 1] = sim.X[i * p + j];
    });
  }
  return X;
}

describe("compareLinearModels", () => {
  it("gives each subset its exact NIG log evidence, with the intercept in every model", () => {
    const result = compareLinearModels(data, { v: 100, a: 2, b: 1 });
    expect(result.modelCount).toBe(16);
    for (const model of result.models) {
      const members = model.inputs.map((name) => names.indexOf(name));
      const exact = nigRegression({
        X: design(members),
        y: sim.y,
        n,
        p: members.length + 1,
        v: 100,
        a: 2,
        b: 1,
      });
      expect(model.logEvidence).toBeCloseTo(exact.exactLogEvidence(), 8);
    }
    const total = result.models.reduce((s, m) => s + m.posteriorProbability, 0);
    expect(total).toBeCloseTo(1, 12);
    // Inclusion probabilities are sums over the models that contain the input.
    for (const name of names) {
      const sum = result.models
        .filter((m) => m.inputs.includes(name))
        .reduce((s, m) => s + m.posteriorProbability, 0);
      expect(result.inclusionProbabilities[name]).toBeCloseTo(sum, 12);
    }
    expect(result.models[0].inputs).toEqual(["a", "c"]);
    expect(result.medianModel).toEqual(["a", "c"]);
  });

  it("gives Zellner–Siow Bayes factors against the intercept-only model, and no log evidence", () => {
    const result = compareLinearModels(data, { prior: "zellner-siow" });
    const ac = result.models.find((m) => m.inputs.join() === "a,c");
    expect(ac?.logEvidence).toBeNull();
    const expected = zellnerSiowLogBayesFactor(rSquared(sim.X, sim.y, n, p, [0, 2]), n, 2);
    expect(ac?.logBayesFactor).toBeCloseTo(expected, 10);
    expect(result.models.find((m) => m.inputs.length === 0)?.logBayesFactor).toBe(0);
  });

  it("scores only the full model with subsets none, and subsets of at most K with max", () => {
    const all = compareLinearModels(data, { prior: "zellner-siow" });
    const none = compareLinearModels(data, { prior: "zellner-siow", subsets: "none" });
    expect(none.models).toHaveLength(1);
    expect(none.models[0].inputs).toEqual(names);
    expect(none.models[0].posteriorProbability).toBe(1);
    const full = all.models.find((m) => m.inputs.length === 4);
    expect(none.models[0].logBayesFactor).toBeCloseTo(full?.logBayesFactor ?? Number.NaN, 9);
    expect(compareLinearModels(data, { subsets: { max: 2 } }).modelCount).toBe(1 + 4 + 6);
  });

  it("records standardisation and the top-K cut", () => {
    const result = compareLinearModels(data, { standardize: true, top: 3 });
    expect(result.standardized).toBe(true);
    expect(result.models).toHaveLength(3);
    expect(result.modelCount).toBe(16);
  });

  it("reads a CSV end to end", () => {
    const csv = parseCsv("x1,x2,y\n1,0.5,2.1\n2,0.1,3.9\n3,0.7,6.2\n4,0.2,8.1\n5,0.9,9.8\n6,0.3,12.2\n");
    const result = compareLinearModels(numericTable(csv, { target: "y" }), { v: 10, a: 1, b: 0.1 });
    expect(result.models[0].inputs).toEqual(["x1"]);
  });

  it("refuses Zellner–Siow without an intercept", () => {
    expect(() => compareLinearModels(data, { prior: "zellner-siow", intercept: false })).toThrow(/intercept/);
  });
});
