/**
 * The standard error of a nested-sampling log Z by simulation, as dynesty's `jitter_run`,
 * `resample_run` and `simulate_run` and UltraNest's bootstrap compute it. Two sources of error:
 *
 * - the prior volumes are not known, only their distribution: each death shrinks the volume by
 *   t ~ Beta(n, 1) (n live points), and the estimate uses the expected shrinkage. Drawing the t's anew
 *   ("simulated shrinkage") gives the spread of log Z that the unknown volumes cause, for the
 *   likelihoods this run met;
 * - the likelihoods met are themselves random: the run is a merge of threads (each live point's chain
 *   of replacements is an independent nested-sampling run with one live point; Higson et al. 2018), so
 *   resampling the threads with replacement (within each batch of a dynamic run) and re-merging gives
 *   a bootstrap of the whole run.
 *
 * The two are not separate errors to be added but two estimates of one: how far log Z of a run is from
 * log Z (a run's likelihoods are random because its volumes are; Higson et al. 2018 show the thread
 * bootstrap alone is accurate). Doing both in each replicate, as dynesty's `simulate_run` does, counts
 * the error twice: on the 2-D Gaussian-mean model with 50 live points over 100 seeds the runs' log Z
 * spread by 0.224, the shrinkage simulation gave 0.213, the thread bootstrap 0.209 and both together
 * 0.297 (√2 too large). Skilling's √(H/K) is reported beside them for comparison.
 *
 * Both assume that each new point is an independent draw from the prior above the bound. Slice moves
 * that do not forget their start break that without showing in either: on a 55-parameter
 * random-intercept model three runs were off by +0.27, −0.36 and −0.58 nats while both said ±0.14.
 * A third estimate does not assume it: the run's islands (groups of threads whose moves start only
 * from their own live points, so independent runs with K / G live points each) give G estimates of
 * log Z whose spread, over √G, is the merged run's error. With G − 1 degrees of freedom it is too
 * noisy to be the standard error in every run (on the eggbox test it raised the error bar from
 * under 0.064 to 0.076), so it takes over only when it is larger than the simulated error would leave
 * it 9 times in 10 (the 90th percentile of its distribution), and beyond the 99th percentile the run
 * is unreliable.
 */

import { chisquareQuantile } from "../../math/stdlib.js";
import type { Rng } from "../../random/rng.js";
import { meanAndSd } from "../weights.js";
import { accumulate, type RunOrder, trapezoidHeights } from "./integrate.js";

/** The simulated spread of log Z. */
export interface SimulatedError {
  /** The standard error: the larger of the first two estimates below, or the islands' spread where it is significantly larger. */
  readonly sd: number;
  /** Standard deviation of log Z over draws of the shrinkage, the run's likelihoods held fixed. */
  readonly shrinkageSd: number;
  /** Standard deviation of log Z over resampled threads, with the expected shrinkage. */
  readonly threadSd: number;
  /** The islands' log Z spread (sample sd) over √G; null with one island. */
  readonly islandSd: number | null;
}

/** Each thread's number of copies in one bootstrap replicate: threads resampled within their batch. */
function resampleThreads(groups: Int32Array[], rng: Rng, copies: Int32Array): void {
  copies.fill(0);
  for (const members of groups) {
    const m = members.length;
    for (let k = 0; k < m; k++) copies[members[Math.floor(rng.uniform() * m)]]++;
  }
}

/** The threads of each batch. */
function threadGroups(run: RunOrder): Int32Array[] {
  const lists: number[][] = [];
  for (let t = 0; t < run.threadCount; t++) {
    const g = run.threadGroup[t];
    while (lists.length <= g) lists.push([]);
    lists[g].push(t);
  }
  return lists.filter((l) => l.length > 0).map((l) => Int32Array.from(l));
}

/**
 * The standard error of the run's log Z (`logZ`, its expected-shrinkage estimate) from `simulations`
 * replicates of each kind: the shrinkage drawn anew, and the threads resampled.
 */
export function simulateError(
  run: RunOrder,
  logZ: number,
  rng: Rng,
  simulations: number,
  islands: number,
): SimulatedError {
  const heights = trapezoidHeights(run);
  const groups = threadGroups(run);
  const copies = new Int32Array(run.threadCount);
  const shrinkage = new Float64Array(simulations);
  const threads = new Float64Array(simulations);
  for (let r = 0; r < simulations; r++) {
    shrinkage[r] = accumulate(run, heights, logZ, null, rng);
    resampleThreads(groups, rng, copies);
    threads[r] = accumulate(run, heights, logZ, copies, null);
  }
  const shrinkageSd = finiteSd(shrinkage);
  const threadSd = finiteSd(threads);
  const islandSd = islands < 2 ? null : islandSpread(run, heights, logZ, islands, copies);
  const simulated = Math.max(shrinkageSd, threadSd);
  const widened = islandSd !== null && islandSd > islandRatio(islands, 0.9) * simulated;
  return { sd: widened ? islandSd : simulated, shrinkageSd, threadSd, islandSd };
}

/**
 * The `p` quantile of the islands' spread over the true standard error, √(χ²_{G−1}(p) / (G − 1)), for G
 * independent normal estimates: at p = 0.99 the ratio beyond which a run is unreliable.
 */
export function islandRatio(islands: number, p: number): number {
  return Math.sqrt(chisquareQuantile(p, islands - 1) / (islands - 1));
}

/** The spread of the islands' log Z (thread t is in island t mod G) over √G. */
function islandSpread(
  run: RunOrder,
  heights: Float64Array,
  logZ: number,
  islands: number,
  copies: Int32Array,
): number {
  const estimates = new Float64Array(islands);
  for (let g = 0; g < islands; g++) {
    for (let t = 0; t < run.threadCount; t++) copies[t] = t % islands === g ? 1 : 0;
    estimates[g] = accumulate(run, heights, logZ, copies, null);
  }
  return finiteSd(estimates) / Math.sqrt(islands);
}

/** The sample standard deviation, or +Infinity if a replicate kept no weight (its log Z is −∞). */
function finiteSd(values: Float64Array): number {
  for (const v of values) if (!Number.isFinite(v)) return Number.POSITIVE_INFINITY;
  return meanAndSd(values).sd;
}
