/**
 * The calibration of every evidence method on the hard-problem suite: over many seeds per problem,
 * is each result within its error of the reference, or does it say it is unreliable?
 */
import { OccamError } from "../errors.js";
import { EVIDENCE_METHODS, type EvidenceMethod, estimateEvidence } from "../evidence/estimate.js";
import type { BayesModel } from "../model/model.js";
import { HARD_PROBLEM_NAMES, type HardProblemName, hardProblem } from "../models/hard-problems/index.js";
import { siblingModule } from "../parallel/pool.js";
import { type ParallelOptions, runUnits } from "../parallel/run.js";
import { createRng } from "../random/rng.js";
import { unitProgress } from "./progress.js";

/** One method on one problem with one seed. Numbers are null when the method failed (see `failure`). */
export interface CalibrationRun {
  /** The problem (a hard problem's name, or a real model's). */
  readonly problem: string;
  readonly method: EvidenceMethod;
  readonly seed: number;
  readonly logZ: number | null;
  readonly stdErr: number | null;
  /** logZ − reference. */
  readonly error: number | null;
  /** error / stdErr; null without a positive, finite standard error. */
  readonly z: number | null;
  readonly reliable: boolean;
  /** The first warning, when there is one. */
  readonly warning: string | null;
  readonly nLikelihoodEvals: number;
  readonly seconds: number;
  /** Why the method gave no number (an OccamError's message), when it did not. */
  readonly failure: string | null;
}

/** One method on one problem over all seeds. */
export interface CalibrationCell {
  readonly problem: string;
  readonly method: EvidenceMethod;
  readonly runs: number;
  /** Runs marked unreliable, or that failed with an error. */
  readonly unreliable: number;
  /**
   * Runs that neither lie within 3 stdErr + 0.01 nats of the reference (plus the reference's own
   * error) nor say they are unreliable: the silent failures the suite exists to catch.
   */
  readonly silentFailures: number;
  /** Over the reliable runs: the mean error, the mean standard error, the fraction with |z| < 2, and the largest |z|. */
  readonly meanError: number | null;
  readonly meanStdErr: number | null;
  readonly fractionWithin2: number | null;
  readonly worstZ: number | null;
  /** Mean likelihood evaluations and seconds per run. */
  readonly nLikelihoodEvals: number;
  readonly seconds: number;
}

/** The result of `occam reproduce calibration`. */
export interface CalibrationExperiment {
  readonly experiment: "calibration";
  readonly seed: number;
  readonly seeds: number;
  readonly quick: boolean;
  readonly references: readonly {
    problem: HardProblemName;
    logZ: number;
    logZError: number;
    description: string;
  }[];
  readonly cells: readonly CalibrationCell[];
  readonly runs: readonly CalibrationRun[];
}

/** Options of {@link runCalibrationExperiment}. */
export interface CalibrationOptions {
  /** @defaultValue 1 */
  seed?: number;
  /** Seeds per problem and method. @defaultValue 20, or 1 when quick */
  seeds?: number;
  /**
   * One seed on the four problems of {@link QUICK_PROBLEMS} (unless `seeds` and `problems` say
   * otherwise): under a minute on two cores.
   * @defaultValue false
   */
  quick?: boolean;
  /** Only these problems. @defaultValue the whole suite, or {@link QUICK_PROBLEMS} when quick */
  problems?: readonly HardProblemName[];
  /** Only these methods. @defaultValue every method that applies (all but "cv", which needs data it can split) */
  methods?: readonly EvidenceMethod[];
  /** Settings passed to every method (for the quick tests; the benchmark uses the defaults). */
  settings?: Partial<Record<EvidenceMethod, object>>;
  /** Told what comes next. */
  onProgress?: (step: string) => void;
}

/**
 * The problems of a quick run: four that break naive estimators in different ways (many modes, two
 * separated modes, a funnel, thin curved shells) and that every method runs in seconds at its defaults.
 */
