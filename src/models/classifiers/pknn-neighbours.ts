/**
 * Neighbour counts for the probabilistic k-nearest-neighbour classifier: each query point's training
 * neighbours sorted by Euclidean distance (on standardised inputs, ties broken by row order), and for
 * a reference set S the cumulative class counts among a query's k nearest members of S, k = 1 … k_max.
 * From these, the log probability of a query's label under Holmes & Adams's conditional,
 * p(y_q = c | k, β) = exp(β c_q(c)/k) / Σ_c′ exp(β c_q(c′)/k), costs O(K) per query and (k, β).
 */
import type { ClassificationData } from "../mixture-classifier/data.js";

/** For each query, every training row sorted by distance to it (a training query excludes itself). */
export interface NeighbourOrder {
  /** Number of queries. */
  readonly m: number;
  /** Length of each list: n, or n − 1 for training queries. */
  readonly length: number;
  /** Query q's list: order[q·length … (q + 1)·length). */
  readonly order: Int32Array;
}

/** Sorts the training rows by distance from each of the m query rows of Xq (m × p). */
export function neighbourOrder(
  train: ClassificationData,
  Xq: Float64Array,
  m: number,
  excludeSelf: boolean,
): NeighbourOrder {
  const { X, n, p } = train;
  const length = excludeSelf ? n - 1 : n;
  const order = new Int32Array(m * length);
  const dist = new Float64Array(n);
  const idx = new Int32Array(n);
  for (let q = 0; q < m; q++) {
    for (let r = 0; r < n; r++) {
      let d = 0;
      for (let i = 0; i < p; i++) {
        const u = Xq[q * p + i] - X[r * p + i];
        d += u * u;
      }
      dist[r] = d;
      idx[r] = r;
    }
    idx.sort((a, b) => dist[a] - dist[b] || a - b);
    let t = 0;
    for (let j = 0; j < n; j++) {
      if (excludeSelf && idx[j] === q) continue;
      if (t < length) order[q * length + t++] = idx[j];
    }
  }
  return { m, length, order };
}

/**
 * Cumulative class counts of some queries' nearest members of a reference set: for query q and
 * k = 1 … kMax, counts[(q·kMax + k − 1)·K + c] is the number of class-c rows among q's k nearest
 * reference rows, and used[q·kMax + k − 1] = min(k, available reference rows): with fewer rows than k
 * in the reference set, the neighbourhood is all of them.
 */
export interface NeighbourCounts {
  readonly queries: number;
  readonly kMax: number;
  readonly classes: number;
  readonly counts: Int32Array;
  readonly used: Int32Array;
  /** The label of each query (−1 when unknown, for test queries). */
  readonly labels: Int32Array;
}

/**
 * Counts for the queries `queries` (indices into `order`'s queries) against the reference rows
 * `inReference` marks, from the training labels.
 */
export function neighbourCounts(
  order: NeighbourOrder,
  queries: ArrayLike<number>,
  inReference: Uint8Array,
  labels: Int32Array,
  queryLabels: Int32Array | null,
  classes: number,
  kMax: number,
): NeighbourCounts {
  const m = queries.length;
  const counts = new Int32Array(m * kMax * classes);
  const used = new Int32Array(m * kMax);
  const out = new Int32Array(m);
  const running = new Int32Array(classes);
  for (let t = 0; t < m; t++) {
    const q = queries[t];
    out[t] = queryLabels === null ? -1 : queryLabels[q];
    running.fill(0);
    let found = 0;
    const base = q * order.length;
    for (let j = 0; j < order.length && found < kMax; j++) {
      const r = order.order[base + j];
      if (inReference[r] === 0) continue;
      running[labels[r]]++;
      found++;
      const at = t * kMax + found - 1;
      used[at] = found;
      for (let c = 0; c < classes; c++) counts[at * classes + c] = running[c];
    }
    // Fewer reference rows than kMax: larger k use them all.
    for (let k = found; k < kMax; k++) {
      used[t * kMax + k] = found;
      for (let c = 0; c < classes; c++) counts[(t * kMax + k) * classes + c] = running[c];
    }
  }
  return { queries: m, kMax, classes, counts, used, labels: out };
}

