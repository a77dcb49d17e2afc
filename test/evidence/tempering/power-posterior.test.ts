import { describe, expect, it } from "vitest";
import { samplePowerPosteriors } from "../../../src/evidence/tempering/power-posterior.js";
import { thrown } from "../../support/assertions.js";
import {
  exactPowerPosteriorKernel,
  expectedLogLikelihood,
  failingModel,
  gradientFreeModel,
  modelWithExactKernel,
  testModel,
} from "../tempered-models.js";

function meanSd(x: Float64Array): { mean: number; sd: number } {
  let m = 0;
  for (const v of x) m += v / x.length;
  let ss = 0;
  for (const v of x) ss += (v - m) ** 2;
  return { mean: m, sd: Math.sqrt(ss / (x.length - 1)) };
}

/** Each temperature's mean log L is within 4 Monte Carlo standard errors (sd/√ESS) of the exact one. */
function expectMeansMatch(
  model: ReturnType<typeof testModel>,
  sample: ReturnType<typeof samplePowerPosteriors>,
) {
  for (const t of sample.temperatures) {
    const { mean, sd } = meanSd(t.logLikelihood);
    const mcse = sd / Math.sqrt(t.ess);
    expect(Math.abs(mean - expectedLogLikelihood(model, t.beta))).toBeLessThan(4 * mcse);
  }
}

const BETAS = [0, 0.01, 0.2, 1];

describe("samplePowerPosteriors", () => {
  it("uses the model's powerPosteriorKernel at every β > 0 when the model has one", () => {
    const model = modelWithExactKernel(3);
    const sample = samplePowerPosteriors(model, BETAS, {
      drawsPerTemperature: 400,
      warmupPerTemperature: 5,
      seed: 1,
    });
    expect(sample.kernel).toBe("model");
    // β = 0 is sampled exactly from the prior; every other temperature asks the model once.
    expect(model.betasAsked).toEqual([0.01, 0.2, 1]);
    expect(sample.temperatures[0].exact).toBe(true);
    expect(sample.temperatures[0].ess).toBe(400);
    expectMeansMatch(model, sample);
  });

  it("asks the model's kernel at β = 0 too when exactPrior is false", () => {
    const model = modelWithExactKernel(2);
    samplePowerPosteriors(model, BETAS, {
      drawsPerTemperature: 20,
      warmupPerTemperature: 0,
      exactPrior: false,
      seed: 1,
    });
    expect(model.betasAsked).toEqual(BETAS);
  });

  it("samples with HMC for a model with gradients, matching E_β[log L] within 4 MCSE", () => {
    const model = testModel(3);
    const sample = samplePowerPosteriors(model, BETAS, { drawsPerTemperature: 1000, seed: 2 });
    expect(sample.kernel).toBe("hmc");
    for (const t of sample.temperatures.slice(1)) {
      expect(t.acceptanceRate).toBeGreaterThan(0.6);
      expect(t.ess).toBeGreaterThan(100);
    }
    expectMeansMatch(model, sample);
    // Likelihood evaluations: at least one per kept draw (plus the trajectories).
    expect(sample.nLikelihoodEvals).toBeGreaterThan(4 * 1000);
  });

  it("samples with adaptive random-walk Metropolis for a model without gradients", () => {
    const model = gradientFreeModel(2);
    const sample = samplePowerPosteriors(model, BETAS, { drawsPerTemperature: 2000, seed: 3 });
    expect(sample.kernel).toBe("random-walk");
    for (const t of sample.temperatures.slice(1)) expect(t.acceptanceRate).toBeGreaterThan(0.2);
    expectMeansMatch(testModel(2), sample);
  });

  it("calls a user's kernel factory with each β", () => {
    const model = testModel(2);
    const asked: number[] = [];
    const sample = samplePowerPosteriors(model, BETAS, {
      kernel: (beta) => {
        asked.push(beta);
        return exactPowerPosteriorKernel(model, beta);
      },
      drawsPerTemperature: 300,
      warmupPerTemperature: 1,
      seed: 4,
    });
    expect(sample.kernel).toBe("user");
    expect(asked).toEqual([0.01, 0.2, 1]);
    expectMeansMatch(model, sample);
  });

  it("is deterministic for a seed", () => {
    const model = testModel(2);
    const a = samplePowerPosteriors(model, BETAS, {
      drawsPerTemperature: 50,
      warmupPerTemperature: 60,
      seed: 9,
    });
    const b = samplePowerPosteriors(model, BETAS, {
      drawsPerTemperature: 50,
      warmupPerTemperature: 60,
      seed: 9,
    });
    expect(Array.from(a.temperatures[3].logLikelihood)).toEqual(Array.from(b.temperatures[3].logLikelihood));
  });

  it("carries the tuning across temperatures when the warm-up is short (one draw per temperature)", () => {
    const model = testModel(2);
    const betas = Array.from({ length: 300 }, (_, i) => ((i + 1) / 300) ** 3);
    const sample = samplePowerPosteriors(model, betas, {
      drawsPerTemperature: 1,
      warmupPerTemperature: 2,
      seed: 5,
    });
    // The last 100 temperatures (β near 1, a narrow posterior) still accept most HMC proposals.
    let accept = 0;
    for (const t of sample.temperatures.slice(200)) accept += t.acceptanceRate / 100;
    expect(accept).toBeGreaterThan(0.5);
  });

  it("weighs a prior draw whose log likelihood is NaN as zero, and names the temperature where no chain can start", () => {
    // 40 prior draws at β = 0, then the random walk: NaN from the 20th call on at β = 0, from the 500th later.
    const model = failingModel(2, 20);
    const atPrior = thrown(() => samplePowerPosteriors(model, BETAS, { drawsPerTemperature: 40, seed: 1 }));
    // The prior draws from the 20th on count as zero likelihood; the chain at β = 0.01 finds no finite start.
    expect(atPrior.code).toBe("non-finite");
    expect(atPrior.message).toMatch(/at β = 0\.01 \(temperature 1\)/);
    const later = thrown(() =>
      samplePowerPosteriors(failingModel(2, 500), BETAS, { drawsPerTemperature: 40, seed: 1 }),
    );
    expect(later.code).toBe("non-finite");
    expect(later.message).toMatch(/at β = (0\.01|0\.2|1) \(temperature [123]\)/);
  });

  it("rejects bad options and kernels the model cannot support", () => {
    const model = testModel(2);
    expect(
      thrown(() => samplePowerPosteriors(gradientFreeModel(2), BETAS, { kernel: "hmc" })).message,
    ).toMatch(/needs model.gradLogPrior/);
    expect(thrown(() => samplePowerPosteriors(model, BETAS, { kernel: "model" })).message).toMatch(
      /powerPosteriorKernel/,
    );
    expect(thrown(() => samplePowerPosteriors(model, [0, 0.5, 0.2])).message).toMatch(
      /temperature 2 \(0.2\) is below/,
    );
    expect(thrown(() => samplePowerPosteriors(model, [0, 1.5])).message).toMatch(/must lie in \[0, 1\]/);
    expect(thrown(() => samplePowerPosteriors(model, BETAS, { drawsPerTemperature: 0 })).code).toBe(
      "invalid-argument",
    );
    expect(thrown(() => samplePowerPosteriors(model, BETAS, { kernel: "nuts" as "hmc" })).message).toMatch(
      /kernel must be/,
    );
  });
});
