import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import type { LogDensity } from "../../src/model/model.js";
import { createRng } from "../../src/random/rng.js";
import { buildMalaKernel, malaWarmup } from "../../src/samplers/mala.js";
import { runChain } from "../../src/samplers/run.js";
import { diag, failures, gaussianTarget, momentChecks, oneDim } from "./targets.js";

describe("buildMalaKernel", () => {
  it("samples a correlated 2-d normal (mean and variance within 4 MCSE)", () => {
    const target = gaussianTarget(new Float64Array([1, -2]), new Float64Array([1, 0.8, 0.8, 1]));
    const draws = runChain(malaWarmup({ target }), {
      draws: 10_000,
      warmup: 1000,
      chains: 2,
      seed: 1,
      initial: new Float64Array([0, 0]),
    });
    expect(failures(momentChecks((j) => draws.chains(j), 2, target.mean, new Float64Array([1, 1])))).toEqual(
      [],
    );
  });

  it("adapts towards acceptance 0.574 (mean over seeds within 4 SE)", () => {
    const target = gaussianTarget(new Float64Array(5), diag([1, 2, 3, 4, 5]));
    const rates: number[] = [];
    for (let s = 0; s < 16; s++) {
      const draws = runChain(malaWarmup({ target, stepSize: 0.05 }), {
        draws: 2000,
        warmup: 2000,
        seed: 200 + s,
        initial: new Float64Array(5),
      });
      rates.push(draws.stats[0].acceptanceRate);
    }
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    const sd = Math.sqrt(rates.reduce((a, b) => a + (b - mean) ** 2, 0) / (rates.length - 1));
    expect(Math.abs(mean - 0.574)).toBeLessThan((4 * sd) / Math.sqrt(rates.length));
  });

  it("uses the Hastings correction: exact on a skewed target (Gamma(3, 1) on log scale)", () => {
    // y = log x with x ~ Gamma(3, 1): log π(y) = 3y − e^y; E[y] = ψ(3) = 1.5 − γ, Var[y] = ψ′(3) = π²/6 − 1.25.
    // A Langevin proposal without the correction would be biased here.
    const target = oneDim((y) => [3 * y - Math.exp(y), 3 - Math.exp(y)]);
    const draws = runChain(buildMalaKernel({ target, stepSize: 1.2 }), {
      draws: 20_000,
      warmup: 200,
      chains: 2,
      seed: 3,
      initial: new Float64Array([1]),
    });
    const eulerGamma = 0.5772156649015329;
    const checks = momentChecks(
      (j) => draws.chains(j),
      1,
      new Float64Array([1.5 - eulerGamma]),
      new Float64Array([Math.PI ** 2 / 6 - 1.25]),
    );
    // The target is not normal, so only the mean's MCSE is exact; the variance check uses the
    // normal-theory SE of the variance, which understates it a little for this mildly skewed target.
    expect(Math.abs(checks[0].meanZ)).toBeLessThan(4);
  });

  it("costs one gradient per step, keeps the gradient in the state, and rejects zero-density proposals", () => {
    let calls = 0;
    const target: LogDensity = {
      dim: 1,
      logDensity: (x) => (x[0] < 0 ? Number.NEGATIVE_INFINITY : -0.5 * x[0] * x[0]),
      gradLogDensity: (x, g) => {
        calls++;
        g[0] = -x[0];
        return x[0] < 0 ? Number.NEGATIVE_INFINITY : -0.5 * x[0] * x[0];
      },
    };
    const kernel = buildMalaKernel({ target, stepSize: 1.5 });
    const rng = createRng(4);
    let state = kernel.init(new Float64Array([0.3]));
    calls = 0;
    let negatives = 0;
    for (let i = 0; i < 1000; i++) {
      const r = kernel.step(rng, state);
      expect(r.info.evaluations).toBe(1);
      state = r.state;
      if (state.position[0] < 0) negatives++;
      expect(state.gradient[0]).toBe(-state.position[0]);
    }
    expect(calls).toBe(1000);
    expect(negatives).toBe(0);
  });

  it("rejects a proposal with a NaN or +Infinity density or a NaN gradient as a divergence, counted", () => {
    const cases: LogDensity[] = [
      oneDim((x) => [x > 1 ? Number.NaN : -0.5 * x * x, -x]),
      oneDim((x) => [x > 1 ? Number.POSITIVE_INFINITY : -0.5 * x * x, -x]),
      oneDim((x) => [-0.5 * x * x, x > 1 ? Number.NaN : -x]),
    ];
    for (const target of cases) {
      const kernel = buildMalaKernel({ target, stepSize: 3 });
      const rng = createRng(5);
      let state = kernel.init(new Float64Array([0]));
      let divergences = 0;
      for (let i = 0; i < 200; i++) {
        const step = kernel.step(rng, state);
        if (step.info.divergent) {
          divergences++;
          expect(step.info.accepted).toBe(false);
        }
        state = step.state;
        expect(state.position[0]).toBeLessThanOrEqual(1);
      }
      expect(divergences).toBeGreaterThan(10);
    }
  });

  it("validates options", () => {
    const noGradient: LogDensity = { dim: 1, logDensity: (x) => -x[0] * x[0] };
    expect(() => buildMalaKernel({ target: noGradient })).toThrow(/gradLogDensity/);
    const target = gaussianTarget(new Float64Array(1), diag([1]));
    expect(() => buildMalaKernel({ target, stepSize: 0 })).toThrow(OccamError);
    expect(() => malaWarmup({ target, targetAccept: 1 })).toThrow(OccamError);
    expect(() => buildMalaKernel({ target }).init(new Float64Array(2))).toThrow(OccamError);
  });
});
