/**
 * Subsets of a family's candidate terms: every one of them streamed through a running summary
 * ({@link searchSubsets}); when there are too many, `sampleSubsets` (subset-sampling.ts) samples them.
 * Only the family contract of `models/family.ts` is used.
 *
 * Memory stays flat as the model space grows: the summary keeps the best K models in a heap and running
 * sums for the normaliser, inclusion, size and coefficient moments — never a value per model. The sums
 * are kept relative to the largest log posterior seen so far and rescaled when it grows; a model more
 * than 50 nats below it (weight < 2e-22 of the best, so all 2^30 of them together < 3e-13) is counted but
 * not summed, and its coefficient moments, the costly part, are never computed.
 *
 * Beyond 2^18 subsets the enumeration is split into blocks of consecutive Gray-code steps
 * ({@link subsetBlocks}), each summarised apart ({@link searchSubsetBlock}) and the blocks' sums merged
 * in their order ({@link mergeSubsetSums}): the blocks can run on other threads or machines and the
 * result is the same bit for bit wherever they ran.
 */

import { OccamError } from "../errors.js";
import type { SubsetFamily } from "../models/family.js";
import { logModelPrior, type ModelPrior } from "./compare.js";
import { hereditary, maskOf, parentMasks } from "./model-space.js";

/** Largest number of terms whose 2^p subsets are enumerated (beyond, subsets are sampled). */
export const MAX_ENUMERATED_INPUTS = 25;

/** Below the running maximum by more than this (nats), a model's weight is not summed. */
const NEGLIGIBLE = 50;

/** One of the best models of a summary. */
export interface RankedSubset {
  /** Ascending term indices. */
  readonly members: Int32Array;
  /** The family's score (log evidence or log Bayes factor against the empty subset). */
  readonly score: number;
  /** log p(S | D), normalised over the models summarised. */
  readonly logPosterior: number;
}

/** What {@link searchSubsets} and {@link summarizeSubsets} return. */
export interface SubsetSummary {
  /** Number of models summarised (those the model space allows). */
  readonly count: number;
  /** log Σ_S p(D | S) p(S) over them. */
  readonly logNormaliser: number;
  /** The best models, most probable first. */
  readonly top: readonly RankedSubset[];
  /** Posterior inclusion probability of each term. */
  readonly inclusion: Float64Array;
  /** Posterior probability of each model size 0 … p. */
  readonly sizeProbability: Float64Array;
  /** Model-averaged posterior mean of each design column's coefficient (0 in the models without it). */
  readonly coefficientMean: Float64Array;
  /** Model-averaged posterior standard deviation of each design column's coefficient. */
  readonly coefficientSd: Float64Array;
}

/** One of a block's best models, with its log posterior before normalisation (score + log prior). */
export interface TopSubset {
  readonly logPost: number;
  readonly score: number;
  readonly members: Int32Array;
}

/**
 * The running sums of a block of subsets (see the module comment): the weights e^{l − max} of its
 * models summed, by term, by size and into the coefficients' moments, and its best models.
 */
export interface SubsetSums {
  /** Models counted. */
  readonly count: number;
  /** The reference of the sums: the largest log posterior (score + log prior) seen, or the block's floor when higher (−∞ when neither). */
  readonly max: number;
  readonly total: number;
  readonly inclusion: Float64Array;
  readonly size: Float64Array;
  readonly sumMean: Float64Array;
  readonly sumSecond: Float64Array;
  /** The best models, most probable first. */
  readonly top: readonly TopSubset[];
}

/**
 * The running summary (see the module comment). `add` takes a model's members (or its mask, for p ≤ 30),
 * its size and score, and a callback writing its coefficient moments.
 */
class RunningSummary {
  private max = Number.NEGATIVE_INFINITY;
  private total = 0;
  count = 0;
  readonly inclusion: Float64Array;
  readonly size: Float64Array;
  private readonly sumMean: Float64Array;
  private readonly sumSecond: Float64Array;
  private readonly mean: Float64Array;
  private readonly variance: Float64Array;
  private readonly heap: TopHeap;
  private readonly logPrior: Float64Array;
  /** Term t owns the design columns columnStart[t] … columnEnd[t] − 1. */
  private readonly columnStart: Int32Array;
  private readonly columnEnd: Int32Array;

