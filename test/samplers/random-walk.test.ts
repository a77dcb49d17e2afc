import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import type { LogDensity } from "../../src/model/model.js";
import { createRng } from "../../src/random/rng.js";
import { buildRandomWalkKernel, randomWalkWarmup } from "../../src/samplers/random-walk.js";
import { runChain } from "../../src/samplers/run.js";
import { diag, failures, gaussianTarget, momentChecks } from "./targets.js";

/** Mean and standard error, over seeds, of the sampling-phase acceptance rate. */
function acceptanceOverSeeds(target: LogDensity, seeds: number): { mean: number; se: number } {
  const rates: number[] = [];
  for (let s = 0; s < seeds; s++) {
    const draws = runChain(randomWalkWarmup({ target }), {
      draws: 2000,
      warmup: 2000,
      seed: 100 + s,
      initial: new Float64Array(target.dim),
    });
    rates.push(draws.stats[0].acceptanceRate);
  }
  const mean = rates.reduce((a, b) => a + b, 0) / seeds;
  const sd = Math.sqrt(rates.reduce((a, b) => a + (b - mean) ** 2, 0) / (seeds - 1));
  return { mean, se: sd / Math.sqrt(seeds) };
}

describe("buildRandomWalkKernel", () => {
  it("samples N(3, 2²) and a badly scaled 2-d normal with per-coordinate scales", () => {
    const t1 = gaussianTarget(new Float64Array([3]), diag([4]));
    const d1 = runChain(randomWalkWarmup({ target: t1 }), {
      draws: 10_000,
      warmup: 1000,
      chains: 2,
      seed: 1,
      initial: new Float64Array([0]),
    });
    const c1 = momentChecks((j) => d1.chains(j), 1, t1.mean, new Float64Array([4]));
    expect(failures(c1)).toEqual([]);

    const t2 = gaussianTarget(new Float64Array([1, -1]), diag([0.01, 100]));
    const d2 = runChain(randomWalkWarmup({ target: t2, scale: new Float64Array([0.1, 10]) }), {
      draws: 10_000,
      warmup: 1000,
      chains: 2,
      seed: 2,
      initial: new Float64Array([1, -1]),
    });
    const c2 = momentChecks((j) => d2.chains(j), 2, t2.mean, new Float64Array([0.01, 100]));
    expect(failures(c2)).toEqual([]);
  });

  it("adapts towards acceptance 0.234 in d = 5 and 0.44 in d = 1 (mean over seeds within 4 SE)", () => {
    const d5 = gaussianTarget(new Float64Array(5), diag([1, 2, 3, 4, 5]));
    const a5 = acceptanceOverSeeds(d5, 16);
    expect(Math.abs(a5.mean - 0.234)).toBeLessThan(4 * a5.se);
    const d1 = gaussianTarget(new Float64Array(1), diag([9]));
    const a1 = acceptanceOverSeeds(d1, 16);
    expect(Math.abs(a1.mean - 0.44)).toBeLessThan(4 * a1.se);
  });

  it("keeps the scale it was built from; warm-up moves the factor, and its kernel keeps the last one", () => {
    const target = gaussianTarget(new Float64Array(2), diag([1, 1]));
    const rng = createRng(3);
    const fixed = buildRandomWalkKernel({ target, scale: 0.3 });
    let state = fixed.init(new Float64Array(2));
    for (let i = 0; i < 50; i++) {
      const r = fixed.step(rng, state);
      expect(r.info.scaleFactor).toBe(1);
      state = r.state;
    }
    const adaptation = randomWalkWarmup({ target, scale: 10 });
    const run = adaptation.start(50);
    state = adaptation.init(new Float64Array(2));
    for (let i = 0; i < 50; i++) state = run.step(rng, state).state;
    const tuned = run.finish();
    // A scale 10 times too wide is rejected nearly always, so the factor falls.
    expect(tuned.scaleFactor).toBeLessThan(1);
    for (let i = 0; i < 20; i++) {
      const r = tuned.step(rng, state);
      expect(r.info.scaleFactor).toBe(tuned.scaleFactor);
      state = r.state;
    }
  });

  it("never mutates a state, and rejects proposals of zero density", () => {
    // Half-normal: log density −∞ below 0.
    const target: LogDensity = {
      dim: 1,
      logDensity: (x) => (x[0] < 0 ? Number.NEGATIVE_INFINITY : -0.5 * x[0] * x[0]),
    };
    const kernel = buildRandomWalkKernel({ target, scale: 2 });
    const start = new Float64Array([0.5]);
    const s0 = kernel.init(start);
    start[0] = 99;
    expect(s0.position[0]).toBe(0.5);
    const rng = createRng(4);
    let state = s0;
    let negatives = 0;
    for (let i = 0; i < 2000; i++) {
      state = kernel.step(rng, state).state;
      if (state.position[0] < 0) negatives++;
    }
    expect(negatives).toBe(0);
    expect(s0.position[0]).toBe(0.5);
  });

  it("rejects a proposal whose density is NaN or +Infinity as a divergence, counted, and never enters it", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const target: LogDensity = { dim: 1, logDensity: (x) => (x[0] > 1 ? bad : -0.5 * x[0] * x[0]) };
      const kernel = buildRandomWalkKernel({ target, scale: 5 });
      const rng = createRng(5);
      let state = kernel.init(new Float64Array([0]));
      let divergences = 0;
      for (let i = 0; i < 100; i++) {
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

  it("validates options and starting points", () => {
    const target = gaussianTarget(new Float64Array(2), diag([1, 1]));
    expect(() => buildRandomWalkKernel({ target, scale: -1 })).toThrow(OccamError);
    expect(() => buildRandomWalkKernel({ target, scale: new Float64Array(3) })).toThrow(/3 entries/);
    expect(() => buildRandomWalkKernel({ target: { dim: 2 } as LogDensity })).toThrow(OccamError);
    expect(() => randomWalkWarmup({ target, targetAccept: 1.5 })).toThrow(OccamError);
    const kernel = buildRandomWalkKernel({ target });
    expect(() => kernel.init(new Float64Array(3))).toThrow(/dim is 2/);
    const wall: LogDensity = { dim: 1, logDensity: () => Number.NEGATIVE_INFINITY };
    expect(() => buildRandomWalkKernel({ target: wall }).init(new Float64Array(1))).toThrow(OccamError);
  });

  it("gives the same draws for the same seed", () => {
    const target = gaussianTarget(new Float64Array(3), diag([1, 2, 3]));
    const run = () =>
      runChain(randomWalkWarmup({ target }), {
        draws: 200,
        warmup: 100,
        seed: 9,
        initial: new Float64Array(3),
      }).values;
    expect(run()).toEqual(run());
  });
});
