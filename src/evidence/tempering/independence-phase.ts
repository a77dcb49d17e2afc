/**
 * The independence phase of a tempering stage: sweeps of independence proposals from a Student-t
 * fitted, for each island, to the other islands' particles, until nearly every particle has moved
 * (the cloud is then mixed and the move's own sweeps are not needed), or until their acceptance says
 * they will not get there.
 */
import type { Rng } from "../../random/rng.js";
import { IslandComplementShapes, islandStart, type LikelihoodCounter, type ParticleCloud } from "./cloud.js";
import {
  independenceLogDensities,
  independenceProposal,
  independenceSweep,
  type MoveScratch,
  type SweepOutcome,
} from "./moves.js";

/** What the independence phase uses of a stage (see the engine's stage context). */
export interface IndependenceContext {
  readonly cloud: ParticleCloud;
  readonly rng: Rng;
  readonly counter: LikelihoodCounter;
  readonly scratch: MoveScratch;
  /** Each particle's log density under the stage's independence proposal. */
  readonly logQ: Float64Array;
  /** Which particles a move of this stage moved. */
  readonly movedFlags: Uint8Array;
}

/** Adds one sweep's (or phase's) outcome to a running total. */
export function addOutcome(total: SweepOutcome, outcome: SweepOutcome): void {
  total.moved += outcome.moved;
  total.acceptSum += outcome.acceptSum;
  total.divergent += outcome.divergent;
  total.failed += outcome.failed;
}

/** The independence sweeps of one temperature. */
export interface IndependencePhase extends SweepOutcome {
  readonly sweeps: number;
  /** Whether they mixed the particles, so that the move's own sweeps were not needed. */
  readonly mixed: boolean;
  /** The fraction of particles no independence proposal moved. */
  readonly unmoved: number;
}

/**
 * What the independence phase carries from stage to stage: each island's proposal shape, and when to
 * try the phase. After a stage where it did not mix the cloud it sits out one stage, then two, four, …
 * (a stage where it mixes starts the count again): where it cannot mix (a posterior far from
 * elliptical, or one in many dimensions) its sweeps then cost a few stages' worth, not every stage's.
 */
export class IndependenceState {
  readonly islandShapes: IslandComplementShapes;
  private skip = 0;
  private wait = 1;

  constructor(islands: number, d: number) {
    this.islandShapes = new IslandComplementShapes(islands, d);
  }

  /** Whether this stage tries the phase (a stage that does not counts towards the wait). */
  tryNow(): boolean {
    if (this.skip === 0) return true;
    this.skip--;
    return false;
  }

  /** Records whether the phase mixed the cloud. */
  record(mixed: boolean): void {
    if (mixed) {
      this.wait = 1;
    } else {
      this.skip = this.wait;
      this.wait *= 2;
    }
  }
}

/** The most independence sweeps one temperature may take. */
const MAX_INDEPENDENCE_SWEEPS = 20;
/**
 * The independence sweeps of a temperature end once all but this fraction of the particles have
 * moved: an accepted proposal is a fresh draw, which remembers nothing of the particle it replaced.
 */
const MAX_UNMOVED = 0.01;
/** Below this mean acceptance (after two sweeps) independence proposals are not worth their cost. */
const MIN_INDEPENDENCE_ACCEPTANCE = 0.2;

/**
 * Independence sweeps at β (see `independenceSweep`), each island's proposal fitted to its shape in
 * `islandShapes`, until all but {@link MAX_UNMOVED} of the particles have moved, within
 * {@link MAX_INDEPENDENCE_SWEEPS}: then they mixed the cloud, and `draws` more go to the observer. They
 * are given up as soon as their acceptance, or the rate at which the unmoved particles thin out,
 * says they would need more sweeps than that: where the tempered posterior is far from elliptical
 * (several modes, a curved ridge, a high dimension whose covariance the cloud estimates loosely),
 * or where particles stay (a region the proposal misses, a heavy tail). The move's own sweeps then
 * follow from where they left the cloud.
 */
export function independencePhase(
  c: IndependenceContext,
  islandShapes: IslandComplementShapes,
  beta: number,
  draws: number,
  observer: { draws(beta: number, cloud: ParticleCloud): void } | undefined,
): IndependencePhase {
  const { cloud } = c;
  const { shapes, islands: G } = islandShapes;
  const proposals = shapes.map((shape) => independenceProposal(shape, cloud.dim));
  const from = (g: number) => islandStart(g, G, cloud.n);
  for (let g = 0; g < G; g++) {
    independenceLogDensities(cloud, proposals[g], c.logQ, c.scratch, from(g), from(g + 1));
  }
  const total: SweepOutcome = { moved: 0, acceptSum: 0, divergent: 0, failed: 0 };
  const sweep = () => {
    for (let g = 0; g < G; g++) {
      const outcome = independenceSweep(cloud, beta, proposals[g], c, from(g), from(g + 1));
      addOutcome(total, outcome);
    }
  };
  let done = 0;
  // The unmoved fraction after each sweep so far (1 before the first).
  const unmovedAfter = [1];
  let unmoved = 1;
  while (unmoved > MAX_UNMOVED) {
    sweep();
    done++;
    unmoved = unmovedFraction(c.movedFlags);
    unmovedAfter.push(unmoved);
    if (unmoved <= MAX_UNMOVED) break;
    // The unmoved fraction's rate of decay over the last two sweeps, extrapolated: optimistic, since
    // the particles left are the ones the proposal suits least.
    const rate = Math.sqrt(unmoved / unmovedAfter[Math.max(0, done - 2)]);
    const needed =
      rate < 1 ? done + Math.log(MAX_UNMOVED / unmoved) / Math.log(rate) : Number.POSITIVE_INFINITY;
    const hopeless =
      done >= 2 &&
      (total.acceptSum < MIN_INDEPENDENCE_ACCEPTANCE * total.moved || !(needed <= MAX_INDEPENDENCE_SWEEPS));
    if (hopeless || done >= MAX_INDEPENDENCE_SWEEPS) return { ...total, sweeps: done, mixed: false, unmoved };
  }
  for (let k = 0; k < draws; k++) {
    sweep();
    done++;
    observer?.draws(beta, cloud);
  }
  return { ...total, sweeps: done, mixed: true, unmoved };
}

/** The fraction of particles whose flag is 0. */
export function unmovedFraction(flags: Uint8Array): number {
  let unmoved = 0;
  for (let i = 0; i < flags.length; i++) unmoved += 1 - flags[i];
  return unmoved / flags.length;
}
