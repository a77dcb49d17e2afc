/**
 * Nested sampling (Skilling 2006, Bayesian Analysis 1(4), 833): the evidence as a one-dimensional
 * integral over the prior volume, climbed by live points that are replaced, one at a time, by draws
 * from the prior above the lowest of their likelihoods. The constrained draws are uniform inside
 * bounding ellipsoids (MultiNest, dynesty) or slice moves (PolyChord); the standard error is simulated
 * (dynesty's simulate_run); dynamic batches (Higson et al. 2019) are an option.
 */

import { OccamError } from "../../errors.js";
import { kishEss } from "../../math/logspace.js";
import type { BayesModel } from "../../model/model.js";
import { checkModel, resolveRng } from "../checks.js";
import { nonFiniteChecks } from "../overflow.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "../result.js";
import { type BatchRecord, runBatches } from "./dynamic.js";
import { drawFromPrior, type EvolveResult, evolve, type RunContext, type StopReason } from "./evolve.js";
import { InsertionRanks } from "./insertion.js";
import { integrateRun, orderRun, type RunIntegral, type RunOrder } from "./integrate.js";
import { DeadPoints, Likelihood, LiveSet, pointSpace } from "./live-points.js";
import {
  defaultLivePoints,
  type NestedSamplingOptions,
  type NestedSettings,
  resolveNestedOptions,
  SLICE_POINTS_PER_DIM,
} from "./options.js";
import { type BoundCheckStats, type DrawContext, type ProposalStats, Proposals } from "./proposals.js";
import { islandRatio, type SimulatedError, simulateError } from "./uncertainty.js";

export type { BatchRecord } from "./dynamic.js";
export type { StopReason } from "./evolve.js";
export type { DynamicNestedOptions, NestedSampler, NestedSamplingOptions } from "./options.js";

/**
 * The run's record for plots, one entry per dead point in increasing likelihood (the batches of a
 * dynamic run merged in): plain arrays, so that the diagnostics serialise to JSON. A zero likelihood
 * is −Infinity in `logL` and `logWeight` (null in JSON).
 */
export interface NestedRecord {
  /** Expected log prior volume left after each death. */
  readonly logX: number[];
  readonly logL: number[];
  /** log of each dead point's trapezoid weight ½(L_{i−1} + L_i)(X_{i−1} − X_i); Σ e^{logWeight} = Z. */
  readonly logWeight: number[];
  /** Live points when each died. */
  readonly nLive: number[];
  /** Likelihood evaluations spent replacing each (0 for the final live points). */
  readonly evaluations: number[];
}

