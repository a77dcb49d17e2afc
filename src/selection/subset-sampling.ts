/**
 * Subsets of candidate inputs too many to enumerate: a Metropolis–Hastings sample over them
 * ({@link sampleSubsets}), each visited subset scored exactly. Their exact-enumeration counterpart is
 * `searchSubsets` (subsets.ts).
 */
import { invalidArgument, OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { type Move, mixture, moveStep } from "../samplers/mixture.js";
import { logModelPrior, type ModelPrior } from "./compare.js";

/** Options of {@link sampleSubsets}. */
export interface SampleSubsetsOptions {
  /** Number of candidate inputs p ≥ 1 (any size). */
  p: number;
  /** log p(y | S) of a subset given by its sorted candidate indices (e.g. a family's `score`). */
  logEvidence: (members: Int32Array) => number;
  /** The random generator. */
  rng: Rng;
  /**
   * The prior over subsets: "uniform" over all 2^p, or "uniform-size" (uniform over |S|, then within a size).
   * @defaultValue "uniform"
   */
  prior?: ModelPrior;
  /**
   * Number of Metropolis–Hastings steps kept.
   * @defaultValue 10000
   */
  iterations?: number;
  /**
   * Steps discarded first.
   * @defaultValue 1000
   */
  burnIn?: number;
  /**
   * Probability of a swap move (one input out, one in); otherwise one input is flipped (added or removed).
   * @defaultValue 0.5
   */
  swapProbability?: number;
  /**
   * The starting subset (candidate indices).
   * @defaultValue the empty subset
   */
  start?: readonly number[];
  /**
   * Which subsets the model space holds (inModel[j] = 1 for a member), e.g. heredity; the others have
   * prior probability 0 and are never visited.
   * @defaultValue every subset
   */
  allowed?: (inModel: Uint8Array) => boolean;
}

/** The subsets an MCMC run visited, in compact form (CSR: members of subset i are members[offsets[i] … offsets[i+1])). */
export interface SubsetSample {
  readonly p: number;
  /** Number of distinct subsets visited. */
  readonly count: number;
  readonly offsets: Int32Array;
  readonly members: Int32Array;
  readonly sizes: Uint8Array;
  /** The exact log evidence of each distinct subset. */
  readonly logEvidence: Float64Array;
  /** Steps spent in each subset (after burn-in); sums to `iterations`. */
  readonly visits: Float64Array;
  /** The bitmasks of the subsets when p ≤ 31 (so the sample can be passed to `compareSubsets`). */
  readonly masks?: Uint32Array;
  /** Fraction of steps each input was in the model (the MCMC estimate of inclusion probabilities). */
  readonly inclusionFrequency: Float64Array;
  readonly acceptanceRate: number;
  readonly iterations: number;
  /** Number of distinct log-evidence evaluations (they are cached). */
  readonly nEvaluations: number;
}

/** The options of {@link sampleSubsets} checked, with defaults, and the starting subset as flags. */
function resolveSampleOptions(options: SampleSubsetsOptions) {
  const where = "sampleSubsets";
  if (options === null || typeof options !== "object") {
    throw invalidArgument(where, "options { p, logEvidence, rng } are required.");
  }
  const { p, rng, allowed } = options;
  if (!(Number.isInteger(p) && p >= 1 && p <= 255)) {
    throw invalidArgument(where, `p must be an integer in [1, 255], got ${p}.`);
  }
  if (typeof options.logEvidence !== "function")
    throw invalidArgument(where, "logEvidence must be a function.");
  if (rng === null || typeof rng !== "object" || typeof rng.uniform !== "function") {
    throw invalidArgument(where, "rng must be an Rng (createRng(seed)).");
  }
  const prior = options.prior ?? "uniform";
  const iterations = options.iterations ?? 10000;
  const burnIn = options.burnIn ?? 1000;
  const swapProbability = options.swapProbability ?? 0.5;
  if (!(Number.isInteger(iterations) && iterations >= 1)) {
    throw invalidArgument(where, `iterations must be a positive integer, got ${iterations}.`);
  }
  if (!(Number.isInteger(burnIn) && burnIn >= 0)) {
    throw invalidArgument(where, `burnIn must be a non-negative integer, got ${burnIn}.`);
  }
  if (!(swapProbability >= 0 && swapProbability <= 1)) {
    throw invalidArgument(where, `swapProbability must be in [0, 1], got ${swapProbability}.`);
  }
  logModelPrior(prior, p, 0); // validates the prior name
  const inModel = new Uint8Array(p);
  for (const j of options.start ?? []) {
    if (!(Number.isInteger(j) && j >= 0 && j < p) || inModel[j]) {
      throw invalidArgument(where, `start must list distinct input indices in [0, ${p}); got ${j}.`);
    }
    inModel[j] = 1;
  }
  return { p, rng, allowed, prior, iterations, burnIn, swapProbability, inModel };
}

/** Which inputs a move flips: `a`, and `b` too for a swap (−1 otherwise). */
interface SubsetProposal {
  a: number;
  b: number;
}

/**
 * The moves over subsets: flip one input, or (with probability `swapProbability`) swap a member for a
 * non-member. Both are symmetric, so their logFactor is 0 (−∞: impossible). `size()` is the current
 * subset's size; the proposal object is reused by every move.
 */
function subsetMoves(
  p: number,
  inModel: Uint8Array,
  size: () => number,
  swapProbability: number,
): { move: Move<null, SubsetProposal>; proposal: SubsetProposal } {
  const proposal: SubsetProposal = { a: -1, b: -1 };
  const flip: Move<null, SubsetProposal> = (r) => {
    proposal.a = r.integer(p);
    proposal.b = -1;
    return { proposal, logFactor: 0 };
  };
  const swap: Move<null, SubsetProposal> = (r) => {
    const k = size();
    if (k === 0 || k === p) return { proposal, logFactor: Number.NEGATIVE_INFINITY };
    // The r-th member and the s-th non-member, uniformly.
    let i = r.integer(k);
    let o = r.integer(p - k);
    for (let j = 0; j < p; j++) {
      if (inModel[j]) {
        if (i-- === 0) proposal.a = j;
      } else if (o-- === 0) proposal.b = j;
    }
    return { proposal, logFactor: 0 };
  };
  const moves: [Move<null, SubsetProposal>, number][] = [];
  if (swapProbability < 1) moves.push([flip, 1 - swapProbability]);
  if (swapProbability > 0) moves.push([swap, swapProbability]);
  return { move: mixture(moves), proposal };
}

/**
 * Metropolis–Hastings over input subsets for p too large to enumerate (Sykacek's add/remove/swap
 * moves, with the exact log evidence in place of reversible jumps), built on the samplers' move mixture
 * and the shared accept step. Moves: with probability
 * 1 − swapProbability flip a uniformly chosen input (q = (1 − w)/p both ways); otherwise swap a
 * uniformly chosen member with a uniformly chosen non-member (q = w/(k(p − k)) both ways; a swap from
 * the empty or full subset is a rejected step). Both moves are symmetric, so the acceptance
 * probability is min(1, e^Δ) with Δ the change of log evidence + log model prior. Log evidences are
 * cached per subset.
 */
export function sampleSubsets(options: SampleSubsetsOptions): SubsetSample {
  const where = "sampleSubsets";
  const { p, rng, allowed, prior, iterations, burnIn, swapProbability, inModel } =
    resolveSampleOptions(options);
  const cache = new Map<string, number>();
  const index = new Map<string, number>();
  const distinctMembers: number[][] = [];
  const distinctLogEv: number[] = [];
  const visitCounts: number[] = [];
  const membersBuf = new Int32Array(p);
  let nEvaluations = 0;
  const keyOf = (): string => {
    let key = "";
    for (let j = 0; j < p; j++) key += inModel[j] ? "1" : "0";
    return key;
  };
  const evaluate = (key: string): number => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    let k = 0;
    for (let j = 0; j < p; j++) if (inModel[j]) membersBuf[k++] = j;
    const value = options.logEvidence(membersBuf.subarray(0, k));
    if (Number.isNaN(value) || value === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${where}: logEvidence returned ${value} for the subset {${Array.from(membersBuf.subarray(0, k)).join(", ")}}.`,
      );
    }
    nEvaluations++;
    cache.set(key, value);
    return value;
  };
  let size = 0;
  for (let j = 0; j < p; j++) size += inModel[j];
  let key = keyOf();
  let logTarget = evaluate(key) + logModelPrior(prior, p, size);
  if (logTarget === Number.NEGATIVE_INFINITY) {
    throw invalidArgument(where, "the starting subset has zero posterior probability; give another start.");
  }
  const inclusion = new Float64Array(p);
  let accepted = 0;
  const total = burnIn + iterations;
  const { move, proposal } = subsetMoves(p, inModel, () => size, swapProbability);
  const apply = (prop: typeof proposal): void => {
    inModel[prop.a] ^= 1;
    if (prop.b >= 0) inModel[prop.b] ^= 1;
  };
  let proposed = logTarget;
  let proposedKey = key;
  let proposedSize = size;
  const logTargetRatio = (_state: null, prop: typeof proposal): number => {
    apply(prop);
    proposedSize = prop.b >= 0 ? size : size + (inModel[prop.a] ? 1 : -1);
    proposedKey = keyOf();
    proposed =
      allowed !== undefined && !allowed(inModel)
        ? Number.NEGATIVE_INFINITY
        : evaluate(proposedKey) + logModelPrior(prior, p, proposedSize);
    apply(prop); // undone; redone below if accepted
    return proposed - logTarget;
  };
  for (let t = 0; t < total; t++) {
    const step = moveStep(rng, move, null, logTargetRatio);
    if (step.accepted) {
      apply(step.proposal);
      logTarget = proposed;
      size = proposedSize;
      key = proposedKey;
      if (t >= burnIn) accepted++;
    }
    if (t < burnIn) continue;
    for (let j = 0; j < p; j++) inclusion[j] += inModel[j];
    let at = index.get(key);
    if (at === undefined) {
      at = distinctMembers.length;
      index.set(key, at);
      const members: number[] = [];
      for (let j = 0; j < p; j++) if (inModel[j]) members.push(j);
      distinctMembers.push(members);
      distinctLogEv.push(cache.get(key) as number);
      visitCounts.push(0);
    }
    visitCounts[at]++;
  }
  const { count, offsets, members, sizes, masks } = compactSubsets(p, distinctMembers);
  for (let j = 0; j < p; j++) inclusion[j] /= iterations;
  return {
    p,
    count,
    offsets,
    members,
    sizes,
    logEvidence: Float64Array.from(distinctLogEv),
    visits: Float64Array.from(visitCounts),
    masks,
    inclusionFrequency: inclusion,
    acceptanceRate: accepted / iterations,
    iterations,
    nEvaluations,
  };
}

/** Distinct subsets (member lists) in CSR form, with their sizes and, for p ≤ 31, their bitmasks. */
function compactSubsets(p: number, distinctMembers: readonly number[][]) {
  const count = distinctMembers.length;
  const offsets = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) offsets[i + 1] = offsets[i] + distinctMembers[i].length;
  const members = new Int32Array(offsets[count]);
  const sizes = new Uint8Array(count);
  let masks: Uint32Array | undefined;
  if (p <= 31) masks = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    members.set(distinctMembers[i], offsets[i]);
    sizes[i] = distinctMembers[i].length;
    if (masks) {
      let mk = 0;
      for (const j of distinctMembers[i]) mk |= 1 << j;
      masks[i] = mk >>> 0;
    }
  }
  return { count, offsets, members, sizes, masks };
}
