/**
 * `occam reproduce robot-arm`: the Fabricius thesis §6.3.6 (Figures 6.13–6.22) and Barber & Bishop
 * (seed 001) on MacKay's robot arm — 200 training and 200 test cases, noise σ = 0.05 — for networks
 * of several sizes: the maximum-likelihood network's training error, FPE and test error (Figures
 * 6.13–6.15), the Bayesian network's test error (Figure 6.17), and its log evidence by path sampling
 * and by chaining (each swept from the prior up and from the posterior down, Figures 6.20–6.22), by
 * MacKay's evidence framework (Barber & Bishop §4) and by importance sampling from the ensemble
 * approximation (thesis App. C, eqs. 6.65–6.66; refined to maximise the ELBO, see `ensembleMlp`).
 */

import { OccamError } from "../errors.js";
import type { SweepEvidence } from "../models/mlp/temperature-sweep.js";
import { siblingModule } from "../parallel/pool.js";
import { type ParallelOptions, runUnits } from "../parallel/run.js";
import { unitProgress } from "./progress.js";
import {
  ROBOT_ARM_PARTS,
  type RobotArmFrameworkPart,
  type RobotArmMlPart,
  type RobotArmPart,
  type RobotArmPartResult,
  type RobotArmSweepPart,
  type RobotArmUnit,
  robotArmPart,
} from "./robot-arm-units.js";

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

/** The network sizes, noise and settings of a run, checked. */
function robotArmSetup(options: RobotArmExperimentOptions): {
  hidden: number[];
  noise: number;
  settings: RobotArmSettings;
} {
  const where = "robot-arm";
  const { quick } = options;
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
  return { hidden, noise, settings };
}

/** The units of a run, the costliest first: each size's sweeps, then its framework and ML fits, largest size first. */
function robotArmUnits(options: RobotArmExperimentOptions): RobotArmUnit[] {
  const { hidden, noise, settings } = robotArmSetup(options);
  const sizes = [...hidden].sort((a, b) => b - a);
  return sizes.flatMap((H) =>
    ROBOT_ARM_PARTS.map((part) => ({ part, hidden: H, seed: options.seed, noise, settings })),
  );
}

/** The run's result from its units' parts (in any order: they are found by size and part). */
function assembleRobotArm(
  options: RobotArmExperimentOptions,
  units: readonly RobotArmUnit[],
  parts: readonly RobotArmPartResult[],
  started: number,
): RobotArmExperiment {
  const { hidden, noise, settings } = robotArmSetup(options);
  const rows = hidden.map((H): RobotArmRow => {
    const of = (part: RobotArmPart) => parts[units.findIndex((u) => u.hidden === H && u.part === part)];
    const ml = of("ml") as RobotArmMlPart & { seconds: number };
    const framework = of("framework") as RobotArmFrameworkPart & { seconds: number };
    const up = of("sweep-up") as RobotArmSweepPart & { seconds: number };
    const down = of("sweep-down") as RobotArmSweepPart & { seconds: number };
    const e = framework.ensemble;
    return {
      hidden: H,
      weights: framework.weights,
      mlTrainError: ml.mlTrainError,
      mlTestError: ml.mlTestError,
      fpe: ml.fpe,
      bayesTestError: down.testError,
      bayesTestErrorFromPrior: up.testError,
      noiseSd: down.noiseSd,
      acceptance: down.acceptance,
      logEvidence: {
        path: swept(up.path, down.path),
        chaining: swept(up.chaining, down.chaining),
        laplace: framework.laplace,
        ensemble: ensembleSummary(e.logZ, e.stdErr, e.elbo, e.elboStdErr, e.paretoK),
      },
      seconds: ml.seconds + framework.seconds + up.seconds + down.seconds,
    };
  });
  return {
    experiment: "robot-arm",
    seed: options.seed,
    quick: options.quick,
    noise,
    settings,
    rows,
    seconds: (performance.now() - started) / 1000,
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
  const started = performance.now();
  const units = robotArmUnits(options);
  const parts = units.map((u) => robotArmPart(u, (what) => options.onProgress?.(`H = ${u.hidden}: ${what}`)));
  return assembleRobotArm(options, units, parts, started);
}

/**
 * {@link runRobotArmExperiment} with each network size's four parts (the two sweeps, the evidence
 * framework with the ensemble, the ML fits) run as units on worker threads or a Redis queue (see
 * {@link ParallelOptions}); the result is the same bit for bit, apart from times.
 */
export async function runRobotArmExperimentInParallel(
  options: RobotArmExperimentOptions & ParallelOptions,
): Promise<RobotArmExperiment> {
  const started = performance.now();
  const units = robotArmUnits(options);
  const parts = (await runUnits(
    units.map((u) => ({ key: `H=${u.hidden}/${u.part}`, command: "robot-arm-part", payload: u })),
    siblingModule(import.meta.url, "robot-arm-units"),
    { ...options, onUnit: unitProgress(options.onProgress) },
  )) as RobotArmPartResult[];
  return assembleRobotArm(options, units, parts, started);
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
