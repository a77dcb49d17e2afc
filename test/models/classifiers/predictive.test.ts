import { describe, expect, it } from "vitest";
import { reliabilityBins } from "../../../src/models/classifiers/predictive.js";
import { createRng } from "../../../src/random/rng.js";

/** m rows of K class probabilities drawn from Dirichlet(½, …), labels drawn from `truth` of each row. */
function simulate(m: number, K: number, seed: number, sharpen: number) {
  const rng = createRng(seed);
  const truth = new Float64Array(m * K);
  const predicted = new Float64Array(m * K);
  const labels = new Int32Array(m);
  for (let r = 0; r < m; r++) {
    let total = 0;
    let sharp = 0;
    for (let c = 0; c < K; c++) {
      truth[r * K + c] = rng.gamma(0.5);
      total += truth[r * K + c];
    }
    for (let c = 0; c < K; c++) {
      truth[r * K + c] /= total;
      predicted[r * K + c] = truth[r * K + c] ** sharpen;
      sharp += predicted[r * K + c];
    }
    for (let c = 0; c < K; c++) predicted[r * K + c] /= sharp;
    let u = rng.uniform();
    let k = 0;
    while (k < K - 1 && u >= truth[r * K + k]) u -= truth[r * K + k++];
    labels[r] = k;
  }
  return { predicted, labels };
}

/** Bins whose observed frequency is further than 4 sds from their mean prediction. */
function offDiagonal(bins: ReturnType<typeof reliabilityBins>): number {
  // Σ p(1 − p)/n ≤ p̄(1 − p̄)/n (Jensen), and the K predictions of a row are negatively correlated,
  // so p̄(1 − p̄)/n bounds the variance of the observed frequency of a calibrated predictor.
  return bins.filter(
    (b) =>
      Math.abs(b.observed - b.meanPredicted) >
      4 * Math.sqrt((b.meanPredicted * (1 - b.meanPredicted)) / b.count) + 1e-12,
  ).length;
}

describe("reliabilityBins", () => {
  it("bins the second class's probability when there are two classes, and leaves empty bins out", () => {
    const p = Float64Array.from([0.9, 0.1, 0.2, 0.8, 0.25, 0.75, 0.5, 0.5, 0, 1]);
    const bins = reliabilityBins(p, Int32Array.from([0, 1, 0, 1, 1]), 2);
    expect(bins.map((b) => [b.lower, b.count, b.meanPredicted, b.observed])).toEqual([
      [0.1, 1, 0.1, 0],
      [0.5, 1, 0.5, 1],
      [0.7, 1, 0.75, 0],
      [0.8, 1, 0.8, 1],
      [0.9, 1, 1, 1],
    ]);
    for (const b of bins) {
      expect(b.observedLow).toBeLessThanOrEqual(b.observed);
      expect(b.observedHigh).toBeGreaterThanOrEqual(b.observed);
    }
    expect(() => reliabilityBins(p, Int32Array.from([0, 1, 0, 1, 1]), 2, 0)).toThrow(/bins/);
  });

  it("puts a calibrated predictor on the diagonal and shows an overconfident one off it (3 classes)", () => {
    const calibrated = simulate(3000, 3, 1, 1);
    const bins = reliabilityBins(calibrated.predicted, calibrated.labels, 3);
    expect(bins.reduce((s, b) => s + b.count, 0)).toBe(9000);
    expect(offDiagonal(bins)).toBe(0);
    // Probabilities sharpened by a power of 3 are too sure: the top bins' classes occur less often.
    const sure = simulate(3000, 3, 1, 3);
    const top = reliabilityBins(sure.predicted, sure.labels, 3).at(-1);
    expect(top?.observed).toBeLessThan((top?.meanPredicted ?? 0) - 0.05);
    expect(offDiagonal(reliabilityBins(sure.predicted, sure.labels, 3))).toBeGreaterThan(2);
  });
});
