import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { checkStartLogDensity, checkStartPosition, describePosition } from "./accept.js";
import type { Kernel, PositionState, StepInfo } from "./kernel.js";

const NAME = "Gibbs";

/**
 * One Gibbs update: draws a coordinate or block from its full conditional given the rest of
 * `position`, writing it into `position` in place.
 */
export type GibbsUpdate = (rng: Rng, position: Float64Array) => void;

/** Options of {@link buildGibbsKernel}. */
export interface GibbsOptions {
  /** Dimension of the position. */
  dim: number;
  /** The updates, applied in this order in every sweep (systematic scan). */
  updates: readonly GibbsUpdate[];
  /**
   * The target log density, evaluated once per sweep to fill `state.logDensity`.
   * @defaultValue none: `state.logDensity` is 0 (a placeholder; no density is evaluated)
   */
  logDensity?: (theta: Float64Array) => number;
}

/** State of the Gibbs sampler: the position and (when a log density was given) its log density. */
export interface GibbsState extends PositionState {}

/** What one Gibbs sweep did: it always moves (`accepted`, acceptance probability 1). */
export interface GibbsInfo extends StepInfo {}

/** A systematic-scan Gibbs kernel; `dim` is the position's dimension. */
export interface GibbsKernel extends Kernel<GibbsState, GibbsInfo> {
  readonly dim: number;
}

/**
 * Systematic-scan Gibbs sampling: each step copies the position and applies every update in order to
 * the copy, so states are never mutated after they are returned. Every sweep leaves the joint target
 * invariant when each update is an exact draw from its full conditional. A sweep that produces a
 * non-finite coordinate, or a log density that is not finite, throws an `OccamError`.
 *
 * @example
 * const kernel = buildGibbsKernel({ dim: 2, updates: buildGaussianGibbsUpdates({ mean, covariance }) });
 */
export function buildGibbsKernel(options: GibbsOptions): GibbsKernel {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${NAME}: options must be an object with dim and updates.`);
  }
  const { dim, updates, logDensity } = options;
  if (!(Number.isInteger(dim) && dim >= 1)) {
    throw new OccamError("invalid-argument", `${NAME}: dim must be a positive integer, got ${dim}.`);
  }
  if (!Array.isArray(updates) || updates.length === 0) {
    throw new OccamError(
      "invalid-argument",
      `${NAME}: updates must be a non-empty array of functions (rng, position) => void.`,
    );
  }
  updates.forEach((u, k) => {
    if (typeof u !== "function") {
      throw new OccamError("invalid-argument", `${NAME}: updates[${k}] is not a function.`);
    }
  });
  if (logDensity !== undefined && typeof logDensity !== "function") {
    throw new OccamError("invalid-argument", `${NAME}: logDensity must be a function (theta) => number.`);
  }
  const fns = [...updates];
  const evaluations = logDensity === undefined ? 0 : 1;
  const info: GibbsInfo = Object.freeze({ accepted: true, acceptProbability: 1, evaluations });

  const density = (position: Float64Array, where: string): number => {
    if (logDensity === undefined) return 0;
    const value = logDensity(position);
    if (!Number.isFinite(value)) {
      throw new OccamError(
        "non-finite",
        `${NAME}: the log density is ${value} ${where} ${describePosition(position)}; an exact Gibbs sweep cannot reach a point of zero or infinite density, so an update or the log density is wrong.`,
      );
    }
    return value;
  };

  return {
    dim,
    init(position: Float64Array): GibbsState {
      checkStartPosition(NAME, position, dim);
      const start = Float64Array.from(position);
      if (logDensity !== undefined) checkStartLogDensity(NAME, logDensity(start), start);
      return { position: start, logDensity: density(start, "at the starting position") };
    },
    step(rng: Rng, state: GibbsState) {
      const position = Float64Array.from(state.position);
      for (let k = 0; k < fns.length; k++) fns[k](rng, position);
      let bad = 0;
      for (let i = 0; i < dim; i++) bad += position[i] * 0;
      if (bad !== 0) {
        throw new OccamError(
          "non-finite",
          `${NAME}: a sweep produced the position ${describePosition(position)} with a non-finite coordinate; check the updates.`,
        );
      }
      return { state: { position, logDensity: density(position, "after a sweep at") }, info };
    },
  };
}
