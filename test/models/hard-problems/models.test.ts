import { describe, expect, it } from "vitest";
import { defineModel } from "../../../src/model/model.js";
import {
  correlatedMean,
  HARD_PROBLEM_NAMES,
  type HardProblemName,
  hardProblem,
} from "../../../src/models/hard-problems/index.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference, thrown } from "../../support/assertions.js";

type PriorSpec = { kind: "box"; lower: number; upper: number } | { kind: "normal"; sd: number };

/** What each problem's prior is, written out independently of the source. */
const PRIORS: Record<HardProblemName, PriorSpec> = {
  eggbox: { kind: "box", lower: 0, upper: 10 * Math.PI },
  "shells-d2": { kind: "box", lower: -6, upper: 6 },
  "shells-d5": { kind: "box", lower: -6, upper: 6 },
  "shells-d10": { kind: "box", lower: -6, upper: 6 },
  "correlated-box-d20": { kind: "box", lower: -10, upper: 10 },
  "correlated-box-d50": { kind: "box", lower: -10, upper: 10 },
  "correlated-normal-d20": { kind: "normal", sd: 3 },
  "correlated-normal-d50": { kind: "normal", sd: 3 },
  "mixture-d5": { kind: "box", lower: -10, upper: 10 },
  "mixture-d10": { kind: "box", lower: -10, upper: 10 },
  "funnel-d10": { kind: "normal", sd: 10 },
  rosenbrock: { kind: "box", lower: -5, upper: 5 },
  "logistic-pima": { kind: "normal", sd: 2.5 },
};

const PIMA_MODE = [-0.947, 0.345, 1.008, -0.052, -0.018, 0.505, 0.553, 0.449];

/** Points on or next to each problem's modes, where the gradients are steep or curved. */
function nearModes(name: HardProblemName, dim: number): Float64Array[] {
  const fill = (f: (j: number) => number) => Float64Array.from({ length: dim }, (_, j) => f(j));
  if (name === "eggbox") {
    return [
      new Float64Array([4 * Math.PI + 0.01, 4 * Math.PI - 0.02]),
      new Float64Array([2.03 * Math.PI, 5.99 * Math.PI]),
    ];
  }
  if (name.startsWith("shells")) {
    // Just off the shell around c1 = (−3.5, 0, …), and inside shell c2 near its centre.
    return [
      fill((j) => (j === 0 ? -3.5 + 1.3 : j === 1 ? 1.55 : 0.01 * j)),
      fill((j) => (j === 0 ? 3.5 + 0.01 : 0.02)),
    ];
  }
  if (name.startsWith("correlated")) {
    const mu = correlatedMean(dim);
    return [fill((j) => mu[j] + 0.1 * Math.cos(j)), fill((j) => mu[j] - 0.3)];
  }
  if (name.startsWith("mixture")) return [fill((j) => -4 + 0.1 * Math.sin(j)), fill((j) => 4 - 0.05 * j)];
  if (name === "funnel-d10")
    return [fill((j) => (j === 0 ? -2 : 0.2 * Math.sin(j))), fill((j) => (j === 0 ? 2 : 1 - 0.1 * j))];
  if (name === "rosenbrock") return [new Float64Array([1.01, 0.99]), new Float64Array([-0.5, 0.26])];
  return [fill((j) => PIMA_MODE[j] + 0.01), fill((j) => PIMA_MODE[j] - 0.05 * Math.cos(j))];
}

/** ∇f by central differences against the analytic gradient, to 1e-6 relative (step 1e-5: error ~1e-9). */
function expectGradient(
  value: (theta: Float64Array) => number,
  gradient: (theta: Float64Array, grad: Float64Array) => number,
  theta: Float64Array,
): void {
  const grad = new Float64Array(theta.length);
  expect(gradient(theta, grad)).toBeCloseTo(value(theta), 9);
  for (let j = 0; j < theta.length; j++) {
    const fd = centralDifference(value, theta, j, 1e-5 * Math.max(1, Math.abs(theta[j])));
    expect(Math.abs(grad[j] - fd)).toBeLessThan(1e-6 * (1 + Math.abs(fd)));
  }
}

