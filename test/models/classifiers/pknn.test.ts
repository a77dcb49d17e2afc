import { describe, expect, it } from "vitest";
import { samplePosterior } from "../../../src/evidence/posterior-sampling.js";
import { stratifiedFolds } from "../../../src/models/classifiers/data.js";
import { pknnClassifier } from "../../../src/models/classifiers/pknn.js";
import { pknnChainRule, pknnPseudoLogEvidence } from "../../../src/models/classifiers/pknn-evidence.js";
import { neighbourOrder } from "../../../src/models/classifiers/pknn-neighbours.js";
import type { ClassificationData } from "../../../src/models/mixture-classifier/data.js";
import { createRng } from "../../../src/random/rng.js";
import { simulatedInputs } from "./support.js";

/**
 * Labels from the pknn conditionals at (k, β) by Gibbs sweeps (the conditionals need not be those of
 * any joint distribution, but the sweeps settle on a labelling that honours them locally), on inputs in
 * two clusters so that neighbours share labels: p(y_r = c | rest) ∝ exp(β n_rc / k).
 */
function pknnData(n: number, k: number, beta: number, seed: number): ClassificationData {
  const base = simulatedInputs(n, 2, 2, seed);
  const rng = createRng(seed);
  const X = Float64Array.from(base.X);
  const labels = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    labels[r] = rng.uniform() < 0.5 ? 0 : 1;
    X[r * 2] += labels[r] === 0 ? -1 : 1;
  }
  const data = { ...base, X, labels };
  const { order, length } = neighbourOrder(data, X, n, true);
  for (let sweep = 0; sweep < 50; sweep++) {
    for (let r = 0; r < n; r++) {
      let ones = 0;
      for (let j = 0; j < k; j++) ones += labels[order[r * length + j]];
      const odds = Math.exp((beta * (ones - (k - ones))) / k);
      labels[r] = rng.uniform() < odds / (1 + odds) ? 1 : 0;
    }
  }
  return { ...data, labels: Int32Array.from(labels) };
}

describe("probabilistic k-nearest neighbours", () => {
  it("its chain rule is a probability of the labels: it sums to one over every labelling, unlike the pseudo-likelihood's evidence", () => {
    const n = 6;
    const inputs = simulatedInputs(n, 2, 2, 5);
    const partition = [Int32Array.of(0, 2, 4), Int32Array.of(1, 3, 5)];
    let chain = 0;
    let pseudo = 0;
    for (let mask = 0; mask < 1 << n; mask++) {
      const labels = Int32Array.from({ length: n }, (_, r) => (mask >> r) & 1);
      const model = pknnClassifier({ ...inputs, labels }, { maxNeighbours: 3 });
      chain += Math.exp(model.exactChainRule(partition).logZ);
      pseudo += Math.exp(pknnPseudoLogEvidence(model));
    }
    expect(chain).toBeCloseTo(1, 10);
    expect(Math.abs(pseudo - 1)).toBeGreaterThan(0.05);
  });

  it("posterior draws of (k, β) give the chain rule and the G-fold product computed exactly by quadrature", () => {
    const data = pknnData(80, 5, 2, 3);
    const model = pknnClassifier(data, { maxNeighbours: 15 });
    const partition = stratifiedFolds(data.labels, 2, 5, createRng(1));
    for (const form of ["chain-rule", "k-fold"] as const) {
      const exact = model.exactChainRule(partition, form);
      const mcmc = pknnChainRule(
        model,
        { partition, draws: 1000, chains: 4, warmup: 300, rng: createRng(2) },
        form,
      );
      expect(mcmc.reliable).toBe(true);
      expect(exact.stdErr).toBeLessThan(1e-6);
      expect(Math.abs(mcmc.logZ - exact.logZ)).toBeLessThan(3 * mcmc.stdErr + 1e-6);
    }
  });

  it("samples the pseudo-posterior: its β mean matches quadrature, and it covers the (k, β) the labels came from", () => {
    const data = pknnData(100, 6, 3, 8);
    const model = pknnClassifier(data, { maxNeighbours: 15 });
    const sample = samplePosterior(model, { seed: 4, chains: 4, warmup: 300, draws: 1500, starts: "prior" });
    expect(sample.unreliable).toEqual([]);
    const { draws } = sample;
    const betas = Array.from({ length: draws.size }, (_, t) => draws.values[2 * t + 1]);
    const ks = Array.from({ length: draws.size }, (_, t) =>
      model.neighbours(draws.draw(Math.floor(t / draws.nDraws), t % draws.nDraws)),
    );
    // The exact posterior mean of β by the same quadrature as the exact chain rule (fine grid).
    const all = Int32Array.from({ length: data.n }, (_, i) => i);
    const pseudo = model.pseudoModel(all);
    let z = 0;
    let m = 0;
    for (let k = 1; k <= model.kMax; k++) {
      for (let b = 0.0025; b < model.betaMax; b += 0.005) {
        const w = Math.exp(pseudo.logLikelihood(Float64Array.of(k - 0.5, b)) + 60);
        z += w;
        m += w * b;
      }
    }
    const mean = betas.reduce((s, v) => s + v, 0) / betas.length;
    const sd = Math.sqrt(betas.reduce((s, v) => s + (v - mean) ** 2, 0) / betas.length);
    expect(Math.abs(mean - m / z)).toBeLessThan((4 * sd) / Math.sqrt(sample.minEss));
    const quantile = (v: number[], q: number) => v.sort((a, b) => a - b)[Math.floor(q * (v.length - 1))];
    expect(3).toBeGreaterThanOrEqual(quantile([...betas], 0.005));
    expect(3).toBeLessThanOrEqual(quantile([...betas], 0.995));
    expect(6).toBeGreaterThanOrEqual(quantile([...ks], 0.005));
    expect(6).toBeLessThanOrEqual(quantile([...ks], 0.995));
  });
});
