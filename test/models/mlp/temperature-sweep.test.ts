import { describe, expect, it } from "vitest";
import { steppingStone } from "../../../src/evidence/stepping-stone.js";
import { powerLadder, refineLadder } from "../../../src/evidence/tempering/schedule.js";
import { bayesianMlp } from "../../../src/models/mlp/bayesian.js";
import {
  sweepChaining,
  sweepPathSampling,
  sweepTemperatures,
} from "../../../src/models/mlp/temperature-sweep.js";
import { createRng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";

function tanhData(n: number, seed: number) {
  const rng = createRng(seed);
  const X = new Float64Array(n);
  const Y = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    X[r] = 2 * rng.uniform() - 1;
    Y[r] = 1.5 * Math.tanh(2 * X[r] - 0.5) + 0.3 + 0.1 * rng.normal();
  }
  return { X, Y, n, inputs: 1, outputs: 1 };
}

describe("sweepTemperatures", () => {
  const model = bayesianMlp(tanhData(60, 1), { hidden: 1 });
  const chain = powerLadder(19, 4);
  const ladder = refineLadder(chain, 2);
  const settings = { ladder, warmupPerTemperature: 20, drawsPerTemperature: 60, endDraws: 300, burnIn: 200 };
  const up = sweepTemperatures(model, { ...settings, direction: "up", seed: 6 });
  const down = sweepTemperatures(model, { ...settings, direction: "down", seed: 7 });

  it("reports both directions, in ladder order, with posterior draws at θ = 1", () => {
    for (const s of [up, down]) {
      expect(s.temperatures.map((t) => t.beta)).toEqual(Array.from(ladder));
      expect(s.temperatures[0].logLikelihood).toHaveLength(300);
      expect(s.posterior.beta).toBe(1);
      expect(s.posterior.nDraws).toBe(300);
    }
    expect(up.direction).toBe("up");
    expect(down.direction).toBe("down");
  });

  it("brackets log Z: from the prior below, from the posterior above (the thesis's hysteresis)", () => {
    // With short runs per temperature the sweeps can be out of equilibrium and lag behind: the one
    // from the prior may latch onto the "signal is noise" state (σ ≈ 0.36 at θ = 1 with other seeds,
    // 65 nats low) and underestimate log Z, the one from the posterior keeps the fitted state too long and overestimates it — in
    // expectation a lower and an upper bound (bidirectional Monte Carlo). The reference is stepping-
    // stone with each temperature's chain run and adapted on its own.
    const ref = steppingStone(model, { ladder, particles: 256, islands: 16, seed: 3 });
    for (const est of [sweepPathSampling(up), sweepChaining(up, chain)]) {
      expect(est.logZ).toBeLessThan(ref.logZ + 4 * Math.hypot(ref.stdErr, est.stdErr));
    }
    for (const est of [sweepPathSampling(down), sweepChaining(down, chain)]) {
      expect(est.logZ).toBeGreaterThan(ref.logZ - 4 * Math.hypot(ref.stdErr, est.stdErr));
    }
  });

  it("rejects bad options", () => {
    expect(thrown(() => sweepTemperatures(model, { ladder, direction: "sideways" as "up" })).code).toBe(
      "invalid-argument",
    );
    expect(thrown(() => sweepTemperatures(model, { ladder: [0.5, 1], direction: "up" })).code).toBe(
      "invalid-argument",
    );
    expect(thrown(() => sweepChaining(up, [0, 0.123, 1])).code).toBe("invalid-argument");
  });
});
