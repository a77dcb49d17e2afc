/**
 * Partitions of the observations 0, …, n − 1 for cross-validation: G folds (contiguous or shuffled by
 * a seeded generator) and a training / evidence split. Every index array is an `Int32Array` sorted in
 * increasing order.
 */
import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { permutation } from "../random/variates.js";

function checkN(n: number, where: string): void {
  if (!(Number.isInteger(n) && n >= 1 && n <= 2 ** 31 - 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the number of observations n must be a positive integer, got ${n}.`,
    );
  }
}

/**
 * G disjoint folds covering 0, …, n − 1, with sizes differing by at most one (the first n mod G folds
 * hold one more). Without `rng` fold g is a contiguous block; with it the observations are first
 * permuted by `rng`, so the same seed gives the same folds. Each fold is sorted.
 * Throws an `OccamError` when G is not an integer in [1, n].
 *
 * @example
 * kFolds(10, 3); // [0,1,2,3], [4,5,6], [7,8,9]
 */
export function kFolds(n: number, G: number, rng?: Rng): Int32Array[] {
  checkN(n, "kFolds");
  if (!(Number.isInteger(G) && G >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `kFolds: the number of folds G must be a positive integer, got ${G}.`,
    );
  }
  if (G > n) {
    throw new OccamError(
      "invalid-argument",
      `kFolds: cannot split n = ${n} observations into G = ${G} non-empty folds; use G ≤ n.`,
    );
  }
  const order = rng === undefined ? null : permutation(rng, n);
  const base = Math.floor(n / G);
  const extra = n % G;
  const folds: Int32Array[] = [];
  let start = 0;
  for (let g = 0; g < G; g++) {
    const size = base + (g < extra ? 1 : 0);
    const fold = new Int32Array(size);
    for (let i = 0; i < size; i++) fold[i] = order === null ? start + i : order[start + i];
    if (order !== null) fold.sort();
    folds.push(fold);
    start += size;
  }
  return folds;
}

/** A split of the observations into a training set and an evidence (held-out) set. */
export interface HoldOut {
  /** Indices of the training observations D_T, sorted. */
  readonly train: Int32Array;
  /** Indices of the evidence observations D_E, sorted. */
  readonly test: Int32Array;
}

/**
 * Splits 0, …, n − 1 into round(fraction · n) training observations and the rest as evidence
 * (held-out) observations: the first ones without `rng`, a random subset drawn by `rng` with it.
 * Throws an `OccamError` unless fraction lies in (0, 1) and both sets are non-empty.
 *
 * @example
 * holdOut(10, 0.7); // train 0…6, test 7…9
 */
export function holdOut(n: number, fraction: number, rng?: Rng): HoldOut {
  checkN(n, "holdOut");
  if (!(fraction > 0 && fraction < 1)) {
    throw new OccamError(
      "invalid-argument",
      `holdOut: the training fraction must lie strictly between 0 and 1, got ${fraction}.`,
    );
  }
  const nTrain = Math.round(fraction * n);
  if (nTrain < 1 || nTrain > n - 1) {
    throw new OccamError(
      "invalid-argument",
      `holdOut: a training fraction of ${fraction} of n = ${n} leaves ${nTrain === 0 ? "no training" : "no evidence"} observations; ` +
        "use more observations or a fraction nearer 0.5.",
    );
  }
  const order = rng === undefined ? null : permutation(rng, n);
  const train = new Int32Array(nTrain);
  const test = new Int32Array(n - nTrain);
  for (let i = 0; i < n; i++) {
    const k = order === null ? i : order[i];
    if (i < nTrain) train[i] = k;
    else test[i - nTrain] = k;
  }
  if (order !== null) {
    train.sort();
    test.sort();
  }
  return Object.freeze({ train, test });
}

/** The sorted indices of 0, …, n − 1 not in `indices` (which must be valid observation indices). */
export function complement(indices: ArrayLike<number>, n: number): Int32Array {
  checkN(n, "complement");
  const mask = new Uint8Array(n);
  for (let i = 0; i < indices.length; i++) mask[indices[i]] = 1;
  let count = 0;
  for (let i = 0; i < n; i++) if (mask[i] === 0) count++;
  const out = new Int32Array(count);
  let k = 0;
  for (let i = 0; i < n; i++) if (mask[i] === 0) out[k++] = i;
  return out;
}

/** The sorted union of disjoint index sets. */
export function union(sets: readonly ArrayLike<number>[]): Int32Array {
  let total = 0;
  for (const s of sets) total += s.length;
  const out = new Int32Array(total);
  let k = 0;
  for (const s of sets) for (let i = 0; i < s.length; i++) out[k++] = s[i];
  return out.sort();
}

/**
 * Checks observation indices for a model's `subset`: a non-empty `Int32Array` of distinct integers in
 * [0, n). Returns them sorted (a copy). `where` names the caller in the error message.
 */
export function checkSubsetIndices(observations: unknown, n: number, where: string): Int32Array {
  if (!(observations instanceof Int32Array)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: observations must be an Int32Array of observation indices (e.g. from kFolds), got ${String(observations)}.`,
    );
  }
  if (observations.length === 0) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the subset is empty; give at least one observation index.`,
    );
  }
  const sorted = Int32Array.from(observations).sort();
  for (let i = 0; i < sorted.length; i++) {
    const k = sorted[i];
    if (k < 0 || k >= n) {
      throw new OccamError(
        "invalid-argument",
        `${where}: observation index ${k} is outside [0, ${n - 1}] (the model has n = ${n} observations).`,
      );
    }
    if (i > 0 && sorted[i - 1] === k) {
      throw new OccamError(
        "invalid-argument",
        `${where}: observation index ${k} appears twice; a subset lists each observation once.`,
      );
    }
  }
  return sorted;
}

/**
 * Checks that `blocks` partition 0, …, n − 1: each a non-empty list of integers in [0, n), no index
 * in two blocks (or twice in one), every index in some block. Returns them as sorted `Int32Array`s.
 */
export function checkPartition(blocks: readonly ArrayLike<number>[], n: number, where: string): Int32Array[] {
  checkN(n, where);
  if (!Array.isArray(blocks) || blocks.length === 0) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the partition must be a non-empty array of index arrays.`,
    );
  }
  const seen = new Int32Array(n).fill(-1);
  const out: Int32Array[] = [];
  for (let g = 0; g < blocks.length; g++) {
    const b = blocks[g];
    if (b === null || typeof b !== "object" || typeof b.length !== "number" || b.length === 0) {
      throw new OccamError(
        "invalid-argument",
        `${where}: block ${g} of the partition is empty or not an array.`,
      );
    }
    const block = new Int32Array(b.length);
    for (let i = 0; i < b.length; i++) {
      const k = b[i];
      if (!(Number.isInteger(k) && k >= 0 && k < n)) {
        throw new OccamError(
          "invalid-argument",
          `${where}: block ${g} holds ${k}, not an observation index in [0, ${n - 1}].`,
        );
      }
      if (seen[k] !== -1) {
        throw new OccamError(
          "invalid-argument",
          `${where}: observation ${k} is in block ${seen[k]} and again in block ${g}; blocks must be disjoint.`,
        );
      }
      seen[k] = g;
      block[i] = k;
    }
    out.push(block.sort());
  }
  for (let k = 0; k < n; k++) {
    if (seen[k] === -1) {
      throw new OccamError(
        "invalid-argument",
        `${where}: observation ${k} is in no block; the blocks must cover all n = ${n} observations.`,
      );
    }
  }
  return out;
}