/** Diagnostics of {@link nestedSampling}. */
export interface NestedDiagnostics {
  /** Live points of the baseline run. */
  readonly livePoints: number;
  /** "cube": moves in the unit cube of the prior transform; "theta": in θ with the prior's density. */
  readonly space: "cube" | "theta";
  /** How the new points were drawn. */
  readonly sampler: "ellipsoid" | "slice" | "ellipsoid-then-slice";
  /** Iteration at which "auto" switched from ellipsoids to slices (null when it did not). */
  readonly switchedAt: number | null;
  /** Dead points that were replaced (iterations), over the baseline run and the batches. */
  readonly iterations: number;
  /** All dead points, the final live points included: the length of the record. */
  readonly deadPoints: number;
  /** Why the baseline run stopped. */
  readonly stop: StopReason;
  /** log(1 + L_max X / Z) when the baseline run stopped: the nats its live points could still add. */
  readonly remaining: number | null;
  /** The information H = KL(posterior ‖ prior), in nats. */
  readonly information: number;
  /** Skilling's √(H/K), for comparison with the simulated standard error (it leaves out the likelihoods' randomness). */
  readonly informationError: number;
  /** Standard deviation of log Z over simulated shrinkage alone (the likelihoods held fixed). */
  readonly shrinkageSd: number;
  /** Standard deviation of log Z over resampled threads with the expected shrinkage. */
  readonly threadSd: number;
  /** Islands the threads were dealt into (independent runs sharing the metric). */
  readonly islands: number;
  /** The islands' log Z spread over √islands (null with one island). */
  readonly islandSd: number | null;
  /** Simulated runs behind the standard error. */
  readonly simulations: number;
  /** Iterations per likelihood evaluation. */
  readonly efficiency: number;
  /** The ellipsoid sampler's work (null if it drew no point). */
  readonly ellipsoids: {
    readonly points: number;
    readonly evaluations: number;
    readonly boundFits: number;
    readonly maxEllipsoids: number;
    /** Largest bootstrap expansion factor applied to the ellipsoids' axes. */
    readonly maxExpansion: number;
    /** Points drawn by a slice move instead, after 50 slices' worth of tries in the ellipsoids ("auto"). */
    readonly fallbacks: number;
    /** The walks that checked the ellipsoids for a region they cut off (null when none ran: under 6 dimensions, or not "auto"). */
    readonly boundCheck: BoundCheckStats | null;
  } | null;
  /** The slice sampler's work (null if it drew no point). */
  readonly slices: {
    readonly points: number;
    readonly evaluations: number;
    readonly slicesPerPoint: number;
    /** Mean of ‖L⁻¹(x_new − x_start)‖² / 2d: near 1 when a move ends independent of its start, near 0 when it barely moves. */
    readonly meanJump: number;
    /** Slices whose stepping out was cut off. */
    readonly truncated: number;
    /** The tuned initial interval width, in whitened units. */
    readonly scale: number;
  } | null;
  /** Kish effective sample size of the weighted posterior draws. */
  readonly posteriorEss: number;
  /**
   * The insertion-rank test of the baseline run (Fowlie, Handley & Su 2020): the KS distance of the new
   * points' ranks among the live points from uniform, and its p-value (null under 100 iterations).
   */
  readonly insertion: { readonly statistic: number; readonly pValue: number | null };
  /**
   * The bound check of a first run that was abandoned: its walks, which ignore the ellipsoids, found
   * points above the bound outside them, so the run started again with slice moves (null when none was).
   */
  readonly cutOff: BoundCheckStats | null;
  /** The batches of a dynamic run (empty for a static one). */
  readonly batches: readonly BatchRecord[];
  readonly record: NestedRecord;
}

/** The weighted posterior draws of a run: every dead point with its normalised weight. */
export interface NestedPosterior {
  readonly dim: number;
  /** Number of draws. */
  readonly size: number;
  /** The draws in θ, row-major size × dim, in increasing likelihood. */
  readonly points: Float64Array;
  /** log weights, normalised so that Σ e^{logWeights} = 1. */
  readonly logWeights: Float64Array;
  /** Kish effective sample size (Σw)² / Σw². */
  readonly ess: number;
}

/** The result of {@link nestedSampling}: the evidence estimate with the weighted posterior draws. */
export type NestedSamplingResult = EvidenceEstimate<"nested", NestedDiagnostics> & {
  readonly posterior: NestedPosterior;
};

const WHERE = "nestedSampling";
/** A slice move whose mean whitened jump is below this left its new points correlated with their starts. */
const MIN_SLICE_JUMP = 0.5;
/** Insertion ranks less uniform than this p-value mark the run unreliable (a false alarm in 1000 sound runs). */
const MIN_INSERTION_P = 1e-3;

