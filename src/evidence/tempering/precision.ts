/**
 * A precision target for the estimators on the tempering engine (`smc`, `stepping-stone`, `path`,
 * `chaining`): further independent runs of `particles` until the pooled standard error is at
 * most the target, as UltraNest adds live points towards its `dlogz`, with a check that the runs agree
 * within their errors.
 */

import { OccamError } from "../../errors.js";
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
  type TemperingDefaults,
  type TemperingDiagnostics,
  type TemperingOptions,
  temperingDiagnostics,
} from "./estimates.js";
import { type LadderRecord, recordLadder } from "./ladder.js";
import { birgeRatioOf, poolRuns, spreadRatio, welchDisagreement } from "./pooling.js";
import { fitReference, pilot, type Reference, type ReferenceFamily, referenceModel } from "./reference.js";

/** Options of an estimator with a precision target. */
export interface PrecisionOptions {
  /**
   * Further independent runs, of `particles` each, until the pooled standard error is at most
   * this many nats (or `maxParticles` are spent); "none": one run of `particles`.
   * @defaultValue 0.05, or "none" when `particles` is given
   */
  targetStdErr?: number | "none";
  /**
   * The most particles, over all runs, that `targetStdErr` may spend.
   * @defaultValue 16 times `particles`
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
  /** Where its tempering started: the prior, or a reference fitted to a run from the prior. */
  readonly start: RunStart;
  /**
   * Whether the run is in the estimate (runs before the first whose islands agree are left out, and
   * so are the runs of the start that spent more evaluations per unit of variance).
   */
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
  /**
   * Whether runs may start from a reference fitted to a run from the prior (see
   * {@link temperingToPrecision}).
   */
  readonly referenceRuns?: boolean;
  /** The reference's family. @defaultValue "student-t" */
  readonly referenceFamily?: ReferenceFamily;
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
  return temperingToPrecision(method, pooling, start, settings, precision, (runSettings, reference) => {
    const { observer, record } = recordLadder(runSettings.particles, runSettings.islands);
    // From a reference q, the rungs run from q to p L (Fan et al.'s generalised stepping-stone).
    const runTarget = reference === undefined ? target : referenceModel(target, reference);
    const run = runTempering(runTarget, rng, runSettings, where, observer);
    return { run, ...fromRecord(record) };
  });
}

/** Where a run's tempering starts: the prior, or a reference fitted to a run from the prior (see `referenceModel`). */
export type RunStart = "prior" | "reference";

/** A run with its settings, its checks and where it started. */
interface CheckedRun<X extends object> extends EstimatorRun<X> {
  readonly settings: TemperingSettings;
  readonly checks: { unreliable: string[]; warnings: string[] };
  readonly start: RunStart;
  /** A run left out of the estimate and its checks: a pilot or a run from the reference that failed them. */
  readonly failed: boolean;
}

/** What the runs so far give: the runs pooled, their estimate, and why its standard error was scaled. */
interface RunsSoFar<X extends object> {
  readonly start: RunStart;
  readonly pooled: CheckedRun<X>[];
  readonly estimate: { logZ: number; stdErr: number };
  /** The Birge ratio of pooled runs that disagree. */
  readonly birgeRatio: number | undefined;
  /** Welch's t of the prior's and the reference's estimates, when they disagree (see {@link welchDisagreement}). */
  readonly startsT: number | undefined;
}

