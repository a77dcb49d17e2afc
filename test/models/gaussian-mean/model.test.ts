import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../../src/errors.js";
import { logSumExp } from "../../../src/math/logspace.js";
import { gaussianMeanModel } from "../../../src/models/gaussian-mean/index.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference } from "../../support/assertions.js";

const LOG_TWO_PI = Math.log(2 * Math.PI);

describe("gaussianMeanModel", () => {
  it("generates the same data from the same seed and different data from another", () => {
    const a = gaussianMeanModel({ dim: 3, n: 5, seed: 4 });
    const b = gaussianMeanModel({ dim: 3, n: 5, seed: 4 });
    const c = gaussianMeanModel({ dim: 3, n: 5, seed: 5 });
    expect(Array.from(a.data)).toEqual(Array.from(b.data));
    expect(Array.from(a.data)).not.toEqual(Array.from(c.data));
    expect(a.data.length).toBe(15);
    expect(a.exactLogEvidence()).toBe(b.exactLogEvidence());
  });

  it("satisfies Bayes' rule exactly: log p(θ) + log L(θ) − log p(θ | D) = log Z at every θ", () => {
    // The identity holds only if prior, likelihood, posterior and evidence are all right, constants included.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0.2, max: 5, noNaN: true }),
        fc.double({ min: 0.2, max: 5, noNaN: true }),
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        (dim, n, sigma, priorSd, priorMean, seed) => {
          const model = gaussianMeanModel({ dim, n, sigma, priorSd, priorMean, seed });
          const { mean, sd } = model.posterior();
          const rng = createRng(seed);
          for (let rep = 0; rep < 3; rep++) {
            const theta = new Float64Array(dim);
            let q = 0;
            for (let j = 0; j < dim; j++) {
              theta[j] = mean[j] + 2 * sd * rng.normal();
              q += ((theta[j] - mean[j]) / sd) ** 2;
            }
            const logPost = -0.5 * dim * LOG_TWO_PI - dim * Math.log(sd) - 0.5 * q;
            const lhs = model.logPrior(theta) + model.logLikelihood(theta) - logPost;
            const exact = model.exactLogEvidence();
            expect(Math.abs(lhs - exact)).toBeLessThan(1e-9 * (1 + Math.abs(exact)));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("matches the evidence by numerical quadrature in d = 1", () => {
    const model = gaussianMeanModel({ dim: 1, n: 12, sigma: 0.7, priorSd: 2, priorMean: 0.5, seed: 9 });
    const { mean, sd } = model.posterior();
    // Trapezoid rule over ±12 posterior sd: the integrand is smooth and negligible at the ends, so the
    // rule is accurate to far below 1e-8 with 4001 points.
    const m = 4001;
    const h = (24 * sd) / (m - 1);
    const logIntegrand = new Float64Array(m);
    const theta = new Float64Array(1);
    for (let i = 0; i < m; i++) {
      theta[0] = mean[0] - 12 * sd + i * h;
      logIntegrand[i] = model.logPrior(theta) + model.logLikelihood(theta);
    }
    const logZ = logSumExp(logIntegrand) + Math.log(h);
    expect(Math.abs(logZ - model.exactLogEvidence())).toBeLessThan(1e-8);
  });

  it("has gradients equal to central differences and a pointwise likelihood that sums to the total", () => {
    const model = gaussianMeanModel({ dim: 4, n: 7, sigma: 1.3, priorSd: 0.8, seed: 2 });
    const theta = new Float64Array([0.3, -0.2, 1.1, 0.4]);
    const gp = new Float64Array(4);
    const gl = new Float64Array(4);
    expect(model.gradLogPrior(theta, gp)).toBe(model.logPrior(theta));
    expect(model.gradLogLikelihood(theta, gl)).toBeCloseTo(model.logLikelihood(theta), 12);
    const h = 1e-5;
    for (let j = 0; j < 4; j++) {
      // Central differences of a quadratic are exact up to rounding (≈ ε |f| / h ≈ 1e-9 here).
      expect(gp[j]).toBeCloseTo(
        centralDifference((t) => model.logPrior(t), theta, j, h),
        6,
      );
      expect(gl[j]).toBeCloseTo(
        centralDifference((t) => model.logLikelihood(t), theta, j, h),
        6,
      );
    }
    const pointwise = new Float64Array(7);
    model.logLikelihoodPointwise(theta, pointwise);
    expect(pointwise.reduce((a, b) => a + b, 0)).toBeCloseTo(model.logLikelihood(theta), 10);
  });

  it("samples the exact posterior: sample moments within 4 standard errors", () => {
    const model = gaussianMeanModel({ dim: 3, n: 10, seed: 6 });
    const { mean, sd } = model.posterior();
    const n = 4000;
    const draws = model.samplePosterior(createRng(1), n);
    for (let j = 0; j < 3; j++) {
      let s = 0;
      let ss = 0;
      for (const x of draws) s += x[j];
      const m = s / n;
      for (const x of draws) ss += (x[j] - m) ** 2;
      const v = ss / (n - 1);
      expect(Math.abs(m - mean[j])).toBeLessThan((4 * sd) / Math.sqrt(n));
      // Var(sample variance) = 2σ⁴/(n − 1) for normal data.
      expect(Math.abs(v - sd * sd)).toBeLessThan(4 * sd * sd * Math.sqrt(2 / (n - 1)));
    }
  });

  it("accepts given data and rejects bad options", () => {
    const model = gaussianMeanModel({ dim: 2, data: [1, 2, 3, 4, 5, 6] });
    expect(model.n).toBe(3);
    expect(Number.isNaN(model.trueMean[0])).toBe(true);
    expect(() => gaussianMeanModel({ dim: 2, data: [1, 2, 3] })).toThrow(OccamError);
    expect(() => gaussianMeanModel({ dim: 0 })).toThrow(/dim/);
    expect(() => gaussianMeanModel({ sigma: -1 })).toThrow(/sigma/);
    expect(() => gaussianMeanModel({ priorSd: 0 })).toThrow(/priorSd/);
    expect(() => gaussianMeanModel({ n: 2.5 })).toThrow(/n must be/);
    expect(() => gaussianMeanModel({ dim: 2, trueMean: [1] })).toThrow(/trueMean/);
    expect(() => model.logLikelihood(new Float64Array(3))).toThrow(/length 3/);
  });
});
