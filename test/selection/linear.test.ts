import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numericTable, parseCsv } from "../../src/data/csv.js";
import { linearRegressionData } from "../../src/data/generators/linear.js";
import { estimateEvidence } from "../../src/evidence/estimate.js";
import { independentPrecisionQuadrature } from "../../src/models/linear/independent-quadrature.js";
import { nigRegression } from "../../src/models/linear/nig.js";
import { rSquared, zellnerSiowLogBayesFactor } from "../../src/models/linear/zellner-siow.js";
import { compareLinearModels, subsetSeed } from "../../src/selection/linear.js";

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
    const result = compareLinearModels(data, {
      prior: { name: "nig", v: 100, a: 2, b: 1 },
      standardize: false,
    });
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
    const result = compareLinearModels(data, { prior: "nig", standardize: true, top: 3 });
    expect(result.standardized).toBe(true);
    expect(result.models).toHaveLength(3);
    expect(result.modelCount).toBe(16);
  });

  it("reads a CSV end to end", () => {
    const csv = parseCsv("x1,x2,y\n1,0.5,2.1\n2,0.1,3.9\n3,0.7,6.2\n4,0.2,8.1\n5,0.9,9.8\n6,0.3,12.2\n");
    const result = compareLinearModels(numericTable(csv, { target: "y" }), {
      prior: { name: "nig", v: 10, a: 1, b: 0.1 },
    });
    expect(result.models[0].inputs).toEqual(["x1"]);
  });

  it("refuses Zellner–Siow without an intercept", () => {
    expect(() => compareLinearModels(data, { prior: "zellner-siow", intercept: false })).toThrow(/intercept/);
  });
});

