/**
 * A precision target for the estimators on the tempering engine (`smc`, `stepping-stone`, `path`,
 * `chaining`): further independent runs of the first run's size until the pooled standard error is at
 * most the target, as UltraNest adds live points towards its `dlogz`, with a check that the runs agree
 * within their errors.
 */

import { OccamError } from "../../errors.js";
import { logSumExp } from "../../math/logspace.js";
import { chisquareQuantile } from "../../math/stdlib.js";
import type { BayesModel } from "../../model/model.js";
import { unbounded } from "../../model/transform.js";
import { checkCount, type RandomOptions, resolveRng } from "../checks.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "../result.js";
import { runTempering, type TemperingRun, type TemperingSettings } from "./engine.js";
import {
  combineIslands,
  type IslandEstimate,
  type IslandKind,
  resolveTemperingOptions,
  runWarnings,
  studentFactor,
  type TemperingDefaults,
  type TemperingDiagnostics,
  type TemperingOptions,
  temperingDiagnostics,
} from "./estimates.js";
import { type LadderRecord, recordLadder } from "./ladder.js";

/** Options of an estimator with a precision target. */
export interface PrecisionOptions {
  /**
   * Further independent runs, of the first run's size, until the pooled standard error is at most
   * this many nats (or `maxParticles` are spent); "none": one run of `particles`.
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
const DEFAULT_TARGET_STD_ERR = 0.05;

/** A resolved precision target. */
export interface Precision {
  readonly target: number;
  readonly maxParticles: number;
}

/** One run of an estimator with a precision target, as its diagnostics report it. */
export interface TemperingRunSummary {
  readonly particles: number;
  readonly logZ: number;
  readonly stdErr: number;
  readonly evaluations: number;
  readonly divergences: number;
  readonly outOfSupport: number;
  /** Whether the run is in the estimate (runs before the first whose islands agree are left out). */
  readonly pooled: boolean;
}

/** The diagnostics of an estimator with a precision target: its last pooled run's, and every run's summary. */
export interface PooledDiagnostics extends TemperingDiagnostics {
  readonly runs: readonly TemperingRunSummary[];
  /**
   * The pooled runs' Monte Carlo standard error: the standard error before an error the runs share
   * (path's discretisation error, the last pooled run's) is added in quadrature.
   */
  readonly monteCarloStdErr: number;
}

/**
 * An error a run's islands share and that further runs do not average down (path's discretisation
 * error): its size in nats, what it is, and what would shrink it.
 */
export interface SharedError {
  readonly stdErr: number;
  readonly what: string;
  readonly remedy: string;
}

/** One run of the engine as an estimator made it: its islands' estimate, its own checks, its extra diagnostics. */
export interface EstimatorRun<X extends object> {
  readonly run: TemperingRun;
  readonly estimate: IslandEstimate;
  /** The estimator's own reasons not to trust the run (a rung's heavy-tailed weights), beside the moves' checks. */
  readonly reasons: readonly string[];
  /** An error the runs share, added in quadrature to the pooled standard error (the last pooled run's). */
  readonly shared?: SharedError;
  readonly extra: X;
}

/**
 * `targetStdErr` and `maxParticles` resolved: undefined for a single run. With `targetStdErr` "none"
 * and `minRuns` above 1, a target no standard error exceeds and room for `minRuns` runs of the first
 * run's size: that many runs, unless one fails its checks or the first run's islands disagree.
 */
export function resolvePrecision(
  options: PrecisionOptions & { particles?: number },
  firstRun: number,
  where: string,
  minRuns = 1,
): Precision | undefined {
  const given = options.targetStdErr ?? (options.particles === undefined ? DEFAULT_TARGET_STD_ERR : "none");
  if (given !== "none" && !(typeof given === "number" && given > 0 && Number.isFinite(given))) {
    throw new OccamError(
      "invalid-argument",
      `${where}: targetStdErr must be a positive number of nats or "none", got ${String(given)}.`,
    );
  }
  const maxParticles = options.maxParticles ?? 16 * firstRun;
  checkCount(maxParticles, "maxParticles", where, firstRun);
  if (given !== "none") return { target: given, maxParticles };
  return minRuns > 1 ? { target: Number.POSITIVE_INFINITY, maxParticles: minRuns * firstRun } : undefined;
}

/** How an estimator's runs pool. */
export interface Pooling {
  /** How its islands' estimates combine, and so its runs' (see {@link poolRuns}). */
  readonly kind: IslandKind;
  /**
   * Whether the spread between its runs counts beside their islands': then at least two runs, and the
   * pooled standard error scaled by their {@link spreadRatio} whenever it exceeds 1, as the Particle
   * Data Group scales every weighted mean whose ratio exceeds 1. For an estimator whose islands share
   * an error their spread understates (see `pathSampling`).
   */
  readonly countRunSpread: boolean;
  /**
   * Whether a further run is sized to what the target still needs (see {@link moreParticles}) rather
   * than made as large as the first.
   */
  readonly sizedRuns?: boolean;
}

/**
 * The pooling of `smc`, `stepping-stone` and `chaining`'s lower ends: islands that each estimate Z
 * without bias.
 */
export const PRODUCT_POOLING: Pooling = { kind: "product", countRunSpread: false };

/**
 * The pooling of `path` and of `chaining`'s geometric bridges: islands that each estimate log Z,
 * pooled on the log scale, the runs' spread counted (see `pathSampling`).
 */
export const LOG_POOLING: Pooling = { kind: "sum", countRunSpread: true };

/**
 * A ladder estimator (`stepping-stone`, `path`, `chaining`) to its precision target: the model in
 * unbounded coordinates, the options resolved with `defaults`, and each run's record of the draws at
 * every temperature turned into its estimate by `fromRecord` (see {@link temperingToPrecision}).
 */
export function ladderToPrecision<M extends string, X extends object>(
  method: M,
  pooling: Pooling,
  model: BayesModel,
  options: RandomOptions & TemperingOptions & PrecisionOptions,
  defaults: TemperingDefaults,
  where: string,
  fromRecord: (record: LadderRecord) => Omit<EstimatorRun<X>, "run">,
): EvidenceEstimate<M, PooledDiagnostics & X> {
  const start = performance.now();
  const target = unbounded(model, where).model;
  const settings = resolveTemperingOptions(target, options, defaults, where);
  const precision = resolvePrecision(options, settings.particles, where);
  const rng = resolveRng(options, where);
  return temperingToPrecision(method, pooling, start, settings, precision, (runSettings) => {
    const { observer, record } = recordLadder(runSettings.particles, runSettings.islands);
    const run = runTempering(target, rng, runSettings, where, observer);
    return { run, ...fromRecord(record) };
  });
}

/** A run with its settings and its checks. */
interface CheckedRun<X extends object> extends EstimatorRun<X> {
  readonly settings: TemperingSettings;
  readonly checks: { unreliable: string[]; warnings: string[] };
}

/**
 * Runs `runOnce` with `settings`, then, while the pooled standard error is above the target (or
 * fewer than two runs are pooled, when `pooling` counts the runs' spread), again with as many
 * particles as the first run whose islands agreed (see {@link moreParticles}); pools the runs from
 * that one on ({@link poolRuns}, as `pooling` says) and returns the estimator's result, with the
 * diagnostics and `extra` of the last pooled run and every run's summary. No further run follows
 * moves that stalled or diverged, the estimator's own reasons, runs that disagree beyond their errors
 * (whose pooled standard error is scaled by their {@link birgeRatioOf}), or a shared error at or above
 * the target once the runs due are pooled: more particles do not mend them, and the result says so.
 */
export function temperingToPrecision<M extends string, X extends object>(
  method: M,
  pooling: Pooling,
  start: number,
  settings: TemperingSettings,
  precision: Precision | undefined,
  runOnce: (settings: TemperingSettings) => EstimatorRun<X>,
): EvidenceEstimate<M, PooledDiagnostics & X> {
  const runs: CheckedRun<X>[] = [];
  let pooled: CheckedRun<X>[] = [];
  let estimate = { logZ: Number.NaN, stdErr: Number.NaN };
  let birgeRatio: number | undefined;
  const minRuns = pooling.countRunSpread ? 2 : 1;
  for (let particles = settings.particles; particles > 0; ) {
    // The budget of evaluations is the estimator's: each run has what the runs before it left.
    const spentSoFar = runs.reduce((n, r) => n + r.run.evaluations, 0);
    const maxEvaluations = (settings.maxEvaluations ?? Number.POSITIVE_INFINITY) - spentSoFar;
    const runSettings = { ...settings, particles, maxEvaluations };
    const run = runOnce(runSettings);
    const checks = runWarnings(run.run, runSettings);
    checks.unreliable.push(...run.reasons);
    runs.push({ ...run, settings: runSettings, checks });
    pooled = poolable(runs);
    const summaries = pooled.map((r) => ({ ...r.settings, ...r.estimate }));
    estimate = poolRuns(summaries, pooling.kind);
    birgeRatio = birgeRatioOf(summaries, estimate.logZ);
    const ratio = birgeRatio ?? (pooling.countRunSpread ? spreadRatio(summaries, estimate.logZ) : undefined);
    if (ratio !== undefined && ratio > 1) estimate.stdErr *= ratio;
    // The last pooled run's, as the diagnostics that report it.
    const sharedStdErr = pooled[pooled.length - 1].shared?.stdErr ?? 0;
    // More particles mend neither failed checks nor an error the runs share: the result says so.
    const stop =
      precision === undefined ||
      birgeRatio !== undefined ||
      (sharedStdErr >= precision.target && pooled.length >= minRuns) ||
      runs.some((r) => r.checks.unreliable.length > 0);
    const spent = runs.reduce((n, r) => n + r.run.evaluations, 0);
    particles =
      stop || spent >= (settings.maxEvaluations ?? Number.POSITIVE_INFINITY)
        ? 0
        : moreParticles(Math.hypot(estimate.stdErr, sharedStdErr), precision, runs, pooled, minRuns, pooling);
  }
  const last = pooled[pooled.length - 1];
  const shared = last.shared;
  const sharedStdErr = shared?.stdErr ?? 0;
  const stdErr = Math.hypot(estimate.stdErr, sharedStdErr);
  const spent = runs.reduce((n, r) => n + r.settings.particles, 0);
  const unreliable = new Set(spreadReasons(pooled, pooling.kind));
  const warnings = new Set(runs.flatMap((r) => r.estimate.warnings));
  for (const { checks } of runs) {
    for (const reason of checks.unreliable) unreliable.add(reason);
    for (const warning of checks.warnings) warnings.add(warning);
  }
  const left = runs.length - pooled.length;
  if (left > 0) {
    warnings.add(
      `${left} of the ${runs.length} runs left out: the islands of each spread by more than a nat, and those of a larger run agreed.`,
    );
  }
  if (birgeRatio !== undefined) {
    warnings.add(
      `the pooled runs disagree beyond their standard errors (Birge ratio ${birgeRatio.toFixed(2)}): they share an ` +
        "error their islands' spread cannot see, which more particles would not shrink; the standard error is scaled by that ratio.",
    );
  } else if (precision !== undefined && unreliable.size === 0 && stdErr > precision.target) {
    const remedy =
      shared !== undefined && sharedStdErr >= estimate.stdErr
        ? `most of it is the ${shared.what} (${sharedStdErr.toPrecision(2)} nats), which more particles would not shrink: ${shared.remedy}`
        : "raise maxParticles for a smaller one";
    warnings.add(
      `the standard error, ${stdErr.toPrecision(2)} nats after ${spent} particles in ${runs.length} runs, is above ` +
        `targetStdErr ${precision.target}: ${remedy}.`,
    );
  } else if (precision === undefined && shared !== undefined && sharedStdErr > estimate.stdErr) {
    warnings.add(
      `the estimated ${shared.what} (${sharedStdErr.toPrecision(3)} nats) exceeds the Monte Carlo error ` +
        `(${estimate.stdErr.toPrecision(3)}); the standard error includes it, but the estimate may be biased: ${shared.remedy}.`,
    );
  }
  if (precision !== undefined && pooled.length < minRuns && unreliable.size === 0) {
    warnings.add(
      `only ${pooled.length} run pooled where ${minRuns} were due: the spread between runs, which one run's islands ` +
        "understate, is not in the standard error; raise maxParticles.",
    );
  }
  return evidenceResult({
    method,
    logZ: estimate.logZ,
    stdErr,
    nLikelihoodEvals: runs.reduce((n, r) => n + r.run.evaluations, 0),
    seconds: secondsSince(start),
    unreliable: [...unreliable],
    warnings: [...warnings],
    diagnostics: {
      ...temperingDiagnostics(last.run, last.settings, last.estimate),
      ...last.extra,
      runs: runs.map((r) => ({
        particles: r.settings.particles,
        logZ: r.estimate.logZ,
        stdErr: r.estimate.stdErr,
        evaluations: r.run.evaluations,
        divergences: r.run.stages.reduce((n, t) => n + t.divergences, 0),
        outOfSupport: r.run.outOfSupport,
        pooled: pooled.includes(r),
      })),
      monteCarloStdErr: estimate.stdErr,
    },
  });
}

/**
 * The runs to pool: from the first run whose islands agree on (all of them when none agree). A run
 * whose islands spread by more than a nat has a mean carried by a few islands, typically low; runs
 * after it are as large as the first that agreed (see {@link moreParticles}), and are all pooled,
 * since leaving out those of one size whose islands happen to spread more would bias the pool.
 */
function poolable<R extends { estimate: IslandEstimate }>(runs: readonly R[]): R[] {
  const first = runs.findIndex((r) => r.estimate.unreliable.length === 0);
  return first < 0 ? [...runs] : runs.slice(first);
}

/**
 * Why the pooled runs' islands cannot be averaged, if they cannot: {@link combineIslands}'s check on
 * all their islands together (for several runs a better measure of the spread than any one run's).
 */
function spreadReasons(pooled: readonly { estimate: IslandEstimate }[], kind: IslandKind): readonly string[] {
  if (pooled.length === 1) return pooled[0].estimate.unreliable;
  const islands = pooled.flatMap((r) => r.estimate.islandLogZ.map((v) => v ?? Number.NEGATIVE_INFINITY));
  return combineIslands(islands, kind).unreliable;
}

/**
 * Pools independent runs, each weighted by w_r, its share of the particles (an island's variance falls
 * as 1/particles). Islands that each estimate Z without bias (`"product"`: smc, stepping-stone,
 * chaining's lower ends) pool on Z's scale: Ẑ = Σ_r w_r Ẑ_r, relative variance
 * Σ_r w_r² (Ẑ_r/Ẑ)² (s_r/f_r)²; islands that each estimate log Z (`"sum"`: path, chaining's geometric
 * bridges) on log Z's: log Ẑ = Σ_r w_r log Ẑ_r, variance Σ_r w_r² (s_r/f_r)²; s_r is each run's
 * standard error and f_r the {@link studentFactor} it carries, and the pooled
 * standard error is scaled by the Student factor of the Welch–Satterthwaite degrees of freedom. One
 * run is returned as it is; a standard error that is not finite makes the pooled one +∞.
 */
export function poolRuns(
  runs: readonly { particles: number; islands: number; logZ: number; stdErr: number }[],
  kind: IslandKind,
): { logZ: number; stdErr: number } {
  if (runs.length === 1) return { logZ: runs[0].logZ, stdErr: runs[0].stdErr };
  const total = runs.reduce((n, r) => n + r.particles, 0);
  const logZ =
    kind === "sum"
      ? runs.reduce((sum, r) => sum + (r.particles / total) * r.logZ, 0)
      : logSumExp(runs.map((r) => Math.log(r.particles / total) + r.logZ));
  let variance = 0;
  let spread = 0;
  for (const run of runs) {
    if (kind === "product" && run.logZ === Number.NEGATIVE_INFINITY) continue; // Ẑ_r = 0 adds nothing
    const G = run.islands;
    const scale = kind === "sum" ? 1 : Math.exp(run.logZ - logZ);
    const part = ((run.particles / total) * scale * (run.stdErr / studentFactor(G - 1))) ** 2;
    variance += part;
    spread += part ** 2 / (G - 1);
  }
  if (!Number.isFinite(variance)) return { logZ, stdErr: Number.POSITIVE_INFINITY };
  const degrees = spread > 0 ? variance ** 2 / spread : runs[0].islands - 1;
  return { logZ, stdErr: Math.sqrt(variance) * studentFactor(degrees) };
}

/** Above this quantile of χ² with k − 1 degrees of freedom, k pooled runs disagree beyond their standard errors. */
const DISAGREEMENT_QUANTILE = 0.999;

/**
 * χ² = Σ_r (log Ẑ_r − log Ẑ)² / σ_r² of the runs with finite estimates about log Ẑ, σ_r each run's
 * standard error without its Student factor, and its degrees of freedom (undefined for fewer than two
 * such runs).
 */
function runsChiSquare(
  runs: readonly { islands: number; logZ: number; stdErr: number }[],
  logZ: number,
): { chiSquare: number; degrees: number } | undefined {
  const finite = runs.filter((r) => Number.isFinite(r.logZ) && Number.isFinite(r.stdErr) && r.stdErr > 0);
  if (finite.length < 2 || !Number.isFinite(logZ)) return undefined;
  let chiSquare = 0;
  for (const run of finite)
    chiSquare += ((run.logZ - logZ) / (run.stdErr / studentFactor(run.islands - 1))) ** 2;
  return { chiSquare, degrees: finite.length - 1 };
}

/**
 * The spread ratio (Birge ratio) √(χ²/(k − 1)) of k runs about their pooled log Ẑ (see
 * {@link runsChiSquare}): about 1 when the standard errors are the right size. Undefined for fewer
 * than two runs with finite estimates.
 */
export function spreadRatio(
  runs: readonly { islands: number; logZ: number; stdErr: number }[],
  logZ: number,
): number | undefined {
  const spread = runsChiSquare(runs, logZ);
  return spread === undefined ? undefined : Math.sqrt(spread.chiSquare / spread.degrees);
}

/**
 * The {@link spreadRatio} of k pooled runs when they disagree: χ² above the 0.999 quantile of χ²_{k−1}
 * (a guard against gross disagreement, such as a run that missed a mode: the delta method's errors
 * from 32 islands have heavier tails than a Gaussian's, and on lognormal islands of sd 0.8 two runs
 * with calibrated errors were called disagreeing 0.8 % of the time, four 1.7 %, eight 2.2 %; at the
 * 0.99 quantile two runs 2.8 %).
 * Independent runs that disagree beyond their errors share an error the spread of each run's islands
 * cannot see (the temperatures and tuning its islands share); scaling the standard error by the ratio
 * makes it cover their disagreement, as the Particle Data Group scales a weighted mean's. Undefined
 * when they agree, or for fewer than two runs with finite estimates.
 */
export function birgeRatioOf(
  runs: readonly { islands: number; logZ: number; stdErr: number }[],
  logZ: number,
): number | undefined {
  const spread = runsChiSquare(runs, logZ);
  if (spread === undefined) return undefined;
  const { chiSquare, degrees } = spread;
  return chiSquare > chisquareQuantile(DISAGREEMENT_QUANTILE, degrees)
    ? Math.sqrt(chiSquare / degrees)
    : undefined;
}

/**
 * The particles of the next run: as many as the first run whose islands agreed, or twice the last
 * run's while none agreed, within `maxParticles` over all runs; 0 when the standard error is at most
 * the target (and `minRuns` are pooled) or not finite, or the budget left is too small. Runs of equal size rather than one
 * large one: a run's islands share its temperatures and the moves' tuning, and with them an error
 * their spread cannot see, which m independent runs average down by √m and one large run does not.
 * On the 20-dimensional box-bounded Gaussian (`smc`) one large further run left the errors' sd at 1.24
 * times the mean standard error (0.052 against 0.042, 16 seeds); runs of the first run's size, at
 * about the same cost, at 0.84 (0.040 against 0.047, 20 seeds, all within 1.7 standard errors).
 *
 * With `sizedRuns`, a further run is no larger than the target still needs: the pooled variance falls
 * as 1/particles, so P(s²/t² − 1) more particles, P those pooled, s the standard error and t the
 * target, and a fifth more for the standard error's own noise, in whole islands of at least
 * {@link MIN_SIZED_ISLAND} particles, never more than the first run's: after a run of 2048 particles
 * in 32 islands whose standard error is 0.06 nats, a target of 0.05 adds 1088 particles, not 2048.
 */
function moreParticles(
  stdErr: number,
  precision: Precision,
  runs: readonly CheckedRun<object>[],
  pooled: readonly CheckedRun<object>[],
  minRuns: number,
  pooling: Pooling,
): number {
  if (!Number.isFinite(stdErr) || (stdErr <= precision.target && pooled.length >= minRuns)) return 0;
  const agreeing = pooled[0].estimate.unreliable.length === 0;
  let particles = agreeing ? pooled[0].settings.particles : 2 * runs[runs.length - 1].settings.particles;
  if (pooling.sizedRuns === true && agreeing && pooled.length >= minRuns) {
    const { islands } = pooled[0].settings;
    const pooledParticles = pooled.reduce((n, r) => n + r.settings.particles, 0);
    const needed = 1.2 * pooledParticles * ((stdErr / precision.target) ** 2 - 1);
    const perIsland = Math.max(MIN_SIZED_ISLAND, Math.ceil(needed / islands));
    particles = Math.min(particles, perIsland * islands);
  }
  const spent = runs.reduce((n, r) => n + r.settings.particles, 0);
  return spent + particles <= precision.maxParticles ? particles : 0;
}

/** The fewest particles per island of a sized further run (see {@link moreParticles}). */
const MIN_SIZED_ISLAND = 16;
