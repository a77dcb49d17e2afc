import { OccamError } from "../errors.js";
import { cholesky } from "../math/linalg.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import {
  checkStartLogDensity,
  checkStartPosition,
  checkTarget,
  isUsableLogDensity,
  metropolisHastings,
} from "./accept.js";
import { RobbinsMonro, type RobbinsMonroOptions } from "./adaptation.js";
import type { AdaptiveKernel, PositionState, StepInfo } from "./kernel.js";

const NAME = "random-walk Metropolis";

/** Options of {@link buildRandomWalkKernel}. */
export interface RandomWalkOptions {
  /** The target density (for a model: `tempered(model, beta)`). */
  target: LogDensity;
  /**
   * Standard deviation of the Gaussian proposal: one number for all coordinates, or one per coordinate.
   * Adaptation multiplies it by a common factor.
   * @defaultValue 2.38 / √dim (optimal for a standard normal target)
   */
  scale?: number | Float64Array;
  /**
   * The covariance Σ (dim × dim, row-major) of a correlated Gaussian proposal y = x + s · (2.38/√dim) ·
   * L z with Σ = L Lᵀ, optimal for a Gaussian target of covariance Σ (Roberts, Gelman & Gilks 1997):
   * for example the covariance of a tempered run's particles, which makes the proposal indifferent to
   * the parameters' scales and correlations. Give `scale` or `covariance`, not both.
   */
  covariance?: Float64Array;
  /**
   * Tune the common scale factor during warm-up by Robbins–Monro towards `targetAccept`.
   * @defaultValue true
   */
  adapt?: boolean;
  /**
   * Acceptance probability the adaptation aims for.
   * @defaultValue 0.234, or 0.44 when dim = 1 (Roberts, Gelman & Gilks 1997; Roberts & Rosenthal 2001)
   */
  targetAccept?: number;
  /**
   * Gain and decay of the Robbins–Monro recursion.
   * @defaultValue `{ gain: 1, decay: 0.6 }`
   */
  adaptation?: Omit<RobbinsMonroOptions, "targetAccept">;
}

/** State of random-walk Metropolis: the position and its log density. */
export interface RandomWalkState extends PositionState {}

/** What one random-walk step did. */
export interface RandomWalkInfo extends StepInfo {
  /** The factor the base scale was multiplied by in this step's proposal. */
  readonly scaleFactor: number;
}

/** A random-walk Metropolis kernel; `dim` is the target's dimension. */
export interface RandomWalkKernel extends AdaptiveKernel<RandomWalkState, RandomWalkInfo> {
  readonly dim: number;
  /** The current multiplier of the base scale (1 until adaptation moves it). */
  readonly scaleFactor: number;
}

/**
 * Random-walk Metropolis with a Gaussian proposal y = x + s · scaleᵢ · zᵢ, z ~ N(0, I) (or, given a
 * `covariance` Σ = L Lᵀ, y = x + s · (2.38/√dim) · L z), where the common factor s starts at 1 and,
 * when `adapt` is on, follows Robbins–Monro during warm-up and is then frozen.
 * Each step costs one density evaluation and allocates only an accepted state's position.
 *
 * @example
 * const kernel = buildRandomWalkKernel({ target: tempered(model, 1), scale: 0.5 });
 */
export function buildRandomWalkKernel(options: RandomWalkOptions): RandomWalkKernel {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${NAME}: options must be an object with a target.`);
  }
  const { target } = options;
  checkTarget(NAME, target, false);
  const dim = target.dim;
  const proposalFactor = options.covariance === undefined ? undefined : proposalCholesky(options, dim);
  const base = new Float64Array(dim);
  const scale = options.scale ?? 2.38 / Math.sqrt(dim);
  if (typeof scale === "number") {
    base.fill(scale);
  } else if (scale instanceof Float64Array) {
    if (scale.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `${NAME}: scale has ${scale.length} entries but the target's dim is ${dim}; give one number or one per coordinate.`,
      );
    }
    base.set(scale);
  } else {
    throw new OccamError("invalid-argument", `${NAME}: scale must be a number or a Float64Array.`);
  }
  for (let i = 0; i < dim; i++) {
    if (!(Number.isFinite(base[i]) && base[i] > 0)) {
      throw new OccamError(
        "invalid-argument",
        `${NAME}: scale[${i}] must be finite and > 0, got ${base[i]}.`,
      );
    }
  }
  let adapting = options.adapt ?? true;
  const targetAccept = options.targetAccept ?? (dim === 1 ? 0.44 : 0.234);
  const adapter = new RobbinsMonro(1, { ...options.adaptation, targetAccept });
  let factor = 1;
  const proposal = new Float64Array(dim);
  const z = new Float64Array(dim);
  const propose = (rng: Rng, x: Float64Array) => {
    if (proposalFactor === undefined) {
      for (let i = 0; i < dim; i++) proposal[i] = x[i] + factor * base[i] * rng.normal();
      return;
    }
    for (let i = 0; i < dim; i++) z[i] = rng.normal();
    for (let a = 0; a < dim; a++) {
      let v = 0;
      for (let b = 0; b <= a; b++) v += proposalFactor[a * dim + b] * z[b];
      proposal[a] = x[a] + factor * v;
    }
  };

  return {
    dim,
    get scaleFactor() {
      return factor;
    },
    init(position: Float64Array): RandomWalkState {
      checkStartPosition(NAME, position, dim);
      const logDensity = target.logDensity(position);
      checkStartLogDensity(NAME, logDensity, position);
      return { position: Float64Array.from(position), logDensity };
    },
    step(rng: Rng, state: RandomWalkState) {
      propose(rng, state.position);
      const logDensity = target.logDensity(proposal);
      // A NaN or +∞ log density is a divergence: rejected and counted, never thrown.
      const divergent = !isUsableLogDensity(logDensity);
      // The Gaussian proposal is symmetric, so the Hastings ratio is the density ratio.
      const { accepted, acceptProbability } = metropolisHastings(
        rng,
        divergent ? Number.NEGATIVE_INFINITY : logDensity - state.logDensity,
      );
      const next = accepted ? { position: Float64Array.from(proposal), logDensity } : state;
      return {
        state: next,
        info: { accepted, acceptProbability, evaluations: 1, scaleFactor: factor, divergent },
      };
    },
    adapt(_state: RandomWalkState, info: RandomWalkInfo) {
      if (adapting) factor = adapter.update(info.acceptProbability);
    },
    endWarmup() {
      adapting = false;
    },
  };
}

/** (2.38/√dim) L for the Cholesky factor L of `options.covariance`, checked. */
function proposalCholesky(options: RandomWalkOptions, dim: number): Float64Array {
  const covariance = options.covariance as Float64Array;
  if (options.scale !== undefined) {
    throw new OccamError("invalid-argument", `${NAME}: give scale or covariance, not both.`);
  }
  if (!(covariance instanceof Float64Array) || covariance.length !== dim * dim) {
    throw new OccamError(
      "dimension-mismatch",
      `${NAME}: covariance must be a Float64Array of ${dim} × ${dim} entries (row-major).`,
    );
  }
  let L: Float64Array;
  try {
    L = cholesky(covariance, dim);
  } catch (error) {
    if (!(error instanceof OccamError)) throw error;
    throw new OccamError(
      "invalid-argument",
      `${NAME}: covariance must be positive definite (${error.message})`,
    );
  }
  const c = 2.38 / Math.sqrt(dim);
  for (let k = 0; k < L.length; k++) L[k] *= c;
  return L;
}