/**
 * Evidence by nested sampling (Skilling 2006). K live points are drawn from the prior; each iteration
 * the one of lowest likelihood L* dies (the prior volume above it shrinks by the expected factor
 * K/(K + 1)) and is replaced by a draw from the prior restricted to L > L*; log Z accumulates the
 * trapezoid weights ½(L_{i−1} + L_i)(X_{i−1} − X_i) in log space. The run stops when the live points
 * could add at most `dlogz` nats, log(1 + L_max X / Z) < dlogz, and the live points then die in order,
 * adding their share.
 *
 * The constrained draws: with `model.priorTransform` the points live in the unit cube, where the prior
 * is uniform; up to 10 dimensions they are drawn uniformly inside ellipsoids fitted to the live points
 * (split by 2-means when it pays and expanded by a bootstrap factor, as dynesty and MultiNest do), and
 * by slice sampling along random directions in the live points' metric otherwise (PolyChord, dynesty's
 * rslice), also for a point the ellipsoids would need fifty slices' worth of tries to find, and for
 * good when they become costlier than slices. From 6 dimensions "auto" checks the ellipsoids: after
 * each fit a short slice walk that ignores them, from a live point of high likelihood, looks for points
 * above L* outside them (bound-check.ts); when walks keep finding such points the ellipsoids cut off
 * part of the region (the neck of Neal's funnel), every point they drew was biased, and the run starts
 * again with slice moves, with a warning. Without a transform the points live in
 * θ, drawn from `samplePrior`, and move by slice sampling on the prior density restricted to L > L*,
 * with the metric of the live points in θ.
 *
 * Standard error: the larger spread of log Z over 200 runs with the shrinkage factors t ~ Beta(n, 1)
 * drawn anew and over 200 with the run's threads resampled (dynesty's jitter_run and resample_run; see
 * uncertainty.ts for why not both at once). Skilling's √(H/K) and each spread are in the diagnostics.
 * The result is unreliable when the run stopped on a limit before the dlogz rule, when the new points'
 * insertion ranks are not uniform, or when the slice moves barely left their starting points or ran
 * with fewer than 4 · dim live points and slices.
 *
 * Posterior: every dead point with its normalised weight (`posterior`), and the run's record (log X,
 * log L, weights, live points and evaluations per iteration) in the diagnostics. With `dynamic`, batches
 * of live points are added where the posterior mass is after the baseline run (Higson et al. 2019).
 *
 * @example
 * const result = nestedSampling(model, { livePoints: 500, seed: 1 });
 * result.logZ; result.stdErr; result.posterior.ess;
 */
export function nestedSampling(model: BayesModel, options: NestedSamplingOptions = {}): NestedSamplingResult {
  const start = performance.now();
  checkModel(model, WHERE);
  const resolved = resolveNestedOptions(model, options, WHERE);
  const [runRng, errorRng, restartRng] = resolveRng(options, WHERE).split(3);
  const space = pointSpace(model, WHERE);
  const likelihood = new Likelihood(model);
  let settings = resolved;
  let first = baselineRun(model, { rng: runRng, space, likelihood, settings, where: WHERE });
  let cutOff: BoundCheckStats | null = null;
  if (first.baseline.stop === "cut-off") {
    // The ellipsoids cut off part of the region above the bound: every point they drew shrank the
    // estimated volume too fast, and a switch to slices would inherit live points that never entered
    // the missing part. The run starts again with slice moves, its evaluations counted.
    cutOff = first.ctx.proposals.summary().boundCheck;
    settings = { ...resolved, sampler: "slice" };
    first = baselineRun(model, { rng: restartRng, space, likelihood, settings, where: WHERE });
  }
  const { ctx, ranks } = first;
  const stop = first.baseline.stop;
  if (stop === "cut-off") {
    throw new OccamError("internal", `${WHERE}: a slice run stopped on the ellipsoids' bound check.`);
  }
  const baseline = { ...first.baseline, stop };
  ctx.proposals.endCheck();
  const batches = settings.dynamic === null ? [] : runBatches(ctx, settings.dynamic, settings.dlogz);
  const run = orderRun(ctx.dead);
  const integral = integrateRun(run);
  const error = simulateError(run, integral.logZ, errorRng, settings.simulations, settings.islands);
  const posterior = posteriorDraws(ctx.dead, run, integral);
  const stats = ctx.proposals.summary();
  const diagnostics: NestedDiagnostics = {
    ...nestedDiagnostics(ctx, settings, baseline, batches, run, integral, error, posterior, stats),
    insertion: ranks.test(),
    cutOff,
  };
  const { unreliable, warnings } = nestedChecks(settings, baseline, diagnostics, model.dim);
  const overflow = nonFiniteChecks(
    likelihood.nonFinite,
    likelihood.nonFinitePriorDraws,
    likelihood.priorDraws,
    "points drawn inside the prior",
  );
  unreliable.push(...overflow.unreliable);
  warnings.push(...overflow.warnings);
  const result = evidenceResult({
    method: "nested" as const,
    logZ: integral.logZ,
    stdErr: error.sd,
    nLikelihoodEvals: likelihood.evaluations,
    seconds: secondsSince(start),
    diagnostics,
    unreliable,
    warnings,
  });
  return Object.freeze({ ...result, posterior });
}

/** How a baseline run that was not abandoned ended. */
type FinishedRun = EvolveResult & { readonly stop: StopReason };

