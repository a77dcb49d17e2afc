/**
 * Composing Metropolis–Hastings and reversible-jump moves. A move proposes; it does not accept: it
 * returns `{ proposal, logFactor }`, where `logFactor` is log[q(x | x′) / q(x′ | x)] plus the log
 * Jacobian of the dimension-matching map (Green 1995). The caller adds log π(x′) − log π(x) and
 * decides with the one shared accept step, {@link metropolisHastings}.
 */
import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { metropolisHastings } from "./accept.js";

/** What a move returns: where it proposes to go and the log proposal ratio with the log Jacobian. */
export interface MoveResult<P> {
  /** The proposed state (a move may reuse one buffer for every call; copy it to keep it). */
  readonly proposal: P;
  /**
   * log[q(x | x′) / q(x′ | x)] + log |∂(x′, u′)/∂(x, u)|; −Infinity when the move is impossible from
   * this state (the proposal is then rejected without evaluating the target).
   */
  readonly logFactor: number;
}

/** A proposal mechanism from state S to a proposal P. */
export type Move<S, P = S> = (rng: Rng, state: S) => MoveResult<P>;

/**
 * A random choice among moves: move j is used with probability weight_j / Σ weights, the same from
 * every state. Because the choice probabilities are constant, they cancel from the acceptance ratio
 * whenever a move's reverse is itself (a symmetric choice, e.g. an exchange) or another move with the
 * same weight (birth and death): give paired moves equal weights, or put the ratio of their weights in
 * their `logFactor`. One uniform is drawn per call.
 *
 * @example
 * const move = mixture([[birth, 1], [death, 1], [exchange, 1]]);
 * const { proposal, logFactor } = move(rng, state);
 */
export function mixture<S, P>(entries: readonly (readonly [Move<S, P>, number])[]): Move<S, P> {
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new OccamError("invalid-argument", "mixture: give a non-empty array of [move, weight] pairs.");
  }
  const moves: Move<S, P>[] = [];
  const cumulative = new Float64Array(entries.length);
  let total = 0;
  entries.forEach((entry, j) => {
    const [move, weight] = entry;
    if (typeof move !== "function") {
      throw new OccamError("invalid-argument", `mixture: entry ${j} has no move function.`);
    }
    if (!(Number.isFinite(weight) && weight > 0)) {
      throw new OccamError(
        "invalid-argument",
        `mixture: the weight of move ${j} must be a finite number > 0, got ${weight}.`,
      );
    }
    moves.push(move);
    total += weight;
    cumulative[j] = total;
  });
  const last = moves.length - 1;
  return (rng, state) => {
    const u = rng.uniform() * total;
    let j = 0;
    while (j < last && u >= cumulative[j]) j++;
    return moves[j](rng, state);
  };
}

/** The outcome of {@link moveStep}. */
export interface MoveStepResult<P> {
  /** Whether the proposal was accepted. */
  readonly accepted: boolean;
  /** The Metropolis–Hastings acceptance probability (0 for an impossible move). */
  readonly acceptProbability: number;
  /** The proposal the move made. */
  readonly proposal: P;
}

/**
 * One Metropolis–Hastings step with a move: proposes, adds `logTargetRatio(state, proposal)`
 * (log π(x′) − log π(x)) to the move's `logFactor`, and accepts with the shared accept step. A move
 * with logFactor −Infinity is rejected without evaluating the target (a uniform is still drawn, so
 * random streams stay aligned).
 */
export function moveStep<S, P>(
  rng: Rng,
  move: Move<S, P>,
  state: S,
  logTargetRatio: (state: S, proposal: P) => number,
): MoveStepResult<P> {
  const { proposal, logFactor } = move(rng, state);
  const logRatio =
    logFactor === Number.NEGATIVE_INFINITY ? logFactor : logTargetRatio(state, proposal) + logFactor;
  const { accepted, acceptProbability } = metropolisHastings(rng, logRatio);
  return { accepted, acceptProbability, proposal };
}