describe("compareLinearModels with a sampled estimator", () => {
  // A small problem: 30 rows, two inputs, subsets of at most one input (three models), a prior with
  // v = 10 on unit-scale inputs. (Under v = 10⁴ the default 32-rung ladder of path sampling carries a
  // discretisation bias that its stdErr does not include; that is path sampling's matter, not this wiring's.)
  const small = linearRegressionData({ n: 30, p: 2, weights: [1, 0.3], noiseSd: 1, seed: 11 });
  const smallData = { X: small.X, y: small.y, n: 30, p: 2, inputNames: ["u", "w"], targetName: "y" };
  const prior = {
    prior: { name: "nig", v: 10, a: 2, b: 2 },
    standardize: false,
    subsets: { max: 1 },
  } as const;
  const exact = compareLinearModels(smallData, prior);
  const exactOf = (inputs: string[]) => exact.models.find((m) => m.inputs.join() === inputs.join());

  it.each([
    ["importance", 1000],
    ["bridge", 1000],
    ["stepping-stone", 200],
    ["path", 200],
    ["ais", 50],
    ["smc", 100],
    ["cv", 400],
  ] as const)(
    "%s estimates every model's exact NIG evidence within 4 standard errors",
    (estimator, samples) => {
      const result = compareLinearModels(smallData, { ...prior, estimator, samples, seed: 7 });
      expect(result.estimator).toBe(estimator);
      expect(result.search).toBe("enumerated");
      expect(result.settings).toEqual({ seed: 7, samples, ...(estimator === "cv" ? { folds: 5 } : {}) });
      expect(result.models).toHaveLength(3);
      for (const row of result.models) {
        const truth = exactOf(row.inputs)?.logEvidence as number;
        expect(row.exactLogEvidence).toBe(truth);
        expect(row.stdErr).toBeGreaterThan(0);
        expect(Math.abs((row.logEvidence as number) - truth)).toBeLessThan(4 * (row.stdErr as number));
      }
      const errors = result.models.map((m) =>
        Math.abs((m.logEvidence as number) - (m.exactLogEvidence as number)),
      );
      expect(result.agreement).toEqual({ maxAbsError: Math.max(...errors), beyondFourStdErr: 0 });
      // Probabilities and Bayes factors come from the estimates.
      const base = result.models.find((m) => m.inputs.length === 0);
      for (const row of result.models) {
        expect(row.logBayesFactor).toBeCloseTo(
          (row.logEvidence as number) - (base?.logEvidence as number),
          10,
        );
      }
      expect(result.models.reduce((s, m) => s + m.posteriorProbability, 0)).toBeCloseTo(1, 12);
    },
  );

  it("runs Laplace on each subset's nigRegression model with the subset's own seed", () => {
    const result = compareLinearModels(smallData, { ...prior, estimator: "laplace", seed: 5 });
    const row = result.models.find((m) => m.inputs.join() === "u");
    const X = new Float64Array(30 * 2);
    for (let i = 0; i < 30; i++) {
      X[i * 2] = 1;
      X[i * 2 + 1] = small.X[i * 2];
    }
    const model = nigRegression({ X, y: small.y, n: 30, p: 2, v: 10, a: 2, b: 2 });
    const direct = estimateEvidence(model, { method: "laplace", seed: subsetSeed(5, [0]) });
    expect(row?.logEvidence).toBe(direct.logZ);
    expect(row?.stdErr).toBe(0);
    expect(result.settings).toEqual({ seed: 5 });
    // An approximation with standard error 0: every inexact value counts as beyond 4 standard errors.
    expect(result.agreement?.beyondFourStdErr).toBe(3);
  });

  it("gives a model the same estimate whatever else is compared, and another with another seed", () => {
    const one = compareLinearModels(smallData, { ...prior, estimator: "bridge", samples: 200, seed: 3 });
    const all = compareLinearModels(smallData, {
      prior: { name: "nig", v: 10, a: 2, b: 2 },
      standardize: false,
      estimator: "bridge",
      samples: 200,
      seed: 3,
    });
    const other = compareLinearModels(smallData, { ...prior, estimator: "bridge", samples: 200, seed: 4 });
    const pick = (r: typeof one) => r.models.find((m) => m.inputs.join() === "w")?.logEvidence;
    expect(pick(all)).toBe(pick(one));
    expect(pick(other)).not.toBe(pick(one));
  });

  it("derives distinct seeds for distinct subsets and seeds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 6 }),
        (seed, members) => {
          const sorted = [...members].sort((x, y) => x - y);
          const s = subsetSeed(seed, sorted);
          expect(Number.isInteger(s) && s >= 0 && s <= 0xffffffff).toBe(true);
          expect(subsetSeed(seed, sorted)).toBe(s);
          expect(subsetSeed(seed, [...sorted, 31])).not.toBe(s);
        },
      ),
    );
    expect(subsetSeed(1, [])).not.toBe(subsetSeed(2, []));
  });

  it("refuses what it cannot do, before any work", () => {
    expect(() => compareLinearModels(data, { prior: "zellner-siow", estimator: "bridge" })).toThrow(/exact/);
    expect(() => compareLinearModels(data, { samples: 100 })).toThrow(/--samples applies only/);
    expect(() => compareLinearModels(data, { prior: { name: "zellner-siow", v: 10 } as never })).toThrow(
      /prior\.v does not apply to the zellner-siow prior, which takes r \(v is a parameter of nig\)/,
    );
    expect(() => compareLinearModels(data, { prior: "g-prior", standardize: true })).toThrow(/invariant/);
    expect(() => compareLinearModels(data, { prior: "nig", estimator: "bridge", folds: 3 })).toThrow(
      /--folds applies only/,
    );
    expect(() => compareLinearModels(data, { estimator: "estimate" as unknown as "bridge" })).toThrow(
      /unknown estimator/,
    );
    // 16 models at about 10× the default sample size is 160 default-size models: over the limit of 128.
    expect(() => compareLinearModels(data, { prior: "nig", estimator: "smc", samples: 5000 })).toThrow(
      /too slow \(limit 13 models at that sample size\).*--subsets max=K/,
    );
    expect(() => compareLinearModels(data, { mcmcSteps: 100 })).toThrow(/--mcmc-steps applies only/);
  });
});

