/**
 * `occam reproduce robot-arm`: the Fabricius thesis §6.3.6 (Figures 6.13–6.22) and Barber & Bishop
 * (seed 001) on MacKay's robot arm — 200 training and 200 test cases, noise σ = 0.05 — for networks
 * of several sizes: the maximum-likelihood network's training error, FPE and test error (Figures
 * 6.13–6.15), the Bayesian network's test error (Figure 6.17), and its log evidence by path sampling
 * and by chaining (each swept from the prior up and from the posterior down, Figures 6.20–6.22), by
 * MacKay's evidence framework (Barber & Bishop §4) and by importance sampling from the ensemble
 * approximation (thesis App. C, eqs. 6.65–6.66; refined to maximise the ELBO, see `ensembleMlp`).
 */

import { robotArmData } from "../data/generators/robot-arm.js";
import { OccamError } from "../errors.js";
import { powerLadder, refineLadder } from "../evidence/tempering/schedule.js";
import { bayesianMlp, predictBayesianMlp } from "../models/mlp/bayesian.js";
import { ensembleEvidence, ensembleMlp } from "../models/mlp/ensemble.js";
import { evidenceFramework } from "../models/mlp/evidence-framework.js";
import { fitMaximumLikelihoodMlp } from "../models/mlp/maximum-likelihood.js";
import type { MlpData } from "../models/mlp/network.js";
import {
  type SweepEvidence,
  sweepChaining,
  sweepPathSampling,
  sweepTemperatures,
  type TemperatureSweep,
} from "../models/mlp/temperature-sweep.js";

/** Options of {@link runRobotArmExperiment} (the CLI's `reproduce` options plus `hidden`). */
export interface RobotArmExperimentOptions {
  seed: number;
  quick: boolean;
  /**
   * Numbers of hidden units.
   * @defaultValue [1, 2, 4, 8, 12, 16, 20] ([2, 8, 16] with `quick`)
   */
  hidden?: number[];
  /**
   * Noise standard deviation of the training and test data (the thesis uses 0.05 and 0.5).
   * @defaultValue 0.05
   */
  noise?: number;
  onProgress?: (step: string) => void;
  /** Overrides of the run's settings (smaller data and sweeps for tests); the ladder is fixed. */
  settings?: Partial<Omit<RobotArmSettings, "temperatures" | "chainingLambdas">>;
}

/** The sizes of a run (see {@link runRobotArmExperiment} for the full and quick values). */
export interface RobotArmSettings {
  readonly nTrain: number;
  readonly nTest: number;
  readonly mlStarts: number;
  readonly temperatures: number;
  readonly chainingLambdas: number;
  readonly warmupPerTemperature: number;
  readonly drawsPerTemperature: number;
  readonly burnIn: number;
  readonly posteriorDraws: number;
  readonly ensembleSamples: number;
}

/** A log evidence and its standard error. */
export interface LogEvidence {
  readonly logZ: number;
  readonly stdErr: number;
}

/** A swept estimate: both directions, their hysteresis, and the bracket's midpoint. */
export interface SweptLogEvidence extends LogEvidence {
  /** Swept from the prior up (θ = 0 → 1): a stochastic lower bound when the sweep lags. */
  readonly fromPrior: LogEvidence;
  /** Swept from the posterior down (θ = 1 → 0): a stochastic upper bound when the sweep lags. */
  readonly fromPosterior: LogEvidence;
  /** fromPosterior − fromPrior: the hysteresis (0 for sweeps at equilibrium). */
  readonly hysteresis: number;
  /** Standard error of the hysteresis from the two sweeps' Monte Carlo errors. */
  readonly hysteresisStdErr: number;
}

