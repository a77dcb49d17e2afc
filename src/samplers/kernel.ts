import type { Rng } from "../random/rng.js";

/**
 * A Markov (or independent) transition kernel, as in blackjax: built from its parameters (a step size,
 * a metric, a scale), which it never changes; `init` builds the state at a position, `step` moves it.
 * The state holds only what the next step needs; what a step learned goes in `info`. Tuning the
 * parameters is an {@link Adaptation}'s work.
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
 * Warm-up as its own algorithm, apart from the kernel it tunes (blackjax's `window_adaptation`): for
 * each chain, `start` begins a warm-up whose steps run the kernel with the parameters found so far and
 * then update them from what the step did; `finish` returns the kernel built from the tuned parameters,
 * fixed, so that the kept draws come from a time-homogeneous Markov chain. `runChain` drives it.
 */
export interface Adaptation<S, I, K extends Kernel<S, I> = Kernel<S, I>> {
  /** The state at a starting point, as the tuned kernel's `init` builds it. */
  init(position: Float64Array): S;
  /** One chain's warm-up of `iterations` steps, with its own tuning. */
  start(iterations: number): WarmupRun<S, I, K>;
}

/** One chain's warm-up under way (see {@link Adaptation}). */
export interface WarmupRun<S, I, K extends Kernel<S, I> = Kernel<S, I>> {
  /** A step with the current parameters, which it then updates; its info counts any tuning evaluations. */
  step(rng: Rng, state: S): { state: S; info: I };
  /** Ends the warm-up: the kernel built from the tuned parameters. */
  finish(): K;
}

/** True when `sampler` is a warm-up algorithm rather than a kernel. */
export function isAdaptation<S, I>(sampler: Kernel<S, I> | Adaptation<S, I>): sampler is Adaptation<S, I> {
  return typeof (sampler as Partial<Adaptation<S, I>>).start === "function";
}

/** True when `value` is a kernel (`init` and `step`) or a warm-up (`init` and `start`): what runChain runs. */
export function isKernelOrAdaptation(
  value: unknown,
): value is Kernel<unknown, unknown> | Adaptation<unknown, unknown> {
  if (value === null || typeof value !== "object") return false;
  const k = value as Partial<Kernel<unknown, unknown> & Adaptation<unknown, unknown>>;
  return typeof k.init === "function" && (typeof k.step === "function" || typeof k.start === "function");
}

/**
 * `adaptation`, telling `watch.step` what each warm-up step did and `watch.tuned` each chain's tuned
 * kernel: how a caller carries the tuning on, or counts what warm-up did.
 */
export function watchWarmup<S, I, K extends Kernel<S, I>>(
  adaptation: Adaptation<S, I, K>,
  watch: { readonly step?: (info: I) => void; readonly tuned?: (kernel: K) => void },
): Adaptation<S, I, K> {
  return {
    init: (position) => adaptation.init(position),
    start(iterations) {
      const run = adaptation.start(iterations);
      return {
        step(rng, state) {
          const result = run.step(rng, state);
          watch.step?.(result.info);
          return result;
        },
        finish() {
          const kernel = run.finish();
          watch.tuned?.(kernel);
          return kernel;
        },
      };
    },
  };
}
