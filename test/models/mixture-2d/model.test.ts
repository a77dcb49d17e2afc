import { describe, expect, it } from "vitest";
import { bridgeSampling } from "../../../src/evidence/bridge-sampling.js";
import { mixture2dModel } from "../../../src/models/mixture-2d/index.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference } from "../../support/assertions.js";

/** Composite Simpson weights on an odd number of equally spaced points. */
function simpson(k: number, h: number): Float64Array {
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = ((i === 0 || i === k - 1 ? 1 : i % 2 === 1 ? 4 : 2) * h) / 3;
  return w;
}

describe("mixture2dModel", () => {
  const model = mixture2dModel();

  it("has exact log evidence log c = 3: quadrature of p(θ)L(θ) over the plane gives e³", () => {
    expect(model.exactLogEvidence()).toBe(3);
    const k = 601;
    const half = 10;
    const w = simpson(k, (2 * half) / (k - 1));
    const theta = new Float64Array(2);
    let z = 0;
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) {
        theta[0] = -half + (2 * half * i) / (k - 1);
        theta[1] = -half + (2 * half * j) / (k - 1);
        z += w[i] * w[j] * Math.exp(model.logPrior(theta) + model.logLikelihood(theta));
      }
    }
    expect(Math.abs(Math.log(z) - 3)).toBeLessThan(1e-8);
  });

  it("has log prior + log likelihood = log f, a normalised prior, and gradients matching finite differences", () => {
    const rng = createRng(1);
    const grad = new Float64Array(2);
    for (let t = 0; t < 10; t++) {
      const theta = model.samplePrior(rng);
      expect(model.logPrior(theta) + model.logLikelihood(theta)).toBeCloseTo(model.logTarget(theta), 12);
      for (const [value, gradient] of [
        [model.logPrior, model.gradLogPrior],
        [model.logLikelihood, model.gradLogLikelihood],
      ] as const) {
        expect(gradient.call(model, theta, grad)).toBeCloseTo(value.call(model, theta), 12);
        for (let j = 0; j < 2; j++) {
          const fd = centralDifference((t) => value.call(model, t), theta, j, 1e-5);
          expect(Math.abs(grad[j] - fd)).toBeLessThan(1e-6 * (1 + Math.abs(fd)));
        }
      }
    }
    // N(0, 9 I) at the origin.
    expect(model.logPrior(new Float64Array(2))).toBeCloseTo(-Math.log(2 * Math.PI * 9), 14);
  });

  it("draws the normalised target: the mixture mean w μ1 + (1 − w) μ2 within 4 standard errors", () => {
    const draws = model.samplePosterior(createRng(2), 40000);
    const expected = [0.3 * -1.5 + 0.7 * 1.5, 0.3 * 0 + 0.7 * 0.5];
    for (let j = 0; j < 2; j++) {
      const v = draws.map((t) => t[j]);
      const mean = v.reduce((s, x) => s + x, 0) / v.length;
      const sd = Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / (v.length - 1));
      expect(Math.abs(mean - expected[j])).toBeLessThan((4 * sd) / Math.sqrt(v.length));
    }
  });

  it("has a likelihood bounded in the tails (the prior is broader than both components)", () => {
    for (const r of [5, 10, 50]) {
      for (const angle of [0, 1, 2, 3, 4, 5]) {
        const theta = new Float64Array([r * Math.cos(angle), r * Math.sin(angle)]);
        expect(model.logLikelihood(theta)).toBeLessThan(model.logLikelihood(new Float64Array([1.5, 0.5])));
      }
    }
  });

  it("is a fair test problem: bridge sampling from exact target draws finds log c within 4 standard errors", () => {
    const r = bridgeSampling(model, { draws: model.samplePosterior(createRng(3), 4000), seed: 4 });
    expect(Math.abs(r.logZ - 3)).toBeLessThan(4 * r.stdErr);
  });

  it("takes other components, weight, c and prior width, and rejects bad ones", () => {
    const other = mixture2dModel({ logC: -2, weight: 0.5, priorSd: 5 });
    expect(other.exactLogEvidence()).toBe(-2);
    expect(() => mixture2dModel({ weight: 1 })).toThrow(/weight must lie in \(0, 1\)/);
    expect(() => mixture2dModel({ priorSd: 0 })).toThrow(/priorSd/);
    expect(() =>
      mixture2dModel({
        components: [
          { mean: [0, 0], covariance: [1, 2, 2, 1] },
          { mean: [1, 1], covariance: [1, 0, 0, 1] },
        ],
      }),
    ).toThrow(/component 1: .*not positive definite/);
    expect(() =>
      mixture2dModel({
        components: [
          { mean: [0, 0], covariance: [1, 0.2, 0.1, 1] },
          { mean: [1, 1], covariance: [1, 0, 0, 1] },
        ],
      }),
    ).toThrow(/not symmetric/);
  });
});