  /**
   * `floor`: a log posterior some model of the space reaches, below which the running maximum starts
   * (see {@link greedyFloor}); −∞ when none is known.
   */
  constructor(
    private readonly family: SubsetFamily,
    prior: ModelPrior,
    topK: number,
    floor = Number.NEGATIVE_INFINITY,
    always = 0,
  ) {
    this.max = floor;
    const p = family.terms.length;
    const P = family.columnNames.length;
    this.inclusion = new Float64Array(p);
    this.size = new Float64Array(p + 1);
    this.sumMean = new Float64Array(P);
    this.sumSecond = new Float64Array(P);
    this.mean = new Float64Array(P);
    this.variance = new Float64Array(P);
    this.heap = new TopHeap(topK);
    // The model prior is over the terms not in every model: a model of s terms has s − always of them.
    this.logPrior = Float64Array.from({ length: p + 1 }, (_, s) =>
      s < always ? Number.NEGATIVE_INFINITY : logModelPrior(prior, p - always, s - always),
    );
    // A term owns a contiguous run of columns (the family contract).
    this.columnStart = Int32Array.from(family.terms, (term) => term.columns[0]);
    this.columnEnd = Int32Array.from(family.terms, (term) => term.columns[0] + term.columns.length);
  }

  add(
    mask: number,
    members: ArrayLike<number> | null,
    size: number,
    score: number,
    moments: (mean: Float64Array, variance: Float64Array) => void,
  ): void {
    if (Number.isNaN(score) || score === Number.POSITIVE_INFINITY) {
      const names = this.names(mask, members);
      throw new OccamError(
        "non-finite",
        `the score of the model on {${names.join(", ")}} is ${score}; check those columns for extreme values.`,
      );
    }
    this.count++;
    const l = score + this.logPrior[size];
    if (l > this.max) this.rescale(l);
    this.offerTop(l, score, mask, members);
    if (l < this.max - NEGLIGIBLE) return;
    const w = Math.exp(l - this.max);
    this.total += w;
    this.size[size] += w;
    moments(this.mean, this.variance);
    // Plain loops over the members (no callbacks): this runs for every subset of weight.
    if (members === null) {
      for (let m = mask; m !== 0; m &= m - 1) this.addTerm(31 - Math.clz32(m & -m), w);
    } else for (let i = 0; i < members.length; i++) this.addTerm(members[i], w);
  }

  /** Adds weight w to term t's inclusion and its columns' coefficient moments. */
  private addTerm(t: number, w: number): void {
    this.inclusion[t] += w;
    const { mean, variance, sumMean, sumSecond } = this;
    for (let c = this.columnStart[t]; c < this.columnEnd[t]; c++) {
      const m = mean[c];
      sumMean[c] += w * m;
      sumSecond[c] += w * (variance[c] + m * m);
    }
  }

  private forEachMember(mask: number, members: ArrayLike<number> | null, f: (t: number) => void): void {
    if (members === null) {
      for (let m = mask; m !== 0; m &= m - 1) f(31 - Math.clz32(m & -m));
    } else for (let i = 0; i < members.length; i++) f(members[i]);
  }

  private names(mask: number, members: ArrayLike<number> | null): string[] {
    const out: string[] = [];
    this.forEachMember(mask, members, (t) => out.push(this.family.terms[t].name));
    return out;
  }

  private rescale(l: number): void {
    const f = this.max === Number.NEGATIVE_INFINITY ? 0 : Math.exp(this.max - l);
    this.max = l;
    this.total *= f;
    for (const a of [this.inclusion, this.size, this.sumMean, this.sumSecond]) {
      for (let i = 0; i < a.length; i++) a[i] *= f;
    }
  }

  /** Offers a model to the best topK (its members are listed only if it gets in). */
  private offerTop(l: number, score: number, mask: number, members: ArrayLike<number> | null): void {
    if (!this.heap.admits(l)) return;
    if (members === null) {
      this.heap.offer(l, score, mask, null);
      return;
    }
    const list: number[] = [];
    this.forEachMember(mask, members, (t) => list.push(t));
    this.heap.offer(l, score, 0, Int32Array.from(list.sort((x, y) => x - y)));
  }

  /** The sums so far, for {@link mergeSubsetSums}. */
  sums(): SubsetSums {
    const { count, max, total, inclusion, size, sumMean, sumSecond } = this;
    return { count, max, total, inclusion, size, sumMean, sumSecond, top: sortedTop(this.heap.entries()) };
  }
}

