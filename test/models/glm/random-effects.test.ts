import { describe, expect, it } from "vitest";
import { glmOutcome } from "../../../src/models/glm/family.js";
import { gMixture } from "../../../src/models/glm/g-prior.js";
import {
  type FixedEffectsPrior,
  RandomEffectsGlm,
  type RandomTermData,
} from "../../../src/models/glm/random-effects.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference } from "../../support/assertions.js";

/** A grouped binary data set: n rows in G groups, one input, η = 0.3 + 0.8 x + u_g + v_g x. */
function grouped(n: number, G: number, effects: number) {
  const rng = createRng(7);
  const x = Float64Array.from({ length: n }, () => rng.normal());
  const codes = Int32Array.from({ length: n }, (_, i) => i % G);
  const y = Float64Array.from(x, (v, i) => {
    const eta = 0.3 + 0.8 * v + 0.5 * Math.sin(codes[i]) + 0.2 * Math.cos(codes[i]) * v;
    return rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  });
  const X = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) [X[2 * i], X[2 * i + 1]] = [1, x[i]];
  const Z = new Float64Array(n * effects);
  for (let i = 0; i < n; i++) {
    for (let e = 0; e < effects; e++) Z[i * effects + e] = e === 0 ? 1 : x[i] ** e;
  }
  const term: RandomTermData = {
    name: "(x | g)",
    groups: G,
    codes,
    effects,
    Z,
    effectNames: Array.from({ length: effects }, (_, e) => (e === 0 ? "(intercept)" : `x^${e}`)),
  };
  return { design: { X, n, k: 2 }, outcome: glmOutcome("bernoulli", "logit", y), term };
}

const priors: [string, FixedEffectsPrior][] = [
  ["normal", { name: "normal", scale: 2.5 }],
  ["robust g", { name: "g", mixture: gMixture("robust", 60, 1, "test"), J: Float64Array.of(9.5) }],
];

describe("RandomEffectsGlm", () => {
  it.each(priors)("has gradients that match finite differences (%s prior)", (_, prior) => {
    const { design, outcome, term } = grouped(60, 6, 3);
    const model = new RandomEffectsGlm(design, outcome, [term], prior, ["x"]);
    const rng = createRng(3);
    const grad = new Float64Array(model.dim);
    for (let draw = 0; draw < 3; draw++) {
      const theta = model.samplePrior(rng);
      // Keep the sds moderate so that finite differences are accurate.
      for (let e = 0; e < 3; e++) theta[model.names.indexOf(`log sd ${term.effectNames[e]} (x | g)`)] *= 0.3;
      for (const [value, gradient] of [
        [(t: Float64Array) => model.logPrior(t), (t: Float64Array) => model.gradLogPrior(t, grad)],
        [(t: Float64Array) => model.logLikelihood(t), (t: Float64Array) => model.gradLogLikelihood(t, grad)],
      ] as const) {
        expect(gradient(theta)).toBeCloseTo(value(theta), 10);
        const analytic = Float64Array.from(grad);
        for (let j = 0; j < model.dim; j++) {
          const numeric = centralDifference(value, theta, j, 1e-5);
          expect(Math.abs(analytic[j] - numeric)).toBeLessThan(1e-5 * Math.max(1, Math.abs(numeric)));
        }
      }
    }
  });

  it("draws from the prior its density describes (the score has mean zero)", () => {
    const { design, outcome, term } = grouped(40, 4, 2);
    const model = new RandomEffectsGlm(design, outcome, [term], priors[1][1], ["x"]);
    const rng = createRng(11);
    const draws = 40_000;
    const mean = new Float64Array(model.dim);
    const square = new Float64Array(model.dim);
    const grad = new Float64Array(model.dim);
    for (let s = 0; s < draws; s++) {
      model.gradLogPrior(model.samplePrior(rng), grad);
      for (let j = 0; j < model.dim; j++) {
        mean[j] += grad[j] / draws;
        square[j] += (grad[j] * grad[j]) / draws;
      }
    }
    for (let j = 0; j < model.dim; j++) {
      const se = Math.sqrt((square[j] - mean[j] * mean[j]) / draws);
      expect(Math.abs(mean[j])).toBeLessThan(4 * se);
    }
  });

  it("makes the prior of three effects' correlations LKJ(1): each correlation Beta(3/2, 3/2) on (−1, 1)", () => {
    const { design, outcome, term } = grouped(30, 3, 3);
    const model = new RandomEffectsGlm(design, outcome, [term], priors[0][1], ["x"]);
    const rng = createRng(5);
    const start = model.names.indexOf("atanh partial correlation 1 (x | g)");
    const draws = 40_000;
    const moments = [0, 0, 0];
    for (let s = 0; s < draws; s++) {
      const t = model.samplePrior(rng);
      const [a, b, c] = [Math.tanh(t[start]), Math.tanh(t[start + 1]), Math.tanh(t[start + 2])];
      // Rows of L: (1), (a, √(1−a²)), (b, c √(1−b²), …).
      const rho = [a, b, a * b + Math.sqrt(1 - a * a) * c * Math.sqrt(1 - b * b)];
      for (let m = 0; m < 3; m++) moments[m] += (rho[m] * rho[m]) / draws;
    }
    // Var of Beta(3/2, 3/2) on (−1, 1) is 1/4; the sd of a mean of 40 000 squares is about 0.0008.
    for (const m of moments) expect(m).toBeCloseTo(0.25, 2);
  });

  it("has a normalised prior: one group, one effect, integrated on a grid", () => {
    const { design, outcome } = grouped(20, 1, 1);
    const term: RandomTermData = {
      name: "(1 | g)",
      groups: 1,
      codes: new Int32Array(20),
      effects: 1,
      Z: new Float64Array(20).fill(1),
      effectNames: ["(intercept)"],
    };
    const intercept = { X: Float64Array.from({ length: 20 }, () => 1), n: 20, k: 1 };
    const model = new RandomEffectsGlm(intercept, outcome, [term], { name: "normal", scale: 1.5 }, []);
    expect(model.dim).toBe(3);
    void design;
    let total = 0;
    const h = 0.15;
    const theta = new Float64Array(3);
    for (let a = -12; a <= 12; a += h) {
      for (let s = -40; s <= 20; s += h) {
        for (let z = -9; z <= 9; z += h) {
          theta[0] = a;
          theta[1] = s;
          theta[2] = z;
          total += Math.exp(model.logPrior(theta)) * h ** 3;
        }
      }
    }
    expect(total).toBeCloseTo(1, 3);
  });

  it("gives each correlation's coordinate a normalised density: uniform ρ with two effects, Beta(3/2, 3/2) with three", () => {
    // At y = atanh ρ = 0 the density is that of ρ at 0: ½ for the uniform, 2/π for Beta(3/2, 3/2) on (−1, 1).
    for (const [effects, atZero] of [
      [2, 0.5],
      [3, 2 / Math.PI],
    ] as const) {
      const { design, outcome, term } = grouped(20, 2, effects);
      const model = new RandomEffectsGlm(design, outcome, [term], priors[0][1], ["x"]);
      const j = model.names.indexOf("atanh partial correlation 1 (x | g)");
      const theta = new Float64Array(model.dim);
      const base = model.logPrior(theta);
      let integral = 0;
      const h = 0.01;
      for (let y = -20; y <= 20; y += h) {
        theta[j] = y;
        integral += Math.exp(model.logPrior(theta) - base) * h;
      }
      // ∫ p(y) dy / p(0) = 1 / p(0).
      expect(integral * atZero).toBeCloseTo(1, 6);
    }
  });
});
