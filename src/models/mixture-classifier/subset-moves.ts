/**
 * The input subset S of a chain and Sykacek's reversible-jump moves over it (§2.3): birth (add one
 * input chosen at random), death (remove one) and exchange (swap one in for one out), composed by
 * {@link mixture} and accepted by the shared Metropolis–Hastings step. In occam's collapsed models a
 * jump proposes no continuous parameters, so each move's `logFactor` is its move-choice ratio alone
 * and the target ratio comes from the chain (`logLik`) and the subset prior.
 */
import type { Rng } from "../../random/rng.js";
import { metropolisHastings } from "../../samplers/accept.js";
import { type Move, mixture } from "../../samplers/mixture.js";
import { PREDICT_EVERY } from "./conjugate.js";
import type { Settings } from "./options.js";
import type { ChainResult } from "./sampler.js";

/** The kinds of jump, and the indices of their acceptance counters. */
export const BIRTH = 0;
export const DEATH = 1;
export const EXCHANGE = 2;

/** A subset of p inputs: a membership mask and a list of the members. */
export class Subset {
  /** inS[i] = 1 when input i is in S. */
  readonly inS: Uint8Array;
  /** members[0 … size) lists S, in no particular order. */
  readonly members: Int32Array;
  size = 0;

  constructor(readonly p: number) {
    this.inS = new Uint8Array(p);
    this.members = new Int32Array(p);
  }

  add(i: number): void {
    this.inS[i] = 1;
    this.members[this.size++] = i;
  }

  remove(i: number): void {
    this.inS[i] = 0;
    let q = 0;
    while (this.members[q] !== i) q++;
    this.members[q] = this.members[--this.size];
  }

  /** An input outside S, uniformly at random (S must not hold every input). */
  pickOutside(rng: Rng): number {
    let k = rng.integer(this.p - this.size);
    for (let i = 0; i < this.p; i++) {
      if (this.inS[i]) continue;
      if (k === 0) return i;
      k--;
    }
    return -1;
  }

  /** The members, ascending, joined by commas: the subset's identity in a trace. */
  key(): string {
    return Array.from(this.members.subarray(0, this.size))
      .sort((x, y) => x - y)
      .join(",");
  }

  /**
   * A random start of `minInputs` … 3 inputs (at least one), or the given inputs.
   */
  start(rng: Rng, minInputs: number, initial: readonly number[] | undefined): void {
    if (initial !== undefined) {
      for (const i of initial) this.add(i);
      return;
    }
    const size = Math.max(minInputs, 1 + rng.integer(Math.min(3, this.p)));
    const order = Array.from({ length: this.p }, (_, i) => i);
    for (let q = this.p - 1; q > 0; q--) {
      const e = rng.integer(q + 1);
      [order[q], order[e]] = [order[e], order[q]];
    }
    for (let q = 0; q < size; q++) this.add(order[q]);
  }
}

/** A proposed jump: the input that enters S (−1: none) and the one that leaves it (−1: none). */
export interface Jump {
  kind: number;
  add: number;
  remove: number;
}

/** Counts of tried and accepted jumps by kind (BIRTH, DEATH, EXCHANGE). */
export interface JumpCounts {
  readonly tried: Float64Array;
  readonly accepted: Float64Array;
}

/**
 * Builds the jump step of a chain over `subset`: each call proposes a birth, death or exchange (in
 * proportion to `weights`), adds `logLik(add, remove)` — log π(S′) − log π(S) without the subset
 * prior, at the chain's other variables — and log p(S′)/p(S), accepts by Metropolis–Hastings and, if
 * accepted, changes `subset` and calls `onAccept`. Returns whether it was accepted.
 */