/**
 * Runs `runOnce` with `settings`, then, while the pooled standard error is above the target (or
 * fewer than two runs are pooled, when `pooling` counts the runs' spread), again with `particles`
 * (see {@link moreParticles}); pools the runs from
 * that one on ({@link poolRuns}, as `pooling` says) and returns the estimator's result, with the
 * diagnostics and `extra` of the last pooled run and every run's summary. No further run follows
 * moves that stalled or diverged, the estimator's own reasons (a pilot's are tried again by a full
 * run from the prior), runs that disagree beyond their errors
 * (whose pooled standard error is scaled by their {@link birgeRatioOf}), or a shared error at or above
 * the target once the runs due are pooled: more particles do not mend them, and the result says so.
 *
 * With `pooling.referenceRuns`, the first run is a {@link pilot} of a quarter of the islands, and the
 * runs after it start from a reference fitted to it (to the next full run if its islands
 * disagreed or it failed the estimator's own checks) instead (`Pooling.referenceFamily`; `runOnce` gets it; see {@link fitReference}), with a full run's
 * particles. From then on the runs of whichever start spent fewer evaluations per unit of variance
 * are pooled and continued; the other start's estimate is the cross-check. A run from the reference
 * that fails its checks, or that would spend more than {@link REFERENCE_BUDGET} of what a full first
 * run costs, is left out, and so are all the runs from the reference when their estimate and the
 * prior's disagree beyond their standard errors ({@link leaveOutReferenceRuns}), each with a warning
 * that says why; the runs from the prior go on. Where the prior's side is the pilot alone, a full run
 * from the prior is made before anything is left out.
 */