/**
 * A min-heap on log posterior of the best K models, in typed arrays: during an enumeration it takes a
 * model at every new best, and an object per model would keep the garbage collector busy. A model is
 * its term mask (enumeration, at most 30 terms) or its sorted members (a list of models).
 */
class TopHeap {
  private length = 0;
  private readonly logPost: Float64Array;
  private readonly score: Float64Array;
  private readonly mask: Float64Array;
  private readonly members: (Int32Array | null)[];

  constructor(private readonly capacity: number) {
    this.logPost = new Float64Array(capacity);
    this.score = new Float64Array(capacity);
    this.mask = new Float64Array(capacity);
    this.members = new Array<Int32Array | null>(capacity).fill(null);
  }

  /** Whether a model of log posterior l would enter. */
  admits(l: number): boolean {
    return this.capacity > 0 && (this.length < this.capacity || l > this.logPost[0]);
  }

  /** Adds a model that {@link admits} said would enter, dropping the least when full. */
  offer(l: number, score: number, mask: number, members: Int32Array | null): void {
    if (this.length < this.capacity) {
      let i = this.length++;
      this.set(i, l, score, mask, members);
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (this.logPost[up] <= this.logPost[i]) break;
        this.swap(up, i);
        i = up;
      }
      return;
    }
    this.set(0, l, score, mask, members);
    for (let i = 0; ; ) {
      const a = 2 * i + 1;
      const b = a + 1;
      let least = i;
      if (a < this.length && this.logPost[a] < this.logPost[least]) least = a;
      if (b < this.length && this.logPost[b] < this.logPost[least]) least = b;
      if (least === i) break;
      this.swap(least, i);
      i = least;
    }
  }

  /** The models held, in heap order. */
  entries(): TopSubset[] {
    return Array.from({ length: this.length }, (_, i) => ({
      logPost: this.logPost[i],
      score: this.score[i],
      members: this.members[i] ?? membersOfMask(this.mask[i]),
    }));
  }

  private set(i: number, l: number, score: number, mask: number, members: Int32Array | null): void {
    this.logPost[i] = l;
    this.score[i] = score;
    this.mask[i] = mask;
    this.members[i] = members;
  }

  private swap(i: number, j: number): void {
    swapEntries(this.logPost, i, j);
    swapEntries(this.score, i, j);
    swapEntries(this.mask, i, j);
    swapEntries(this.members, i, j);
  }
}