/** One network size. */
export interface RobotArmRow {
  readonly hidden: number;
  readonly weights: number;
  /** ML training error (mean over starts), mean squared error per output channel. */
  readonly mlTrainError: number;
  /** ML test error (mean over starts), per channel. */
  readonly mlTestError: number;
  /** FPE of the ML fit (mean over starts), per channel; null when N_w ≥ N. */
  readonly fpe: number | null;
  /** Bayesian test error of the posterior predictive mean (draws started at θ = 1), per channel. */
  readonly bayesTestError: number;
  /** The same from the draws at θ = 1 at the end of the sweep from the prior. */
  readonly bayesTestErrorFromPrior: number;
  /** Posterior mean noise standard deviation (θ = 1 draws). */
  readonly noiseSd: number;
  /** HMC acceptance of the posterior draws. */
  readonly acceptance: number;
  readonly logEvidence: {
    readonly path: SweptLogEvidence;
    readonly chaining: SweptLogEvidence;
    readonly laplace: LogEvidence & { readonly eq11: number; readonly converged: boolean };
    /**
     * `paretoK` is null when it cannot be estimated; `stdErr` is null when k̂ is missing or above 0.7:
     * the importance weights then have no finite variance and the estimate has no error bar to give.
     */
    readonly ensemble: {
      readonly logZ: number;
      readonly stdErr: number | null;
      /** The refined q's evidence lower bound (a valid bound whatever k̂) and its standard error. */
      readonly elbo: number;
      readonly elboStdErr: number;
      readonly paretoK: number | null;
    };
  };
  readonly seconds: number;
}

/** What {@link runRobotArmExperiment} returns. */
export interface RobotArmExperiment {
  readonly experiment: "robot-arm";
  readonly seed: number;
  readonly quick: boolean;
  readonly noise: number;
  readonly settings: RobotArmSettings;
  readonly rows: readonly RobotArmRow[];
  readonly seconds: number;
}

