import { describe, expect, it } from "vitest";
import { samplePosterior } from "../../src/evidence/posterior-sampling.js";
import { HALF_LOG_2PI } from "../../src/math/constants.js";
import { defineModel } from "../../src/model/model.js";

/**
 * θ ~ N(0, 5²) and a likelihood with two equal, separated peaks, N(θ; ±m, 0.5²) (m = 0 gives one peak):
 * chains started at prior draws fall into the peak on their side and never cross.
 */
function twoPeaks(m: number) {
  const s = 0.5;
  const peak = (t: number, c: number) => -0.5 * ((t - c) / s) ** 2;
  const log = (t: number) => {
    const a = peak(t, -m);
    const b = peak(t, m);
    const top = Math.max(a, b);
    return top + Math.log(0.5 * Math.exp(a - top) + 0.5 * Math.exp(b - top)) - Math.log(s) - HALF_LOG_2PI;
  };
  return defineModel({
    dim: 1,
    logPrior: (t) => -0.5 * (t[0] / 5) ** 2 - Math.log(5) - HALF_LOG_2PI,
    gradLogPrior: (t, g) => {
      g[0] = -t[0] / 25;
      return -0.5 * (t[0] / 5) ** 2 - Math.log(5) - HALF_LOG_2PI;
    },
    logLikelihood: (t) => log(t[0]),
    gradLogLikelihood: (t, g) => {
      const a = Math.exp(peak(t[0], -m) - log(t[0]) - Math.log(s) - HALF_LOG_2PI);
      const b = Math.exp(peak(t[0], m) - log(t[0]) - Math.log(s) - HALF_LOG_2PI);
      g[0] = (0.5 * a * -(t[0] + m) + 0.5 * b * -(t[0] - m)) / (s * s);
      return log(t[0]);
    },
    samplePrior: (rng) => Float64Array.of(5 * rng.normal()),
  });
}

describe("samplePosterior", () => {
  it("stops chains that disagree decisively after a quarter of their draws, and says so", () => {
    const sample = samplePosterior(twoPeaks(6), {
      seed: 2,
      chains: 4,
      warmup: 200,
      draws: 400,
      starts: "prior",
    });
    const means = [0, 1, 2, 3].map((c) => {
      const x = sample.draws.parameter(0, c);
      return x.reduce((a, v) => a + v, 0) / x.length;
    });
    // The seed puts chains in both peaks.
    expect(Math.min(...means)).toBeLessThan(-5);
    expect(Math.max(...means)).toBeGreaterThan(5);
    expect(sample.draws.nDraws).toBe(100);
    expect(sample.maxRhat).toBeGreaterThan(1.5);
    expect(sample.unreliable.join(" ")).toMatch(/stopped after 100 of their 400 draws/);
  });

  it("runs chains that agree to the end", () => {
    const sample = samplePosterior(twoPeaks(0), {
      seed: 2,
      chains: 4,
      warmup: 200,
      draws: 400,
      starts: "prior",
    });
    expect(sample.draws.nDraws).toBe(400);
    expect(sample.unreliable).toEqual([]);
  });
});
