/**
 * Dynamic nested sampling (Higson, Handley, Hobson & Lasenby 2019, Statistics and Computing 29, 891;
 * dynesty's `DynamicSampler`): after a baseline run, batches of new live points are run over the range
 * of likelihoods where the importance — a mix of the posterior mass and the evidence still to come —
 * is highest, and merged into the run. More live points there mean more, finer-spaced dead points
 * where the posterior weight is, so the posterior gains more than the evidence.
 */
import { OccamError } from "../../errors.js";
import { drawFromPrior, type EvolveResult, evolve, type RunContext } from "./evolve.js";
import { integrateRun, orderRun, type RunIntegral, type RunOrder } from "./integrate.js";
import { LiveSet } from "./live-points.js";
import type { DynamicSettings } from "./options.js";

/** One batch of a dynamic run. */
export interface BatchRecord {
  /** The likelihood bound its live points were drawn above (null: from the whole prior). */
  readonly logLLow: number | null;
  /** The likelihood at which it stopped climbing (null: it ran to the dlogz rule). */
  readonly logLHigh: number | null;
  readonly livePoints: number;
  readonly iterations: number;
  readonly evaluations: number;
}

/** Importance share above which dynesty's default `maxfrac` puts a batch: 0.8 of the largest. */
const MAX_FRACTION = 0.8;

/**
 * dynesty's `weight_function`: the importance of each dead point (in likelihood order) is
 * f · (posterior weight) + (1 − f) · (share of the evidence still to come after it), each normalised;
 * the batch spans the points above 0.8 of the largest importance, padded by one point each side.
 * Returns the bounds as indices into the ordered run (−1 or `size` when a side is open).
 */
function importanceRange(
  run: RunOrder,
  integral: RunIntegral,
  posteriorFraction: number,
): { low: number; high: number } {
  const n = run.size;
  const { logWeight, logZ } = integral;
  const posterior = new Float64Array(n);
  const evidence = new Float64Array(n);
  let cumulative = 0;
  let sumP = 0;
  let sumE = 0;
  for (let i = 0; i < n; i++) {
    posterior[i] = Math.exp(logWeight[i] - logZ);
    cumulative += posterior[i];
    // The evidence still to come after death i, as a share of the total (the final volume's rest is 0).
    evidence[i] = Math.max(0, 1 - cumulative);
    sumP += posterior[i];
    sumE += evidence[i];
  }
  let max = 0;
  const importance = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    importance[i] =
      posteriorFraction * (posterior[i] / sumP) +
      (1 - posteriorFraction) * (sumE > 0 ? evidence[i] / sumE : 0);
    if (importance[i] > max) max = importance[i];
  }
  let first = -1;
  let last = -1;
  for (let i = 0; i < n; i++) {
    if (importance[i] > MAX_FRACTION * max) {
      if (first < 0) first = i;
      last = i;
    }
  }
  return { low: first - 1, high: last + 1 };
}

/**
 * The live set the merged run had when its likelihood bound was `level`: for each thread born at or
 * below the level, its first point above it. These points are independent draws from the prior above
 * the level, the starting material (bounds, slice starts) for a batch's new live points.
 */
function liveSetAt(ctx: RunContext, run: RunOrder, level: number): LiveSet {
  const { dead } = ctx;
  const taken = new Uint8Array(run.threadCount);
  const picked: number[] = [];
  for (let i = 0; i < run.size; i++) {
    const t = run.thread[i];
    if (run.logL[i] > level && !taken[t] && run.threadBirth[t] <= level) {
      taken[t] = 1;
      picked.push(run.order[i]);
    }
  }
  const d = dead.dim;
  const live = new LiveSet(picked.length, d);
  picked.forEach((k, i) => {
    live.set(
      i,
      dead.positions.subarray(k * d, (k + 1) * d),
      dead.thetas.subarray(k * d, (k + 1) * d),
      dead.logL[k],
      dead.thread[k],
    );
  });
  return live;
}

/**
 * Runs the batches of a dynamic run after the baseline, each over the current importance range, and
 * returns what each did. A batch's live points are fresh draws above its lower bound (from the prior
 * when the bound is open), started from the merged run's live set at that bound.
 */
export function runBatches(ctx: RunContext, settings: DynamicSettings, dlogz: number): BatchRecord[] {
  const records: BatchRecord[] = [];
  const d = ctx.dead.dim;
  for (let b = 1; b <= settings.batches; b++) {
    if (limitReached(ctx)) break;
    const run = orderRun(ctx.dead);
    const integral = integrateRun(run);
    const { low, high } = importanceRange(run, integral, settings.posteriorFraction);
    const logXStart = low < 0 ? 0 : integral.logX[low];
    const logLLow = low < 0 ? Number.NEGATIVE_INFINITY : run.logL[low];
    const logLHigh = high >= run.size ? Number.POSITIVE_INFINITY : run.logL[high];
    const k = settings.batchLivePoints;
    const before = ctx.likelihood.evaluations;
    const iterationsBefore = ctx.iterations;
    const first = ctx.dead.addThreads(k, logLLow, b);
    const live = new LiveSet(k, d);
    if (logLLow === Number.NEGATIVE_INFINITY) {
      drawFromPrior(ctx, live, first);
    } else {
      const seeds = liveSetAt(ctx, run, logLLow);
      if (seeds.size < d + 1) {
        throw new OccamError(
          "internal",
          `${ctx.where}: batch ${b} found ${seeds.size} live points above log L = ${logLLow}, fewer than dim + 1.`,
        );
      }
      ctx.proposals.invalidate();
      const x = new Float64Array(d);
      const theta = new Float64Array(d);
      for (let i = 0; i < k; i++) {
        const logL = ctx.proposals.draw(seeds, -1, logLLow, logXStart, x, theta, ctx.iterations);
        ctx.space.checkSupport(x, theta);
        live.set(i, x, theta, logL, first + i);
      }
    }
    ctx.proposals.invalidate();
    const result: EvolveResult = evolve(ctx, live, dlogz, logLHigh, logXStart);
    records.push({
      logLLow: Number.isFinite(logLLow) ? logLLow : null,
      logLHigh: result.stop === "bound" ? logLHigh : null,
      livePoints: k,
      iterations: ctx.iterations - iterationsBefore,
      evaluations: ctx.likelihood.evaluations - before,
    });
  }
  return records;
}

function limitReached(ctx: RunContext): boolean {
  return (
    ctx.iterations >= ctx.settings.maxIterations || ctx.likelihood.evaluations >= ctx.settings.maxEvaluations
  );
}
