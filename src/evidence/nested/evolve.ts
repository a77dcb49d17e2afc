/**
 * The nested-sampling iteration (Skilling 2006): kill the live point of lowest likelihood, record it,
 * replace it by a draw from the prior above its likelihood, and stop when the live points can no longer
 * change log Z by more than `dlogz` nats (or a batch has climbed past its upper bound, or a limit is
 * reached); the remaining live points then die in order of likelihood.
 */
import { OccamError } from "../../errors.js";
import { logAddExp } from "../../math/logspace.js";
import { showPoint } from "../checks.js";
import type { InsertionRanks } from "./insertion.js";
import type { DeadPoints, LiveSet } from "./live-points.js";
import type { DrawContext, Proposals } from "./proposals.js";

/** Why a run (or a batch) stopped. */
export type StopReason = "dlogz" | "bound" | "plateau" | "maxIterations" | "maxEvaluations";

/** A run's context: the draw's, the dead points and the iteration count across batches. */
export interface RunContext extends DrawContext {
  readonly dead: DeadPoints;
  readonly proposals: Proposals;
  /** Iterations (dead points with a replacement) so far, over all batches. */
  iterations: number;
}

/** How a call of {@link evolve} ended. */
export interface EvolveResult {
  /** "cut-off": the bound check found that the ellipsoids cut off part of the region, and the run is to start again. */
  readonly stop: StopReason | "cut-off";
  /** log(1 + L_max X / Z) when it stopped, in nats: what the live points could still have added (null if Z was 0). */
  readonly remaining: number | null;
  /** Iterations of this call. */
  readonly iterations: number;
}

/**
 * Fills `live` with points drawn from the prior (threads `firstThread` onwards). Throws when every
 * one of them has a zero likelihood: the run would have no evidence to climb.
 */
export function drawFromPrior(ctx: RunContext, live: LiveSet, firstThread: number): void {
  const { space, likelihood, rng } = ctx;
  const x = new Float64Array(live.dim);
  const theta = new Float64Array(live.dim);
  let positive = 0;
  for (let i = 0; i < live.size; i++) {
    space.draw(rng, x);
    space.toTheta(x, theta);
    space.checkSupport(x, theta);
    const logL = likelihood.evaluatePriorDraw(theta);
    if (logL > Number.NEGATIVE_INFINITY) positive++;
    live.set(i, x, theta, logL, firstThread + i);
  }
  if (positive === 0) {
    throw new OccamError(
      "non-finite",
      `${ctx.where}: all ${live.size} live points drawn from the prior have a zero likelihood (log L = −Infinity); ` +
        "the likelihood's support is a tiny part of the prior: raise livePoints, or narrow the prior.",
    );
  }
}

/** Why the run should stop before this iteration, or null to go on. */
function stopReason(
  ctx: RunContext,
  worst: number,
  max: number,
  remaining: number,
  dlogz: number,
  logLHigh: number,
): StopReason | "cut-off" | null {
  if (worst >= logLHigh) return "bound";
  if (ctx.proposals.cutOff) return "cut-off";
  // Every live point has the same likelihood: the rest of the prior volume is a plateau at that level,
  // and no point above it can be found.
  if (max === worst) return "plateau";
  if (remaining < dlogz) return "dlogz";
  if (ctx.iterations >= ctx.settings.maxIterations) return "maxIterations";
  if (ctx.likelihood.evaluations >= ctx.settings.maxEvaluations) return "maxEvaluations";
  return null;
}

/**
 * Runs nested sampling on `live` until the live points could add less than `dlogz` nats to this
 * run's own log Z, or the lowest live likelihood reaches `logLHigh` (a dynamic batch's upper bound),
 * or a limit is reached; then kills the remaining live points in increasing likelihood. Every dead
 * point goes to `ctx.dead`, each replacement continuing the thread of the point it replaced.
 * `logXStart` is the expected log prior volume above the live points' lower bound (0 from the prior);
 * `ranks`, when given, collects each new point's insertion rank among the live points.
 */
export function evolve(
  ctx: RunContext,
  live: LiveSet,
  dlogz: number,
  logLHigh: number,
  logXStart = 0,
  ranks?: InsertionRanks,
): EvolveResult {
  const { dead, proposals, space, likelihood } = ctx;
  const k = live.size;
  // Expected log shrinkage per death, and log(1 − e^{shrink}) for the slab it leaves.
  const shrink = -Math.log1p(1 / k);
  const slab = -Math.log(k + 1);
  const x = new Float64Array(live.dim);
  const theta = new Float64Array(live.dim);
  let logX = 0;
  let logZ = Number.NEGATIVE_INFINITY;
  let previous = Number.NEGATIVE_INFINITY;
  let iterations = 0;
  for (;;) {
    const w = live.worst();
    const logLStar = live.logL[w];
    const max = live.maxLogL();
    const remaining =
      logZ === Number.NEGATIVE_INFINITY ? Number.POSITIVE_INFINITY : logAddExp(0, max + logX - logZ);
    const stop = stopReason(ctx, logLStar, max, remaining, dlogz, logLHigh);
    if (stop !== null) {
      killAll(dead, live);
      return { stop, remaining: Number.isFinite(remaining) ? remaining : null, iterations };
    }
    const before = likelihood.evaluations;
    const index = dead.push(live, w, 0);
    const logL = proposals.draw(live, w, logLStar, logXStart + logX, x, theta, ctx.iterations);
    space.checkSupport(x, theta);
    if (!(logL > logLStar)) {
      throw new OccamError(
        "internal",
        `${ctx.where}: a new point ${showPoint(theta)} has log L = ${logL}, not above the bound ${logLStar}.`,
      );
    }
    dead.evaluations[index] = likelihood.evaluations - before;
    ranks?.add(logL, live.logL, w);
    live.set(w, x, theta, logL, live.thread[w]);
    const weight =
      (previous === Number.NEGATIVE_INFINITY ? logLStar : logAddExp(previous, logLStar)) - Math.LN2;
    logZ = logAddExp(logZ, weight + logX + slab);
    logX += shrink;
    previous = logLStar;
    iterations++;
    ctx.iterations++;
  }
}

/** Records the live points as dead in increasing likelihood: each is the last point of its thread. */
function killAll(dead: DeadPoints, live: LiveSet): void {
  const logL = live.logL;
  const order = Array.from({ length: live.size }, (_, i) => i).sort((a, b) =>
    logL[a] < logL[b] ? -1 : logL[a] > logL[b] ? 1 : a - b,
  );
  for (const i of order) dead.push(live, i, 0);
}
