/**
 * Calibration of the evidence estimators' standard errors on the 10-dimensional Gaussian-mean model:
 * over 50 seeds, each a new data set (gaussianMeanModel seed s) and a new estimator seed derived from
 * s, z = (log Ẑ − log Z) / stdErr must satisfy |z| < 2 in at least 85 % of the runs (43 of 50), and the
 * mean of z must lie within ±0.6.
 *
 * Why these bars:
 * - A calibrated z is about N(0, 1), so |z| < 2 with probability 0.954 and P(at most 42 of 50) ≈ 0.002.
 *   An estimator whose stdErr is a standard deviation of R repetitions over √R (tempered SMC, R = 8)
 *   has z ~ Student-t with R − 1 = 7 degrees of freedom: P(|t₇| < 2) = 0.914 and P(at most 42 of 50)
 *   ≈ 0.06, so for SMC the bar is close to the calibrated coverage.
 * - The mean of 50 calibrated z has standard error 1/√50 ≈ 0.14 (0.17 for t₇); ±0.6 is about 4 of
 *   them, a check for gross bias only (a bias of 0.6 standard errors in every run).
 *
 * Settings are reduced (standard errors of 0.1–0.3 nats; bridge sampling's is smaller) so that the
 * file runs in about a minute; every kernel is the estimators' default (HMC, the model has gradients).
 */
import { describe, expect, it } from "vitest";
import { annealedImportanceSampling } from "../../src/evidence/annealed-importance-sampling.js";
import { bridgeSampling } from "../../src/evidence/bridge-sampling.js";
import { pathSampling } from "../../src/evidence/path-sampling.js";
import { samplePosterior } from "../../src/evidence/posterior-sampling.js";
import type { EvidenceResult } from "../../src/evidence/result.js";
import { powerLadder } from "../../src/evidence/schedule.js";
import { steppingStone } from "../../src/evidence/stepping-stone.js";
import { temperedSmc } from "../../src/evidence/tempered-smc.js";
import { type GaussianMeanModel, gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";

const RUNS = 50;
/** At least 85 % of the runs within 2 standard errors. */
const MIN_INSIDE = Math.ceil(0.85 * RUNS);
const MAX_MEAN_Z = 0.6;

interface Calibration {
  /** Runs with |z| < 2. */
  inside: number;
  /** Mean of z over the runs. */
  meanZ: number;
}

/** Runs `estimate` on the data set of each seed s = 0 … RUNS − 1 and summarises z. */
function calibrate(estimate: (model: GaussianMeanModel, s: number) => EvidenceResult): Calibration {
  let inside = 0;
  let sumZ = 0;
  for (let s = 0; s < RUNS; s++) {
    const model = gaussianMeanModel({ dim: 10, n: 20, seed: s });
    const r = estimate(model, s);
    // A non-finite or zero stdErr makes z NaN or infinite, which counts as outside and fails the mean.
    const z = (r.logZ - model.exactLogEvidence()) / r.stdErr;
    if (Math.abs(z) < 2) inside++;
    sumZ += z;
  }
  return { inside, meanZ: sumZ / RUNS };
}

function expectCalibrated(name: string, { inside, meanZ }: Calibration): void {
  expect(inside, `${name}: ${inside}/${RUNS} within 2 stdErr`).toBeGreaterThanOrEqual(MIN_INSIDE);
  expect(
    Math.abs(meanZ),
    `${name}: mean z ${meanZ.toFixed(3)} (${inside}/${RUNS} within 2 stdErr)`,
  ).toBeLessThan(MAX_MEAN_Z);
}

describe("calibration of the evidence standard errors (d = 10 Gaussian mean, 50 seeds)", () => {
  it("bridge sampling on HMC posterior draws (4 chains × 1000, warm-up 300)", () => {
    const result = calibrate((model, s) => {
      const { draws } = samplePosterior(model, { chains: 4, warmup: 300, draws: 1000, seed: 1000 + s });
      return bridgeSampling(model, { draws, seed: 2000 + s });
    });
    expectCalibrated("bridge", result);
  });

  it("stepping-stone (33 temperatures × 300 draws, warm-up 100)", () => {
    const result = calibrate((model, s) =>
      steppingStone(model, { drawsPerTemperature: 300, warmupPerTemperature: 100, seed: 3000 + s }),
    );
    expectCalibrated("stepping-stone", result);
  });

  it("path sampling (Simpson, 33 temperatures × 300 draws, warm-up 100)", () => {
    const result = calibrate((model, s) =>
      pathSampling(model, { drawsPerTemperature: 300, warmupPerTemperature: 100, seed: 4000 + s }),
    );
    expectCalibrated("path", result);
  });

  it("annealed importance sampling (150 particles, 101 temperatures)", () => {
    const result = calibrate((model, s) =>
      annealedImportanceSampling(model, { particles: 150, ladder: powerLadder(100, 4), seed: 5000 + s }),
    );
    expectCalibrated("ais", result);
  });

  it("tempered SMC (250 particles × 8 repetitions)", () => {
    const result = calibrate((model, s) => temperedSmc(model, { particles: 250, seed: 6000 + s }));
    expectCalibrated("smc", result);
  });
});
