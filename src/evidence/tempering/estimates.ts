/**
 * What the estimators on the tempering engine share: their options, defaults and checks, how the
 * islands' estimates combine into one estimate with its standard error, and the diagnostics.
 */

import { OccamError } from "../../errors.js";
import { logMeanExp } from "../../math/logspace.js";
import { tQuantile } from "../../math/stdlib.js";
import type { BayesModel } from "../../model/model.js";
import { checkCount } from "../checks.js";
import { nonFiniteChecks } from "../overflow.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "../result.js";
import { meanAndSd } from "../weights.js";
import type { TemperingRun, TemperingSettings, TemperingStage } from "./engine.js";
import { type CloudMove, resolveCloudMove } from "./moves.js";
import { validateLadder } from "./schedule.js";

/** Options of the estimators that run on the tempering engine. */
export interface TemperingOptions {
  /**
   * Particles N in all (split evenly over the islands).
   * @defaultValue the estimator's own
   */
  particles?: number;
  /**
   * Islands G: groups of particles that resample only among themselves, so that each is an
   * independent run and their spread is the standard error. At least 2.
   * @defaultValue 32
   */
  islands?: number;
  /**
   * The MCMC move: "hmc" in the metric of the cloud's covariance (needs `gradLogPrior` and
   * `gradLogLikelihood`), "random-walk" with the cloud's covariance, the model's own
   * `powerPosteriorKernel(β)` ("model"), or "auto": the model's kernel when it has one, else HMC
   * when the model has both gradients, else the random walk.
   * @defaultValue "auto"
   */
  move?: CloudMove | "auto";
  /**
   * MCMC sweeps per temperature: a number, or "auto": until the correlation, across particles, of
   * each particle's log likelihood with its value where the temperature's moves started falls below
   * 0.1 (then on, with `memoryLeft`, until the extrapolated memory falls below it).
   * @defaultValue the estimator's own
   */
  sweeps?: number | "auto";
  /**
   * "auto" sweeps go on, past decorrelation, until the start's memory, extrapolated from how fast the
   * correlations decayed, falls below this fraction: the cloud's lag behind each temperature decays
   * at that rate, and what is left of it adds up over the temperatures (see the engine's
   * `autoSweeps`). A number in (0, 1), or "none" to stop at decorrelation.
   * @defaultValue the estimator's own (0.001 for `smc`, `stepping-stone`, `path` and `chaining`,
   * "none" for the others)
   */
  memoryLeft?: number | "none";
  /**
   * The most sweeps "auto" may take at one temperature.
   * @defaultValue 50
   */
  maxSweeps?: number;
  /**
   * A fixed temperature ladder from 0 to 1 instead of the adaptive choice.
   */
  ladder?: ArrayLike<number>;
  /**
   * Adaptive ladder: each next β is chosen so that the step's conditional effective sample size
   * is this fraction of the particles.
   * @defaultValue the estimator's own
   */
  targetEss?: number;
  /**
   * Stop with an `OccamError` after this many temperatures.
   * @defaultValue 10000
   */
  maxStages?: number;
  /**
   * HMC moves' target acceptance, in (0, 1): higher for shorter steps where trajectories diverge, as
   * Stan's users raise `adapt_delta`. Other moves keep their own.
   * @defaultValue the model's `hmcTargetAccept`, else 0.8
   */
  hmcTargetAccept?: number;
  /**
   * At each temperature, first try independence proposals from a Student-t fitted, for each island, to
   * the other islands' particles (one likelihood evaluation each, no gradient), and make the move's own
   * sweeps only where those do not mix the particles: fewer evaluations where the tempered posteriors
   * are close to Gaussian.
   * @defaultValue the estimator's own
   */
  independence?: boolean;
  /**
   * The likelihood evaluations the estimator may spend in all its runs. Once they are spent the
   * particles are no longer moved: the remaining temperatures are crossed by reweighting alone, and
   * the result is marked unreliable. A bound on the time a model of unknown difficulty can take.
   * @defaultValue Infinity
   */
  maxEvaluations?: number;
}

/** Each estimator's defaults for the options it does not share with the others. */
export interface TemperingDefaults {
  particles: number;
  sweeps: number | "auto";
  /** "auto" sweeps: the memory to leave, or undefined to stop at decorrelation. */
  memoryLeft?: number;
  /** Sweeps whose states are the draws of each temperature (for the ladder estimators). */
  draws: number;
  targetEss: number;
  resample: TemperingSettings["resample"];
  finalSweeps: boolean;
  /** The ladder to use when none is given, or undefined for the adaptive one. */
  ladder?: Float64Array;
  /** Whether independence proposals are tried first (see {@link TemperingOptions.independence}). */
  independence?: boolean;
}

/** The default number of islands. */
export const DEFAULT_ISLANDS = 32;

