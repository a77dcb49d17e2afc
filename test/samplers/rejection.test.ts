import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import type { LogDensity } from "../../src/model/model.js";
import { createRng } from "../../src/random/rng.js";
import type { Proposal } from "../../src/samplers/importance.js";
import { buildRejectionKernel } from "../../src/samplers/rejection.js";
import { runChain } from "../../src/samplers/run.js";

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** N(0, s²) in one dimension as a proposal. */
function normalProposal(s: number): Proposal {
  return {
    dim: 1,
    sample: (rng, out) => {
      out[0] = s * rng.normal();
    },
    logPdf: (x) => -0.5 * (x[0] / s) ** 2 - Math.log(s) - LOG_SQRT_2PI,
  };
}

const standardNormal: LogDensity = { dim: 1, logDensity: (x) => -0.5 * x[0] * x[0] - LOG_SQRT_2PI };

describe("buildRejectionKernel", () => {
  it("returns exact independent N(0, 1) draws and needs M tries on average (normalised densities)", () => {
    // Target N(0, 1), proposal N(0, 2²): π/q ≤ 2 = M, attained at 0. Tries are geometric with p = 1/M.
    const kernel = buildRejectionKernel({
      target: standardNormal,
      proposal: normalProposal(2),
      logBound: Math.log(2),
    });
    const n = 20_000;
    const draws = runChain(kernel, { draws: n, warmup: 0, seed: 1, initial: new Float64Array(1) });
    const x = draws.parameter(0);
    const mean = x.reduce((a, b) => a + b, 0) / n;
    const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
    // Independent draws: the standard errors are those of n iid normals.
    expect(Math.abs(mean)).toBeLessThan(4 / Math.sqrt(n));
    expect(Math.abs(variance - 1)).toBeLessThan(4 * Math.sqrt(2 / n));
    // P(|X| > 2) = 0.0455 for N(0, 1) but 0.3173 for the proposal: the tails are the target's.
    const tail = x.filter((v) => Math.abs(v) > 2).length / n;
    expect(Math.abs(tail - 0.0455)).toBeLessThan(4 * Math.sqrt((0.0455 * 0.9545) / n));
    const p = 0.5;
    const meanTries = draws.stats[0].evaluations / n;
    expect(Math.abs(meanTries - 1 / p)).toBeLessThan(4 * Math.sqrt((1 - p) / (p * p) / n));
    expect(draws.stats[0].acceptanceRate).toBe(1);
  });

  it("samples a truncated target (−Infinity outside the support)", () => {
    // Half-normal: π(x) = 2 φ(x) on x > 0, proposal N(0, 1): π/q ≤ 2.
    const half: LogDensity = {
      dim: 1,
      logDensity: (x) =>
        x[0] < 0 ? Number.NEGATIVE_INFINITY : Math.log(2) - 0.5 * x[0] * x[0] - LOG_SQRT_2PI,
    };
    const kernel = buildRejectionKernel({ target: half, proposal: normalProposal(1), logBound: Math.log(2) });
    const rng = createRng(2);
    let state = kernel.init(new Float64Array([1]));
    const n = 10_000;
    let sum = 0;
    let negatives = 0;
    for (let i = 0; i < n; i++) {
      const r = kernel.step(rng, state);
      state = r.state;
      expect(r.info.tries).toBe(r.info.evaluations);
      if (state.position[0] < 0) negatives++;
      sum += state.position[0];
    }
    expect(negatives).toBe(0);
    expect(Math.abs(sum / n - Math.sqrt(2 / Math.PI))).toBeLessThan(4 * Math.sqrt((1 - 2 / Math.PI) / n));
  });

  it("throws when a draw shows the envelope is too low", () => {
    // Here π/q reaches 2 at 0, but the bound claims 1.2.
    const kernel = buildRejectionKernel({
      target: standardNormal,
      proposal: normalProposal(2),
      logBound: Math.log(1.2),
    });
    const rng = createRng(3);
    let state = kernel.init(new Float64Array(1));
    expect(() => {
      for (let i = 0; i < 100; i++) state = kernel.step(rng, state).state;
    }).toThrow(/envelope is too low/);
  });

  it("throws non-finite on a NaN or +Infinity target and on a proposal that misses its own draws", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const target: LogDensity = { dim: 1, logDensity: (x) => (x[0] > 0 ? bad : 0) };
      const kernel = buildRejectionKernel({ target, proposal: normalProposal(1), logBound: 10 });
      expect(() => kernel.step(createRng(4), kernel.init(new Float64Array([-1])))).toThrow(
        /rejection sampling: the target log density/,
      );
    }
    const broken: Proposal = { sample: (_r, out) => out.fill(0), logPdf: () => Number.NEGATIVE_INFINITY };
    const k2 = buildRejectionKernel({ target: standardNormal, proposal: broken, logBound: 1 });
    expect(() => k2.step(createRng(5), k2.init(new Float64Array(1)))).toThrow(OccamError);
  });

  it("gives up after maxTries and validates its options", () => {
    const kernel = buildRejectionKernel({
      target: standardNormal,
      proposal: normalProposal(1),
      logBound: 50,
      maxTries: 10,
    });
    expect(() => kernel.step(createRng(6), kernel.init(new Float64Array(1)))).toThrow(
      /no proposal was accepted in 10 tries/,
    );
    expect(() =>
      buildRejectionKernel({ target: standardNormal, proposal: normalProposal(1), logBound: Number.NaN }),
    ).toThrow(OccamError);
    const wrongDim = { ...normalProposal(1), dim: 2 };
    expect(() => buildRejectionKernel({ target: standardNormal, proposal: wrongDim, logBound: 1 })).toThrow(
      /dim/,
    );
  });
});