/**
 * log p(y_q = c | k, β) for query t and every class c, written into out[0 … K): the softmax of
 * β · count_c / k_used (uniform when the query has no reference neighbours).
 */
export function queryLogProbabilities(
  table: NeighbourCounts,
  t: number,
  k: number,
  beta: number,
  out: Float64Array,
): void {
  const K = table.classes;
  const at = t * table.kMax + k - 1;
  const used = table.used[at];
  if (used === 0) {
    out.fill(-Math.log(K), 0, K);
    return;
  }
  const scale = beta / used;
  let max = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < K; c++) {
    out[c] = scale * table.counts[at * K + c];
    if (out[c] > max) max = out[c];
  }
  let sum = 0;
  for (let c = 0; c < K; c++) sum += Math.exp(out[c] - max);
  const lse = max + Math.log(sum);
  for (let c = 0; c < K; c++) out[c] -= lse;
}

/**
 * A table's labelled queries grouped, for each k, by what their probability depends on: the number
 * of neighbours used, the count of the query's own class and the counts of every class. Queries in
 * one group have the same log probability for every β, so a sum over queries becomes a sum over the
 * (few) groups: at most k + 1 per k for two classes, whatever the number of rows.
 */
export interface GroupedCounts {
  readonly classes: number;
  readonly kMax: number;
  /** Groups of k: offsets[k − 1] … offsets[k]. */
  readonly offsets: Int32Array;
  /** Per group: multiplicity, neighbours used, own-class count, then the K class counts. */
  readonly groups: Int32Array;
}

/** Groups the labelled queries of a table (see {@link GroupedCounts}). */
export function groupCounts(table: NeighbourCounts): GroupedCounts {
  const { kMax, classes: K, queries } = table;
  const width = 3 + K;
  const offsets = new Int32Array(kMax + 1);
  const rows: number[] = [];
  for (let k = 1; k <= kMax; k++) {
    const seen = new Map<string, number>();
    for (let t = 0; t < queries; t++) {
      const at = t * kMax + k - 1;
      const counts = table.counts.subarray(at * K, (at + 1) * K);
      const own = counts[table.labels[t]];
      const key = `${table.used[at]}|${own}|${counts.join(",")}`;
      const g = seen.get(key);
      if (g !== undefined) {
        rows[g * width]++;
        continue;
      }
      seen.set(key, rows.length / width);
      rows.push(1, table.used[at], own, ...counts);
    }
    offsets[k] = rows.length / width;
  }
  return { classes: K, kMax, offsets, groups: Int32Array.from(rows) };
}

/** Σ over a grouped table's queries of log p(y_q | k, β). */
export function groupedLogProbability(grouped: GroupedCounts, k: number, beta: number): number {
  const K = grouped.classes;
  const width = 3 + K;
  const g = grouped.groups;
  let value = 0;
  for (let j = grouped.offsets[k - 1]; j < grouped.offsets[k]; j++) {
    const o = j * width;
    const used = g[o + 1];
    if (used === 0) {
      value -= g[o] * Math.log(K);
      continue;
    }
    const scale = beta / used;
    let max = 0;
    for (let c = 0; c < K; c++) max = Math.max(max, g[o + 3 + c]);
    let sum = 0;
    for (let c = 0; c < K; c++) sum += Math.exp(scale * (g[o + 3 + c] - max));
    value += g[o] * (scale * (g[o + 2] - max) - Math.log(sum));
  }
  return value;
}

/** Σ_t log p(y_t | k, β) over the table's (labelled) queries. */
export function tableLogProbability(
  table: NeighbourCounts,
  k: number,
  beta: number,
  scratch: Float64Array,
): number {
  let value = 0;
  for (let t = 0; t < table.queries; t++) {
    queryLogProbabilities(table, t, k, beta, scratch);
    value += scratch[table.labels[t]];
  }
  return value;
}
