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
import { type RobbinsMonroOptions, robbinsMonroWarmup, type ScaledTransition } from "./adaptation.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "./kernel.js";

const NAME = "random-walk Metropolis";

/** Options of {@link buildRandomWalkKernel}. */
export interface RandomWalkOptions {
  /** The target density (for a model: `tempered(model, beta)`). */
  target: LogDensity;
  /**
   * Standard deviation of the Gaussian proposal: one number for all coordinates, or one per coordinate.
   * Warm-up multiplies it by a common factor.
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
}

/** Options of {@link randomWalkWarmup}: the kernel's (its proposal is where warm-up starts) and the adaptation's. */
export interface RandomWalkWarmupOptions extends RandomWalkOptions {
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
export interface RandomWalkKernel extends Kernel<RandomWalkState, RandomWalkInfo> {
  readonly dim: number;
  /** The multiplier of the base scale (1, unless the kernel comes from a warm-up). */
  readonly scaleFactor: number;
}

/**
 * Random-walk Metropolis with a Gaussian proposal y = x + scaleᵢ · zᵢ, z ~ N(0, I) (or, given a
 * `covariance` Σ = L Lᵀ, y = x + (2.38/√dim) · L z). Each step costs one density evaluation and
 * allocates only an accepted state's position.
 *
 * @example
 * const kernel = buildRandomWalkKernel({ target: tempered(model, 1), scale: 0.5 });
 */
export function buildRandomWalkKernel(options: RandomWalkOptions): RandomWalkKernel {
  return randomWalkTransition(options).build(1);
}

/**
 * Random-walk Metropolis's warm-up: Robbins–Monro on a common factor s of the proposal's scale (y = x +
 * s · scaleᵢ · zᵢ, or s · (2.38/√dim) · L z), from 1 towards `targetAccept`; `runChain` runs it for
 * each chain, then samples with the last factor, fixed.
 *
 * @example
 * const draws = runChain(randomWalkWarmup({ target: tempered(model, 1) }), { draws: 4000, warmup: 1000, seed: 1, initial });
 */
export function randomWalkWarmup(
  options: RandomWalkWarmupOptions,
): Adaptation<RandomWalkState, RandomWalkInfo, RandomWalkKernel> {
  const transition = randomWalkTransition(options);
  const targetAccept = options.targetAccept ?? (transition.dim === 1 ? 0.44 : 0.234);
  return robbinsMonroWarmup(transition, 1, { ...options.adaptation, targetAccept });
}

/** The target of `options`, checked, and the random walk's step with the scale factor as an argument. */
function randomWalkTransition(
  options: RandomWalkOptions,
): ScaledTransition<RandomWalkState, RandomWalkInfo, RandomWalkKernel> & { dim: number } {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${NAME}: options must be an object with a target.`);
  }
  const { target } = options;
  checkTarget(NAME, target, false);
  const dim = target.dim;
  const proposalFactor = options.covariance === undefined ? undefined : proposalCholesky(options, dim);
  const base = baseScale(options.scale ?? 2.38 / Math.sqrt(dim), dim);
  const proposal = new Float64Array(dim);
  const z = new Float64Array(dim);
  const propose = (rng: Rng, x: Float64Array, factor: number) => {
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
  const init = (position: Float64Array): RandomWalkState => {
    checkStartPosition(NAME, position, dim);
    const logDensity = target.logDensity(position);
    checkStartLogDensity(NAME, logDensity, position);
    return { position: Float64Array.from(position), logDensity };
  };
  const step = (rng: Rng, state: RandomWalkState, factor: number) => {
    propose(rng, state.position, factor);
    const logDensity = target.logDensity(proposal);
    // A NaN or +∞ log density is a divergence: rejected and counted, never thrown.
    const divergent = !isUsableLogDensity(logDensity);
    // The Gaussian proposal is symmetric, so the Hastings ratio is the density ratio.
    const { accepted, acceptProbability } = metropolisHastings(
      rng,
      divergent ? Number.NEGATIVE_INFINITY : logDensity - state.logDensity,
    );
    const next = accepted ? { position: Float64Array.from(proposal), logDensity } : state;
    const info: RandomWalkInfo = {
      accepted,
      acceptProbability,
      evaluations: 1,
      scaleFactor: factor,
      divergent,
    };
    return { state: next, info };
  };
  const build = (factor: number): RandomWalkKernel => ({
    dim,
    scaleFactor: factor,
    init,
    step: (rng, state) => step(rng, state, factor),
  });
  return { dim, init, step, build };
}

/** The proposal's standard deviations: one number for all coordinates or one per coordinate, checked. */
function baseScale(scale: number | Float64Array, dim: number): Float64Array {
  const base = new Float64Array(dim);
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
  return base;
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
