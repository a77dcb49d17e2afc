import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { buildGaussianGibbsUpdates } from "../../src/samplers/gaussian-gibbs.js";
import { buildGibbsKernel, type GibbsUpdate } from "../../src/samplers/gibbs.js";
import { runChain } from "../../src/samplers/run.js";
import { failures, gaussianTarget, momentChecks } from "./targets.js";

describe("buildGibbsKernel", () => {
  it("applies the updates in order to a copy and never mutates the previous state", () => {
    const order: number[] = [];
    const updates: GibbsUpdate[] = [
      (_rng, x) => {
        order.push(0);
        x[0] = x[1] + 1;
      },
      (_rng, x) => {
        order.push(1);
        x[1] = x[0] * 2;
      },
    ];
    const kernel = buildGibbsKernel({ dim: 2, updates, logDensity: (x) => -x[0] - x[1] });
    const s0 = kernel.init(new Float64Array([0, 0]));
    const { state, info } = kernel.step(createRng(1), s0);
    expect(order).toEqual([0, 1]);
    expect(Array.from(state.position)).toEqual([1, 2]);
    expect(state.logDensity).toBe(-3);
    expect(Array.from(s0.position)).toEqual([0, 0]);
    expect(info).toEqual({ accepted: true, acceptProbability: 1, evaluations: 1 });
    const noDensity = buildGibbsKernel({ dim: 2, updates });
    expect(noDensity.step(createRng(1), noDensity.init(new Float64Array(2))).info.evaluations).toBe(0);
  });

  it("throws when a sweep produces a non-finite coordinate or log density", () => {
    const nan = buildGibbsKernel({
      dim: 1,
      updates: [
        (_r, x) => {
          x[0] = Number.NaN;
        },
      ],
    });
    expect(() => nan.step(createRng(2), nan.init(new Float64Array(1)))).toThrow(/non-finite coordinate/);
    const outside = buildGibbsKernel({
      dim: 1,
      updates: [
        (_r, x) => {
          x[0] = -1;
        },
      ],
      logDensity: (x) => (x[0] < 0 ? Number.NEGATIVE_INFINITY : 0),
    });
    expect(() => outside.step(createRng(2), outside.init(new Float64Array([1])))).toThrow(OccamError);
  });

  it("validates its options", () => {
    expect(() => buildGibbsKernel({ dim: 0, updates: [() => {}] })).toThrow(OccamError);
    expect(() => buildGibbsKernel({ dim: 1, updates: [] })).toThrow(OccamError);
    expect(() => buildGibbsKernel({ dim: 1, updates: [1 as unknown as GibbsUpdate] })).toThrow(
      /updates\[0\]/,
    );
    expect(() => buildGibbsKernel({ dim: 2, updates: [() => {}] }).init(new Float64Array(3))).toThrow(
      OccamError,
    );
  });
});

describe("buildGaussianGibbsUpdates", () => {
  const mean = new Float64Array([1, -1, 2]);
  const covariance = new Float64Array([2, 0.8, 0.3, 0.8, 1, -0.4, 0.3, -0.4, 1.5]);

  it("draws x_i from its exact full conditional (Schur complement), within 4 standard errors", () => {
    // For coordinate 0 given (x1, x2): mean μ0 + Σ01,2 Σ_{12,12}⁻¹ (x − μ), variance Σ00 − Σ0,12 Σ⁻¹ Σ12,0.
    const updates = buildGaussianGibbsUpdates({ mean, covariance });
    const s = [covariance[4], covariance[5], covariance[7], covariance[8]];
    const det = s[0] * s[3] - s[1] * s[2];
    const inv = [s[3] / det, -s[1] / det, -s[2] / det, s[0] / det];
    const c = [covariance[1], covariance[2]];
    const given = [0.5, 3];
    const dev = [given[0] - mean[1], given[1] - mean[2]];
    const w = [c[0] * inv[0] + c[1] * inv[2], c[0] * inv[1] + c[1] * inv[3]];
    const condMean = mean[0] + w[0] * dev[0] + w[1] * dev[1];
    const condVar = covariance[0] - (w[0] * c[0] + w[1] * c[1]);
    const rng = createRng(3);
    const n = 20_000;
    let sum = 0;
    let ss = 0;
    const x = new Float64Array(3);
    let touchedOthers = 0;
    for (let k = 0; k < n; k++) {
      x.set([99, given[0], given[1]]);
      updates[0](rng, x);
      if (x[1] !== given[0] || x[2] !== given[1]) touchedOthers++;
      sum += x[0];
      ss += (x[0] - condMean) ** 2;
    }
    expect(touchedOthers).toBe(0);
    expect(Math.abs(sum / n - condMean)).toBeLessThan(4 * Math.sqrt(condVar / n));
    expect(Math.abs(ss / n - condVar)).toBeLessThan(4 * condVar * Math.sqrt(2 / n));
  });

  it("samples the joint normal by systematic scan, from covariance or precision alike", () => {
    const target = gaussianTarget(mean, covariance);
    const variances = new Float64Array([2, 1, 1.5]);
    for (const updates of [
      buildGaussianGibbsUpdates({ mean, covariance }),
      buildGaussianGibbsUpdates({ mean, precision: target.precision }),
    ]) {
      const draws = runChain(buildGibbsKernel({ dim: 3, updates, logDensity: target.logDensity }), {
        draws: 4000,
        warmup: 100,
        chains: 2,
        seed: 4,
        initial: new Float64Array(3),
      });
      expect(failures(momentChecks((j) => draws.chains(j), 3, mean, variances))).toEqual([]);
    }
  });

  it("rejects bad matrices", () => {
    expect(() => buildGaussianGibbsUpdates({ mean, covariance: new Float64Array(4) })).toThrow(/length 9/);
    expect(() => buildGaussianGibbsUpdates({ mean, covariance, precision: covariance })).toThrow(
      /exactly one/,
    );
    expect(() => buildGaussianGibbsUpdates({ mean })).toThrow(/exactly one/);
    const asymmetric = Float64Array.from(covariance);
    asymmetric[1] = 0.7;
    expect(() => buildGaussianGibbsUpdates({ mean, covariance: asymmetric })).toThrow(/symmetric/);
    const indefinite = new Float64Array([1, 2, 0, 2, 1, 0, 0, 0, 1]);
    expect(() => buildGaussianGibbsUpdates({ mean, covariance: indefinite })).toThrow(OccamError);
    try {
      buildGaussianGibbsUpdates({ mean, covariance: indefinite });
    } catch (e) {
      expect((e as OccamError).code).toBe("not-positive-definite");
    }
  });
});
