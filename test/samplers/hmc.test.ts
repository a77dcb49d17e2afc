import erfc from "@stdlib/math-base-special-erfc";
import { describe, expect, it } from "vitest";
import { monteCarloStandardError } from "../../src/diagnostics/ess.js";
import { OccamError } from "../../src/errors.js";
import type { LogDensity } from "../../src/model/model.js";
import { createRng } from "../../src/random/rng.js";
import { buildHmcKernel, type HmcKernel, hmcWarmup } from "../../src/samplers/hmc.js";
import { mclachlan } from "../../src/samplers/integrators.js";
import { watchWarmup } from "../../src/samplers/kernel.js";
import { runChain } from "../../src/samplers/run.js";
import { diag, failures, gaussianTarget, momentChecks, oneDim } from "./targets.js";

describe("buildHmcKernel", () => {
  it("samples a badly scaled 3-d normal with the adapted step size and mass matrix", () => {
    const variances = [0.01, 1, 100];
    const target = gaussianTarget(new Float64Array([1, 2, 3]), diag(variances));
    const draws = runChain(hmcWarmup({ target, trajectoryLength: 2, stepsJitter: 0.2 }), {
      draws: 2000,
      warmup: 1000,
      chains: 2,
      seed: 1,
      initial: new Float64Array(3),
    });
    expect(
      failures(momentChecks((j) => draws.chains(j), 3, target.mean, Float64Array.from(variances))),
    ).toEqual([]);
  });

  it("learns the posterior variances as its inverse mass matrix", () => {
    const variances = [0.01, 1, 100];
    const target = gaussianTarget(new Float64Array(3), diag(variances));
    let kernel = buildHmcKernel({ target });
    const adaptation = watchWarmup(hmcWarmup({ target, trajectoryLength: 2, stepsJitter: 0.2 }), {
      tuned: (k) => (kernel = k),
    });
    runChain(adaptation, { draws: 10, warmup: 1000, seed: 2, initial: new Float64Array([0.1, 1, 10]) });
    // The last window has 500 draws; if their ESS is at least 500/4 (HMC on a Gaussian mixes faster),
    // the relative standard error of each variance is at most √(2 / 125) ≈ 0.13, and 4 SE ≈ 0.5.
    const inverseMass = kernel.inverseMassMatrix;
    for (let i = 0; i < 3; i++)
      expect(Math.abs(inverseMass[i] / variances[i] - 1)).toBeLessThan(4 * Math.sqrt(2 / 125));
  });

  it("dual averaging drives the warm-up acceptance to the target on a Gaussian (within 4 MCSE)", () => {
    // Dual averaging solves E[α(ε)] = δ along its iterates, so the acceptance probabilities of the
    // second half of warm-up (16 runs) must average to δ within the Monte Carlo standard error of that
    // average. (The averaged ε̄ kept afterwards is slightly smaller at finite warm-up — a Jensen bias
    // that vanishes as warm-up grows — so the post-warm-up acceptance runs a little above δ, as in
    // Stan.) The steps are jittered: with a fixed count the acceptance of a Gaussian oscillates with ε
    // (resonance) and has several roots.
    const target = gaussianTarget(new Float64Array(10), diag([1, 1, 1, 1, 1, 2, 2, 2, 2, 2]));
    const warmup = 2000;
    for (const delta of [0.65, 0.9]) {
      const series: Float64Array[] = [];
      for (let s = 0; s < 16; s++) {
        const adaptation = hmcWarmup({
          target,
          steps: 8,
          stepsJitter: 0.5,
          targetAccept: delta,
          adaptMetric: false,
        });
        const run = adaptation.start(warmup);
        const rng = createRng(300 + s);
        let state = adaptation.init(new Float64Array(10));
        const alpha = new Float64Array(warmup / 2);
        for (let i = 0; i < warmup; i++) {
          const r = run.step(rng, state);
          state = r.state;
          if (i >= warmup / 2) alpha[i - warmup / 2] = r.info.acceptProbability;
        }
        series.push(alpha);
      }
      const mean = series.reduce((a, x) => a + x.reduce((b, v) => b + v, 0), 0) / (16 * (warmup / 2));
      expect(Math.abs(mean - delta)).toBeLessThan(4 * monteCarloStandardError(series));
    }
  });

  it("counts a blown-up trajectory as a divergence, rejects it and does not throw", () => {
    // Leapfrog on N(0, 1) is unstable for ε > 2; with ε = 10 the energy error explodes.
    const target = gaussianTarget(new Float64Array(2), diag([1, 1]));
    const draws = runChain(buildHmcKernel({ target, stepSize: 10, steps: 20 }), {
      draws: 50,
      warmup: 0,
      seed: 3,
      initial: new Float64Array([0.5, -0.5]),
    });
    expect(draws.stats[0].divergences).toBe(50);
    expect(draws.stats[0].acceptanceRate).toBe(0);
    for (let t = 0; t < 50; t++) expect(Array.from(draws.draw(0, t))).toEqual([0.5, -0.5]);

    const kernel = buildHmcKernel({ target, stepSize: 10, steps: 20 });
    const { info } = kernel.step(createRng(4), kernel.init(new Float64Array([0.5, -0.5])));
    expect(info.divergent).toBe(true);
    expect(info.accepted).toBe(false);
    expect(info.acceptProbability).toBe(0);
    expect(info.energyError > 1000 || Number.isNaN(info.energyError)).toBe(true);
  });

  it("treats a trajectory that reaches zero density as divergent and samples the truncated target", () => {
    // Half-normal on x > 0: E[x] = √(2/π), Var[x] = 1 − 2/π.
    const target = oneDim((x) => [x < 0 ? Number.NEGATIVE_INFINITY : -0.5 * x * x, -x]);
    const draws = runChain(hmcWarmup({ target, trajectoryLength: 1.5, stepsJitter: 0.3 }), {
      draws: 4000,
      warmup: 500,
      chains: 2,
      seed: 5,
      initial: new Float64Array([1]),
    });
    const checks = momentChecks(
      (j) => draws.chains(j),
      1,
      new Float64Array([Math.sqrt(2 / Math.PI)]),
      new Float64Array([1 - 2 / Math.PI]),
    );
    // Only the mean: the half-normal is not normal, so the variance SE formula does not apply.
    expect(Math.abs(checks[0].meanZ)).toBeLessThan(4);
    expect(draws.stats[0].divergences + draws.stats[1].divergences).toBeGreaterThan(0);
  });

  it("ends a trajectory that meets a NaN or +Infinity density or a NaN gradient as a divergence, counted, and samples on", () => {
    // N(0, 1) whose model fails past a point: trajectories that cross it are rejected, so the chains
    // sample the normal truncated there. E[x | x < c] = −φ(c)/Φ(c).
    const truncatedMean = (c: number) =>
      -Math.exp(-0.5 * c * c) / Math.sqrt(2 * Math.PI) / (0.5 * erfc(-c / Math.SQRT2));
    const cases: [LogDensity, number][] = [
      [oneDim((x) => [x > 2 ? Number.NaN : -0.5 * x * x, -x]), 2],
      [oneDim((x) => [x > 2 ? Number.POSITIVE_INFINITY : -0.5 * x * x, -x]), 2],
      [oneDim((x) => [-0.5 * x * x, x > 1 ? Number.NaN : -x]), 1],
    ];
    for (const [target, c] of cases) {
      const draws = runChain(hmcWarmup({ target, trajectoryLength: 1.5 }), {
        draws: 2000,
        warmup: 300,
        chains: 2,
        seed: 6,
        initial: new Float64Array([0]),
      });
      const divergences = draws.stats.reduce((sum, st) => sum + st.divergences, 0);
      expect(divergences).toBeGreaterThan(0);
      const x = draws.chains(0);
      const mean = draws.mean()[0];
      expect(Math.max(...draws.values)).toBeLessThan(c);
      expect(Math.abs(mean - truncatedMean(c))).toBeLessThan(4 * monteCarloStandardError(x));
    }
  });

  it("costs steps × gradientsPerStep gradients and keeps the state's gradient", () => {
    let calls = 0;
    const base = gaussianTarget(new Float64Array(2), diag([1, 4]));
    const target: LogDensity = {
      dim: 2,
      logDensity: base.logDensity,
      gradLogDensity: (x, g) => {
        calls++;
        return base.gradLogDensity(x, g);
      },
    };
    for (const [integrator, perStep] of [
      [undefined, 1],
      [mclachlan, 2],
    ] as const) {
      const kernel = buildHmcKernel({
        target,
        stepSize: 0.2,
        steps: 7,
        stepsJitter: 0,
        integrator,
      });
      const rng = createRng(7);
      let state = kernel.init(new Float64Array([1, 1]));
      calls = 0;
      for (let i = 0; i < 20; i++) {
        const r = kernel.step(rng, state);
        expect(r.info.steps).toBe(7);
        expect(r.info.evaluations).toBe(7 * perStep);
        state = r.state;
      }
      expect(calls).toBe(20 * 7 * perStep);
      const g = new Float64Array(2);
      base.gradLogDensity(state.position, g);
      expect(Array.from(state.gradient)).toEqual(Array.from(g));
    }
  });

  it("samples correctly with McLachlan's integrator and jittered step sizes", () => {
    const target = gaussianTarget(new Float64Array([0, 5]), new Float64Array([1, 0.8, 0.8, 1]));
    const draws = runChain(
      hmcWarmup({ target, integrator: mclachlan, steps: 5, stepSizeJitter: 0.5, stepsJitter: 0.5 }),
      { draws: 2000, warmup: 500, chains: 2, seed: 8, initial: new Float64Array(2) },
    );
    expect(failures(momentChecks((j) => draws.chains(j), 2, target.mean, new Float64Array([1, 1])))).toEqual(
      [],
    );
  });

  it("samples a correlation of 0.99 at a unit step's scale when built with the covariance as a dense metric", () => {
    // In the metric of Σ the target is a unit normal, so ε = 0.3 and a quarter period of π/2 mix it,
    // where a diagonal metric would need ε below the narrow direction's sd, √(1 − 0.99) = 0.1.
    const covariance = Float64Array.of(1, 0.99, 0.99, 1);
    const target = gaussianTarget(new Float64Array([0, 5]), covariance);
    const kernel = buildHmcKernel({
      target,
      stepSize: 0.3,
      trajectoryLength: Math.PI / 2,
      inverseMassMatrix: covariance,
    });
    const draws = runChain(kernel, {
      draws: 2000,
      warmup: 100,
      chains: 2,
      seed: 15,
      initial: Float64Array.of(0, 5),
    });
    expect(draws.stats.every((s) => s.acceptanceRate > 0.9)).toBe(true);
    expect(failures(momentChecks((j) => draws.chains(j), 2, target.mean, new Float64Array([1, 1])))).toEqual(
      [],
    );
  });

  it("draws the number of steps within round(L(1 ± j)) and follows trajectoryLength / ε", () => {
    const target = gaussianTarget(new Float64Array(1), diag([1]));
    const rng = createRng(9);
    const jittered = buildHmcKernel({
      target,
      stepSize: 0.1,
      steps: 10,
      stepsJitter: 0.3,
    });
    let state = jittered.init(new Float64Array([0]));
    const seen = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const r = jittered.step(rng, state);
      seen.add(r.info.steps);
      state = r.state;
    }
    expect(Math.min(...seen)).toBe(7);
    expect(Math.max(...seen)).toBe(13);
    const timed = buildHmcKernel({
      target,
      stepSize: 0.1,
      trajectoryLength: 1.57,
      stepsJitter: 0,
    });
    expect(timed.step(rng, timed.init(new Float64Array([0]))).info.steps).toBe(16);
  });

  it("keeps the step size and mass matrix it was built from; warm-up hands back ε̄ and the windows' variances", () => {
    const target = gaussianTarget(new Float64Array(2), diag([1, 4]));
    const fixed = buildHmcKernel({ target, stepSize: 0.3, inverseMassMatrix: Float64Array.of(2, 3) });
    runChain(fixed, { draws: 10, warmup: 200, seed: 10, initial: new Float64Array(2) });
    expect(fixed.stepSize).toBe(0.3);
    expect(Array.from(fixed.inverseMassMatrix)).toEqual([2, 3]);
    let tuned: HmcKernel | undefined;
    const adaptation = watchWarmup(hmcWarmup({ target }), { tuned: (k) => (tuned = k) });
    const draws = runChain(adaptation, { draws: 50, warmup: 300, seed: 11, initial: new Float64Array(2) });
    const kernel = tuned as HmcKernel;
    expect(kernel.stepSize).not.toBe(1);
    expect(draws.stats[0].acceptanceRate).toBeGreaterThan(0);
    // The last window of a 300-iteration warm-up holds 100 draws: each variance has a relative sd of
    // about √(2/100) = 0.14, their ratio (4) about 0.2 on the log scale, so a factor 2 is 3.5 sd.
    const [v0, v1] = kernel.inverseMassMatrix;
    expect(v1 / v0).toBeGreaterThan(2);
    expect(v1 / v0).toBeLessThan(8);
    const r = kernel.step(createRng(12), kernel.init(new Float64Array(2)));
    expect(r.info.stepSize).toBe(kernel.stepSize);
  });

  it("never mutates a state and gives the same draws for the same seed", () => {
    const target = gaussianTarget(new Float64Array(2), new Float64Array([1, 0.5, 0.5, 1]));
    const kernel = buildHmcKernel({ target, stepSize: 0.3 });
    const s0 = kernel.init(new Float64Array([1, 2]));
    const copy = [Array.from(s0.position), Array.from(s0.gradient)];
    const rng = createRng(13);
    let state = s0;
    for (let i = 0; i < 20; i++) state = kernel.step(rng, state).state;
    expect([Array.from(s0.position), Array.from(s0.gradient)]).toEqual(copy);
    const run = () =>
      runChain(hmcWarmup({ target }), {
        draws: 100,
        warmup: 100,
        seed: 14,
        initial: new Float64Array(2),
      }).values;
    expect(run()).toEqual(run());
  });

  it("validates options and the starting point", () => {
    const target = gaussianTarget(new Float64Array(2), diag([1, 1]));
    expect(() => buildHmcKernel({ target, steps: 0 })).toThrow(OccamError);
    expect(() => buildHmcKernel({ target, steps: 5, trajectoryLength: 1 })).toThrow(/not both/);
    expect(() => buildHmcKernel({ target, stepSize: Number.NaN })).toThrow(OccamError);
    expect(() => buildHmcKernel({ target, stepsJitter: 1 })).toThrow(OccamError);
    expect(() => buildHmcKernel({ target, inverseMassMatrix: new Float64Array(3) })).toThrow(
      /2 variances or 2 × 2/,
    );
    expect(() => buildHmcKernel({ target, inverseMassMatrix: Float64Array.of(1, 2, 2, 1) })).toThrow(
      /positive definite/,
    );
    expect(() => hmcWarmup({ target, targetAccept: 1 })).toThrow(OccamError);
    expect(() => hmcWarmup({ target, windows: { baseWindow: 0 } })).toThrow(OccamError);
    expect(() => buildHmcKernel({ target, inverseMassMatrix: new Float64Array([1, 0]) })).toThrow(OccamError);
    expect(() => buildHmcKernel({ target, divergenceThreshold: 0 })).toThrow(OccamError);
    expect(() => buildHmcKernel({ target: { dim: 2, logDensity: () => 0 } })).toThrow(/gradLogDensity/);
    const kernel = buildHmcKernel({ target });
    expect(() => kernel.init(new Float64Array(1))).toThrow(OccamError);
    expect(() => kernel.init(new Float64Array([0, Number.POSITIVE_INFINITY]))).toThrow(/coordinate 1/);
  });
});
