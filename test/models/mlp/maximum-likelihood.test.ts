import { describe, expect, it } from "vitest";
import { robotArmData } from "../../../src/data/generators/robot-arm.js";
import { finalPredictionError, fitMaximumLikelihoodMlp } from "../../../src/models/mlp/maximum-likelihood.js";
import { sumOfSquares } from "../../../src/models/mlp/sum-of-squares.js";
import { thrown } from "../../support/assertions.js";

describe("finalPredictionError", () => {
  it("is (N + N_w)/(N − N_w) · E_train (thesis eq. 6.44), undefined when N_w ≥ N", () => {
    expect(finalPredictionError(0.002, 200, 50)).toBeCloseTo((250 / 150) * 0.002, 15);
    expect(finalPredictionError(0.002, 200, 0)).toBe(0.002);
    expect(finalPredictionError(0.002, 200, 200)).toBeUndefined();
    expect(thrown(() => finalPredictionError(0.1, 0, 3)).code).toBe("invalid-argument");
  });
});

describe("fitMaximumLikelihoodMlp", () => {
  const train = robotArmData({ n: 80, noiseSd: 0.05, seed: 1 });
  const test = robotArmData({ n: 80, noiseSd: 0.05, seed: 2 });

  it("minimises the cost from each start and reports training error, test error and FPE", () => {
    const fit = fitMaximumLikelihoodMlp(train, { hidden: 3, starts: 3, seed: 4, test, maxIterations: 500 });
    expect(fit.weightCount).toBe(2 * 3 + 3 + 2 * 3 + 2);
    expect(fit.starts).toHaveLength(3);
    const ss = sumOfSquares(fit.network, train.X, train.Y, train.n);
    for (const s of fit.starts) {
      // trainError is S / (N·O) at the returned weights, and with λ = 0 the cost is S / 2.
      expect(s.trainError).toBeCloseTo(ss.value(s.weights) / (80 * 2), 12);
      expect(s.cost).toBeCloseTo(ss.value(s.weights) / 2, 10);
      expect(s.trainErrorPerOutput[0] + s.trainErrorPerOutput[1]).toBeCloseTo(2 * s.trainError, 12);
      expect(s.fpe).toBeCloseTo(((80 + 17) / (80 - 17)) * s.trainError, 12);
      expect(s.testError).toBeGreaterThan(0);
    }
    expect(fit.starts[fit.best].cost).toBe(Math.min(...fit.starts.map((s) => s.cost)));
    // Every start explains more than half the targets' variance (the error of the best constant).
    let variance = 0;
    for (let o = 0; o < 2; o++) {
      let m = 0;
      for (let r = 0; r < 80; r++) m += train.Y[2 * r + o] / 80;
      for (let r = 0; r < 80; r++) variance += (train.Y[2 * r + o] - m) ** 2 / 160;
    }
    for (const s of fit.starts) expect(s.trainError).toBeLessThan(0.5 * variance);
    expect(fit.meanTestError).toBeDefined();
  });

  it("penalises the weights with weight decay", () => {
    const a = fitMaximumLikelihoodMlp(train, { hidden: 3, starts: 1, seed: 4, maxIterations: 300 });
    const b = fitMaximumLikelihoodMlp(train, {
      hidden: 3,
      starts: 1,
      seed: 4,
      maxIterations: 300,
      weightDecay: 1,
    });
    const norm = (w: Float64Array) => w.reduce((s, v) => s + v * v, 0);
    expect(norm(b.starts[0].weights)).toBeLessThan(norm(a.starts[0].weights));
    expect(b.starts[0].trainError).toBeGreaterThan(a.starts[0].trainError);
  });

  it("rejects bad options and mismatched test sets", () => {
    expect(thrown(() => fitMaximumLikelihoodMlp(train, { hidden: 0 })).message).toMatch(/hidden/);
    expect(thrown(() => fitMaximumLikelihoodMlp(train, { hidden: 2, weightDecay: -1 })).code).toBe(
      "invalid-argument",
    );
    const wrong = { X: new Float64Array(3), Y: new Float64Array(3), n: 3, inputs: 1, outputs: 1 };
    expect(thrown(() => fitMaximumLikelihoodMlp(train, { hidden: 2, test: wrong })).code).toBe(
      "dimension-mismatch",
    );
  });
});
