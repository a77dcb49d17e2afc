import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { csvColumns, parseCsv } from "../../../src/data/csv.js";
import { formulaDesign, parseFormula } from "../../../src/data/formula.js";
import { OccamError } from "../../../src/errors.js";
import { cholesky, invertFromCholesky, logDetFromCholesky } from "../../../src/math/linalg.js";
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
      /the new rows need the column g of the random term \(1 \| g\)/,
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
    // Predictions for chick 21 at day 10 (weighed 163 g then) and for a chick not in the data.
    const dir = mkdtempSync(join(tmpdir(), "occam-"));
    const fresh = join(dir, "new.csv");
    writeFileSync(fresh, "Time,Chick,Diet\n10,21,diet2\n10,99,diet2\n");
    const predicted = await runCli([
      "compare",
      "examples/real-models/chickweight.csv",
      "--formula",
      "weight ~ Time + (Time | Chick)",
      "--predict",
      fresh,
      "--json",
    ]);
    expect(predicted.code, predicted.stderr).toBe(0);
    const [known, unseen] = JSON.parse(predicted.stdout).predictions;
    expect(known.observationLower).toBeLessThan(163);
    expect(known.observationUpper).toBeGreaterThan(163);
    expect(unseen.observationUpper - unseen.observationLower).toBeGreaterThan(
      2 * (known.observationUpper - known.observationLower),
    );
  });

  it("predicts at new rows as the dense algebra does, for a known group and a new one, under one random term and two", () => {
    const f = reference.slope;
    const n = f.columns.y.length;
    const X = Float64Array.from(f.columns.x1);
    const y = Float64Array.from(f.columns.y);
    const groups = Array.from(new Set(f.group));
    const codes = Int32Array.from(f.group, (g) => groups.indexOf(g));
    const mean = X.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(X.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    const slope: RandomTermData = {
      name: "(x1 | g)",
      groups: groups.length,
      codes,
      effects: 2,
      Z: Float64Array.from({ length: 2 * n }, (_, j) => (j % 2 === 0 ? 1 : (X[j >> 1] - mean) / sd)),
      effectNames: ["(intercept)", "x1"],
    };
    // A second, crossed grouping: rows by their position in their group.
    const crossed: RandomTermData = {
      name: "(1 | h)",
      groups: 5,
      codes: Int32Array.from({ length: n }, (_, i) => i % 5),
      effects: 1,
      Z: new Float64Array(n).fill(1),
      effectNames: ["(intercept)"],
    };
    const density = zellnerSiowDensity(n, ZELLNER_SIOW_MEDIUM_SCALE);
    const newRows = {
      rows: 2,
      X: Float64Array.from([4.2, 7.5]),
      z: [1, (4.2 - mean) / sd, 1, (7.5 - mean) / sd],
      codes: [2, -1],
    };
    for (const terms of [[slope], [slope, crossed]]) {
      const post = new LinearMixedPosterior(X, y, n, 1, terms, { kind: "mixture", density });
      const theta = Float64Array.from([3.1, 0.2, -0.6, 0.4, ...(terms.length > 1 ? [-0.3] : [])]);
      const logBF = post.logBayesFactor(theta);
      const location = new Float64Array(2);
      const scale = new Float64Array(2);
      post.predictiveAt(
        {
          rows: 2,
          X: newRows.X,
          groups: terms.map((_, j) =>
            j === 0
              ? { codes: Int32Array.from(newRows.codes), Z: Float64Array.from(newRows.z) }
              : { codes: Int32Array.from([1, 3]), Z: Float64Array.from([1, 1]) },
          ),
        },
        1,
        location,
        scale,
      );
      const dense = densePredictive(X, y, terms, theta, newRows, terms.length > 1 ? [1, 3] : undefined);
      expect(logBF).toBeCloseTo(dense.logBF, 9);
      for (let r = 0; r < 2; r++) {
        expect(location[r]).toBeCloseTo(dense.location[r], 9);
        expect(scale[r]).toBeCloseTo(dense.scale[r], 9);
      }
      // The new group's prediction is wider.
      expect(scale[1]).toBeGreaterThan(scale[0]);
    }
  });
});

/**
 * The log Bayes factor and the predictive at new rows from the whole matrix K = blockdiag(0, A/g, Σ⁻¹, …)
 * + WᵀW, inverted densely: what the block elimination must reproduce. `crossedCodes`, when given, are
 * the new rows' groups under the second (random-intercept) term.
 */
