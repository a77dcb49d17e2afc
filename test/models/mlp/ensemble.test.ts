import { describe, expect, it } from "vitest";
import { powerLadder, refineLadder } from "../../../src/evidence/schedule.js";
import { steppingStone } from "../../../src/evidence/stepping-stone.js";
import { bayesianMlp } from "../../../src/models/mlp/bayesian.js";
import { ensembleEvidence, ensembleMlp, predictEnsembleMlp } from "../../../src/models/mlp/ensemble.js";
import { createRng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";

/** y = 1.5 tanh(2x − 0.5) + 0.3 + N(0, 0.1²): one hidden unit suffices, the posterior is near Gaussian. */
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

describe("ensembleMlp and ensembleEvidence", () => {
  const model = bayesianMlp(tanhData(60, 1), { hidden: 1 });
  const fit = ensembleMlp(model, { seed: 4 });
  const ev = ensembleEvidence(fit, { samples: 4000, seed: 5 });

  it("converges, with q(τ) centred on the true noise precision", () => {
    expect(fit.converged).toBe(true);
    const sd = 1 / Math.sqrt(fit.noise.shape / fit.noise.rate);
    // √(2/N) ≈ 18 % relative spread of a variance estimate from 60 cases.
    expect(Math.abs(Math.log(sd / 0.1))).toBeLessThan(4 * 0.5 * Math.sqrt(2 / 60));
    expect(fit.groups).toHaveLength(4);
  });

  it("gives ELBO ≤ log Z and an importance estimate consistent with a stepping-stone reference", () => {
    // Reference: stepping-stone over a 39-temperature ladder, each temperature's chain adapted on its
    // own (200 warm-up and 200 kept sweeps), the library's estimator with the model's Gibbs + HMC kernel.
    const ref = steppingStone(model, {
      ladder: refineLadder(powerLadder(19, 4), 2),
      drawsPerTemperature: 200,
      warmupPerTemperature: 200,
      seed: 3,
    });
    const elbo = ev.diagnostics.elbo as number;
    const elboSe = ev.diagnostics.elboStdErr as number;
    expect(elbo).toBeLessThan(ref.logZ + 4 * Math.hypot(ref.stdErr, elboSe));
    expect(ev.logZ).toBeGreaterThan(elbo);
    expect(ev.diagnostics.paretoK as number).toBeLessThan(0.7);
    expect(Math.abs(ev.logZ - ref.logZ)).toBeLessThan(4 * Math.hypot(ref.stdErr, ev.stdErr));
  });

  it("predicts with the linearised network: mean f(x; w̄), sd above the noise level", () => {
    const X = Float64Array.from([-0.5, 0, 0.5]);
    const p = predictEnsembleMlp(fit, X, 3);
    const f = new Float64Array(3);
    model.network.predict(fit.mean, X, 3, f);
    expect(Array.from(p.mean)).toEqual(Array.from(f));
    for (let i = 0; i < 3; i++) {
      expect(p.sd[i]).toBeGreaterThan(Math.sqrt(fit.noise.rate / (fit.noise.shape - 1)));
      expect(p.sd[i]).toBeLessThan(0.2);
    }
  });

  it("rejects bad options", () => {
    expect(thrown(() => ensembleMlp(model, { iterations: 0 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleEvidence(fit, { samples: 1 })).code).toBe("invalid-argument");
  });
});