/** Checks a list of hidden-unit counts: integers from 1 to 64, at least one, no repeats. */
export function checkHiddenList(hidden: readonly number[], where: string): number[] {
  if (!Array.isArray(hidden) || hidden.length === 0) {
    throw new OccamError("invalid-argument", `${where}: give at least one number of hidden units.`);
  }
  const seen = new Set<number>();
  for (const h of hidden) {
    if (!(Number.isInteger(h) && h >= 1 && h <= 64)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: each number of hidden units must be an integer from 1 to 64, got ${h}.`,
      );
    }
    if (seen.has(h)) throw new OccamError("invalid-argument", `${where}: ${h} hidden units is listed twice.`);
    seen.add(h);
  }
  return [...hidden];
}

function testError(Y: Float64Array, mean: Float64Array): number {
  let s = 0;
  for (let k = 0; k < Y.length; k++) s += (Y[k] - mean[k]) ** 2;
  return s / Y.length;
}

function swept(up: SweepEvidence, down: SweepEvidence): SweptLogEvidence {
  const gap = down.logZ - up.logZ;
  const mid = 0.5 * (up.logZ + down.logZ);
  const se2 = up.stdErr ** 2 + down.stdErr ** 2;
  return {
    // The midpoint of the bracket, its error the half-width added to the sampling error.
    logZ: mid,
    stdErr: Math.sqrt(se2 / 4 + (gap / 2) ** 2),
    fromPrior: { logZ: up.logZ, stdErr: up.stdErr },
    fromPosterior: { logZ: down.logZ, stdErr: down.stdErr },
    hysteresis: gap,
    hysteresisStdErr: Math.sqrt(se2),
  };
}

/**
 * Runs the robot-arm reproduction (see the module header). Settings: full — 10 ML starts, a ladder of
 * 39 temperatures (Barber & Bishop's 20 values of λ, λ_i = (i/19)⁴, with a midpoint in each link for
 * path sampling), 30 warm-up and 30 kept sweeps per temperature, 500 burn-in sweeps and 200
 * posterior draws, 2000 ensemble draws; quick — 3 ML starts, 15 + 15 sweeps per temperature, 300
 * burn-in, 100 posterior draws, 1000 ensemble draws.
 */
export function runRobotArmExperiment(options: RobotArmExperimentOptions): RobotArmExperiment {
  const where = "robot-arm";
  const started = performance.now();
  const { seed, quick } = options;
  const hidden = checkHiddenList(options.hidden ?? (quick ? [2, 8, 16] : [1, 2, 4, 8, 12, 16, 20]), where);
  const noise = options.noise ?? 0.05;
  if (!(Number.isFinite(noise) && noise > 0)) {
    throw new OccamError("invalid-argument", `${where}: noise must be a finite number > 0, got ${noise}.`);
  }
  const settings: RobotArmSettings = {
    nTrain: 200,
    nTest: 200,
    mlStarts: quick ? 3 : 10,
    warmupPerTemperature: quick ? 15 : 30,
    drawsPerTemperature: quick ? 15 : 30,
    burnIn: quick ? 300 : 500,
    posteriorDraws: quick ? 100 : 200,
    ensembleSamples: quick ? 1000 : 2000,
    ...options.settings,
    // The ladder is fixed: Barber & Bishop's 20 values of λ with a midpoint in each link.
    temperatures: 39,
    chainingLambdas: 20,
  };
  const { nTrain, nTest } = settings;
  const train: MlpData = robotArmData({ n: nTrain, noiseSd: noise, seed });
  const test: MlpData = robotArmData({ n: nTest, noiseSd: noise, seed: seed + 7919 });
  const chain = powerLadder(19, 4);
  const ladder = refineLadder(chain, 2);
  const rows: RobotArmRow[] = [];
  for (const H of hidden) {
    const t0 = performance.now();
    const say = (what: string) => options.onProgress?.(`H = ${H}: ${what}`);
    say("maximum likelihood");
    const ml = fitMaximumLikelihoodMlp(train, { hidden: H, test, starts: settings.mlStarts, seed });
    const model = bayesianMlp(train, { hidden: H });
    say("evidence framework");
    const ef = evidenceFramework(model, { seed });
    say("ensemble");
    const ens = ensembleMlp(model, {
      seed,
      initialWeights: ef.fit.weights,
      initialHyper: { noisePrecision: ef.fit.noisePrecision, groupPrecisions: ef.fit.groupPrecisions },
    });
    const ensEv = ensembleEvidence(ens, { samples: settings.ensembleSamples, seed });
    const sweeps: Record<"up" | "down", TemperatureSweep> = {} as Record<"up" | "down", TemperatureSweep>;
    for (const direction of ["down", "up"] as const) {
      sweeps[direction] = sweepTemperatures(model, {
        ladder,
        direction,
        warmupPerTemperature: settings.warmupPerTemperature,
        drawsPerTemperature: settings.drawsPerTemperature,
        burnIn: settings.burnIn,
        endDraws: settings.posteriorDraws,
        seed: seed + (direction === "up" ? 1 : 2),
        onTemperature: (k, beta) =>
          say(
            `sweep ${direction === "up" ? "from the prior" : "from the posterior"}, θ = ${beta.toPrecision(3)} (${k})`,
          ),
      });
    }
    const post = sweeps.down.posterior;
    const predict = (d: typeof post) => predictBayesianMlp(model.network, d, test.X, test.n).mean;
    let noiseSd = 0;
    for (let i = 0; i < post.nDraws; i++) noiseSd += 1 / Math.sqrt(post.noisePrecision[i]) / post.nDraws;
    rows.push({
      hidden: H,
      weights: model.weightCount,
      mlTrainError: ml.meanTrainError,
      mlTestError: ml.meanTestError as number,
      fpe: ml.meanFpe ?? null,
      bayesTestError: testError(test.Y, predict(post)),
      bayesTestErrorFromPrior: testError(test.Y, predict(sweeps.up.posterior)),
      noiseSd,
      acceptance: post.acceptanceRate,
      logEvidence: {
        path: swept(sweepPathSampling(sweeps.up), sweepPathSampling(sweeps.down)),
        chaining: swept(sweepChaining(sweeps.up, chain), sweepChaining(sweeps.down, chain)),
        laplace: {
          logZ: ef.logZ,
          stdErr: ef.stdErr,
          eq11: ef.fit.logEvidenceEq11,
          converged: ef.fit.converged,
        },
        ensemble: ensembleSummary(
          ensEv.logZ,
          ensEv.stdErr,
          ensEv.diagnostics.elbo as number,
          ensEv.diagnostics.elboStdErr as number,
          ensEv.diagnostics.paretoK,
        ),
      },
      seconds: (performance.now() - t0) / 1000,
    });
  }
  return {
    experiment: "robot-arm",
    seed,
    quick,
    noise,
    settings,
    rows,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The ensemble estimate, without a standard error where k̂ says the weights' variance is infinite. */
function ensembleSummary(
  logZ: number,
  stdErr: number,
  elbo: number,
  elboStdErr: number,
  k: unknown,
): RobotArmRow["logEvidence"]["ensemble"] {
  const paretoK = typeof k === "number" && Number.isFinite(k) ? k : null;
  return { logZ, stdErr: paretoK !== null && paretoK <= 0.7 ? stdErr : null, elbo, elboStdErr, paretoK };
}
