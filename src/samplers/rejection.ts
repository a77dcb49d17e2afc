import { checkInteger, OccamError } from "../errors.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { checkStartLogDensity, checkStartPosition, checkTarget, describePosition } from "./accept.js";
import { checkProposal, drawProposal, type Proposal } from "./importance.js";
import type { Kernel, PositionState, StepInfo } from "./kernel.js";

const NAME = "rejection sampling";

/** Options of {@link buildRejectionKernel}. */
export interface RejectionOptions {
  /** The (unnormalised) target log density π. */
  target: LogDensity;
  /** The proposal q, with q > 0 wherever π > 0. */
  proposal: Proposal;
  /** log M, an envelope constant with log π(x) ≤ log M + log q(x) for every x. */
  logBound: number;
  /**
   * Proposals one step may try before giving up with an error (the acceptance rate is Z / M).
   * @defaultValue 1_000_000
   */
  maxTries?: number;
}

/** State of rejection sampling: the last accepted draw and its log density. */
export interface RejectionState extends PositionState {}

/** What one rejection step did: it always returns an exact, independent draw. */
export interface RejectionInfo extends StepInfo {
  /** Proposals drawn to get this draw (equal to `evaluations`). */
  readonly tries: number;
}

/** A rejection-sampling kernel; `dim` is the target's dimension. */
export interface RejectionKernel extends Kernel<RejectionState, RejectionInfo> {
  readonly dim: number;
}

/**
 * Rejection sampling as a kernel of independent draws: propose x ~ q, accept with probability
 * π(x) / (M q(x)), repeat until accepted. Each step ignores the current state and returns one exact
 * draw from π (normalised), with `evaluations` = `tries`. A draw with log π(x) − log q(x) > log M
 * proves the envelope is too low and throws an `OccamError` (a relative slack of 1e−12 absorbs
 * rounding when the bound is attained exactly).
 *
 * @example
 * const kernel = buildRejectionKernel({ target, proposal, logBound: Math.log(1.5) });
 */
export function buildRejectionKernel(options: RejectionOptions): RejectionKernel {
  if (options === null || typeof options !== "object") {
    throw new OccamError(
      "invalid-argument",
      `${NAME}: options must be an object with target, proposal and logBound.`,
    );
  }
  const { target, proposal, logBound } = options;
  checkTarget(NAME, target, false);
  const dim = target.dim;
  checkProposal(NAME, proposal, dim);
  if (!Number.isFinite(logBound)) {
    throw new OccamError("invalid-argument", `${NAME}: logBound must be a finite number, got ${logBound}.`);
  }
  const maxTries = options.maxTries ?? 1_000_000;
  checkInteger(maxTries, `${NAME}: maxTries`, 1);
  const x = new Float64Array(dim);

  return {
    dim,
    init(position: Float64Array): RejectionState {
      checkStartPosition(NAME, position, dim);
      const logDensity = target.logDensity(position);
      checkStartLogDensity(NAME, logDensity, position);
      return { position: Float64Array.from(position), logDensity };
    },
    step(rng: Rng) {
      for (let tries = 1; tries <= maxTries; tries++) {
        const logQ = drawProposal(NAME, rng, proposal, x);
        const logP = target.logDensity(x);
        if (Number.isNaN(logP) || logP === Number.POSITIVE_INFINITY) {
          throw new OccamError(
            "non-finite",
            `${NAME}: the target log density is ${logP} at the proposal ${describePosition(x)}; it must be finite or −Infinity.`,
          );
        }
        const excess = logP - logQ - logBound;
        if (excess > 1e-12 * (1 + Math.abs(logP) + Math.abs(logQ))) {
          throw new OccamError(
            "invalid-argument",
            `${NAME}: the envelope is too low: at ${describePosition(x)} log target − log proposal = ${logP - logQ} exceeds logBound = ${logBound}; raise logBound to at least the maximum of log π − log q (or widen the proposal), otherwise the draws are not from the target.`,
          );
        }
        // Accept with probability e^{excess} ≤ 1; u ∈ [0, 1) and log 0 = −∞ keep it exact.
        if (Math.log(rng.uniform()) < excess) {
          const state = { position: Float64Array.from(x), logDensity: logP };
          return { state, info: { accepted: true, acceptProbability: 1, evaluations: tries, tries } };
        }
      }
      throw new OccamError(
        "invalid-argument",
        `${NAME}: no proposal was accepted in ${maxTries} tries; the envelope M = e^${logBound} is far above the target (lower logBound or use a proposal closer to the target).`,
      );
    },
  };
}