function densePredictive(
  X: Float64Array,
  y: Float64Array,
  terms: readonly RandomTermData[],
  theta: Float64Array,
  rows: { X: Float64Array; z: number[]; codes: number[] },
  crossedCodes: number[] | undefined,
): { logBF: number; location: number[]; scale: number[] } {
  const n = y.length;
  const xMean = X.reduce((a, b) => a + b, 0) / n;
  const yMean = y.reduce((a, b) => a + b, 0) / n;
  const g = Math.exp(theta[0]);
  // The slope term's Σ from (log s0, log s1, atanh ρ); the crossed term's s from theta[4].
  const [s0, s1, rho] = [Math.exp(theta[1]), Math.exp(theta[2]), Math.tanh(theta[3])];
  const sigma = [s0 * s0, rho * s0 * s1, rho * s0 * s1, s1 * s1];
  const det = sigma[0] * sigma[3] - sigma[1] * sigma[2];
  const sigmaInv = [sigma[3] / det, -sigma[1] / det, -sigma[2] / det, sigma[0] / det];
  const q = terms.reduce((a, t) => a + t.groups * t.effects, 0);
  const m = 2 + q;
  const rowOf = (i: number) => {
    const w = new Float64Array(m);
    w[0] = 1;
    w[1] = X[i] - xMean;
    let column = 2;
    for (const t of terms) {
      for (let e = 0; e < t.effects; e++) w[column + t.codes[i] * t.effects + e] = t.Z[i * t.effects + e];
      column += t.groups * t.effects;
    }
    return w;
  };
  const K = new Float64Array(m * m);
  const b = new Float64Array(m);
  let tss = 0;
  for (let i = 0; i < n; i++) {
    const w = rowOf(i);
    for (let a = 0; a < m; a++) {
      b[a] += w[a] * (y[i] - yMean);
      for (let c = 0; c < m; c++) K[a * m + c] += w[a] * w[c];
    }
    tss += (y[i] - yMean) ** 2;
  }
  const A = K[m + 1];
  K[m + 1] += A / g;
  let logDetD = Math.log(g) - Math.log(A);
  const first = terms[0];
  for (let j = 0; j < first.groups; j++) {
    const at = 2 + 2 * j;
    for (let a = 0; a < 2; a++) for (let c = 0; c < 2; c++) K[(at + a) * m + at + c] += sigmaInv[a * 2 + c];
    logDetD += Math.log(det);
  }
  const sCrossed = terms.length > 1 ? Math.exp(theta[4]) : 0;
  if (terms.length > 1) {
    const at = 2 + 2 * first.groups;
    for (let j = 0; j < terms[1].groups; j++) {
      K[(at + j) * m + at + j] += 1 / (sCrossed * sCrossed);
      logDetD += 2 * Math.log(sCrossed);
    }
  }
  const L = cholesky(K, m);
  const inverse = invertFromCholesky(L, m);
  const gamma = new Float64Array(m);
  for (let a = 0; a < m; a++) for (let c = 0; c < m; c++) gamma[a] += inverse[a * m + c] * b[c];
  let explained = 0;
  for (let a = 0; a < m; a++) explained += b[a] * gamma[a];
  const Q = tss - explained;
  const logBF =
    -0.5 * logDetD - 0.5 * (logDetFromCholesky(L, m) - Math.log(n)) - 0.5 * (n - 1) * Math.log(Q / tss);
  const location: number[] = [];
  const scale: number[] = [];
  for (let r = 0; r < rows.codes.length; r++) {
    const w = new Float64Array(m);
    w[0] = 1;
    w[1] = rows.X[r] - xMean;
    let extra = 1;
    const z = [rows.z[2 * r], rows.z[2 * r + 1]];
    if (rows.codes[r] >= 0) {
      for (let e = 0; e < 2; e++) w[2 + 2 * rows.codes[r] + e] = z[e];
    } else {
      extra += z[0] * z[0] * sigma[0] + 2 * z[0] * z[1] * sigma[1] + z[1] * z[1] * sigma[3];
    }
    if (crossedCodes !== undefined) w[2 + 2 * first.groups + crossedCodes[r]] = 1;
    let loc = yMean;
    let quad = 0;
    for (let a = 0; a < m; a++) {
      loc += w[a] * gamma[a];
      for (let c = 0; c < m; c++) quad += w[a] * inverse[a * m + c] * w[c];
    }
    location.push(loc);
    scale.push(Math.sqrt((Q / (n - 1)) * (extra + quad)));
  }
  return { logBF, location, scale };
}