export function temperingToPrecision<M extends string, X extends object>(
  method: M,
  pooling: Pooling,
  start: number,
  settings: TemperingSettings,
  precision: Precision | undefined,
  runOnce: (settings: TemperingSettings, reference: Reference | undefined) => EstimatorRun<X>,
): EvidenceEstimate<M, PooledDiagnostics & X> {
  const runs: CheckedRun<X>[] = [];
  let soFar: RunsSoFar<X> | undefined;
  let reference: Reference | undefined;
  // REFERENCE_BUDGET of a full run from the prior, measured on the run the reference is fitted to.
  let referenceBudget = Number.POSITIVE_INFINITY;
  let nextStart: RunStart = "prior";
  const minRuns = pooling.countRunSpread ? 2 : 1;
  const first =
    precision !== undefined && referenceStartAllowed(pooling, settings)
      ? pilot(settings, precision)
      : settings;
  // The first run, runs[0], is a pilot (pilot() returns `settings` itself where there is none).
  const hasPilot = first !== settings;
  for (let particles = first.particles; particles > 0; ) {
    // The budget of evaluations is the estimator's: each run has what the runs before it left.
    const spentSoFar = runs.reduce((n, r) => n + r.run.evaluations, 0);
    const left = (settings.maxEvaluations ?? Number.POSITIVE_INFINITY) - spentSoFar;
    const budget = nextStart === "reference" ? referenceBudget : Number.POSITIVE_INFINITY;
    const islands = runs.length === 0 ? first.islands : settings.islands;
    const runSettings = { ...settings, particles, islands, maxEvaluations: Math.min(left, budget) };
    const run = runOnce(runSettings, nextStart === "reference" ? reference : undefined);
    const checks = runWarnings(run.run, runSettings);
    // A pilot's few draws make a rung's Pareto k̂ noisy (on the Pima regression two of chaining's pilots
    // failed it at rungs with an ESS of 67-70 %): a pilot that fails the estimator's own checks alone
    // is left out, and a full run from the prior follows, whose checks stand.
    if (runs.length === 0 && hasPilot && checks.unreliable.length === 0 && run.reasons.length > 0) {
      checks.warnings.push(
        `the pilot run of ${particles} particles is left out (${run.reasons.join("; ")}); a full run from the prior followed.`,
      );
      runs.push({ ...run, settings: runSettings, checks, start: "prior", failed: true });
      particles = settings.particles;
      continue;
    }
    checks.unreliable.push(...run.reasons);
    // A path from the reference that is long (a posterior far from elliptical) or that the moves
    // could not follow says nothing about the runs from the prior, which go on without it.
    const failed = nextStart === "reference" && checks.unreliable.length > 0;
    if (failed) {
      const why =
        run.run.budgetSpentAt !== undefined && budget < left
          ? `it was stopped at β = ${run.run.budgetSpentAt.toPrecision(3)}, having spent a quarter of what a first run of ${settings.particles} particles costs`
          : `it failed its checks: ${checks.unreliable.join("; ")}`;
      checks.warnings.push(
        `the run from a ${referenceName(pooling)} fitted to a run from the prior is left out (${why}); the runs from the prior went on.`,
      );
      checks.unreliable.length = 0;
    }
    runs.push({ ...run, settings: runSettings, checks, start: nextStart, failed });
    soFar = poolSoFar(runs, pooling, hasPilot);
    // Against a pilot alone, a disagreement of the starts is settled by a full run from the prior first.
    const fullPriorRun = runs.some((r, i) => r.start === "prior" && (i > 0 || !hasPilot));
    const unsettled = soFar.startsT !== undefined && !fullPriorRun;
    if (soFar.startsT !== undefined && !unsettled) {
      leaveOutReferenceRuns(runs, soFar.startsT, pooling);
      soFar = poolSoFar(runs, pooling, hasPilot);
    }
    const { pooled, estimate, birgeRatio } = soFar;
    // The last pooled run's, as the diagnostics that report it.
    const sharedStdErr = pooled[pooled.length - 1].shared?.stdErr ?? 0;
    // More particles mend neither failed checks nor an error the runs share: the result says so. An
    // unsettled disagreement of the starts is settled first.
    const checksFailed = runs.some((r) => r.checks.unreliable.length > 0);
    const spent = runs.reduce((n, r) => n + r.run.evaluations, 0);
    const stop =
      precision === undefined ||
      checksFailed ||
      spent >= (settings.maxEvaluations ?? Number.POSITIVE_INFINITY) ||
      (!unsettled &&
        (birgeRatio !== undefined || (sharedStdErr >= precision.target && pooled.length >= minRuns)));
    const stdErr = Math.hypot(estimate.stdErr, sharedStdErr);
    // A pilot's few islands can understate its error by half (seed 1 of stepping-stone on the Pima
    // regression: +0.126 ± 0.031), so its estimate is never the result alone.
    const onlyPilot = hasPilot && pooled.length === 1 && pooled[0] === runs[0];
    if (stop) {
      particles = 0;
    } else if (unsettled) {
      nextStart = "prior";
      particles = withinBudget(settings.particles, runs, precision);
    } else if (
      reference === undefined &&
      referenceAllowed(pooling, settings, runs) &&
      (stdErr > precision.target || onlyPilot)
    ) {
      reference = fitReference(run.run, pooling.referenceFamily ?? "student-t");
      referenceBudget = (REFERENCE_BUDGET * run.run.evaluations * settings.particles) / runSettings.particles;
      nextStart = "reference";
      particles = withinBudget(settings.particles, runs, precision);
    } else {
      nextStart = soFar.start;
      particles = moreParticles(stdErr, precision, settings, runs, pooled, onlyPilot ? 2 : minRuns, pooling);
    }
  }
  if (soFar === undefined) throw new OccamError("internal", `${method}: no run was made.`);
  if (soFar.startsT !== undefined) {
    // The runs ended (their budget spent, a check failed) before a full run from the prior could settle it.
    leaveOutReferenceRuns(runs, soFar.startsT, pooling);
    runs[runs.length - 1].checks.unreliable.push(
      "the runs from the reference disagree with the pilot, and no full run from the prior was left to settle it: the pilot's few islands can understate its error.",
    );
    soFar = poolSoFar(runs, pooling, hasPilot);
  }
  return pooledResult(method, start, precision, pooling, runs, soFar);
}

