/**
 * Adaptive tempered sequential Monte Carlo (as PyMC's `sample_smc` and blackjax's
 * `adaptive_tempered_smc`), on the tempering engine.
 */
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import {
  checkCount,
  checkModel,
  type EvidenceEstimate,
  evidenceResult,
  type RandomOptions,
  resolveRng,
  secondsSince,
} from "./result.js";
import { runTempering, type TemperingRun, type TemperingSettings } from "./tempering/engine.js";
import {
  combineIslands,
  type IslandEstimate,
  poolRuns,
  resolveTemperingOptions,
  runWarnings,
  type TemperingDefaults,
  type TemperingDiagnostics,
  type TemperingOptions,
  temperingDiagnostics,
} from "./tempering/estimates.js";

/** Options of {@link temperedSmc}: the engine's, with tempered SMC's defaults. */
export interface TemperedSmcOptions extends RandomOptions, TemperingOptions {
  /**
   * Further runs, with more particles, until the pooled standard error is at most this many nats
   * (or `maxParticles` are spent), as UltraNest adds live points towards its `dlogz`; "none": one
   * run of `particles`.
   * @defaultValue 0.05, or "none" when `particles` is given
   */
  targetStdErr?: number | "none";
  /**
   * The most particles, over all runs, that `targetStdErr` may spend.
   * @defaultValue 16 times the first run's
   */
  maxParticles?: number;
}

/** The default `targetStdErr` (nats): a Bayes factor then rests on log Z to about a tenth of a nat. */
const SMC_TARGET_STD_ERR = 0.05;

/**
 * Tempered SMC's defaults: 2048 particles, steps that keep half the ESS, sweeps until a thousandth of
 * the start's memory is left: its estimate is a product of every temperature's incremental weights,
 * which a cloud lagging behind the temperatures biases low.
 */
export const SMC_DEFAULTS: TemperingDefaults = {
  particles: 2048,
  sweeps: "auto",
  memoryLeft: 0.001,
  targetEss: 0.5,
  draws: 0,
  resample: "always",
  finalSweeps: false,
};

/** One run of {@link temperedSmc}. */
export interface SmcRunSummary {
  readonly particles: number;
  readonly logZ: number;
  readonly stdErr: number;
  readonly evaluations: number;
  readonly divergences: number;
  readonly outOfSupport: number;
  /** Whether the run is in the estimate (a run whose islands disagree is left out when another run's agree). */
  readonly pooled: boolean;
}

/**
 * Tempered SMC's diagnostics: the engine's of its last pooled run (its temperatures, moves and
 * islands), and every run's size, estimate and cost.
 */
export interface SmcDiagnostics extends TemperingDiagnostics {
  readonly runs: readonly SmcRunSummary[];
}

/** The result of {@link temperedSmc}. */
export type TemperedSmcResult = EvidenceEstimate<"smc", SmcDiagnostics>;

/**
 * Evidence by adaptive tempered sequential Monte Carlo (Del Moral, Doucet & Jasra 2006; the
 * adaptive temperatures of Jasra et al. 2011). N particles start from the prior; at each stage the
 * next β is found by bisection so that the step's conditional ESS is `targetEss` · N, every particle
 * is reweighted by L^{β' − β}, each island's log Z grows by the log of its mean weight, the particles
 * are resampled within their islands and moved by MCMC sweeps in the metric of the cloud's
 * covariance (HMC with gradients, else random-walk Metropolis, or the model's exact kernel), until
 * the particles have forgotten where the stage's moves began and, extrapolated from how fast they
 * forgot, all but a thousandth of the lag behind the new temperature is gone (`memoryLeft`).
 *
 * Estimate and standard error: each of the G islands (32 by default) is an independent SMC run given
 * the shared temperatures and tuning, with Ẑ_g unbiased for Z; the estimate is log mean Ẑ_g and the
 * standard error the delta method's sd(Ẑ_g/mean)/√G, scaled by t_{0.975, G−1}/1.96 because the spread
 * is itself estimated from G values. It includes every correlation within a run. The result is
 * marked unreliable when the islands disagree by more than a nat (their mean is then carried by a
 * few), or when the moves barely moved the particles at some temperature.
 *
 * Precision: unless `particles` is given, a run whose standard error exceeds `targetStdErr` (0.05
 * nats) is followed by an independent run with as many more particles as the target asks (the
 * variance falls as 1/N), and the runs are pooled, each run's mean Ẑ weighted by its particles, with
 * the delta method's standard error and Welch–Satterthwaite's degrees of freedom; no further run
 * follows one whose moves stalled or diverged. On a 50-dimensional box-bounded Gaussian one run of
 * 2048 particles has a standard error of 0.11–0.15 nats, and the pooled runs reach 0.05 at 6–11 times
 * the work. Easy problems stop after the first run.
 *
 * A model with `bounds` is sampled on the unbounded scale (see `unbounded`); log Z is unchanged.
 *
 * @example
 * const result = temperedSmc(model, { particles: 4096, seed: 1 });
 */
