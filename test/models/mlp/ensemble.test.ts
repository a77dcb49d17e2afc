import { describe, expect, it } from "vitest";
import { robotArmData } from "../../../src/data/generators/robot-arm.js";
import { steppingStone } from "../../../src/evidence/stepping-stone.js";
import { powerLadder, refineLadder } from "../../../src/evidence/tempering/schedule.js";
import { bayesianMlp } from "../../../src/models/mlp/bayesian.js";
import { type EnsembleEvidenceResult, ensembleEvidence } from "../../../src/models/mlp/ensemble/evidence.js";
import { ensembleMlp } from "../../../src/models/mlp/ensemble/fit.js";
import { predictEnsembleMlp } from "../../../src/models/mlp/ensemble/prediction.js";
import { evidenceFramework } from "../../../src/models/mlp/evidence-framework.js";
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

const elboOf = (ev: EnsembleEvidenceResult) => ({ elbo: ev.diagnostics.elbo, se: ev.diagnostics.elboStdErr });

describe("ensembleMlp and ensembleEvidence", () => {
  const model = bayesianMlp(tanhData(60, 1), { hidden: 1 });
  const fit = ensembleMlp(model, { seed: 4 });
  const ev = ensembleEvidence(fit, { samples: 4000, seed: 5 });
  // Reference: stepping-stone over a 39-temperature ladder with the model's Gibbs + HMC kernel.
  const ref = steppingStone(model, {
    ladder: refineLadder(powerLadder(19, 4), 2),
    particles: 256,
    islands: 16,
    seed: 3,
  });

  it("converges, with q(τ) centred on the true noise precision", () => {
    expect(fit.converged).toBe(true);
    const sd = 1 / Math.sqrt(fit.noise.shape / fit.noise.rate);
    // √(2/N) ≈ 18 % relative spread of a variance estimate from 60 cases.
    expect(Math.abs(Math.log(sd / 0.1))).toBeLessThan(4 * 0.5 * Math.sqrt(2 / 60));
    expect(fit.groups).toHaveLength(4);
    expect(fit.refinement.steps).toBe(6000);
  });

  it("gives ELBO ≤ log Z and an importance estimate consistent with a stepping-stone reference", () => {
    const { elbo, se } = elboOf(ev);
    expect(elbo).toBeLessThan(ref.logZ + 4 * Math.hypot(ref.stdErr, se));
    expect(ev.logZ).toBeGreaterThan(elbo);
    expect(ev.diagnostics.paretoK ?? Number.NaN).toBeLessThan(0.7);
    expect(Math.abs(ev.logZ - ref.logZ)).toBeLessThan(4 * Math.hypot(ref.stdErr, ev.stdErr));
  });

  it("refines the App. C fixed point: its ELBO is no lower, and still below log Z", () => {
    const appC = ensembleMlp(model, { seed: 4, steps: 0 });
    expect(appC.refinement.steps).toBe(0);
    const a = elboOf(ensembleEvidence(appC, { samples: 4000, seed: 6 }));
    const r = elboOf(ensembleEvidence(fit, { samples: 4000, seed: 6 }));
    expect(r.elbo).toBeGreaterThan(a.elbo - 4 * Math.hypot(a.se, r.se));
    expect(r.elbo).toBeLessThan(ref.logZ + 4 * Math.hypot(ref.stdErr, r.se));
  });

  it("keeps q(τ) and q(α_k) at their mean-field forms given the refined q(w)", () => {
    const W = model.weightCount;
    const C = fit.covarianceCholesky;
    for (let k = 0; k < 4; k++) {
      const { offset, length } = model.network.groups[k];
      let sq = 0;
      for (let i = offset; i < offset + length; i++) {
        sq += fit.mean[i] ** 2;
        for (let j = 0; j <= i; j++) sq += C[i * W + j] ** 2;
      }
      expect(fit.groups[k].shape).toBe(model.groupPriors[k].shape + length / 2);
      expect(fit.groups[k].rate).toBeCloseTo(model.groupPriors[k].rate + sq / 2, 12);
    }
    expect(fit.noise.shape).toBe(model.noisePrior.shape + 30);
    // The running average of S at the draws against a fresh estimate of E_q[S] from 4000 draws, within
    // 4 standard errors of their difference. The average puts weight 0.02 on each step's mean over 4
    // antithetic pairs: its variance is 0.02/(2 − 0.02) · sd²/4 ≈ sd²/400 when a pair's two values
    // are fully correlated (at most; they are when S is near quadratic).
    const rng = createRng(11);
    const z = new Float64Array(W);
    const w = new Float64Array(W);
    const s = new Float64Array(4000);
    for (let d = 0; d < s.length; d++) {
      for (let j = 0; j < W; j++) z[j] = rng.normal();
      for (let i = 0; i < W; i++) {
        w[i] = fit.mean[i];
        for (let j = 0; j <= i; j++) w[i] += C[i * W + j] * z[j];
      }
      s[d] = model.sumOfSquares.value(w);
    }
    const mean = s.reduce((a, b) => a + b, 0) / s.length;
    const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / (s.length - 1));
    const runningS = 2 * (fit.noise.rate - model.noisePrior.rate);
    expect(Math.abs(runningS - mean)).toBeLessThan(
      4 * sd * Math.hypot(1 / Math.sqrt(s.length), 1 / Math.sqrt(400)),
    );
  });

  it("is reproducible bit for bit from its seed", () => {
    const a = ensembleMlp(model, { seed: 7, steps: 50 });
    const b = ensembleMlp(model, { seed: 7, steps: 50 });
    expect(Array.from(a.mean)).toEqual(Array.from(b.mean));
    expect(Array.from(a.covarianceCholesky)).toEqual(Array.from(b.covarianceCholesky));
    expect(a.noise.rate).toBe(b.noise.rate);
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
    expect(thrown(() => ensembleMlp(model, { steps: -1 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { steps: 2.5 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { drawsPerStep: 3 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { drawsPerStep: 0 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { learningRate: 0 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { learningRate: Number.NaN })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { learningRate: 0.01, finalLearningRate: 0.02 })).code).toBe(
      "invalid-argument",
    );
    expect(thrown(() => ensembleMlp(model, { finalLearningRate: 0 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { seed: -1 })).code).toBe("invalid-argument");
    expect(thrown(() => ensembleMlp(model, { initialWeights: new Float64Array(3) })).code).toBe(
      "dimension-mismatch",
    );
    expect(thrown(() => ensembleEvidence(fit, { samples: 1 })).code).toBe("invalid-argument");
  });
});

describe("ensembleMlp on the robot arm with 2 hidden units, where the App. C fixed point is too wide", () => {
  const model = bayesianMlp(robotArmData({ n: 200, noiseSd: 0.05, seed: 1 }), { hidden: 2 });
  const ef = evidenceFramework(model, { seed: 1 });
  const start = {
    initialWeights: ef.fit.weights,
    initialHyper: { noisePrecision: ef.fit.noisePrecision, groupPrecisions: ef.fit.groupPrecisions },
  };

  it("raises the ELBO far above the App. C fixed point's", () => {
    const a = elboOf(
      ensembleEvidence(ensembleMlp(model, { ...start, steps: 0 }), { samples: 2000, seed: 1 }),
    );
    const r = elboOf(ensembleEvidence(ensembleMlp(model, { ...start, seed: 1 }), { samples: 2000, seed: 1 }));
    expect(r.elbo).toBeGreaterThan(a.elbo + 4 * Math.hypot(a.se, r.se));
  });

  it("gives an ELBO below an importance estimate from independent draws (the lower-bound property)", () => {
    const fit = ensembleMlp(model, { ...start, seed: 2 });
    const r = elboOf(ensembleEvidence(fit, { samples: 2000, seed: 3 }));
    const is = ensembleEvidence(fit, { samples: 8000, seed: 4 });
    expect(r.elbo).toBeLessThan(is.logZ + 4 * Math.hypot(r.se, is.stdErr));
  });
});
