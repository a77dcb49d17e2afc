import { describe, expect, it } from "vitest";
import { type BayesModel, defineModel } from "../../src/model/model.js";
import { unbounded } from "../../src/model/transform.js";
import { createRng } from "../../src/random/rng.js";
import type { Kernel, PositionState, StepInfo } from "../../src/samplers/kernel.js";
import { centralDifference, thrown } from "../support/assertions.js";

/**
 * θ1 uniform on (1, 4) (both bounds), θ2 exponential(rate 2) on (0, ∞) (lower bound), θ3 = −Exp(1)
 * on (−∞, 0) (upper bound), θ4 ~ N(0, 1) unbounded; L(θ) = exp(−Σ (θ_j − 0.5 j)² / 2).
 */
function boundedModel(): BayesModel {
  const logLik = (t: Float64Array) => {
    let s = 0;
    for (let j = 0; j < 4; j++) s -= 0.5 * (t[j] - 0.5 * j) ** 2;
    return s;
  };
  const logPrior = (t: Float64Array) =>
    t[0] > 1 && t[0] < 4 && t[1] > 0 && t[2] < 0
      ? -Math.log(3) + Math.log(2) - 2 * t[1] + t[2] - 0.5 * (Math.log(2 * Math.PI) + t[3] * t[3])
      : Number.NEGATIVE_INFINITY;
  return defineModel({
    dim: 4,
    bounds: { lower: [1, 0, -Infinity, -Infinity], upper: [4, Infinity, 0, Infinity] },
    logPrior,
    logLikelihood: logLik,
    samplePrior: (rng) =>
      Float64Array.of(
        1 + 3 * rng.uniform(),
        -Math.log(1 - rng.uniform()) / 2,
        Math.log(1 - rng.uniform()),
        rng.normal(),
      ),
    gradLogPrior: (t, g) => {
      g[0] = 0;
      g[1] = -2;
      g[2] = 1;
      g[3] = -t[3];
      return logPrior(t);
    },
    gradLogLikelihood: (t, g) => {
      for (let j = 0; j < 4; j++) g[j] = -(t[j] - 0.5 * j);
      return logLik(t);
    },
  });
}

