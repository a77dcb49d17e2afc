import { OccamError } from "../errors.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import {
  checkTarget,
  gradientStart,
  isFiniteVector,
  isUsableLogDensity,
  metropolisHastings,
} from "./accept.js";
import { type RobbinsMonroOptions, robbinsMonroWarmup, type ScaledTransition } from "./adaptation.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "./kernel.js";

const NAME = "MALA";

/** Options of {@link buildMalaKernel}. */
export interface MalaOptions {
  /** The target density; it must have `gradLogDensity`. */
  target: LogDensity;
  /**
   * The Langevin step size ε: y = x + (ε²/2) ∇log π(x) + ε z.
   * @defaultValue 1.65 · dim^{−1/6} (optimal for a standard normal target, Roberts & Rosenthal 1998)
   */
  stepSize?: number;
}

/** Options of {@link malaWarmup}: the kernel's (its step size is where warm-up starts) and the adaptation's. */
export interface MalaWarmupOptions extends MalaOptions {
  /**
   * Acceptance probability the adaptation aims for.
   * @defaultValue 0.574
   */
  targetAccept?: number;
  /**
   * Gain and decay of the Robbins–Monro recursion.
   * @defaultValue `{ gain: 1, decay: 0.6 }`
   */
  adaptation?: Omit<RobbinsMonroOptions, "targetAccept">;
}

/** State of MALA: position, log density and its gradient there (reused by the next proposal). */
export interface MalaState extends PositionState {
  readonly gradient: Float64Array;
}

/** What one MALA step did. */
export interface MalaInfo extends StepInfo {
  /** The step size of this step's proposal. */
  readonly stepSize: number;
}

/** A MALA kernel; `dim` is the target's dimension. */
export interface MalaKernel extends Kernel<MalaState, MalaInfo> {
  readonly dim: number;
  /** The step size. */
  readonly stepSize: number;
}

/**
 * The Metropolis-adjusted Langevin algorithm: an Euler step of the Langevin diffusion as proposal,
 * corrected by the Metropolis–Hastings ratio with both proposal densities. One gradient evaluation per
 * step; the state keeps its gradient. Allocates only an accepted state's position and gradient.
 *
 * @example
 * const kernel = buildMalaKernel({ target: tempered(model, 1), stepSize: 0.5 });
 */
export function buildMalaKernel(options: MalaOptions): MalaKernel {
  const { transition, stepSize } = setUp(options);
  return transition.build(stepSize);
}

/**
 * MALA's warm-up: Robbins–Monro on the step size towards `targetAccept`; `runChain` runs it for each
 * chain, then samples at the last step size, fixed.
 *
 * @example
 * const draws = runChain(malaWarmup({ target: tempered(model, 1) }), { draws: 1000, warmup: 500, seed: 1, initial });
 */
export function malaWarmup(options: MalaWarmupOptions): Adaptation<MalaState, MalaInfo, MalaKernel> {
  const { transition, stepSize } = setUp(options);
  return robbinsMonroWarmup(transition, stepSize, {
    ...options.adaptation,
    targetAccept: options.targetAccept ?? 0.574,
  });
}

/** The target of `options`, checked, the step size, and MALA's step with the step size as an argument. */
function setUp(options: MalaOptions): {
  stepSize: number;
  transition: ScaledTransition<MalaState, MalaInfo, MalaKernel>;
} {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${NAME}: options must be an object with a target.`);
  }
  const { target } = options;
  checkTarget(NAME, target, true);
  const dim = target.dim;
  const grad = target.gradLogDensity as (theta: Float64Array, g: Float64Array) => number;
  const stepSize = options.stepSize ?? 1.65 * dim ** (-1 / 6);
  if (!(Number.isFinite(stepSize) && stepSize > 0)) {
    throw new OccamError("invalid-argument", `${NAME}: stepSize must be finite and > 0, got ${stepSize}.`);
  }
  const y = new Float64Array(dim);
  const gy = new Float64Array(dim);
  const init = (position: Float64Array): MalaState => gradientStart(NAME, grad, position, dim);
  const step = (rng: Rng, state: MalaState, eps: number) => {
    const h = 0.5 * eps * eps;
    const x = state.position;
    const gx = state.gradient;
    for (let i = 0; i < dim; i++) y[i] = x[i] + h * gx[i] + eps * rng.normal();
    const logDensity = grad(y, gy);
    // A NaN or +∞ log density, or a non-finite gradient, is a divergence: rejected and counted.
    const divergent =
      !isUsableLogDensity(logDensity) || (logDensity > Number.NEGATIVE_INFINITY && !isFiniteVector(gy));
    let logRatio = Number.NEGATIVE_INFINITY;
    if (!divergent && logDensity > Number.NEGATIVE_INFINITY) {
      // log q(x | y) − log q(y | x) = (|y − x − h∇(x)|² − |x − y − h∇(y)|²) / (2ε²).
      let forward = 0;
      let backward = 0;
      for (let i = 0; i < dim; i++) {
        const f = y[i] - x[i] - h * gx[i];
        const b = x[i] - y[i] - h * gy[i];
        forward += f * f;
        backward += b * b;
      }
      logRatio = logDensity - state.logDensity + (forward - backward) / (2 * eps * eps);
    }
    const { accepted, acceptProbability } = metropolisHastings(rng, logRatio);
    const next = accepted
      ? { position: Float64Array.from(y), logDensity, gradient: Float64Array.from(gy) }
      : state;
    const info: MalaInfo = { accepted, acceptProbability, evaluations: 1, stepSize: eps, divergent };
    return { state: next, info };
  };
  const build = (eps: number): MalaKernel => ({
    dim,
    stepSize: eps,
    init,
    step: (rng, state) => step(rng, state, eps),
  });
  return { stepSize, transition: { init, step, build } };
}