/** Fills the defaults of {@link TemperingOptions} and checks them, throwing an `OccamError` naming the option. */
export function resolveTemperingOptions(
  model: BayesModel,
  options: TemperingOptions,
  defaults: TemperingDefaults,
  where: string,
): TemperingSettings {
  const particles = options.particles ?? defaults.particles;
  const islands = options.islands ?? DEFAULT_ISLANDS;
  const maxSweeps = options.maxSweeps ?? 50;
  const maxStages = options.maxStages ?? 10_000;
  const targetEss = options.targetEss ?? defaults.targetEss;
  const sweeps = options.sweeps ?? defaults.sweeps;
  const memoryLeft = options.memoryLeft === "none" ? undefined : (options.memoryLeft ?? defaults.memoryLeft);
  checkCount(islands, "islands", where, 2);
  checkCount(particles, "particles", where, 2 * islands);
  checkCount(maxSweeps, "maxSweeps", where, 1);
  checkCount(maxStages, "maxStages", where, 1);
  if (sweeps !== "auto") checkCount(sweeps, "sweeps", where, 0);
  if (memoryLeft !== undefined && !(memoryLeft > 0 && memoryLeft < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: memoryLeft must lie strictly between 0 and 1, or be "none", got ${String(memoryLeft)}.`,
    );
  }
  if (!(targetEss > 0 && targetEss < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: targetEss must lie strictly between 0 and 1, got ${targetEss}.`,
    );
  }
  const maxEvaluations = options.maxEvaluations ?? Number.POSITIVE_INFINITY;
  if (!(maxEvaluations >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: maxEvaluations must be a positive number (or Infinity), got ${String(options.maxEvaluations)}.`,
    );
  }
  const { hmcTargetAccept } = options;
  if (hmcTargetAccept !== undefined && !(hmcTargetAccept > 0 && hmcTargetAccept < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: hmcTargetAccept must lie strictly between 0 and 1, got ${String(hmcTargetAccept)}.`,
    );
  }
  const ladder =
    options.ladder === undefined ? defaults.ladder : validateLadder(options.ladder, `${where}: ladder`);
  return {
    particles,
    islands,
    ladder,
    targetEss,
    resample: defaults.resample,
    move: resolveCloudMove(model, options.move ?? "auto", where),
    sweeps,
    memoryLeft,
    draws: defaults.draws,
    maxSweeps,
    finalSweeps: defaults.finalSweeps,
    // A fixed ladder takes exactly its number of rungs.
    maxStages: ladder === undefined ? maxStages : Math.max(maxStages, ladder.length - 1),
    ...(hmcTargetAccept === undefined ? {} : { hmcTargetAccept }),
    independence: options.independence ?? defaults.independence ?? false,
    maxEvaluations,
  };
}

/** One estimate from the islands of a run. */
export interface IslandEstimate {
  readonly logZ: number;
  readonly stdErr: number;
  /** Each island's own estimate of log Z (null for an island that lost every particle). */
  readonly islandLogZ: readonly (number | null)[];
  /** The standard deviation of the live islands' log Z. */
  readonly islandSd: number;
  /** Why the standard error cannot be trusted, if it cannot. */
  readonly unreliable: readonly string[];
  /** Other things to know (islands that lost every particle). */
  readonly warnings: readonly string[];
}

/** Above this spread (sd of the islands' log Z, nats) the mean of their Z is carried by a few islands. */
export const MAX_ISLAND_SD = 1;

/**
 * t_{0.975, ν} / 1.96: the islands' spread is estimated from G values, so z = error / stdErr is
 * Student-t with G − 1 degrees of freedom; the standard error is scaled by this factor so that
 * ±1.96 stdErr is still a 95 % interval (1.087 for 16 islands, 1.041 for 32).
 */
export function studentFactor(degrees: number): number {
  return tQuantile(0.975, degrees) / 1.959963984540054;
}

/**
 * How the islands' estimates combine: `"product"` when each island's Ẑ is unbiased for Z, `"sum"`
 * when each island's log Z is (to second order) unbiased for log Z (see {@link combineIslands}).
 */
export type IslandKind = "product" | "sum";

/**
 * Combines the islands' estimates. `"product"`: each island's Ẑ_g is unbiased for Z (SMC,
 * stepping-stone, chaining's lower ends), so the estimate is log mean Ẑ_g, computed in log space, with
 * the delta method's standard error sd(Ẑ_g / mean Ẑ)/√G. `"sum"`: each island's log Z is unbiased
 * for log Z (path sampling's average; chaining's geometric bridges to second order), so the estimate
 * is their mean and the standard error sd/√G. Either is scaled by {@link studentFactor}. The result
 * is unreliable when the islands' log Z spread by more than {@link MAX_ISLAND_SD} nats (the mean of
 * their Z is then carried by a few islands).
 */