/**
 * Leaves out the runs from the reference when their estimate and the prior's disagree beyond their
 * standard errors. The reference, a normal or a Student-t fitted to the pilot, is the
 * approximation that can fail without a sign: on a 5-dimensional mixture of two separated modes a
 * normal spanning both gave runs 1.1–1.5 nats high, at Birge ratios of 10–19 against the pilot,
 * whose cloud held both modes. The runs from the prior go on, and are the estimate. The pilot alone
 * does not decide it: its few islands can understate its error, as on the 50-dimensional Gaussian
 * (stepping-stone, seed 7: −0.343 ± 0.091 nats from the exact value, against −0.007 ± 0.034 from the
 * reference), so a full run from the prior joins it first.
 */
function leaveOutReferenceRuns(runs: CheckedRun<object>[], t: number, pooling: Pooling): void {
  for (let i = 0; i < runs.length; i++) {
    if (runs[i].start === "reference" && !runs[i].failed) runs[i] = { ...runs[i], failed: true };
  }
  runs[runs.length - 1].checks.warnings.push(
    `the runs from a ${referenceName(pooling)} fitted to a run from the prior disagree with the runs from the prior beyond ` +
      `their standard errors (Welch's t ${t.toFixed(2)}): they are left out, and the runs from the prior went on.`,
  );
}

/** The reference's family as the warnings name it. */
function referenceName(pooling: Pooling): string {
  return pooling.referenceFamily === "normal" ? "normal" : "Student-t";
}

/**
 * Whether the next run may start from a reference fitted to the last: asked for by `pooling`, after
 * runs from the prior only, the last of whose islands agree (the pilot's, or after a pilot whose
 * islands disagreed, the full run's that followed: on the 50-dimensional box 3 of `smc`'s 20 pilots
 * disagreed, and without a reference their runs from the prior went on to 21–39 million
 * evaluations, against about 1.1 million), on an adaptive ladder (a fixed one is a path from the
 * prior), with a move that targets any density (not the model's own kernel, which targets its
 * tempered posterior only).
 */
function referenceAllowed(
  pooling: Pooling,
  settings: TemperingSettings,
  runs: readonly CheckedRun<object>[],
): boolean {
  return (
    referenceStartAllowed(pooling, settings) &&
    runs.every((r) => r.start === "prior") &&
    runs[runs.length - 1].estimate.unreliable.length === 0
  );
}

/** Whether runs may start from a reference at all: asked for, on an adaptive ladder, with a move that targets any density. */
function referenceStartAllowed(pooling: Pooling, settings: TemperingSettings): boolean {
  return pooling.referenceRuns === true && settings.ladder === undefined && settings.move !== "model";
}

/**
 * The most evaluations a run from the reference may spend, as a fraction of what a full run from the
 * prior costs: where the posterior is near elliptical it needs a few per cent (1 % on the Pima
 * regression, 16–21 % on the 50-dimensional Gaussian); where it needs more (a curved ridge, thin shells,
 * separated modes: 43–95 %) the runs from the prior do as well, and its run is cut short and left out.
 */
const REFERENCE_BUDGET = 0.25;

/** `particles` if the runs so far leave room for them within `maxParticles`, else 0. */
function withinBudget(particles: number, runs: readonly CheckedRun<object>[], precision: Precision): number {
  const spent = runs.reduce((n, r) => n + r.settings.particles, 0);
  return spent + particles <= precision.maxParticles ? particles : 0;
}

/**
 * The runs to pool and their estimate: those of the start with the smaller variance × evaluations (the
 * prior's while no run started from the reference), from its first run whose islands agree (see
 * {@link poolable}); their standard error scaled by their Birge ratio when they disagree, else by the
 * runs' spread ratio when `pooling` counts it; and Welch's t of the two starts' estimates when
 * those disagree.
 */
