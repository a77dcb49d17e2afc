import { describe, expect, it } from "vitest";
import { compareModels } from "../../src/selection/compare.js";
import { familyProbabilities, stackingWeights } from "../../src/selection/family-weights.js";

describe("familyProbabilities", () => {
  const names = ["a", "b", "c"];

  it("equals compareModels at the estimates, with intervals that widen with the evidences' errors", () => {
    const logEvidence = [-100, -101, -103];
    const exact = familyProbabilities({
      names,
      logEvidence,
      stdErr: [0, 0, 0],
      reliable: [true, true, true],
    });
    const reference = compareModels({ logEvidence });
    for (let i = 0; i < 3; i++) {
      expect(exact.probability[i]).toBeCloseTo(reference.probability[i], 12);
      // No error: the interval is the point.
      expect(exact.lower[i]).toBeCloseTo(exact.probability[i], 12);
      expect(exact.upper[i]).toBeCloseTo(exact.probability[i], 12);
    }
    const noisy = familyProbabilities({
      names,
      logEvidence,
      stdErr: [1, 1, 1],
      reliable: [true, true, true],
    });
    expect(noisy.upper[1] - noisy.lower[1]).toBeGreaterThan(0.3);
    expect(noisy.lower[1]).toBeLessThan(noisy.probability[1]);
    expect(noisy.upper[1]).toBeGreaterThan(noisy.probability[1]);
  });

  it("leaves an unreliable evidence out, with a warning, unless asked to include it", () => {
    const options = {
      names,
      logEvidence: [-100, -90, -103],
      stdErr: [0.1, 0.1, 0.1],
      reliable: [true, false, true],
    };
    const kept = familyProbabilities(options);
    expect(kept.included).toEqual([true, false, true]);
    expect(kept.probability[1]).toBe(0);
    expect(kept.probability[0] + kept.probability[2]).toBeCloseTo(1, 12);
    expect(kept.warnings.join(" ")).toMatch(/b: its evidence is not reliable, so it is left out/);
    const all = familyProbabilities({ ...options, includeUnreliable: true });
    expect(all.included).toEqual([true, true, true]);
    expect(all.probability[1]).toBeGreaterThan(0.99);
    expect(all.warnings.join(" ")).toMatch(/included on request/);
  });

  it("gives no probabilities, and says why, when no evidence is reliable", () => {
    const r = familyProbabilities({ names: ["a"], logEvidence: [-1], stdErr: [0.1], reliable: [false] });
    expect(r.included).toEqual([false]);
    expect(r.probability[0]).toBe(0);
    expect(r.warnings.join(" ")).toMatch(/no family has a reliable evidence/);
  });

  it("weights by the prior over families", () => {
    const r = familyProbabilities({
      names: ["a", "b"],
      logEvidence: [-10, -10],
      stdErr: [0, 0],
      reliable: [true, true],
      prior: [0.75, 0.25],
    });
    expect(r.probability[0]).toBeCloseTo(0.75, 12);
  });
});

describe("stackingWeights", () => {
  it("puts all the weight on a model that predicts every row better", () => {
    const n = 50;
    const logDensity = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      logDensity[2 * i] = Math.log(0.8);
      logDensity[2 * i + 1] = Math.log(0.5);
    }
    const r = stackingWeights(logDensity, n, 2);
    expect(r.converged).toBe(true);
    expect(r.weights[0]).toBeGreaterThan(0.999);
  });

  it("finds the interior optimum of two complementary models (the closed form for two models)", () => {
    // Model A predicts rows 0..59 with density 0.9 and the rest with 0.1; model B the reverse. The
    // score 60 log(0.9w + 0.1(1 − w)) + 40 log(0.1w + 0.9(1 − w)) is maximal where its derivative
    // vanishes: 60·0.8/(0.1 + 0.8w) = 40·0.8/(0.9 − 0.8w), i.e. w = (60·0.9 − 40·0.1)/(100·0.8) = 0.625.
    const n = 100;
    const logDensity = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      const first = i < 60;
      logDensity[2 * i] = Math.log(first ? 0.9 : 0.1);
      logDensity[2 * i + 1] = Math.log(first ? 0.1 : 0.9);
    }
    const r = stackingWeights(logDensity, n, 2, { tolerance: 1e-14 });
    expect(r.weights[0]).toBeCloseTo(0.625, 5);
    expect(r.weights[0] + r.weights[1]).toBeCloseTo(1, 12);
    const score = (w: number) =>
      60 * Math.log(0.9 * w + 0.1 * (1 - w)) + 40 * Math.log(0.1 * w + 0.9 * (1 - w));
    expect(r.logScore).toBeCloseTo(score(0.625), 8);
  });

  it("is unaffected by log densities of any magnitude", () => {
    const n = 10;
    const logDensity = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) {
      logDensity[3 * i] = -1000 + Math.log(0.2);
      logDensity[3 * i + 1] = -1000 + Math.log(0.3);
      logDensity[3 * i + 2] = -1000 + Math.log(0.6);
    }
    const r = stackingWeights(logDensity, n, 3);
    expect(r.weights[2]).toBeGreaterThan(0.999);
    expect(r.logScore).toBeCloseTo(n * (-1000 + Math.log(0.6)), 4);
  });

  it("refuses a matrix of the wrong size and a row no model can predict", () => {
    expect(() => stackingWeights(new Float64Array(5), 2, 2)).toThrow(/n × M/);
    expect(() => stackingWeights(Float64Array.of(-1, -1, -Infinity, -Infinity), 2, 2)).toThrow(
      /zero density/,
    );
  });
});
