import type { Rng } from "../random/rng.js";

/**
 * A Markov (or independent) transition kernel, as in blackjax: `init` builds the state at a position,
 * `step` moves it. The state holds only what the next step needs; what a step learned goes in `info`.
 */
export interface Kernel<S, I> {
  init(position: Float64Array): S;
  step(rng: Rng, state: S): { state: S; info: I };
}

/** The part of a state every kernel shares: where it is and the log density there. */
export interface PositionState {
  readonly position: Float64Array;
  readonly logDensity: number;
}

/** What every kernel's `info` reports, so that `runChain` can summarise any kernel. */
export interface StepInfo {
  /** Whether the proposal was accepted (always true for exact Gibbs and independent draws). */
  readonly accepted: boolean;
  /** The Metropolis–Hastings acceptance probability of the proposal, in [0, 1]. */
  readonly acceptProbability: number;
  /** Density evaluations this step cost; a gradient evaluation counts as one. */
  readonly evaluations: number;
  /**
   * True when the step diverged: a trajectory's energy error exceeded the kernel's threshold, or a
   * proposal's log density was NaN or +∞ or its gradient had a non-finite entry. The divergent
   * proposal is rejected (NUTS draws from the part of its trajectory built before it); a divergence
   * is counted, never thrown.
   */
  readonly divergent?: boolean;
  /** True when a NUTS trajectory stopped at its maximum tree depth rather than by turning back. */
  readonly treeDepthLimited?: boolean;
}

/**
 * A kernel that tunes itself during warm-up (step size, proposal scale, mass matrix).
 * `runChain` calls `adapt` after every warm-up step and `endWarmup` once, after which the
 * kernel is fixed, so the kept draws come from a time-homogeneous Markov chain.
 */
export interface AdaptiveKernel<S, I> extends Kernel<S, I> {
  adapt(state: S, info: I, iteration: number, warmup: number): void;
  endWarmup(): void;
}

/** True when `kernel` tunes itself during warm-up. */
export function isAdaptive<S, I>(kernel: Kernel<S, I>): kernel is AdaptiveKernel<S, I> {
  const k = kernel as Partial<AdaptiveKernel<S, I>>;
  return typeof k.adapt === "function" && typeof k.endWarmup === "function";
}