describe("compareLinearModels under the independent-precision prior", () => {
  const small = linearRegressionData({ n: 30, p: 2, weights: [1, 0], noiseSd: 0.3, seed: 9 });
  const table = { X: small.X, y: small.y, n: 30, p: 2, inputNames: ["u", "w"], targetName: "y" };
  // The model's names: shape α and scale β of the noise precision's Gamma prior, α_w and β_w the weights'.
  const hyper = { alpha: 2, beta: 1, alphaW: 2, betaW: 1 };

  it("estimates every model by stepping-stone over its Gibbs kernel, within 4 std. errors of a quadrature", () => {
    const result = compareLinearModels(table, {
      prior: { name: "independent", noise: { shape: 2, scale: 1 }, weights: { shape: 2, scale: 1 } },
      standardize: false,
      samples: 400,
      seed: 4,
    });
    expect(result.estimator).toBe("stepping-stone");
    expect(result.prior).toEqual({
      name: "independent",
      noise: { shape: hyper.alpha, scale: hyper.beta },
      weights: { shape: hyper.alphaW, scale: hyper.betaW },
      standardized: false,
    });
    expect(result.agreement).toBeUndefined();
    expect(result.modelCount).toBe(4);
    for (const model of result.models) {
      const members = model.inputs.map((name) => table.inputNames.indexOf(name));
      const k = members.length + 1;
      const Z = new Float64Array(30 * k);
      for (let i = 0; i < 30; i++) {
        Z[i * k] = 1;
        members.forEach((j, c) => {
          Z[i * k + c + 1] = small.X[i * 2 + j];
        });
      }
      const exact = independentPrecisionQuadrature(Z, small.y, 30, k, hyper, 0.05);
      expect(exact.error).toBeLessThan(1e-6);
      expect(model.stdErr).toBeGreaterThan(0);
      expect(Math.abs((model.logEvidence ?? Number.NaN) - exact.logZ)).toBeLessThan(
        4 * (model.stdErr as number),
      );
    }
    expect(result.models[0].inputs).toEqual(["u"]);
  });

  it("refuses the exact estimator and MCMC over subsets, which need a closed form", () => {
    expect(() => compareLinearModels(table, { prior: "independent", estimator: "exact" })).toThrow(
      "no closed-form evidence",
    );
    const wide = linearRegressionData({ n: 40, p: 26, noiseSd: 1, seed: 2 });
    const many = Array.from({ length: 26 }, (_, j) => `x${j}`);
    expect(() =>
      compareLinearModels(
        { X: wide.X, y: wide.y, n: 40, p: 26, inputNames: many, targetName: "y" },
        { prior: "independent" },
      ),
    ).toThrow("too many to enumerate");
  });
});

describe("compareLinearModels with too many inputs to enumerate", () => {
  const p30 = 30;
  const weights = new Array<number>(p30).fill(0);
  weights[3] = 1;
  weights[11] = -0.7;
  weights[22] = 0.5;
  const sim30 = linearRegressionData({ n: 150, p: p30, weights, noiseSd: 1, seed: 21 });
  const names30 = Array.from({ length: p30 }, (_, j) => `x${j}`);
  const data30 = { X: sim30.X, y: sim30.y, n: 150, p: p30, inputNames: names30, targetName: "y" };

  it("samples subsets by MCMC and finds the true inputs", () => {
    const result = compareLinearModels(data30, { prior: "nig", seed: 2 });
    expect(result.search).toBe("mcmc");
    expect(result.mcmc?.steps).toBe(20000);
    expect(result.modelCount).toBe(result.mcmc?.distinctModels);
    expect(result.models).toHaveLength(result.modelCount);
    for (const j of [3, 11, 22]) expect(result.inclusionProbabilities[`x${j}`]).toBeGreaterThanOrEqual(0.9);
    const noise = names30.filter((_, j) => ![3, 11, 22].includes(j));
    for (const name of noise) expect(result.inclusionProbabilities[name]).toBeLessThan(0.2);
    expect(result.medianModel).toEqual(["x3", "x11", "x22"]);
    // Renormalised exact evidences: the listed rows' probabilities sum to 1 and follow their evidences.
    expect(result.models.reduce((s, m) => s + m.posteriorProbability, 0)).toBeCloseTo(1, 10);
    const [first, second] = result.models;
    expect(Math.log(first.posteriorProbability / second.posteriorProbability)).toBeCloseTo(
      (first.logEvidence as number) - (second.logEvidence as number),
      8,
    );
    const one = compareLinearModels(
      { ...data30, p: 1, X: sim30.X.filter((_, i) => i % 30 === 0), inputNames: ["z"] },
      {},
    );
    expect(one.search).toBe("enumerated");
  });

  it("samples under Zellner–Siow too, and refuses a sampled estimator", () => {
    // A uniform prior over 2^30 models expects 15 inputs; "uniform-size" corrects for the multiplicity.
    const zs = compareLinearModels(data30, {
      prior: "zellner-siow",
      modelPrior: "uniform-size",
      seed: 3,
      mcmcSteps: 2000,
      top: 5,
    });
    expect(zs.search).toBe("mcmc");
    expect(zs.models).toHaveLength(5);
    expect(zs.models[0].logEvidence).toBeNull();
    expect(zs.models[0].inputs).toEqual(["x3", "x11", "x22"]);
    expect(() => compareLinearModels(data30, { prior: "nig", estimator: "bridge" })).toThrow(
      /too many to enumerate/,
    );
  });
});
