import digamma from "@stdlib/math-base-special-digamma";
import erfc from "@stdlib/math-base-special-erfc";
import { describe, expect, it } from "vitest";
import { robotArmData } from "../../../src/data/generators/robot-arm.js";
import { monteCarloStandardError } from "../../../src/diagnostics/ess.js";
import { gamma } from "../../../src/distributions/gamma.js";
import { normal } from "../../../src/distributions/normal.js";
import { bayesianMlp } from "../../../src/models/mlp/bayesian.js";
import { createMlp } from "../../../src/models/mlp/network.js";
import { predictBayesianMlp } from "../../../src/models/mlp/prediction.js";
import { sampleBayesianMlp } from "../../../src/models/mlp/sampling.js";
import { createRng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";

const small = robotArmData({ n: 12, noiseSd: 0.05, seed: 4 });

describe("bayesianMlp", () => {
  it("has the documented position layout and the thesis's default priors", () => {
    const model = bayesianMlp(small, { hidden: 3 });
    const W = 2 * 3 + 3 + 2 * 3 + 2;
    expect(model.weightCount).toBe(W);
    expect(model.dim).toBe(W + 5);
    expect(model.names[W]).toBe("log_noise_precision");
    expect(model.names[W + 3]).toBe("log_precision_hiddenOutput");
    expect(model.noisePrior).toEqual({ shape: 0.1, rate: 0.001 });
    expect(model.groupPriors[0]).toEqual({ shape: 0.25, rate: 0.25 / 64 });
    // Neal's scaling: the hidden→output rate is 0.25 / H.
    expect(model.groupPriors[2]).toEqual({ shape: 0.25, rate: 0.25 / 3 });
  });

  it("has a normalised prior: the sum of the Gamma (with log Jacobian) and Normal log densities", () => {
    const model = bayesianMlp(small, { hidden: 2 });
    const x = model.samplePrior(createRng(1));
    const W = model.weightCount;
    let ref = gamma(model.noisePrior).logPdf(Math.exp(x[W])) + x[W];
    for (let k = 0; k < 4; k++) {
      const u = x[W + 1 + k];
      ref += gamma(model.groupPriors[k]).logPdf(Math.exp(u)) + u;
      const g = model.network.groups[k];
      const d = normal({ mean: 0, sd: Math.exp(-u / 2) });
      for (let j = g.offset; j < g.offset + g.length; j++) ref += d.logPdf(x[j]);
    }
    expect(model.logPrior(x)).toBeCloseTo(ref, 9);
    // The likelihood keeps its constant: N·O/2 log(τ/2π) − τ S/2.
    const tau = Math.exp(x[W]);
    const s = model.sumOfSquares.value(x.subarray(0, W));
    expect(model.logLikelihood(x)).toBeCloseTo(12 * Math.log(tau / (2 * Math.PI)) - (tau * s) / 2, 8);
  });

  it("has gradients of central finite differences", () => {
    const model = bayesianMlp(small, { hidden: 3 });
    const rng = createRng(2);
    const x = model.samplePrior(rng);
    // A moderate point: the prior's draws can have enormous weights.
    for (let j = 0; j < model.weightCount; j++) x[j] = 0.7 * rng.normal();
    for (let k = 0; k < 5; k++) x[model.weightCount + k] = rng.normal();
    for (const [f, g] of [
      [model.logPrior, model.gradLogPrior],
      [model.logLikelihood, model.gradLogLikelihood],
    ] as const) {
      const grad = new Float64Array(model.dim);
      const value = g?.call(model, x, grad) as number;
      expect(value).toBeCloseTo(f.call(model, x), 9);
      const h = 1e-6;
      for (let j = 0; j < model.dim; j++) {
        const y = Float64Array.from(x);
        y[j] += h;
        const up = f.call(model, y);
        y[j] -= 2 * h;
        const down = f.call(model, y);
        // Central differences: truncation ~h²|f'''| plus rounding ~1e-16 |f| / h.
        expect(Math.abs(grad[j] - (up - down) / (2 * h))).toBeLessThan(1e-5 * (1 + Math.abs(value)));
      }
    }
  });

  it("gives a weight model at fixed hyperparameters that matches the joint model", () => {
    const model = bayesianMlp(small, { hidden: 2 });
    const rng = createRng(3);
    const hyper = { noisePrecision: 300, groupPrecisions: [2, 3, 4, 5] };
    const wm = model.weightModel(hyper);
    const w = wm.samplePrior(rng);
    const x = model.position(w, hyper);
    expect(wm.logLikelihood(w)).toBeCloseTo(model.logLikelihood(x), 10);
    let hyperPrior = gamma(model.noisePrior).logPdf(300) + Math.log(300);
    for (let k = 0; k < 4; k++) {
      hyperPrior += gamma(model.groupPriors[k]).logPdf(k + 2) + Math.log(k + 2);
    }
    expect(wm.logPrior(w) + hyperPrior).toBeCloseTo(model.logPrior(x), 9);
  });

  it("rejects bad options with OccamErrors", () => {
    expect(thrown(() => bayesianMlp(small, { hidden: 0 })).message).toMatch(/hidden must be an integer ≥ 1/);
    expect(
      thrown(() => bayesianMlp(small, { hidden: 2, priors: { noise: { shape: -1, rate: 1 } } })).code,
    ).toBe("invalid-argument");
    const bad = { ...small, Y: Float64Array.from(small.Y, (v, i) => (i === 5 ? Number.NaN : v)) };
    expect(thrown(() => bayesianMlp(bad, { hidden: 2 })).code).toBe("invalid-data");
    const model = bayesianMlp(small, { hidden: 2 });
    expect(thrown(() => sampleBayesianMlp(model, { beta: 1.5 })).code).toBe("invalid-argument");
    expect(thrown(() => sampleBayesianMlp(model, { initial: new Float64Array(3) })).code).toBe(
      "invalid-argument",
    );
  });
});

describe("sampleBayesianMlp", () => {
  it("samples the prior at β = 0: E[log α_k] and E[log τ] match ψ(s) − log r", () => {
    // Proper, concentrated hyperpriors keep the prior's funnel between weights and precisions mild.
    // A Gibbs step with the erroneous shape α − N/2 (thesis eq. 6.67) would bias E[log α_k] by
    // about log((s + N/2)/(s − N/2)), many standard errors here.
    const priors = {
      noise: { shape: 4, rate: 2 },
      inputHidden: { shape: 6, rate: 3 },
      hiddenBias: { shape: 5, rate: 1 },
      hiddenOutput: { shape: 4, rate: 4 },
      outputBias: { shape: 7, rate: 2 },
    };
    const model = bayesianMlp(small, { hidden: 2, priors, scaleHiddenOutput: false });
    const d = sampleBayesianMlp(model, { beta: 0, draws: 1500, warmup: 200, seed: 11 });
    const check = (values: Float64Array, prior: { shape: number; rate: number }) => {
      const logs = Float64Array.from(values, Math.log);
      const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
      const se = monteCarloStandardError([logs]);
      expect(Math.abs(mean - (digamma(prior.shape) - Math.log(prior.rate))) / se).toBeLessThan(4);
    };
    check(d.noisePrecision, priors.noise);
    const groups = [priors.inputHidden, priors.hiddenBias, priors.hiddenOutput, priors.outputBias];
    for (let k = 0; k < 4; k++) {
      check(
        Float64Array.from({ length: d.nDraws }, (_, t) => d.groupPrecisions[t * 4 + k]),
        groups[k],
      );
    }
    // At β = 0 the log likelihood is still reported (the U of path sampling).
    expect(d.logLikelihood.every(Number.isFinite)).toBe(true);
  });

  it("calibrates the step size to an acceptance in [0.6, 0.9] on robot-arm data, and predicts well", () => {
    const train = robotArmData({ n: 60, noiseSd: 0.05, seed: 1 });
    const model = bayesianMlp(train, { hidden: 4 });
    // The acceptance of 100 kept sweeps at a fixed step size fluctuates from chain to chain (the Gibbs
    // updates change the weights' target every sweep: 0.54–0.91 over eight seeds), so the band is
    // checked on the mean of four chains. Without the calibration stage dual averaging's ε̄ realised
    // about 0.9 and above on this posterior.
    const runs = [5, 6, 7, 8].map((seed) => sampleBayesianMlp(model, { draws: 100, warmup: 300, seed }));
    const meanAccept = runs.reduce((a, r) => a + r.acceptanceRate, 0) / runs.length;
    expect(meanAccept).toBeGreaterThan(0.6);
    expect(meanAccept).toBeLessThan(0.9);
    const d = runs[0];
    expect(d.weights.length).toBe(100 * model.weightCount);
    expect(d.weights.every(Number.isFinite)).toBe(true);
    expect(d.logLikelihood.every(Number.isFinite)).toBe(true);
    // The fit is close to the truth: the noise-free map at the training inputs is within a few
    // noise standard deviations (σ = 0.05) of the predictive mean, on average.
    const p = predictBayesianMlp(model.network, d, train.X, train.n);
    let sq = 0;
    for (let k = 0; k < p.mean.length; k++) sq += (p.mean[k] - train.F[k]) ** 2;
    expect(Math.sqrt(sq / p.mean.length)).toBeLessThan(3 * 0.05);
  });

  it("counts divergent trajectories, rejects them and never returns a non-finite draw", () => {
    const model = bayesianMlp(small, { hidden: 2 });
    // No warm-up and a step size far beyond the stability limit: every trajectory blows up.
    const d = sampleBayesianMlp(model, {
      draws: 10,
      warmup: 0,
      seed: 3,
      hmc: { stepSize: 50, adaptStepSize: false, adaptMetric: false, steps: 20 },
    });
    expect(d.divergences).toBeGreaterThan(0);
    expect(d.weights.every(Number.isFinite)).toBe(true);
    expect(d.logLikelihood.every(Number.isFinite)).toBe(true);
    expect(Number.isFinite(d.acceptanceRate)).toBe(true);
  });

  it("is reproducible: the same seed gives the same draws", () => {
    const model = bayesianMlp(small, { hidden: 2 });
    const a = sampleBayesianMlp(model, { draws: 5, warmup: 20, seed: 7 });
    const b = sampleBayesianMlp(model, { draws: 5, warmup: 20, seed: 7 });
    expect(Array.from(b.weights)).toEqual(Array.from(a.weights));
    expect(Array.from(b.logLikelihood)).toEqual(Array.from(a.logLikelihood));
  });
});

describe("predictBayesianMlp", () => {
  const net = createMlp({ inputs: 1, hidden: 1, outputs: 1 });
  const X = Float64Array.from([0.3]);
  it("with one draw gives the normal interval mean ± z·σ", () => {
    const w = Float64Array.from([0.5, 0.1, 2, -1]);
    const p = predictBayesianMlp(
      net,
      { nDraws: 1, weights: w, noisePrecision: Float64Array.from([4]) },
      X,
      1,
      {
        level: 0.9,
      },
    );
    const f = -1 + 2 * Math.tanh(0.1 + 0.5 * 0.3);
    expect(p.mean[0]).toBeCloseTo(f, 12);
    expect(p.sd[0]).toBeCloseTo(0.5, 12);
    expect(p.lower[0]).toBeCloseTo(f - 1.6448536269514722 * 0.5, 9);
    expect(p.upper[0]).toBeCloseTo(f + 1.6448536269514722 * 0.5, 9);
  });

  it("with two draws puts the mixture's tail mass outside the interval", () => {
    const w = Float64Array.from([0, 0, 0, -1, 0, 0, 0, 1]);
    const p = predictBayesianMlp(
      net,
      { nDraws: 2, weights: w, noisePrecision: Float64Array.from([1, 1]) },
      X,
      1,
      { level: 0.8 },
    );
    // Mixture of N(−1, 1) and N(1, 1): symmetric, so the interval is symmetric about 0 and the sd is √2.
    expect(p.mean[0]).toBeCloseTo(0, 12);
    expect(p.sd[0]).toBeCloseTo(Math.SQRT2, 12);
    expect(p.lower[0]).toBeCloseTo(-p.upper[0], 9);
    // P(Y > u) = ½[Q(u − 1) + Q(u + 1)] = 0.1 at the upper end; u ≈ 1.9 for this mixture.
    const q = (z: number) => 0.5 * erfc(z / Math.SQRT2);
    expect(0.5 * (q(p.upper[0] - 1) + q(p.upper[0] + 1))).toBeCloseTo(0.1, 9);
  });
});