describe("unbounded", () => {
  const view = unbounded(boundedModel());
  const m = view.model;

  it("maps each kind of bound back and forth", () => {
    const theta = Float64Array.of(3.9, 0.01, -5, 2);
    const eta = view.toUnbounded(theta);
    expect(Array.from(view.toBounded(eta))).toEqual(Array.from(theta).map((v) => expect.closeTo(v, 12)));
    expect(eta[3]).toBe(2);
    const far = view.toBounded(Float64Array.of(-30, -30, 30, 0));
    expect(far[0]).toBeGreaterThan(1);
    expect(far[1]).toBeGreaterThan(0);
  });

  it("keeps the evidence: ∫ p L over η equals ∫ p L over θ for each kind of bound", () => {
    // One-dimensional models: prior on (a, b) (a uniform, an exponential or a reflected exponential)
    // and L(θ) = exp(−(θ − 0.7)²/2); both integrals by the midpoint rule on a fine grid.
    const cases: [number, number, (t: number) => number, number, number, number, number][] = [
      [1, 4, () => -Math.log(3), 1, 4, -25, 25],
      [0, Infinity, (t) => Math.log(2) - 2 * t, 0, 40, -40, 5],
      [-Infinity, 0, (t) => t, -40, 0, -40, 5],
    ];
    for (const [a, b, logPrior, t0, t1, e0, e1] of cases) {
      const model = defineModel({
        dim: 1,
        bounds: { lower: [a], upper: [b] },
        logPrior: (t) => (t[0] > a && t[0] < b ? logPrior(t[0]) : Number.NEGATIVE_INFINITY),
        logLikelihood: (t) => -0.5 * (t[0] - 0.7) ** 2,
        // Only defineModel's checks draw from it: any point inside the bounds will do.
        samplePrior: (rng) =>
          Float64Array.of(Number.isFinite(a) ? a + 0.5 + rng.uniform() : b - 0.5 - rng.uniform()),
      });
      const eta = unbounded(model).model;
      const integral = (m: BayesModel, lo: number, hi: number) => {
        const n = 200000;
        let s = 0;
        for (let i = 0; i < n; i++) {
          const x = Float64Array.of(lo + ((i + 0.5) / n) * (hi - lo));
          const v = m.logPrior(x) + m.logLikelihood(x);
          if (v > Number.NEGATIVE_INFINITY) s += Math.exp(v);
        }
        return (s * (hi - lo)) / n;
      };
      expect(integral(eta, e0, e1)).toBeCloseTo(integral(model, t0, t1), 7);
    }
  });

  it("gives gradients that match finite differences of the transformed densities", () => {
    const rng = createRng(3);
    const g = new Float64Array(4);
    for (let k = 0; k < 5; k++) {
      const eta = m.samplePrior(rng);
      for (const [value, gradient] of [
        [m.logPrior, m.gradLogPrior],
        [m.logLikelihood, m.gradLogLikelihood],
      ] as const) {
        const v = gradient?.call(m, eta, g);
        expect(v).toBeCloseTo(value.call(m, eta), 12);
        for (let j = 0; j < 4; j++) {
          expect(g[j]).toBeCloseTo(
            centralDifference((t) => value.call(m, t), eta, j, 1e-6),
            5,
          );
        }
      }
    }
  });

  it("sums the log Jacobian of 3000 interval coordinates, past where one product of its factors would overflow", () => {
    // Each factor 1 + e^{−|η|} is close to 2 at η ≈ 0, so the product of 3000 is about 2^3000.
    const d = 3000;
    const box = defineModel({
      dim: d,
      bounds: { lower: new Array(d).fill(-1), upper: new Array(d).fill(1) },
      logPrior: () => -d * Math.log(2),
      logLikelihood: () => 0,
      samplePrior: (rng) => Float64Array.from({ length: d }, () => 2 * rng.uniform() - 1),
    });
    const eta = Float64Array.from({ length: d }, (_, j) => 0.01 * Math.sin(j));
    // log dθ/dη = log 2 + log σ(η) + log σ(−η), summed with log1p term by term.
    let expected = -d * Math.log(2);
    for (const e of eta) expected += Math.log(2) - Math.abs(e) - 2 * Math.log1p(Math.exp(-Math.abs(e)));
    const logPrior = unbounded(box).model.logPrior(eta);
    expect(Number.isFinite(logPrior)).toBe(true);
    expect(Math.abs(logPrior - expected)).toBeLessThan(1e-9 * Math.abs(expected));
  });

  it("returns a model without bounds as it is", () => {
    const plain = defineModel({
      ...boundedModel(),
      bounds: undefined,
      logPrior: () => 0,
      gradLogPrior: undefined,
    });
    const v = unbounded(plain);
    expect(v.identity).toBe(true);
    expect(v.model).toBe(plain);
  });

  it("refuses a point on or outside the bounds, naming the coordinate", () => {
    expect(thrown(() => view.toUnbounded(Float64Array.of(4, 1, -1, 0))).message).toMatch(/coordinate 0 = 4/);
    expect(thrown(() => view.toUnbounded(Float64Array.of(2, -1, -1, 0))).message).toMatch(
      /coordinate 1 = -1/,
    );
  });

  it("wraps an exact kernel so that it keeps working on the bounded scale", () => {
    const seen: number[] = [];
    const kernel: Kernel<PositionState, StepInfo> = {
      init: (theta) => {
        seen.push(theta[0]);
        return { position: Float64Array.from(theta), logDensity: 0 };
      },
      step: (rng) => ({
        state: { position: Float64Array.of(1 + 3 * rng.uniform(), 1, -1, 0), logDensity: 0 },
        info: { accepted: true, acceptProbability: 1, evaluations: 1 },
      }),
    };
    const withKernel = unbounded(defineModel({ ...boundedModel(), powerPosteriorKernel: () => kernel }));
    const k = withKernel.model.powerPosteriorKernel?.(0.5) as Kernel<PositionState, StepInfo>;
    const state = k.init(withKernel.toUnbounded(Float64Array.of(2.5, 1, -1, 0)));
    expect(seen[0]).toBeCloseTo(2.5, 12);
    const next = k.step(createRng(1), state).state;
    const theta = withKernel.toBounded(next.position);
    expect(theta[0]).toBeGreaterThan(1);
    expect(theta[0]).toBeLessThan(4);
  });
});
