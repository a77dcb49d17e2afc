import { describe, expect, it } from "vitest";
import { effectiveSampleSize } from "../../src/diagnostics/ess.js";
import type { LogDensity } from "../../src/model/model.js";
import { createRng } from "../../src/random/rng.js";
import { buildNutsKernel, nutsWarmup } from "../../src/samplers/nuts.js";
import { runChain } from "../../src/samplers/run.js";
import { diag, failures, gaussianTarget, momentChecks, oneDim } from "./targets.js";

/** An iid standard normal in d dimensions, with its gradient. */
function iidNormal(d: number): LogDensity {
  return {
    dim: d,
    logDensity: (x) => {
      let s = 0;
      for (let i = 0; i < d; i++) s += x[i] * x[i];
      return -0.5 * s;
    },
    gradLogDensity: (x, g) => {
      let s = 0;
      for (let i = 0; i < d; i++) {
        s += x[i] * x[i];
        g[i] = -x[i];
      }
      return -0.5 * s;
    },
  };
}

describe("buildNutsKernel", () => {
  it("gives the exact moments of an iid 100-dimensional normal, every coordinate within 4 MCSE", () => {
    const d = 100;
    const draws = runChain(nutsWarmup({ target: iidNormal(d) }), {
      draws: 1000,
      warmup: 500,
      chains: 2,
      seed: 1,
      initial: (rng) => Float64Array.from({ length: d }, () => rng.normal()),
    });
    const checks = momentChecks((j) => draws.chains(j), d, new Float64Array(d), new Float64Array(d).fill(1));
    // 200 moment checks at |z| < 4: a false alarm has probability about 0.013.
    expect(failures(checks)).toEqual([]);
    for (const s of draws.stats) expect(s.divergences).toBe(0);
  });

  it("gives the exact moments of a normal with correlation 0.99 and scales 100 apart (diagonal and dense metric)", () => {
    const cov = new Float64Array([1, 0.99 * 10, 0.99 * 10, 100]);
    const target = gaussianTarget(new Float64Array([1, -2]), cov);
    for (const dense of [false, true]) {
      const draws = runChain(nutsWarmup({ target, dense }), {
        draws: 2000,
        warmup: 1000,
        chains: 2,
        seed: 2,
        initial: new Float64Array(2),
      });
      expect(
        failures(momentChecks((j) => draws.chains(j), 2, target.mean, new Float64Array([1, 100]))),
      ).toEqual([]);
    }
  });

  it("adapts the acceptance towards targetAccept and, with a dense metric, needs fewer steps on a correlated target", () => {
    const cov = new Float64Array([1, 0.99, 0.99, 1]);
    const target = gaussianTarget(new Float64Array(2), cov);
    const steps = (dense: boolean) => {
      const draws = runChain(nutsWarmup({ target, dense, targetAccept: 0.9 }), {
        draws: 1000,
        warmup: 1000,
        seed: 3,
        initial: new Float64Array(2),
      });
      const s = draws.stats[0];
      expect(s.acceptanceRate).toBeGreaterThan(0.85);
      return s.evaluations / 1000;
    };
    expect(steps(true)).toBeLessThan(0.5 * steps(false));
  });

  it("ends a trajectory that meets a NaN density or gradient as a divergence, counted, and samples on", () => {
    // A normal whose model fails for x > 2: the chains sample it truncated there.
    const target = oneDim((x) => (x > 2 ? [Number.NaN, Number.NaN] : [-0.5 * x * x, -x]));
    const draws = runChain(nutsWarmup({ target }), {
      draws: 2000,
      warmup: 500,
      chains: 2,
      seed: 4,
      initial: new Float64Array([0]),
    });
    const divergences = draws.stats.reduce((n, s) => n + s.divergences, 0);
    expect(divergences).toBeGreaterThan(0);
    expect(Math.max(...draws.values)).toBeLessThan(2);
    // E[x | x < 2] = −φ(2)/Φ(2) = −0.05525, within 4 Monte Carlo standard errors.
    const x = draws.chains(0);
    const se = Math.sqrt(1 / effectiveSampleSize(x));
    expect(Math.abs(draws.mean()[0] + 0.05525)).toBeLessThan(4 * se);
  });

  it("says when a trajectory stops at the maximum tree depth", () => {
    // Scales 1 and 1e4 with no metric adaptation: the step fits the narrow direction, the wide one needs
    // far more than 2^3 steps.
    const target = gaussianTarget(new Float64Array(2), diag([1, 1e8]));
    const kernel = buildNutsKernel({ target, maxTreeDepth: 3, stepSize: 0.5 });
    const rng = createRng(5);
    let state = kernel.init(new Float64Array([0, 0]));
    let limited = 0;
    for (let i = 0; i < 50; i++) {
      const step = kernel.step(rng, state);
      state = step.state;
      expect(step.info.treeDepth).toBeLessThanOrEqual(3);
      expect(step.info.evaluations).toBeLessThanOrEqual(7);
      if (step.info.treeDepthLimited) limited++;
    }
    expect(limited).toBeGreaterThan(25);
  });

  it("gives the same draws for the same seed, and refuses bad options", () => {
    const target = iidNormal(3);
    const run = () =>
      runChain(nutsWarmup({ target }), {
        draws: 50,
        warmup: 50,
        seed: 7,
        initial: new Float64Array(3),
      });
    expect(Array.from(run().values)).toEqual(Array.from(run().values));
    expect(() => buildNutsKernel({ target, maxTreeDepth: 0 })).toThrow(/maxTreeDepth/);
    expect(() => buildNutsKernel({ target, divergenceThreshold: Number.POSITIVE_INFINITY })).toThrow(
      /divergenceThreshold must be finite/,
    );
    expect(() => nutsWarmup({ target, windows: { baseWindow: 0 } })).toThrow(/baseWindow/);
    expect(() => nutsWarmup({ target, dense: true, adaptMetric: false })).toThrow(/dense/);
    expect(() => nutsWarmup({ target, targetAccept: 1 })).toThrow(/targetAccept/);
    expect(() => buildNutsKernel({ target: { dim: 1, logDensity: () => 0 } })).toThrow(/gradLogDensity/);
  });
});