export const QUICK_PROBLEMS: readonly HardProblemName[] = Object.freeze([
  "eggbox",
  "mixture-d5",
  "funnel-d10",
  "shells-d2",
]);

/** A result counts as honest when it lies within this many of its standard errors (plus 0.01 nats). */
export const CALIBRATION_BAND = 3;

/**
 * Runs each method on each problem of the hard-problem suite over `seeds` seeds, at the methods'
 * default settings (each run through `estimateEvidence`, so draw-based methods sample their own
 * posterior), and summarises each (problem, method): how many runs were unreliable, how many were
 * silent failures (outside 3 stdErr + 0.01 nats of the reference and not marked unreliable), and over
 * the reliable runs the mean error and standard error, the fraction with |z| < 2 and the worst |z|.
 * Each run's seed comes from its own `rng.split` stream, so adding a problem or a method changes no
 * other run.
 */
export function runCalibrationExperiment(options: CalibrationOptions = {}): CalibrationExperiment {
  const plan = calibrationPlan(options);
  const runs = plan.runs.map((r, i) => {
    options.onProgress?.(`${r.problem}, ${r.method}, seed ${(i % plan.seeds) + 1} of ${plan.seeds}`);
    return calibrationRun(r);
  });
  return assembleCalibration(plan, runs);
}

/**
 * {@link runCalibrationExperiment} with each run a unit on worker threads or a Redis queue (see
 * {@link ParallelOptions}); the result is the same bit for bit, apart from times.
 */
export async function runCalibrationExperimentInParallel(
  options: CalibrationOptions & ParallelOptions = {},
): Promise<CalibrationExperiment> {
  const plan = calibrationPlan(options);
  const runs = (await runUnits(
    plan.runs.map((r, i) => ({
      key: `${r.problem}/${r.method}/${i % plan.seeds}`,
      command: "calibration-run",
      payload: r,
    })),
    siblingModule(import.meta.url, "calibration-units"),
    { ...options, onUnit: unitProgress(options.onProgress) },
  )) as CalibrationRun[];
  return assembleCalibration(plan, runs);
}

/** One run of the suite, as a unit carries it: the problem, the method, its seed and settings. */
export interface CalibrationRunSpec {
  readonly problem: HardProblemName;
  readonly method: EvidenceMethod;
  readonly seed: number;
  readonly settings?: object;
}

/** Every run of the experiment, problem by problem, method by method, seed by seed. */
interface CalibrationPlan {
  readonly seed: number;
  readonly seeds: number;
  readonly quick: boolean;
  readonly problems: readonly HardProblemName[];
  readonly methods: readonly EvidenceMethod[];
  readonly runs: readonly CalibrationRunSpec[];
}

function calibrationPlan(options: CalibrationOptions): CalibrationPlan {
  const seed = options.seed ?? 1;
  const quick = options.quick ?? false;
  const seeds = options.seeds ?? (quick ? 1 : 20);
  if (!(Number.isInteger(seeds) && seeds >= 1)) {
    throw new OccamError("invalid-argument", `calibration: seeds must be an integer ≥ 1, got ${seeds}.`);
  }
  const problems = options.problems ?? (quick ? QUICK_PROBLEMS : HARD_PROBLEM_NAMES);
  const methods = options.methods ?? EVIDENCE_METHODS.filter((m) => m !== "cv");
  const runs: CalibrationRunSpec[] = [];
  const problemStreams = createRng(seed).split(problems.length);
  problems.forEach((problem, p) => {
    const methodStreams = problemStreams[p].split(methods.length);
    methods.forEach((method, m) => {
      const seedStreams = methodStreams[m].split(seeds);
      for (let s = 0; s < seeds; s++) {
        const settings = options.settings?.[method];
        runs.push({
          problem,
          method,
          seed: Math.floor(seedStreams[s].uniform() * 0xffffffff),
          ...(settings === undefined ? {} : { settings }),
        });
      }
    });
  });
  return { seed, seeds, quick, problems, methods, runs };
}

