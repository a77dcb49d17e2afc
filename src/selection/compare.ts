import { invalidArgument, OccamError } from "../errors.js";
import { logSumExp } from "../math/logspace.js";
import { betaln, gammaln } from "../math/stdlib.js";
import type { Rng } from "../random/rng.js";

/**
 * Posterior model probabilities and Bayes factors from log evidences: for a short list of models
 * ({@link compareModels}) and for tables of input subsets with up to 2^25 entries, held in typed
 * arrays without per-model objects ({@link compareSubsets}). Everything is normalised in log space
 * (shifted by the largest value before exponentiating), so evidences of −10⁵ nats are fine.
 */

/**
 * A prior over input subsets S ⊆ {1 … p}: "uniform" gives every subset 2^−p; "uniform-size" gives
 * each size 1/(p + 1) and spreads it evenly within the size: p(S) = 1/((p + 1) C(p, |S|));
 * beta-binomial(a, b) includes each input with a probability θ ~ Beta(a, b):
 * p(S) = B(a + |S|, b + p − |S|)/B(a, b) (BAS's `beta.binomial`; a = b = 1 is "uniform-size").
 */
export type ModelPrior =
  | "uniform"
  | "uniform-size"
  | { readonly name: "beta-binomial"; readonly a: number; readonly b: number };

/** log p(S) of a subset of `size` inputs among p under the model prior (normalised over all 2^p subsets). */
export function logModelPrior(prior: ModelPrior, p: number, size: number): number {
  if (prior === "uniform") return -p * Math.LN2;
  if (prior === "uniform-size") {
    return -Math.log(p + 1) - (gammaln(p + 1) - gammaln(size + 1) - gammaln(p - size + 1));
  }
  if (typeof prior === "object" && prior?.name === "beta-binomial" && prior.a > 0 && prior.b > 0) {
    return betaln(prior.a + size, prior.b + p - size) - betaln(prior.a, prior.b);
  }
  throw new OccamError(
    "invalid-argument",
    `logModelPrior: the model prior must be "uniform", "uniform-size" or { name: "beta-binomial", a, b } with a, b > 0, got ${JSON.stringify(prior)}.`,
  );
}

/** The model prior in words: "uniform", "uniform-size" or "beta-binomial(a, b)". */
export function describeModelPrior(prior: ModelPrior): string {
  return typeof prior === "string" ? prior : `beta-binomial(${prior.a}, ${prior.b})`;
}

/**
 * Parses a model prior as the command line gives it: uniform, uniform-size, beta-binomial (a = b =
 * 1, BAS's default) or beta-binomial:A,B.
 */
export function parseModelPrior(text: string): ModelPrior {
  if (text === "uniform" || text === "uniform-size") return text;
  if (text === "beta-binomial") return { name: "beta-binomial", a: 1, b: 1 };
  const match = /^beta-binomial:([^,]+),([^,]+)$/.exec(text);
  const a = Number(match?.[1]);
  const b = Number(match?.[2]);
  if (match !== null && a > 0 && b > 0 && Number.isFinite(a) && Number.isFinite(b)) {
    return { name: "beta-binomial", a, b };
  }
  throw new OccamError(
    "invalid-argument",
    `--model-prior takes uniform, uniform-size, beta-binomial or beta-binomial:A,B (A, B > 0), got "${text}".`,
  );
}

/** Options of {@link compareModels}. */
export interface CompareModelsOptions {
  /** log p(D | M_i) of each model. */
  logEvidence: ArrayLike<number>;
  /**
   * Standard errors of the log evidences (estimated ones); 0 for exact values.
   * @defaultValue none (no uncertainty reported)
   */
  stdErr?: ArrayLike<number>;
  /**
   * Model names.
   * @defaultValue ["M0", "M1", …]
   */
  names?: readonly string[];
  /**
   * log prior probabilities of the models (normalised here).
   * @defaultValue uniform
   */
  logPrior?: ArrayLike<number>;
  /**
   * The model Bayes factors are taken against: an index or a name.
   * @defaultValue the model with the largest posterior probability
   */
  reference?: number | string;
}