describe.each(HARD_PROBLEM_NAMES.map((name) => [name]))("hard problem %s", (name) => {
  const problem = hardProblem(name);
  const { model } = problem;
  const spec = PRIORS[name];
  const d = model.dim;

  it("is a valid model with names, both gradients, and bounds exactly when the prior is a box", () => {
    expect(problem.name).toBe(name);
    expect(() => defineModel(model, { checkDraws: 20, checkSeed: 3 })).not.toThrow();
    expect(model.names?.length).toBe(d);
    expect(typeof model.gradLogPrior).toBe("function");
    expect(typeof model.gradLogLikelihood).toBe("function");
    expect(Number.isFinite(problem.logZ) && problem.logZError > 0).toBe(true);
    expect(problem.description).not.toMatch(/\n/);
    expect(problem.reference).not.toMatch(/\n/);
    if (spec.kind === "box") {
      expect(Array.from(model.bounds?.lower ?? [])).toEqual(new Array(d).fill(spec.lower));
      expect(Array.from(model.bounds?.upper ?? [])).toEqual(new Array(d).fill(spec.upper));
    } else {
      expect(model.bounds).toBeUndefined();
    }
    expect(thrown(() => model.logLikelihood(new Float64Array(d + 1))).code).toBe("dimension-mismatch");
  });

  it("has a normalised prior", () => {
    const rng = createRng(11);
    const grad = new Float64Array(d);
    for (let t = 0; t < 5; t++) {
      const theta = model.samplePrior(rng);
      if (spec.kind === "box") {
        const expected = -d * Math.log(spec.upper - spec.lower);
        expect(model.logPrior(theta)).toBeCloseTo(expected, 12);
        expect(model.gradLogPrior?.(theta, grad)).toBeCloseTo(expected, 12);
        expect(Array.from(grad)).toEqual(new Array(d).fill(0));
        const outside = Float64Array.from(theta);
        outside[d - 1] = spec.upper + 1e-9;
        expect(model.logPrior(outside)).toBe(Number.NEGATIVE_INFINITY);
        outside[d - 1] = spec.lower - 1e-9;
        expect(model.logPrior(outside)).toBe(Number.NEGATIVE_INFINITY);
      } else {
        let expected = 0;
        for (const x of theta)
          expected += -0.5 * Math.log(2 * Math.PI * spec.sd ** 2) - (x * x) / (2 * spec.sd ** 2);
        expect(model.logPrior(theta)).toBeCloseTo(expected, 10);
      }
    }
  });

  it("draws from the prior: inside the bounds, with the prior's mean and variance per coordinate", () => {
    const n = 4000;
    const rng = createRng(12);
    const sum = new Float64Array(d);
    const sumSq = new Float64Array(d);
    const center = spec.kind === "box" ? (spec.lower + spec.upper) / 2 : 0;
    let outside = 0;
    for (let t = 0; t < n; t++) {
      const theta = model.samplePrior(rng);
      for (let j = 0; j < d; j++) {
        if (spec.kind === "box" && !(theta[j] > spec.lower && theta[j] < spec.upper)) outside++;
        const x = theta[j] - center;
        sum[j] += x;
        sumSq[j] += x * x;
      }
    }
    // Variance σ² and fourth central moment μ4: uniform w²/12, w⁴/80; normal s², 3 s⁴.
    const variance = spec.kind === "box" ? (spec.upper - spec.lower) ** 2 / 12 : spec.sd ** 2;
    const mu4 = spec.kind === "box" ? (spec.upper - spec.lower) ** 4 / 80 : 3 * spec.sd ** 4;
    // 5 standard errors per coordinate: a false alarm somewhere in the suite has probability < 1e-3.
    expect(outside).toBe(0);
    let worstMean = 0;
    let worstVariance = 0;
    for (let j = 0; j < d; j++) {
      worstMean = Math.max(worstMean, Math.abs(sum[j] / n) / Math.sqrt(variance / n));
      worstVariance = Math.max(
        worstVariance,
        Math.abs(sumSq[j] / n - variance) / Math.sqrt((mu4 - variance ** 2) / n),
      );
    }
    expect(worstMean).toBeLessThan(5);
    expect(worstVariance).toBeLessThan(5);
  });

  it("maps uniform points of the cube onto the prior with priorTransform (mean and variance per coordinate)", () => {
    const transform = model.priorTransform;
    expect(typeof transform).toBe("function");
    if (transform === undefined) return;
    const n = 4000;
    const rng = createRng(14);
    const u = new Float64Array(d);
    const out = new Float64Array(d);
    const sum = new Float64Array(d);
    const sumSq = new Float64Array(d);
    const center = spec.kind === "box" ? (spec.lower + spec.upper) / 2 : 0;
    let outside = 0;
    for (let t = 0; t < n; t++) {
      for (let j = 0; j < d; j++) u[j] = 1 - rng.uniform();
      const theta = transform.call(model, u, out);
      expect(theta).toBe(out);
      if (!Number.isFinite(model.logPrior(theta))) outside++;
      for (let j = 0; j < d; j++) {
        const x = theta[j] - center;
        sum[j] += x;
        sumSq[j] += x * x;
      }
    }
    expect(outside).toBe(0);
    const variance = spec.kind === "box" ? (spec.upper - spec.lower) ** 2 / 12 : spec.sd ** 2;
    const mu4 = spec.kind === "box" ? (spec.upper - spec.lower) ** 4 / 80 : 3 * spec.sd ** 4;
    for (let j = 0; j < d; j++) {
      expect(Math.abs(sum[j] / n) / Math.sqrt(variance / n)).toBeLessThan(5);
      expect(Math.abs(sumSq[j] / n - variance) / Math.sqrt((mu4 - variance ** 2) / n)).toBeLessThan(5);
    }
    // The cube's centre is the prior's median, and its corners stay inside the support.
    const half = transform.call(model, new Float64Array(d).fill(0.5), out);
    for (let j = 0; j < d; j++) expect(half[j]).toBeCloseTo(center, 12);
    expect(
      Number.isFinite(model.logPrior(transform.call(model, new Float64Array(d).fill(1e-300), out))),
    ).toBe(true);
    expect(
      Number.isFinite(model.logPrior(transform.call(model, new Float64Array(d).fill(1 - 1e-16), out))),
    ).toBe(true);
  });

  it("has gradients matching central differences at prior draws and near the modes", () => {
    const rng = createRng(13);
    const points = [model.samplePrior(rng), model.samplePrior(rng), ...nearModes(name, d)];
    for (const theta of points) {
      expect(Number.isFinite(model.logLikelihood(theta))).toBe(true);
      expectGradient(
        (x) => model.logLikelihood(x),
        (x, g) => model.gradLogLikelihood?.(x, g) ?? Number.NaN,
        theta,
      );
      if (spec.kind === "normal") {
        expectGradient(
          (x) => model.logPrior(x),
          (x, g) => model.gradLogPrior?.(x, g) ?? Number.NaN,
          theta,
        );
      }
    }
  });
});

describe("hardProblem", () => {
  it("lists the thirteen problems and rejects an unknown name, listing them", () => {
    expect(HARD_PROBLEM_NAMES.length).toBe(13);
    expect(new Set(HARD_PROBLEM_NAMES).size).toBe(13);
    const error = thrown(() => hardProblem("eggbox2" as HardProblemName));
    expect(error.code).toBe("invalid-argument");
    for (const name of HARD_PROBLEM_NAMES) expect(error.message).toContain(name);
    expect(thrown(() => hardProblem("toString" as HardProblemName)).code).toBe("invalid-argument");
  });

  it("gives a finite zero gradient contribution at a shell's centre, where |θ − c| has no gradient", () => {
    const { model } = hardProblem("shells-d5");
    const centre = new Float64Array([-3.5, 0, 0, 0, 0]);
    const grad = new Float64Array(5);
    const value = model.gradLogLikelihood?.(centre, grad) ?? Number.NaN;
    expect(value).toBeCloseTo(model.logLikelihood(centre), 12);
    // The other shell's share at this point is e^{−(7 − 2)²/0.02 + (2)²/0.02} = 0 in double precision.
    expect(grad.every((g) => g === 0)).toBe(true);
  });
});