function buildJumpStep(options: {
  subset: Subset;
  minInputs: number;
  weights: readonly [number, number, number];
  logSubsetPrior: Float64Array;
  logLik: (add: number, remove: number) => number;
  onAccept?: (jump: Jump) => void;
  counts: JumpCounts;
}): (rng: Rng) => boolean {
  const { subset, minInputs, logSubsetPrior: logPS, logLik, onAccept, counts } = options;
  const p = subset.p;
  const proposal: Jump = { kind: BIRTH, add: -1, remove: -1 };
  const result = { proposal, logFactor: 0 };
  const propose = (kind: number, add: number, remove: number, logFactor: number) => {
    proposal.kind = kind;
    proposal.add = add;
    proposal.remove = remove;
    result.logFactor = logFactor;
    return result;
  };
  const impossible = (kind: number) => propose(kind, -1, -1, Number.NEGATIVE_INFINITY);
  // Move-choice ratios: a birth picks its input among p − I, the reverse death among I + 1.
  const birth: Move<null, Jump> = (rng) => {
    const I = subset.size;
    if (I === p) return impossible(BIRTH);
    return propose(BIRTH, subset.pickOutside(rng), -1, Math.log(p - I) - Math.log(I + 1));
  };
  const death: Move<null, Jump> = (rng) => {
    const I = subset.size;
    if (I <= minInputs) return impossible(DEATH);
    return propose(DEATH, -1, subset.members[rng.integer(I)], Math.log(I) - Math.log(p - I + 1));
  };
  const exchange: Move<null, Jump> = (rng) => {
    const I = subset.size;
    if (I === p || I === 0) return impossible(EXCHANGE);
    const remove = subset.members[rng.integer(I)];
    return propose(EXCHANGE, subset.pickOutside(rng), remove, 0);
  };
  const jump = mixture<null, Jump>([
    [birth, options.weights[0]],
    [death, options.weights[1]],
    [exchange, options.weights[2]],
  ]);
  return (rng) => {
    const { proposal: prop, logFactor } = jump(rng, null);
    const I = subset.size;
    const after = I + (prop.add >= 0 ? 1 : 0) - (prop.remove >= 0 ? 1 : 0);
    const logRatio =
      logFactor === Number.NEGATIVE_INFINITY
        ? logFactor
        : logLik(prop.add, prop.remove) + logPS[after] - logPS[I] + logFactor;
    counts.tried[prop.kind]++;
    if (!metropolisHastings(rng, logRatio).accepted) return false;
    counts.accepted[prop.kind]++;
    if (prop.remove >= 0) subset.remove(prop.remove);
    if (prop.add >= 0) subset.add(prop.add);
    onAccept?.(prop);
    return true;
  };
}

/**
 * The chain's outer loop, the same for every structure: `draws` sweeps, each the structure's own
 * updates (`sweep`) followed by `jumps` jump steps; returns the subset key of every kept sweep (after
 * `burnIn`) and calls `predict` on every PREDICT_EVERY-th of them (neighbouring sweeps are correlated).
 */
function runSweeps(options: {
  rng: Rng;
  subset: Subset;
  draws: number;
  burnIn: number;
  jumps: number;
  sweep: () => void;
  jumpStep: (rng: Rng) => boolean;
  predict: () => void;
  onSweep: (sweep: number) => void;
}): string[] {
  const { rng, subset, draws, burnIn, jumps, sweep, jumpStep, predict, onSweep } = options;
  const keys: string[] = new Array(draws - burnIn);
  let key = subset.key();
  for (let t = 0; t < draws; t++) {
    sweep();
    for (let j = 0; j < jumps; j++) if (jumpStep(rng)) key = subset.key();
    if (t >= burnIn) {
      keys[t - burnIn] = key;
      if ((t - burnIn) % PREDICT_EVERY === 0) predict();
    }
    onSweep(t + 1);
  }
  return keys;
}

/**
 * One chain of either structure, from its parts: the jump step from `logLik` and `onAccept` (see
 * {@link buildJumpStep}) with the settings' move weights, then {@link runSweeps} with the settings'
 * draws, burn-in and jumps per sweep. Returns the kept subsets, `testProb` (which `predict` fills) and
 * the jumps tried and accepted by kind.
 */
export function runSubsetChain(options: {
  rng: Rng;
  subset: Subset;
  s: Settings;
  logSubsetPrior: Float64Array;
  logLik: (add: number, remove: number) => number;
  onAccept?: (jump: Jump) => void;
  sweep: () => void;
  predict: () => void;
  testProb: Float64Array | null;
  onSweep: (sweep: number) => void;
}): ChainResult {
  const { rng, subset, s } = options;
  const counts = { tried: new Float64Array(3), accepted: new Float64Array(3) };
  const jumpStep = buildJumpStep({
    subset,
    minInputs: s.minInputs,
    weights: s.weights,
    logSubsetPrior: options.logSubsetPrior,
    counts,
    logLik: options.logLik,
    onAccept: options.onAccept,
  });
  const keys = runSweeps({
    rng,
    subset,
    draws: s.draws,
    burnIn: s.burnIn,
    jumps: s.jumps,
    jumpStep,
    predict: options.predict,
    onSweep: options.onSweep,
    sweep: options.sweep,
  });
  return { keys, testProb: options.testProb, ...counts };
}