/** The baseline run from the prior: its context, how it ended and its insertion ranks. */
function baselineRun(
  model: BayesModel,
  draw: DrawContext,
): { ctx: RunContext; baseline: EvolveResult; ranks: InsertionRanks } {
  const ctx: RunContext = {
    ...draw,
    dead: new DeadPoints(model.dim),
    proposals: new Proposals(draw),
    iterations: 0,
  };
  const k = draw.settings.livePoints;
  const live = new LiveSet(k, model.dim);
  drawFromPrior(ctx, live, ctx.dead.addThreads(k, Number.NEGATIVE_INFINITY, 0));
  const ranks = new InsertionRanks(k);
  const baseline = evolve(ctx, live, draw.settings.dlogz, Number.POSITIVE_INFINITY, 0, ranks);
  return { ctx, baseline, ranks };
}

/** Every dead point in θ with its weight normalised by Z. */
function posteriorDraws(dead: DeadPoints, run: RunOrder, integral: RunIntegral): NestedPosterior {
  const d = dead.dim;
  const n = run.size;
  const points = new Float64Array(n * d);
  const logWeights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = run.order[i];
    points.set(dead.thetas.subarray(k * d, (k + 1) * d), i * d);
    logWeights[i] = integral.logWeight[i] - integral.logZ;
  }
  return Object.freeze({ dim: d, size: n, points, logWeights, ess: kishEss(logWeights) });
}

function nestedDiagnostics(
  ctx: RunContext,
  settings: NestedSettings,
  baseline: FinishedRun,
  batches: readonly BatchRecord[],
  run: RunOrder,
  integral: RunIntegral,
  error: SimulatedError,
  posterior: NestedPosterior,
  stats: ProposalStats,
): Omit<NestedDiagnostics, "insertion" | "cutOff"> {
  const jump = ctx.proposals.sliceJump();
  const evaluations = Array.from(run.order, (k) => ctx.dead.evaluations[k]);
  return {
    livePoints: settings.livePoints,
    space: ctx.space.kind,
    sampler:
      stats.switchedAt !== null ? "ellipsoid-then-slice" : stats.ellipsoidPoints > 0 ? "ellipsoid" : "slice",
    switchedAt: stats.switchedAt,
    iterations: ctx.iterations,
    deadPoints: run.size,
    stop: baseline.stop,
    remaining: baseline.remaining,
    information: integral.information,
    informationError: Math.sqrt(integral.information / settings.livePoints),
    shrinkageSd: error.shrinkageSd,
    threadSd: error.threadSd,
    islands: settings.islands,
    islandSd: error.islandSd,
    simulations: settings.simulations,
    efficiency: ctx.iterations / Math.max(1, ctx.likelihood.evaluations),
    ellipsoids:
      stats.ellipsoidPoints === 0
        ? null
        : {
            points: stats.ellipsoidPoints,
            evaluations: stats.ellipsoidEvaluations,
            boundFits: stats.boundFits,
            maxEllipsoids: stats.maxEllipsoids,
            maxExpansion: stats.maxExpansion,
            fallbacks: stats.fallbacks,
            boundCheck: stats.boundCheck,
          },
    slices:
      stats.slicePoints === 0 || jump.jump === null || jump.scale === null
        ? null
        : {
            points: stats.slicePoints,
            evaluations: stats.sliceEvaluations,
            slicesPerPoint: settings.slices,
            meanJump: jump.jump,
            truncated: jump.truncated,
            scale: jump.scale,
          },
    posteriorEss: posterior.ess,
    batches,
    record: {
      logX: Array.from(integral.logX),
      logL: Array.from(run.logL),
      logWeight: Array.from(integral.logWeight),
      nLive: Array.from(integral.nLive),
      evaluations,
    },
  };
}

