/**
 * The evidence sum of nested sampling (Skilling 2006) over a run's dead points: the points in
 * likelihood order, the number of live points when each died, the prior volume each iteration leaves,
 * the trapezoid weights and log Z. One routine serves the estimate (expected shrinkage) and its error
 * (simulated shrinkage over resampled threads, see uncertainty.ts), so the two cannot drift apart.
 */
import type { Rng } from "../../random/rng.js";
import type { DeadPoints } from "./live-points.js";

/**
 * A run's dead points in increasing log likelihood (a dynamic run's batches merged, as Higson et al.
 * 2019 merge runs): the point indices, their log L and threads, and whether each is the last point of
 * its thread (after it the thread no longer holds a live point).
 */
export interface RunOrder {
  readonly size: number;
  /** Indices into the dead points, in increasing log L (ties in the order they died). */
  readonly order: Int32Array;
  readonly logL: Float64Array;
  readonly thread: Int32Array;
  readonly isLast: Uint8Array;
  /** Threads with a finite birth (started above a likelihood bound), in increasing birth. */
  readonly births: Int32Array;
  /** Each thread's birth log L (−∞ for a thread started from the prior). */
  readonly threadBirth: Float64Array;
  /** Each thread's batch (0 for the baseline run). */
  readonly threadGroup: Int32Array;
  readonly threadCount: number;
}

/** The dead points sorted by log likelihood, with their threads' ends and births. */
export function orderRun(dead: DeadPoints): RunOrder {
  const n = dead.count;
  const indices = Array.from({ length: n }, (_, i) => i);
  const logL = dead.logL;
  indices.sort((a, b) => (logL[a] < logL[b] ? -1 : logL[a] > logL[b] ? 1 : a - b));
  const order = Int32Array.from(indices);
  const sortedLogL = new Float64Array(n);
  const thread = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    sortedLogL[i] = logL[order[i]];
    thread[i] = dead.thread[order[i]];
  }
  const isLast = new Uint8Array(n);
  const seen = new Uint8Array(dead.threadCount);
  for (let i = n - 1; i >= 0; i--) {
    if (!seen[thread[i]]) {
      seen[thread[i]] = 1;
      isLast[i] = 1;
    }
  }
  const threadBirth = dead.threadBirth.slice(0, dead.threadCount);
  const born = [];
  for (let t = 0; t < dead.threadCount; t++) if (threadBirth[t] > Number.NEGATIVE_INFINITY) born.push(t);
  born.sort((a, b) => threadBirth[a] - threadBirth[b] || a - b);
  return {
    size: n,
    order,
    logL: sortedLogL,
    thread,
    isLast,
    births: Int32Array.from(born),
    threadBirth,
    threadGroup: dead.threadGroup.slice(0, dead.threadCount),
    threadCount: dead.threadCount,
  };
}

/** Where {@link accumulate} writes the run's record (absent in simulations). */
export interface RunRecordBuffers {
  readonly logX: Float64Array;
  readonly logWeight: Float64Array;
  readonly nLive: Int32Array;
}

/** log(e^a + e^b) − log 2, the log of the trapezoid's mean likelihood; a = −∞ gives b − log 2. */
function logMeanOfTwo(a: number, b: number): number {
  if (a === Number.NEGATIVE_INFINITY) return b - Math.LN2;
  return a > b ? a + Math.log1p(Math.exp(b - a)) - Math.LN2 : b + Math.log1p(Math.exp(a - b)) - Math.LN2;
}

/**
 * Per dead point (in likelihood order), log ½(L_{i−1} + L_i) with the point before it in the run, which
 * every replicate that keeps both shares: computed once.
 */
export function trapezoidHeights(run: RunOrder): Float64Array {
  const heights = new Float64Array(run.size);
  for (let i = 0; i < run.size; i++) {
    heights[i] = logMeanOfTwo(i === 0 ? Number.NEGATIVE_INFINITY : run.logL[i - 1], run.logL[i]);
  }
  return heights;
}