export function temperedSmc(model: BayesModel, options: TemperedSmcOptions = {}): TemperedSmcResult {
  const start = performance.now();
  const where = "temperedSmc";
  checkModel(model, where);
  const target = unbounded(model, where).model;
  const settings = resolveTemperingOptions(target, options, SMC_DEFAULTS, where);
  const precision = resolvePrecision(options, settings.particles, where);
  const rng = resolveRng(options, where);
  const runs: SmcRun[] = [];
  let pooled: SmcRun[] = [];
  let estimate = { logZ: Number.NaN, stdErr: Number.NaN };
  for (let particles = settings.particles; particles > 0; ) {
    const runSettings = { ...settings, particles };
    const run = runTempering(target, rng, runSettings, where);
    runs.push({
      run,
      settings: runSettings,
      estimate: combineIslands(run.islandLogZ, "product"),
      checks: runWarnings(run, runSettings),
    });
    pooled = poolable(runs);
    estimate = poolRuns(pooled.map((r) => ({ ...r.settings, ...r.estimate })));
    // More particles do not mend moves that stalled or diverged: the result says so, and no run follows.
    const movesFailed = runs.some((r) => r.checks.unreliable.length > 0);
    particles =
      precision === undefined || movesFailed ? 0 : moreParticles(estimate.stdErr, precision, runs, pooled);
  }
  const spent = runs.reduce((n, r) => n + r.settings.particles, 0);
  const unreliable = new Set(pooled.flatMap((r) => r.estimate.unreliable));
  const warnings = new Set(runs.flatMap((r) => r.estimate.warnings));
  for (const { checks } of runs) {
    for (const reason of checks.unreliable) unreliable.add(reason);
    for (const warning of checks.warnings) warnings.add(warning);
  }
  const left = runs.length - pooled.length;
  if (left > 0) {
    warnings.add(
      `${left} of ${runs.length} runs left out: their islands' estimates spread by more than a nat, and another run's agreed.`,
    );
  }
  if (precision !== undefined && unreliable.size === 0 && estimate.stdErr > precision.target) {
    warnings.add(
      `the standard error, ${estimate.stdErr.toPrecision(2)} nats after ${spent} particles in ${runs.length} runs, is above ` +
        `targetStdErr ${precision.target}: raise maxParticles for a smaller one.`,
    );
  }
  const last = pooled[pooled.length - 1];
  return evidenceResult({
    method: "smc",
    logZ: estimate.logZ,
    stdErr: estimate.stdErr,
    nLikelihoodEvals: runs.reduce((n, r) => n + r.run.evaluations, 0),
    seconds: secondsSince(start),
    unreliable: [...unreliable],
    warnings: [...warnings],
    diagnostics: {
      ...temperingDiagnostics(last.run, last.settings, last.estimate),
      runs: runs.map((r) => ({
        particles: r.settings.particles,
        logZ: r.estimate.logZ,
        stdErr: r.estimate.stdErr,
        evaluations: r.run.evaluations,
        divergences: r.run.stages.reduce((n, t) => n + t.divergences, 0),
        outOfSupport: r.run.outOfSupport,
        pooled: pooled.includes(r),
      })),
    },
  });
}

/** One run of the engine, its settings, its islands' estimate and its own checks of its moves. */
interface SmcRun {
  readonly run: TemperingRun;
  readonly settings: TemperingSettings;
  readonly estimate: IslandEstimate;
  readonly checks: { unreliable: string[]; warnings: string[] };
}

/**
 * The runs to pool: those whose islands agree. A run whose islands spread by more than a nat has a
 * mean carried by a few islands, typically low, and would bias the pool; the other runs stand without
 * it (when none agree, all are pooled and the result says it cannot be trusted).
 */
function poolable(runs: readonly SmcRun[]): SmcRun[] {
  const agreeing = runs.filter((r) => r.estimate.unreliable.length === 0);
  return agreeing.length > 0 ? agreeing : [...runs];
}

/** `targetStdErr` and `maxParticles` resolved: undefined for a single run. */
function resolvePrecision(
  options: TemperedSmcOptions,
  firstRun: number,
  where: string,
): { target: number; maxParticles: number } | undefined {
  const given = options.targetStdErr ?? (options.particles === undefined ? SMC_TARGET_STD_ERR : "none");
  if (given !== "none" && !(typeof given === "number" && given > 0 && Number.isFinite(given))) {
    throw new OccamError(
      "invalid-argument",
      `${where}: targetStdErr must be a positive number of nats or "none", got ${String(given)}.`,
    );
  }
  const maxParticles = options.maxParticles ?? 16 * firstRun;
  checkCount(maxParticles, "maxParticles", where, firstRun);
  return given === "none" ? undefined : { target: given, maxParticles };
}

/**
 * The particles of the next run: with N particles in the pooled runs and their standard error s, a
 * run of N ((s / target)² − 1) more brings it to the target (the variance falls as 1/N); a fifth more
 * than that, since s is itself estimated from the islands; at least the first run's, a whole number
 * per island, and within `maxParticles` over all runs; 0 when the target is met, s is not finite, or
 * the budget left is smaller than the first run.
 */
function moreParticles(
  stdErr: number,
  precision: { target: number; maxParticles: number },
  runs: readonly SmcRun[],
  pooled: readonly SmcRun[],
): number {
  if (!Number.isFinite(stdErr) || stdErr <= precision.target) return 0;
  const { particles: first, islands: G } = runs[0].settings;
  const count = (list: readonly SmcRun[]) => list.reduce((n, r) => n + r.settings.particles, 0);
  const wanted = Math.max(first, count(pooled) * (1.2 * (stdErr / precision.target) ** 2 - 1));
  const particles = Math.min(
    Math.ceil(wanted / G) * G,
    Math.floor((precision.maxParticles - count(runs)) / G) * G,
  );
  return particles >= first ? particles : 0;
}