function poolSoFar<X extends object>(
  runs: readonly CheckedRun<X>[],
  pooling: Pooling,
  hasPilot: boolean,
): RunsSoFar<X> {
  const byStart = (start: RunStart) => {
    const mine = runs.filter((r) => r.start === start && !r.failed);
    const pooled = poolable(mine);
    const summaries = pooled.map((r) => ({ ...r.settings, ...r.estimate }));
    // What the pooled estimate cost: a first run whose islands disagreed is spent, whichever start goes on.
    const evaluations = pooled.reduce((n, r) => n + r.run.evaluations, 0);
    return { pooled, summaries, estimate: poolRuns(summaries, pooling.kind), evaluations };
  };
  const prior = byStart("prior");
  const fromReference = runs.some((r) => r.start === "reference" && !r.failed)
    ? byStart("reference")
    : undefined;
  const cost = (s: typeof prior) => s.estimate.stdErr ** 2 * s.evaluations;
  const chosen = fromReference !== undefined && cost(fromReference) < cost(prior) ? fromReference : prior;
  const { pooled, summaries } = chosen;
  const { logZ, stdErr } = chosen.estimate;
  const birgeRatio = birgeRatioOf(summaries, logZ);
  // Once a full run from the prior is pooled, the starts are compared without the pilot, whose few
  // islands can understate its error.
  const withoutPilot = hasPilot && prior.pooled.length > 1 && prior.pooled[0] === runs[0];
  const priorEstimate = withoutPilot ? poolRuns(prior.summaries.slice(1), pooling.kind) : prior.estimate;
  const startsT = fromReference && welchDisagreement(priorEstimate, fromReference.estimate);
  const ratio = birgeRatio ?? (pooling.countRunSpread ? spreadRatio(summaries, logZ) : undefined);
  const estimate = { logZ, stdErr: ratio !== undefined && ratio > 1 ? stdErr * ratio : stdErr };
  return { start: chosen === prior ? "prior" : "reference", pooled, estimate, birgeRatio, startsT };
}

/** The estimator's result from its runs and what they pool to (see {@link temperingToPrecision}). */
function pooledResult<M extends string, X extends object>(
  method: M,
  start: number,
  precision: Precision | undefined,
  pooling: Pooling,
  runs: readonly CheckedRun<X>[],
  { pooled, estimate, birgeRatio, start: pooledStart }: RunsSoFar<X>,
): EvidenceEstimate<M, PooledDiagnostics & X> {
  const minRuns = pooling.countRunSpread ? 2 : 1;
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
  const left = runs.filter((r) => r.start === pooledStart && !r.failed).length - pooled.length;
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
        start: r.start,
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
 * The particles of the next run: `particles` (at least as many as the first run whose islands agreed),
 * or twice the last run's while none agreed, within `maxParticles` over all runs; 0 when the standard error is at most
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
  settings: TemperingSettings,
  runs: readonly CheckedRun<object>[],
  pooled: readonly CheckedRun<object>[],
  minRuns: number,
  pooling: Pooling,
): number {
  if (!Number.isFinite(stdErr) || (stdErr <= precision.target && pooled.length >= minRuns)) return 0;
  const agreeing = pooled[0].estimate.unreliable.length === 0;
  // After a pilot whose islands disagree, a full run: twice a pilot's is still smaller.
  let particles = agreeing
    ? Math.max(pooled[0].settings.particles, settings.particles)
    : Math.max(2 * runs[runs.length - 1].settings.particles, settings.particles);
  // Runs from the reference keep the full size: smaller islands on a posterior far from
  // elliptical (a thin shell) spread less than their runs do.
  if (pooling.sizedRuns === true && agreeing && pooled.length >= minRuns && pooled[0].start === "prior") {
    const { islands } = settings;
    const pooledParticles = pooled.reduce((n, r) => n + r.settings.particles, 0);
    const needed = 1.2 * pooledParticles * ((stdErr / precision.target) ** 2 - 1);
    const perIsland = Math.max(MIN_SIZED_ISLAND, Math.ceil(needed / islands));
    particles = Math.min(particles, perIsland * islands);
  }
  return withinBudget(particles, runs, precision);
}

/** The fewest particles per island of a sized further run (see {@link moreParticles}). */
const MIN_SIZED_ISLAND = 16;