export function combineIslands(islandLogZ: ArrayLike<number>, kind: IslandKind): IslandEstimate {
  const values = Array.from(islandLogZ);
  const G = values.length;
  const live = values.filter((v) => v > Number.NEGATIVE_INFINITY);
  const { mean, sd } = meanAndSd(live);
  let logZ: number;
  let spread: number;
  if (kind === "sum") {
    logZ = mean;
    spread = sd;
  } else {
    logZ = logMeanExp(values);
    spread = meanAndSd(values.map((l) => Math.exp(l - logZ))).sd;
  }
  const stdErr = (spread / Math.sqrt(G)) * studentFactor(G - 1);
  const unreliable: string[] = [];
  const warnings: string[] = [];
  if (live.length < G) {
    warnings.push(
      `${G - live.length} of the ${G} islands lost every particle (no prior draw of theirs had a positive likelihood): ` +
        "the likelihood's support is a small part of the prior's; use more particles.",
    );
  }
  if (sd > MAX_ISLAND_SD) {
    unreliable.push(
      `the ${G} islands' estimates of log Z spread by ${sd.toFixed(2)} nats (sd): their mean is carried by a few of them; use more particles.`,
    );
  }
  // JSON has no −Infinity: a dead island's log Z is reported as null.
  return {
    logZ,
    stdErr,
    islandLogZ: values.map((v) => (v > Number.NEGATIVE_INFINITY ? v : null)),
    islandSd: sd,
    unreliable,
    warnings,
  };
}

/** Divergent HMC trajectories above this fraction of a run's transitions make its estimate unreliable. */
export const MAX_DIVERGENT_FRACTION = 0.001;

/** Moves stopped by NaN or +∞ from the model above this fraction of a run's transitions make it unreliable. */
const MAX_FAILED_FRACTION = 0.05;

/** What every engine-based estimator says about its run: moves that barely moved, divergences, undeclared walls. */
export function runWarnings(
  run: TemperingRun,
  settings: TemperingSettings,
): { unreliable: string[]; warnings: string[] } {
  const unreliable: string[] = [];
  const warnings: string[] = [];
  let divergences = 0;
  let failures = 0;
  let sweeps = 0;
  let localSweeps = 0;
  let stuck = 0;
  let probes = 0;
  let probeDivergences = 0;
  for (const s of run.stages) {
    divergences += s.divergences;
    failures += s.modelFailures;
    sweeps += s.sweeps;
    localSweeps += s.independent?.mixed === true ? 0 : s.sweeps - (s.independent?.sweeps ?? 0);
    probes += s.probe?.trajectories ?? 0;
    probeDivergences += s.probe?.divergences ?? 0;
    if (s.sweeps > 0 && s.acceptanceRate < 0.05) stuck++;
  }
  const transitions = Math.max(1, sweeps * settings.particles);
  const trajectories = Math.max(1, localSweeps * settings.particles);
  if (stuck > 0) {
    unreliable.push(
      `the moves were accepted less than 5 % of the time at ${stuck} of ${run.stages.length} temperatures: the particles barely moved there.`,
    );
  }
  if (divergences > MAX_DIVERGENT_FRACTION * trajectories) {
    // A funnel's neck is where HMC diverges, and where the particles then fail to go: on Neal's funnel
    // (d = 10) 0.5 % of divergent trajectories came with log Z 1–2 nats too low.
    unreliable.push(
      `${divergences} of ${trajectories} HMC trajectories diverged: the target has regions the moves cannot follow ` +
        "(a funnel's neck, a sharp curve), whose mass the estimate may miss.",
    );
  }
  if (probeDivergences > MAX_DIVERGENT_FRACTION * probes) {
    unreliable.push(
      `${probeDivergences} of ${probes} HMC trajectories that probed the independence moves diverged: the target ` +
        "has regions (a funnel's neck) that the Student-t proposals miss and HMC cannot follow, whose mass the estimate may miss.",
    );
  }
  // Moves stopped where the model fails (a likelihood that overflows far out, where a tempered cloud
  // still reaches at small β) are rejections of points that hold little mass; only when they are
  // common do the moves fail to explore.
  if (failures > MAX_FAILED_FRACTION * transitions) {
    unreliable.push(
      `${failures} of ${transitions} moves met NaN or +Infinity from the model (its value or gradient): the moves ` +
        "could not explore the target; check the model where it overflows.",
    );
  } else if (failures > 0) {
    warnings.push(
      `${failures} of ${transitions} moves met NaN or +Infinity from the model (its value or gradient) and were ` +
        "rejected: the model overflows far out, where the cloud reached at small β.",
    );
  }
  if (run.budgetSpentAt !== undefined) {
    unreliable.push(
      `the budget of likelihood evaluations (maxEvaluations) ran out at β = ${run.budgetSpentAt.toPrecision(3)}: ` +
        "the particles were not moved after it, so the estimate rests on reweighting alone there; raise maxEvaluations.",
    );
  }
  const overflow = nonFiniteChecks(run.nonFinite, run.nonFinite, settings.particles, "prior draws");
  unreliable.push(...overflow.unreliable);
  warnings.push(...overflow.warnings);
  if (run.outOfSupport > 0.01 * transitions) {
    warnings.push(
      `${run.outOfSupport} proposals fell where the prior is zero: if the prior has hard bounds, declare them in ` +
        "model.bounds so that the particles move on an unbounded scale.",
    );
  }
  return { unreliable, warnings };
}