/** Exchanges entries i and j of an array. */
function swapEntries<T>(a: { [k: number]: T }, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/** The members of a subset of at most 31 terms from its bit mask, ascending. */
export function membersOfMask(mask: number): Int32Array {
  const list: number[] = [];
  for (let m = mask; m !== 0; m &= m - 1) list.push(31 - Math.clz32(m & -m));
  return Int32Array.from(list);
}

/** Heap entries most probable first (a stable sort: equal ones keep their order). */
function sortedTop(entries: readonly TopSubset[]): TopSubset[] {
  return [...entries].sort((x, y) => y.logPost - x.logPost);
}

/**
 * The sums of consecutive blocks merged, in the order given (which fixes every rounding, so the result
 * does not depend on where the blocks ran): each block's sums are rescaled to the largest maximum and
 * added; the best `topK` of all the blocks' best models are kept, ties in block order.
 */
export function mergeSubsetSums(parts: readonly SubsetSums[], topK: number): SubsetSums {
  if (parts.length === 0) throw new OccamError("internal", "mergeSubsetSums: no blocks to merge.");
  let max = Number.NEGATIVE_INFINITY;
  for (const part of parts) if (part.max > max) max = part.max;
  const first = parts[0];
  const inclusion = new Float64Array(first.inclusion.length);
  const size = new Float64Array(first.size.length);
  const sumMean = new Float64Array(first.sumMean.length);
  const sumSecond = new Float64Array(first.sumSecond.length);
  let count = 0;
  let total = 0;
  for (const part of parts) {
    count += part.count;
    if (part.max === Number.NEGATIVE_INFINITY) continue;
    const f = Math.exp(part.max - max);
    total += f * part.total;
    for (const [into, from] of [
      [inclusion, part.inclusion],
      [size, part.size],
      [sumMean, part.sumMean],
      [sumSecond, part.sumSecond],
    ]) {
      for (let i = 0; i < into.length; i++) into[i] += f * from[i];
    }
  }
  const top = bestSubsets(
    parts.map((part) => part.top),
    topK,
  );
  return { count, max, total, inclusion, size, sumMean, sumSecond, top };
}

/**
 * The best `topK` of consecutive blocks' best models, most probable first, ties in block order. Best
 * lists merged a few blocks at a time, then together, give the same list as all at once.
 */
export function bestSubsets(lists: readonly (readonly TopSubset[])[], topK: number): TopSubset[] {
  return sortedTop(lists.flat()).slice(0, topK);
}

/** The summary of a model space from its (merged) sums. */
export function finishSubsetSums(sums: SubsetSums): SubsetSummary {
  const { count, max, total } = sums;
  if (count === 0 || !(total > 0)) {
    throw new OccamError("invalid-argument", "no model of the model space has positive probability.");
  }
  const logTotal = max + Math.log(total);
  const P = sums.sumMean.length;
  const coefficientMean = new Float64Array(P);
  const coefficientSd = new Float64Array(P);
  for (let c = 0; c < P; c++) {
    coefficientMean[c] = sums.sumMean[c] / total;
    coefficientSd[c] = Math.sqrt(Math.max(0, sums.sumSecond[c] / total - coefficientMean[c] ** 2));
  }
  return {
    count,
    logNormaliser: logTotal,
    top: sums.top.map((e) => ({ members: e.members, score: e.score, logPosterior: e.logPost - logTotal })),
    inclusion: sums.inclusion.map((v) => v / total),
    sizeProbability: sums.size.map((v) => v / total),
    coefficientMean,
    coefficientSd,
  };
}

/** Options of {@link searchSubsets}. */
export interface SearchSubsetsOptions {
  /** Only subsets of at most this many terms. @defaultValue every subset */
  maxSize?: number;
  /** The prior over subsets. @defaultValue "uniform" */
  prior?: ModelPrior;
  /** How many of the best models to keep. @defaultValue 10 */
  top?: number;
  /**
   * Heredity (BAS's force.heredity): a model holds a term only with all of the term's parents (an
   * interaction only with its main effects); the others are left out of the model space.
   * @defaultValue true
   */
  heredity?: boolean;
  /**
   * Terms held by every model (BAS's `include.always`), as term indices: the other models are left out,
   * and the model prior applies to the other terms.
   * @defaultValue none
   */
  always?: readonly number[];
}

/**
 * The log posterior of the model greedy forward selection ends at (adding, while it helps, the term
 * that helps most; only models heredity allows): a floor under the best model's, the same for every
 * block. A block of poor models that started its running maximum at −∞ would compute the coefficient
 * moments of every model within 50 nats of its own best, far below the space's.
 */
function greedyFloor(
  family: SubsetFamily,
  prior: ModelPrior,
  parents: Uint32Array | null,
  always: readonly number[],
): number {
  const p = family.terms.length;
  const free = p - always.length;
  let members: number[] = [...always].sort((x, y) => x - y);
  let mask = maskOf(always);
  let best = family.score(members) + logModelPrior(prior, free, 0);
  for (;;) {
    let pick = -1;
    let pickLogPost = best;
    for (let j = 0; j < p; j++) {
      const trialMask = (mask | (1 << j)) >>> 0;
      if (trialMask === mask || (parents !== null && !hereditary(trialMask, parents))) continue;
      const trial = [...members, j].sort((x, y) => x - y);
      const l = family.score(trial) + logModelPrior(prior, free, trial.length - always.length);
      if (l > pickLogPost) {
        pick = j;
        pickLogPost = l;
      }
    }
    if (pick < 0) return Number.isFinite(best) ? best : Number.NEGATIVE_INFINITY;
    members = [...members, pick].sort((x, y) => x - y);
    mask = (mask | (1 << pick)) >>> 0;
    best = pickLogPost;
  }
}

/** Gray-code steps per block when every subset is enumerated (about 0.15 s of Zellner–Siow each). */
const BLOCK_STEPS = 2 ** 18;

/** A block of consecutive Gray-code steps of an enumeration (see {@link EnumerateSubsetsOptions}). */
export interface SubsetBlock {
  readonly from: number;
  readonly to: number;
}

/**
 * The blocks {@link searchSubsets} splits the 2^p subsets of p terms into: one up to 2^18 subsets, else
 * blocks of 2^18 consecutive Gray-code steps. They depend on p alone, never on who runs them.
 */
export function subsetBlocks(p: number): SubsetBlock[] {
  const total = 2 ** p;
  const blocks: SubsetBlock[] = [];
  for (let from = 0; from < total; from += BLOCK_STEPS) {
    blocks.push({ from, to: Math.min(total, from + BLOCK_STEPS) });
  }
  return blocks;
}

/**
 * The blocks {@link searchSubsets} summarises one after the other for the subsets of at most `maxSize`
 * of p terms, or none when it enumerates them at once (at most 2^18 subsets, or a size limit below p).
 */
export function enumerationBlocks(p: number, maxSize: number): SubsetBlock[] {
  if (maxSize < p) return [];
  const blocks = subsetBlocks(p);
  return blocks.length > 1 ? blocks : [];
}

/**
 * Every subset of the family's terms (of at most `maxSize`), streamed through a running summary: the
 * best `top` models, the normaliser, inclusion and size probabilities and model-averaged coefficients,
 * in memory independent of the number of subsets. Beyond 2^18 subsets the blocks of
 * {@link subsetBlocks} are summarised one after the other and merged.
 *
 * @example
 * const summary = searchSubsets(zellnerSiowFamily(design, stats), { top: 10 });
 */
export function searchSubsets(family: SubsetFamily, options: SearchSubsetsOptions = {}): SubsetSummary {
  const p = family.terms.length;
  const maxSize = Math.min(options.maxSize ?? p, p);
  if (maxSize === p && p > 30) {
    throw new OccamError("invalid-argument", `all 2^${p} subsets are too many to enumerate; sample them.`);
  }
  const blocks = enumerationBlocks(p, maxSize);
  if (blocks.length === 0) return finishSubsetSums(searchSubsetBlock(family, options));
  const floor = enumerationFloor(family, options);
  const parts = blocks.map((block) => searchSubsetBlock(family, options, block, floor));
  return finishSubsetSums(mergeSubsetSums(parts, options.top ?? 10));
}

/**
 * The log posterior a block's summary starts from ({@link searchSubsetBlock}): that of the model
 * greedy forward selection reaches, the same for every block, so computed once per enumeration.
 */
export function enumerationFloor(family: SubsetFamily, options: SearchSubsetsOptions = {}): number {
  return greedyFloor(
    family,
    options.prior ?? "uniform",
    parentMasks(family, options.heredity ?? true),
    options.always ?? [],
  );
}

/**
 * The running sums of one block of every subset ({@link subsetBlocks}), or of the whole model space
 * when no block is given: the unit of work of an enumeration split over threads or machines. A block
 * starts from `floor` ({@link enumerationFloor}), so that it skips the coefficient moments of models
 * far below the best; the whole space starts from nothing.
 */
export function searchSubsetBlock(
  family: SubsetFamily,
  options: SearchSubsetsOptions = {},
  block?: SubsetBlock,
  floor = block === undefined ? Number.NEGATIVE_INFINITY : enumerationFloor(family, options),
): SubsetSums {
  const p = family.terms.length;
  const maxSize = Math.min(options.maxSize ?? p, p);
  const prior = options.prior ?? "uniform";
  const parents = parentMasks(family, options.heredity ?? true);
  const always = options.always ?? [];
  const alwaysMask = maskOf(always);
  const summary = new RunningSummary(family, prior, options.top ?? 10, floor, always.length);
  family.enumerate(
    maxSize,
    (view) => {
      if ((view.mask & alwaysMask) !== alwaysMask) return;
      if (parents !== null && !hereditary(view.mask, parents)) return;
      summary.add(view.mask, null, view.size, view.score, view.moments);
    },
    block,
  );
  return summary.sums();
}

/**
 * The same summary over a list of scored subsets (distinct, ascending members): the models an MCMC run
 * visited, or the models whose evidences were estimated. Moments come from `family.moments`.
 */
export function summarizeSubsets(
  family: SubsetFamily,
  subsets: readonly { members: ArrayLike<number>; score: number }[],
  options: Pick<SearchSubsetsOptions, "prior" | "top" | "always"> = {},
): SubsetSummary {
  const summary = new RunningSummary(
    family,
    options.prior ?? "uniform",
    options.top ?? 10,
    Number.NEGATIVE_INFINITY,
    options.always?.length ?? 0,
  );
  for (const s of subsets) {
    summary.add(0, s.members, s.members.length, s.score, (mean, variance) =>
      family.moments(s.members, mean, variance),
    );
  }
  return finishSubsetSums(summary.sums());
}