/** The experiment's result from its runs, in the plan's order. */
function assembleCalibration(plan: CalibrationPlan, runs: readonly CalibrationRun[]): CalibrationExperiment {
  const cells: CalibrationCell[] = [];
  const references: CalibrationExperiment["references"][number][] = [];
  plan.problems.forEach((name, p) => {
    const problem = hardProblem(name);
    references.push({
      problem: name,
      logZ: problem.logZ,
      logZError: problem.logZError,
      description: problem.description,
    });
    plan.methods.forEach((method, m) => {
      const first = (p * plan.methods.length + m) * plan.seeds;
      cells.push(summariseCell(name, method, runs.slice(first, first + plan.seeds), problem.logZError));
    });
  });
  return {
    experiment: "calibration",
    seed: plan.seed,
    seeds: plan.seeds,
    quick: plan.quick,
    references,
    cells,
    runs: [...runs],
  };
}

/** One run: the method on the problem with the seed, compared with the problem's reference. */
export function calibrationRun(spec: CalibrationRunSpec): CalibrationRun {
  const { problem, method, seed, settings } = spec;
  const { model, logZ: reference } = hardProblem(problem);
  return methodRun(problem, model, method, seed, reference, settings);
}

/**
 * The method on the model with the seed at its default settings (or `settings`), compared with the
 * reference; a method that stops with an OccamError gives a run with null numbers and its message.
 */
export function methodRun(
  problem: string,
  model: BayesModel,
  method: EvidenceMethod,
  seed: number,
  reference: number,
  settings?: object,
): CalibrationRun {
  const start = performance.now();
  try {
    const r = estimateEvidence(model, { method, seed, ...(settings === undefined ? {} : { settings }) });
    const error = r.logZ - reference;
    return {
      problem,
      method,
      seed,
      logZ: r.logZ,
      stdErr: r.stdErr,
      error,
      z: r.stdErr > 0 && Number.isFinite(r.stdErr) ? error / r.stdErr : null,
      reliable: r.reliable,
      warning: r.warnings[0] ?? null,
      nLikelihoodEvals: r.nLikelihoodEvals,
      seconds: r.seconds,
      failure: null,
    };
  } catch (error) {
    if (!(error instanceof OccamError)) throw error;
    return {
      problem,
      method,
      seed,
      logZ: null,
      stdErr: null,
      error: null,
      z: null,
      reliable: false,
      warning: null,
      nLikelihoodEvals: 0,
      seconds: (performance.now() - start) / 1000,
      failure: error.message,
    };
  }
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** A problem's runs of one method summarised: unreliable runs, silent failures, errors and costs. */
export function summariseCell(
  problem: string,
  method: EvidenceMethod,
  runs: readonly CalibrationRun[],
  referenceError: number,
): CalibrationCell {
  const reliable = runs.filter((r) => r.reliable && r.error !== null && r.stdErr !== null);
  const silentFailures = reliable.filter(
    (r) => Math.abs(r.error as number) > CALIBRATION_BAND * (r.stdErr as number) + 0.01 + referenceError,
  ).length;
  const zs = reliable.map((r) => r.z).filter((z): z is number => z !== null);
  return {
    problem,
    method,
    runs: runs.length,
    unreliable: runs.length - reliable.length,
    silentFailures,
    meanError: mean(reliable.map((r) => r.error as number)),
    meanStdErr: mean(reliable.map((r) => r.stdErr as number)),
    fractionWithin2: zs.length === 0 ? null : zs.filter((z) => Math.abs(z) < 2).length / zs.length,
    worstZ: zs.length === 0 ? null : Math.max(...zs.map(Math.abs)),
    nLikelihoodEvals: mean(runs.map((r) => r.nLikelihoodEvals)) ?? 0,
    seconds: mean(runs.map((r) => r.seconds)) ?? 0,
  };
}