/** One temperature of an engine run, as the diagnostics report it. */
export interface StageSummary {
  readonly beta: number;
  /** The conditional ESS of the step to this β, as a fraction of the particles. */
  readonly essFraction: number;
  readonly sweeps: number;
  /** Mean acceptance of the sweeps; null when there were none. */
  readonly acceptanceRate: number | null;
  readonly stepSize: number;
  /** The cloud's mean log likelihood at this β after its moves, an estimate of E_β[log L]. */
  readonly meanLogLikelihood: number;
  /** Divergent HMC trajectories at this β. */
  readonly divergences: number;
  /** The fraction of particles that no move of this stage moved. */
  readonly unmoved: number;
  /** The independence sweeps tried at this β, when the run tried them. */
  readonly independent?: TemperingStage["independent"];
  /** The HMC probe of the independence moves at this β, when they mixed the particles. */
  readonly probe?: TemperingStage["probe"];
}

/** The diagnostics every engine-based estimator reports. */
export interface TemperingDiagnostics {
  readonly particles: number;
  readonly islands: number;
  readonly move: CloudMove;
  /** Each island's own estimate of log Z (null for an island that lost every particle), and their standard deviation. */
  readonly islandLogZ: readonly (number | null)[];
  readonly islandSd: number;
  /** Each temperature of the run. */
  readonly stages: readonly StageSummary[];
  /** HMC trajectories that diverged; proposals that fell outside the prior's support. */
  readonly divergences: number;
  readonly outOfSupport: number;
  /** Moves stopped where the model returned NaN or +∞ (or a non-finite gradient). */
  readonly modelFailures: number;
  /** Prior draws whose log likelihood was NaN or +∞, weighed as zero likelihood. */
  readonly nonFinite: number;
}

/** The per-stage summary of a run, JSON-friendly (null for an acceptance that was never measured). */
export function summariseStages(run: TemperingRun): StageSummary[] {
  return run.stages.map((s) => ({
    beta: s.beta,
    essFraction: s.essFraction,
    sweeps: s.sweeps,
    acceptanceRate: Number.isFinite(s.acceptanceRate) ? s.acceptanceRate : null,
    stepSize: s.stepSize,
    meanLogLikelihood: s.meanLogLikelihood,
    divergences: s.divergences,
    unmoved: s.unmoved,
    ...(s.probe === undefined ? {} : { probe: s.probe }),
    ...(s.independent === undefined ? {} : { independent: s.independent }),
  }));
}

/** The diagnostics of a run and its islands' estimate. */
export function temperingDiagnostics(
  run: TemperingRun,
  settings: TemperingSettings,
  estimate: IslandEstimate,
): TemperingDiagnostics {
  return {
    particles: settings.particles,
    islands: settings.islands,
    move: settings.move,
    islandLogZ: estimate.islandLogZ,
    islandSd: estimate.islandSd,
    stages: summariseStages(run),
    divergences: run.stages.reduce((s, t) => s + t.divergences, 0),
    outOfSupport: run.outOfSupport,
    modelFailures: run.stages.reduce((s, t) => s + t.modelFailures, 0),
    nonFinite: run.nonFinite,
  };
}

/**
 * The result of an estimator whose estimate is the islands' (`estimate`): its standard error, the
 * run's own checks (see {@link runWarnings}) and the islands' with the estimator's `reasons`, and
 * the engine's diagnostics with the estimator's `extra` ones.
 */
export function temperingResult<M extends string, X extends object>(
  method: M,
  start: number,
  run: TemperingRun,
  settings: TemperingSettings,
  estimate: IslandEstimate,
  extra: X,
  reasons: readonly string[] = [],
): EvidenceEstimate<M, TemperingDiagnostics & X> {
  const { unreliable, warnings } = runWarnings(run, settings);
  return evidenceResult({
    method,
    logZ: estimate.logZ,
    stdErr: estimate.stdErr,
    nLikelihoodEvals: run.evaluations,
    seconds: secondsSince(start),
    unreliable: [...estimate.unreliable, ...reasons, ...unreliable],
    warnings: [...estimate.warnings, ...warnings],
    diagnostics: { ...temperingDiagnostics(run, settings, estimate), ...extra },
  });
}