/** The run's own checks: reasons against its error bar, and warnings. */
function nestedChecks(
  settings: NestedSettings,
  baseline: FinishedRun,
  diagnostics: NestedDiagnostics,
  dim: number,
): { unreliable: string[]; warnings: string[] } {
  const unreliable: string[] = [];
  const warnings: string[] = [];
  if (baseline.stop === "maxIterations" || baseline.stop === "maxEvaluations") {
    const left =
      baseline.remaining === null ? "an unknown share" : `up to ${baseline.remaining.toFixed(2)} nats`;
    unreliable.push(
      `the run stopped at its ${baseline.stop} limit before the live points' remaining contribution fell below ` +
        `dlogz = ${settings.dlogz} (they could still add ${left}, counted only by their average): raise ${baseline.stop}.`,
    );
  }
  const { pValue, statistic } = diagnostics.insertion;
  if (pValue !== null && pValue < MIN_INSERTION_P) {
    unreliable.push(
      `the new points' likelihood ranks among the live points are not uniform (KS distance ${statistic.toFixed(3)}, ` +
        `p = ${pValue.toExponential(1)}; Fowlie, Handley & Su 2020): the constrained draws are not draws from the prior ` +
        `above the bound, which biases log Z. Raise slices (now ${settings.slices}) and livePoints (now ${settings.livePoints}; ` +
        "the slice metric needs many more live points than dimensions), or use the ellipsoids in low dimension.",
    );
  }
  const { islandSd, islands } = diagnostics;
  const simulated = Math.max(diagnostics.shrinkageSd, diagnostics.threadSd);
  if (islandSd !== null && islandSd > islandRatio(islands, 0.99) * simulated) {
    unreliable.push(
      `the ${islands} islands' estimates of log Z spread ${(islandSd / simulated).toFixed(1)} times as much as the ` +
        `simulated standard error ${simulated.toFixed(3)} says they should: new points remember the live points their ` +
        `moves started from, so even the islands' error bar may be too small. Raise slices (now ${settings.slices}) ` +
        "or reparameterise the model (a hierarchical scale's funnel, non-centred).",
    );
  }
  const slices = diagnostics.slices;
  if (
    slices !== null &&
    settings.livePoints < SLICE_POINTS_PER_DIM * dim &&
    settings.slices < SLICE_POINTS_PER_DIM * dim
  ) {
    unreliable.push(
      `the slice moves ran with ${settings.livePoints} live points and ${settings.slices} slices in ${dim} dimensions: ` +
        `with fewer than ${SLICE_POINTS_PER_DIM} · dim of both, the live points' metric is too noisy for the slices to ` +
        "forget it, and the live points drift inwards together, which the insertion ranks cannot see (a 50-dimensional " +
        "Gaussian with 100 live points and 53 slices came out 7 nats high, 6 standard errors). Raise livePoints " +
        `(the default is ${defaultLivePoints(dim, false)}) or slices.`,
    );
  }
  // A handful of slice moves among ellipsoid draws ("auto"'s fallbacks, often inside a dying mode) make
  // a noisy jump statistic and barely touch log Z: the check needs slices to have drawn a tenth of the points.
  if (slices !== null && slices.points >= 0.1 * diagnostics.iterations && slices.meanJump < MIN_SLICE_JUMP) {
    unreliable.push(
      `the slice moves ended on average only ${slices.meanJump.toFixed(2)} of the way to a point independent of ` +
        `their start (mean squared jump in the live points' metric over its expectation for independent points): ` +
        `new live points are correlated with old ones, which biases log Z; raise slices (now ${settings.slices}).`,
    );
  }
  if (slices !== null && slices.truncated > 0.01 * slices.points * settings.slices) {
    warnings.push(
      `${slices.truncated} slices stopped stepping out at 100 steps: the region above the bound is much wider ` +
        "than the live points' spread along some directions.",
    );
  }
  const cut = diagnostics.cutOff;
  if (cut !== null) {
    warnings.push(
      `walks that ignore the bounding ellipsoids left them for points above the likelihood bound (${cut.escapes} of ` +
        `${cut.walks} walks, ${cut.outside} points outside) by iteration ${cut.cutOffAt}: the ellipsoids cut off part ` +
        "of the region above the bound (a narrow neck or tail that no live point had entered, as in Neal's funnel), " +
        "which makes log Z low while the insertion ranks stay uniform. The run started again with slice moves " +
        '(sampler "slice"); the evaluations of the first run are counted.',
    );
  }
  if (baseline.stop === "plateau") {
    warnings.push(
      "every live point had the same likelihood when the run stopped: the rest of the prior volume was taken " +
        "as a plateau at that level.",
    );
  }
  if (diagnostics.posteriorEss < 100) {
    warnings.push(
      `the weighted posterior draws have an effective sample size of ${diagnostics.posteriorEss.toFixed(0)}: ` +
        "use more live points (or dynamic batches) for posterior summaries.",
    );
  }
  return { unreliable, warnings };
}