/**
 * log Z of the run with each thread counted `copies[t]` times (all once when null), the prior volume
 * shrinking at each death by its expectation n/(n + 1) (n live points), or, with `rng`, by a draw
 * t ~ Beta(n, 1), i.e. log t = log U / n. Each copy of a point is a death: while its thread goes on the
 * live count stays, and at the thread's last point it falls by one, so the final live points shrink the
 * volume as uniform order statistics do. The weight of a death is the trapezoid
 * ½(L_{i−1} + L_i)(X_{i−1} − X_i), with L_0 = 0, as dynesty sums it. `heights` are
 * {@link trapezoidHeights}; the sum is kept relative to e^{reference} (a value near log Z), and redone
 * in log space if that overflows or underflows. Writes the record into `record` when given.
 */
export function accumulate(
  run: RunOrder,
  heights: Float64Array,
  reference: number,
  copies: Int32Array | null,
  rng: Rng | null,
  record?: RunRecordBuffers,
): number {
  const linear = sumWeights(run, heights, reference, copies, rng, record, false);
  if (linear > 0 && linear < Number.POSITIVE_INFINITY) return reference + Math.log(linear);
  return sumWeights(run, heights, reference, copies, rng, record, true);
}

/** The loop of {@link accumulate}: Σ e^{logWeight − reference}, or with `logSpace` log Σ e^{logWeight}. */
function sumWeights(
  run: RunOrder,
  heights: Float64Array,
  reference: number,
  copies: Int32Array | null,
  rng: Rng | null,
  record: RunRecordBuffers | undefined,
  logSpace: boolean,
): number {
  const { logL, thread, isLast, births, threadBirth } = run;
  let alive = 0;
  for (let t = 0; t < run.threadCount; t++) {
    if (threadBirth[t] === Number.NEGATIVE_INFINITY) alive += copies === null ? 1 : copies[t];
  }
  let next = 0;
  let logX = 0;
  let sum = logSpace ? Number.NEGATIVE_INFINITY : 0;
  let previous = -1;
  for (let i = 0; i < run.size; i++) {
    const l = logL[i];
    while (next < births.length && threadBirth[births[next]] < l) {
      alive += copies === null ? 1 : copies[births[next]];
      next++;
    }
    const c = copies === null ? 1 : copies[thread[i]];
    for (let k = 0; k < c; k++) {
      const n = alive;
      const height =
        previous === i - 1
          ? heights[i]
          : logMeanOfTwo(previous < 0 ? Number.NEGATIVE_INFINITY : logL[previous], l);
      // log(X_{i−1} − X_i) = log X_{i−1} + log(1 − t); with t = n/(n + 1), log(1 − t) = −log(n + 1).
      let logT: number;
      let logWeight: number;
      if (rng === null) {
        logT = -Math.log1p(1 / n);
        logWeight = height + logX - Math.log(n + 1);
        if (!logSpace) sum += Math.exp(logWeight - reference);
      } else {
        logT = Math.log(1 - rng.uniform()) / n;
        const slab = -Math.expm1(logT);
        if (!logSpace) sum += Math.exp(height + logX - reference) * slab;
        logWeight = logSpace || record !== undefined ? height + logX + Math.log(slab) : 0;
      }
      if (logSpace && logWeight > Number.NEGATIVE_INFINITY) {
        sum =
          sum > logWeight
            ? sum + Math.log1p(Math.exp(logWeight - sum))
            : logWeight + Math.log1p(Math.exp(sum - logWeight));
      }
      logX += logT;
      previous = i;
      if (record !== undefined) {
        record.logX[i] = logX;
        record.logWeight[i] = logWeight;
        record.nLive[i] = n;
      }
      if (isLast[i]) alive--;
    }
  }
  return sum;
}

/** The run's estimate and record: log Z, the information H, and each death's log X, log weight and live count. */
export interface RunIntegral extends RunRecordBuffers {
  readonly logZ: number;
  /** H = Σ p_i log L_i − log Z with p_i = w_i / Z: KL(posterior ‖ prior) in nats. */
  readonly information: number;
}

/** The estimate from the expected shrinkage (see {@link accumulate}). */
export function integrateRun(run: RunOrder): RunIntegral {
  const n = run.size;
  const record = {
    logX: new Float64Array(n),
    logWeight: new Float64Array(n),
    nLive: new Int32Array(n),
  };
  const logZ = accumulate(run, trapezoidHeights(run), 0, null, null, record);
  let meanLogL = 0;
  for (let i = 0; i < n; i++) {
    const p = Math.exp(record.logWeight[i] - logZ);
    if (p > 0) meanLogL += p * run.logL[i];
  }
  return { ...record, logZ, information: Math.max(0, meanLogL - logZ) };
}