/** The result of {@link compareModels}. */
export interface ModelComparison {
  readonly names: readonly string[];
  /** log p(M_i | D), normalised. */
  readonly logPosterior: Float64Array;
  /** p(M_i | D). */
  readonly probability: Float64Array;
  /**
   * Delta-method standard errors of the probabilities from the evidences' standard errors (independent
   * estimates): Var p_i = p_i² [(1 − p_i)² s_i² + Σ_{j≠i} p_j² s_j²].
   */
  readonly probabilityStdErr?: Float64Array;
  /** log B_{i,ref} = log p(D | M_i) − log p(D | M_ref). */
  readonly logBayesFactor: Float64Array;
  /** √(s_i² + s_ref²) (0 for the reference itself). */
  readonly logBayesFactorStdErr?: Float64Array;
  /** Index of the reference model. */
  readonly reference: number;
  /** Index of the most probable model. */
  readonly best: number;
  /** Model indices by decreasing posterior probability. */
  readonly order: Int32Array;
}

function checkLogEvidence(values: ArrayLike<number>, where: string): void {
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (Number.isNaN(x) || x === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${where}: log evidence ${i} is ${x}; every log evidence must be finite or −Infinity.`,
      );
    }
  }
}

/**
 * Posterior probabilities, Bayes factors and their uncertainties for a list of models (Everson et al.
 * eq. 6: p(M_i | D) ∝ p(D | M_i) p(M_i)).
 *
 * @example
 * compareModels({ logEvidence: [-120.3, -118.9], stdErr: [0.1, 0.2], names: ["linear", "quadratic"] });
 */
export function compareModels(options: CompareModelsOptions): ModelComparison {
  const where = "compareModels";
  if (options === null || typeof options !== "object")
    throw invalidArgument(where, "options { logEvidence } are required.");
  const { logEvidence, stdErr, logPrior } = options;
  if (logEvidence === null || typeof logEvidence !== "object" || logEvidence.length < 1) {
    throw invalidArgument(where, "logEvidence must be a non-empty array of numbers.");
  }
  const count = logEvidence.length;
  checkLogEvidence(logEvidence, where);
  const names = options.names ?? Array.from({ length: count }, (_, i) => `M${i}`);
  if (names.length !== count) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: names has ${names.length} entries, expected ${count}.`,
    );
  }
  for (const [name, arr] of [
    ["stdErr", stdErr],
    ["logPrior", logPrior],
  ] as const) {
    if (arr !== undefined && arr.length !== count) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}: ${name} has ${arr.length} entries, expected ${count}.`,
      );
    }
  }
  if (stdErr) {
    for (let i = 0; i < count; i++) {
      if (!(stdErr[i] >= 0 && Number.isFinite(stdErr[i]))) {
        throw invalidArgument(where, `stdErr[${i}] must be a finite number ≥ 0, got ${stdErr[i]}.`);
      }
    }
  }
  const logPost = new Float64Array(count);
  for (let i = 0; i < count; i++) logPost[i] = logEvidence[i] + (logPrior ? logPrior[i] : 0);
  checkLogEvidence(logPost, `${where} (log evidence + log prior)`);
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < count; i++) if (logPost[i] > max) max = logPost[i];
  if (max === Number.NEGATIVE_INFINITY)
    throw invalidArgument(where, "every model has zero posterior probability.");
  // Shift by the max first (exact for nearby values), then normalise: the probabilities sum to 1 to
  // rounding even when the log evidences are of order 10⁵ (a log-sum-exp subtraction would leave
  // errors of ε·|log Z| in each).
  const probability = new Float64Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    logPost[i] -= max;
    probability[i] = Math.exp(logPost[i]);
    total += probability[i];
  }
  const logTotal = Math.log(total);
  for (let i = 0; i < count; i++) {
    logPost[i] -= logTotal;
    probability[i] /= total;
  }
  const order = Int32Array.from({ length: count }, (_, i) => i).sort((i, j) => logPost[j] - logPost[i]);
  const best = order[0];
  let reference = best;
  if (options.reference !== undefined) {
    reference = typeof options.reference === "string" ? names.indexOf(options.reference) : options.reference;
    if (!(Number.isInteger(reference) && reference >= 0 && reference < count)) {
      throw invalidArgument(where, `reference ${String(options.reference)} is not a model index or name.`);
    }
  }
  const logBayesFactor = new Float64Array(count);
  for (let i = 0; i < count; i++) logBayesFactor[i] = logEvidence[i] - logEvidence[reference];
  let probabilityStdErr: Float64Array | undefined;
  let logBayesFactorStdErr: Float64Array | undefined;
  if (stdErr) {
    probabilityStdErr = new Float64Array(count);
    logBayesFactorStdErr = new Float64Array(count);
    let sumP2S2 = 0;
    for (let j = 0; j < count; j++) sumP2S2 += (probability[j] * stdErr[j]) ** 2;
    for (let i = 0; i < count; i++) {
      const pi = probability[i];
      const si2 = stdErr[i] ** 2;
      const v = pi * pi * ((1 - pi) ** 2 * si2 + sumP2S2 - pi * pi * si2);
      probabilityStdErr[i] = Math.sqrt(Math.max(0, v));
      logBayesFactorStdErr[i] = i === reference ? 0 : Math.sqrt(si2 + stdErr[reference] ** 2);
    }
  }
  return {
    names: [...names],
    logPosterior: logPost,
    probability,
    probabilityStdErr,
    logBayesFactor,
    logBayesFactorStdErr,
    reference,
    best,
    order,
  };
}

/**
 * Scores of input subsets in compact form: bitmasks (a table filled from a family's `enumerate`) or
 * CSR membership lists (`sampleSubsets`). For every subset of a family, `searchSubsets` gives the same
 * summary without a table.
 */
export interface SubsetCollection {
  /** Number of candidate inputs. */
  readonly p: number;
  /** log p(D | S) of each subset. */
  readonly logEvidence: Float64Array;
  /** |S| of each subset. */
  readonly sizes: ArrayLike<number>;
  /** Bitmasks of the subsets (p ≤ 31); or give `members` and `offsets`. */
  readonly masks?: Uint32Array;
  /** Members of subset i: members[offsets[i] … offsets[i + 1]). */
  readonly members?: Int32Array;
  readonly offsets?: Int32Array;
  /** Names of the inputs. */
  readonly names?: readonly string[];
}

/** Options of {@link compareSubsets}. */
export interface CompareSubsetsOptions {
  /**
   * The prior over subsets.
   * @defaultValue "uniform"
   */
  prior?: ModelPrior;
  /**
   * Index (in the collection) of the subset Bayes factors are taken against.
   * @defaultValue the most probable subset
   */
  reference?: number;
  /**
   * Length of the sorted list of most probable subsets.
   * @defaultValue 10
   */
  top?: number;
}

/** The result of {@link compareSubsets}; arrays are indexed like the collection. */
export interface SubsetComparison {
  /**
   * log p(S | D), normalised over the subsets in the collection (over all 2^p for a full
   * enumeration; otherwise conditional on S being one of those listed).
   */
  readonly logPosterior: Float64Array;
  readonly probability: Float64Array;
  /** log B_{S,ref} = log p(D | S) − log p(D | S_ref). */
  readonly logBayesFactor: Float64Array;
  readonly reference: number;
  readonly best: number;
  /** log Σ_S p(D | S) p(S) over the collection (the evidence of the whole family when it is complete). */
  readonly logNormaliser: number;
  /** Posterior inclusion probability of each input: Σ_{S ∋ j} p(S | D). */
  readonly inclusion: Float64Array;
  /** Posterior probability of each model size 0 … p. */
  readonly sizeProbability: Float64Array;
  /** The median-probability model: the inputs with inclusion ≥ 0.5 (Barbieri & Berger), ascending. */
  readonly medianModel: Int32Array;
  /** Index of the median-probability model in the collection, or −1 if it is not there. */
  readonly medianModelIndex: number;
  /** Indices of the `top` most probable subsets, most probable first. */
  readonly top: Int32Array;
}

/**
 * Posterior probabilities over input subsets from their log evidences and a model prior, in O(N) time
 * and O(N) typed-array memory (2^20 subsets in well under a second).
 *
 * @example
 * const sample = sampleSubsets({ p, logEvidence: (m) => family.score(m), rng: createRng(1) });
 * const cmp = compareSubsets(sample, { prior: "uniform-size" });
 */
export function compareSubsets(
  collection: SubsetCollection,
  options: CompareSubsetsOptions = {},
): SubsetComparison {
  const where = "compareSubsets";
  if (collection === null || typeof collection !== "object")
    throw invalidArgument(where, "a subset collection is required.");
  checkCollection(collection, where);
  const { p, logEvidence, sizes, masks, members, offsets } = collection;
  const count = logEvidence.length;
  const useMasks = masks !== undefined;
  const prior = options.prior ?? "uniform";
  const top = options.top ?? 10;
  if (!(Number.isInteger(top) && top >= 0))
    throw invalidArgument(where, `top must be a non-negative integer, got ${top}.`);
  checkLogEvidence(logEvidence, where);
  // log prior by size, computed once (p + 1 values).
  const logPriorBySize = new Float64Array(p + 1);
  for (let k = 0; k <= p; k++) logPriorBySize[k] = logModelPrior(prior, p, k);
  const logPost = new Float64Array(count);
  let max = Number.NEGATIVE_INFINITY;
  let best = 0;
  for (let i = 0; i < count; i++) {
    const s = sizes[i];
    if (!(Number.isInteger(s) && s >= 0 && s <= p))
      throw invalidArgument(where, `sizes[${i}] = ${s} is not in [0, ${p}].`);
    const l = logEvidence[i] + logPriorBySize[s];
    logPost[i] = l;
    if (l > max) {
      max = l;
      best = i;
    }
  }
  if (max === Number.NEGATIVE_INFINITY)
    throw invalidArgument(where, "every subset has zero posterior probability.");
  // Shift by the max (exact for nearby values), sum, then divide: probabilities sum to 1 to rounding
  // even for log evidences of order 10⁵.
  const probability = new Float64Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const w = Math.exp(logPost[i] - max);
    probability[i] = w;
    total += w;
  }
  const logNormaliser = max + Math.log(total);
  const logTotal = Math.log(total);
  const inclusion = new Float64Array(p);
  const sizeProbability = new Float64Array(p + 1);
  for (let i = 0; i < count; i++) {
    logPost[i] = logPost[i] - max - logTotal;
    const w = probability[i] / total;
    probability[i] = w;
    sizeProbability[sizes[i]] += w;
    if (w === 0) continue;
    if (useMasks) {
      for (let m = masks[i]; m !== 0; m &= m - 1) inclusion[31 - Math.clz32(m & -m)] += w;
    } else {
      for (let r = offsets![i]; r < offsets![i + 1]; r++) inclusion[members![r]] += w;
    }
  }
  const reference = options.reference ?? best;
  if (!(Number.isInteger(reference) && reference >= 0 && reference < count)) {
    throw invalidArgument(where, `reference must be an index in [0, ${count}), got ${reference}.`);
  }
  const logBayesFactor = new Float64Array(count);
  const refEv = logEvidence[reference];
  for (let i = 0; i < count; i++) logBayesFactor[i] = logEvidence[i] - refEv;

  const median: number[] = [];
  for (let j = 0; j < p; j++) if (inclusion[j] >= 0.5) median.push(j);
  const medianModel = Int32Array.from(median);
  const medianModelIndex = indexOfSubset(collection, median);

  const topIdx = topIndices(logPost, Math.min(top, count));
  return {
    logPosterior: logPost,
    probability,
    logBayesFactor,
    reference,
    best,
    logNormaliser,
    inclusion,
    sizeProbability,
    medianModel,
    medianModelIndex,
    top: topIdx,
  };
}

/** Checks a collection's shape (see {@link SubsetCollection}): its sizes, and masks or members and offsets. */
function checkCollection(collection: SubsetCollection, where: string): void {
  const { p, logEvidence, sizes, masks, members, offsets } = collection;
  const count = logEvidence?.length ?? 0;
  if (!(Number.isInteger(p) && p >= 0))
    throw invalidArgument(where, `p must be a non-negative integer, got ${p}.`);
  if (count < 1) throw invalidArgument(where, "the collection holds no subsets.");
  if (sizes?.length !== count) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: sizes has ${sizes?.length} entries, expected ${count}.`,
    );
  }
  if (masks !== undefined) {
    if (masks.length !== count) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}: masks has ${masks.length} entries, expected ${count}.`,
      );
    }
    if (p > 32)
      throw invalidArgument(
        where,
        `bitmasks hold at most 32 inputs, got p = ${p}; give members and offsets.`,
      );
  } else if (
    !(members instanceof Int32Array && offsets instanceof Int32Array && offsets.length === count + 1)
  ) {
    throw invalidArgument(where, "give masks, or members and offsets (offsets of length count + 1).");
  }
}

/** The index of the subset with exactly the ascending candidates `subset` in a collection, or −1. */
function indexOfSubset(collection: SubsetCollection, subset: readonly number[]): number {
  const { masks, members, offsets } = collection;
  const count = collection.logEvidence.length;
  let found = -1;
  if (masks !== undefined) {
    let mm = 0;
    for (const j of subset) mm |= 1 << j;
    mm >>>= 0;
    for (let i = 0; i < count && found < 0; i++) if (masks[i] === mm) found = i;
  } else {
    for (let i = 0; i < count && found < 0; i++) {
      if (offsets![i + 1] - offsets![i] !== subset.length) continue;
      let same = true;
      // Members of a sampled subset are ascending, as is `subset`.
      for (let r = 0; r < subset.length && same; r++) same = members![offsets![i] + r] === subset[r];
      if (same) found = i;
    }
  }
  return found;
}

/** The indices of the `k` largest entries of `logPost`, largest first, by insertion into a short sorted list: O(N) comparisons when k ≪ N. */
function topIndices(logPost: Float64Array, k: number): Int32Array {
  const count = logPost.length;
  const topIdx = new Int32Array(k);
  let filled = 0;
  for (let i = 0; i < count && k > 0; i++) {
    const l = logPost[i];
    if (filled === k && !(l > logPost[topIdx[k - 1]])) continue;
    let at = filled < k ? filled++ : k - 1;
    while (at > 0 && logPost[topIdx[at - 1]] < l) {
      topIdx[at] = topIdx[at - 1];
      at--;
    }
    topIdx[at] = i;
  }
  return topIdx;
}

/** The candidate indices of subset i of a collection, ascending. */
export function subsetMembers(collection: SubsetCollection, i: number): Int32Array {
  if (collection.masks) {
    const out: number[] = [];
    for (let m = collection.masks[i]; m !== 0; m &= m - 1) out.push(31 - Math.clz32(m & -m));
    return Int32Array.from(out);
  }
  const { members, offsets } = collection;
  if (!members || !offsets) {
    throw new OccamError("invalid-argument", "subsetMembers: the collection has neither masks nor members.");
  }
  return members.slice(offsets[i], offsets[i + 1]);
}

/**
 * Central intervals (default 90 %) of each model's posterior probability when the estimated log
 * posteriors (log evidence + log prior) are uncertain: the log evidences are drawn `draws` times from
 * N(estimate, stdErr²), independently (each model's estimator ran on its own stream), the probabilities
 * normalised for each draw, and the quantiles taken. Unlike the delta method this stays inside [0, 1]
 * and sees that a probability of 1 against 10⁻⁷ with errors of order 1 is not certain. Models without
 * an error (stdErr 0) enter each draw's normaliser through their fixed log sum, and their intervals
 * follow from the normaliser's quantiles: the cost grows with the models that have an error only.
 */
export function probabilityIntervals(
  logPosterior: ArrayLike<number>,
  stdErr: ArrayLike<number>,
  rng: Rng,
  draws: number,
  level = 0.9,
): { lower: Float64Array; upper: Float64Array } {
  const count = logPosterior.length;
  const uncertain: number[] = [];
  const fixed: number[] = [];
  for (let i = 0; i < count; i++) (stdErr[i] > 0 ? uncertain : fixed).push(i);
  const fixedLogSum = logSumExp(fixed.map((i) => logPosterior[i]));
  const m = uncertain.length;
  const samples = new Float64Array(m * draws);
  // log(p_i / e^{log posterior_i}) of a model without an error, per draw: minus the log normaliser.
  const logScale = new Float64Array(draws);
  const drawn = new Float64Array(m);
  for (let d = 0; d < draws; d++) {
    let max = fixed.length > 0 ? fixedLogSum : Number.NEGATIVE_INFINITY;
    for (let u = 0; u < m; u++) {
      const i = uncertain[u];
      drawn[u] = logPosterior[i] + stdErr[i] * rng.normal();
      if (drawn[u] > max) max = drawn[u];
    }
    let total = fixed.length > 0 ? Math.exp(fixedLogSum - max) : 0;
    for (let u = 0; u < m; u++) {
      drawn[u] = Math.exp(drawn[u] - max);
      total += drawn[u];
    }
    for (let u = 0; u < m; u++) samples[u * draws + d] = drawn[u] / total;
    logScale[d] = -max - Math.log(total);
  }
  const lower = new Float64Array(count);
  const upper = new Float64Array(count);
  const lo = Math.floor(((1 - level) / 2) * (draws - 1));
  const hi = Math.ceil(((1 + level) / 2) * (draws - 1));
  uncertain.forEach((i, u) => {
    const sorted = samples.subarray(u * draws, (u + 1) * draws).sort();
    lower[i] = sorted[lo];
    upper[i] = sorted[hi];
  });
  logScale.sort();
  for (const i of fixed) {
    lower[i] = Math.exp(logPosterior[i] + logScale[lo]);
    upper[i] = Math.exp(logPosterior[i] + logScale[hi]);
  }
  return { lower, upper };
}
