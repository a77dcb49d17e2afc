/**
 * Stan's warm-up for Hamiltonian kernels as its own algorithm (blackjax's `window_adaptation`): it runs
 * a chain with the kernel's step at the parameters found so far and hands back the kernel built from
 * the tuned ones. The step size follows dual averaging towards a target acceptance; the metric is
 * re-estimated at the end of each slow window (the posterior variances, or with `dense` the
 * covariance), regularised towards a small multiple of the identity; before the first step and after
 * each new metric the step size is searched again (Stan's `init_stepsize`) and dual averaging restarts
 * from it. After warm-up the averaged step size ε̄ and the last metric stay.
 */
import { invalidArgument, OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import {
  DualAveraging,
  type DualAveragingOptions,
  WindowedVarianceAdaptation,
  type WindowOptions,
  windowedSchedule,
} from "./adaptation.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "./kernel.js";
import { denseMetric, diagonalMetric, type Metric } from "./metric.js";

/**
 * A Hamiltonian kernel's step with its parameters as arguments (blackjax's `build_kernel`), in scratch
 * buffers made once; the step-size search its warm-up runs; and the kernel built from fixed parameters.
 */
export interface HamiltonianTransition<S extends PositionState, I extends StepInfo, K extends Kernel<S, I>> {
  readonly dim: number;
  init(position: Float64Array): S;
  step(rng: Rng, state: S, stepSize: number, metric: Metric): { state: S; info: I };
  /** Stan's step-size search from `stepSize` at `state`, and the gradient evaluations it spent. */
  searchStepSize(
    rng: Rng,
    state: S,
    stepSize: number,
    metric: Metric,
  ): { stepSize: number; evaluations: number };
  /** The kernel with these parameters, fixed. */
  build(stepSize: number, metric: Metric): K;
}

/** Options of {@link windowAdaptation}. */
export interface WindowAdaptationOptions {
  /** Adapt the step size by dual averaging (else keep the one given). @defaultValue true */
  adaptStepSize?: boolean;
  /** Estimate the metric in Stan's slow windows (else keep the one given). @defaultValue true */
  adaptMetric?: boolean;
  /** The acceptance probability dual averaging aims for (Stan's `adapt_delta`). @defaultValue 0.8 */
  targetAccept?: number;
  /** γ, t₀ and κ of dual averaging. @defaultValue `{ gamma: 0.05, t0: 10, kappa: 0.75 }` */
  dualAveraging?: Omit<DualAveragingOptions, "targetAccept">;
  /** Estimate a dense metric (the covariance) rather than a diagonal one (the variances). @defaultValue false */
  dense?: boolean;
  /** The buffers of the windows. @defaultValue `{ initBuffer: 75, termBuffer: 50, baseWindow: 25 }` */
  windows?: WindowOptions;
}

/**
 * Stan's windowed warm-up of `transition`, starting from `stepSize` and `metric`: each chain's warm-up
 * tunes its own step size and metric, and `finish` returns `transition.build` of them. Options are
 * checked here, not at the first step.
 */
export function windowAdaptation<S extends PositionState, I extends StepInfo, K extends Kernel<S, I>>(
  where: string,
  transition: HamiltonianTransition<S, I, K>,
  stepSize: number,
  metric: Metric,
  options: WindowAdaptationOptions = {},
): Adaptation<S, I, K> {
  const adaptStepSize = options.adaptStepSize ?? true;
  const adaptMetric = options.adaptMetric ?? true;
  const dense = options.dense ?? false;
  if (dense && !adaptMetric) {
    throw invalidArgument(
      where,
      "dense: true asks warm-up to estimate a dense metric, which adaptMetric: false turns off.",
    );
  }
  const dualOptions = { ...options.dualAveraging, targetAccept: options.targetAccept ?? 0.8 };
  // Both checked now rather than at the first warm-up step.
  new DualAveraging(stepSize, dualOptions);
  windowedSchedule(1000, options.windows);
  const { dim } = transition;
  return {
    init: (position) => transition.init(position),
    start(iterations) {
      let eps = stepSize;
      let current = metric;
      const dual = new DualAveraging(stepSize, dualOptions);
      const windows = adaptMetric
        ? new WindowedVarianceAdaptation(dim, iterations, options.windows, dense)
        : undefined;
      const estimate = new Float64Array(dense ? dim * dim : dim);
      let searchPending = adaptStepSize;
      let iteration = 0;
      return {
        step(rng, state) {
          let searched = 0;
          if (searchPending) {
            searchPending = false;
            const found = transition.searchStepSize(rng, state, eps, current);
            eps = found.stepSize;
            searched = found.evaluations;
            dual.restart(eps);
          }
          const result = transition.step(rng, state, eps, current);
          if (adaptStepSize) eps = dual.update(result.info.acceptProbability);
          if (windows?.update(iteration, result.state.position, estimate)) {
            const next = newMetric(estimate, dim, dense);
            if (next !== undefined) {
              current = next;
              searchPending = adaptStepSize;
            }
          }
          iteration++;
          if (searched === 0) return result;
          return {
            state: result.state,
            info: { ...result.info, evaluations: result.info.evaluations + searched },
          };
        },
        finish() {
          return transition.build(adaptStepSize && dual.iterations > 0 ? dual.finalStepSize : eps, current);
        },
      };
    },
  };
}

/**
 * The metric of a window's estimate (copied: the estimate's buffer is reused by the next window), or
 * undefined when a dense estimate from a window too short to resolve every direction is not positive
 * definite: the last metric is kept.
 */
function newMetric(estimate: Float64Array, dim: number, dense: boolean): Metric | undefined {
  if (!dense) return diagonalMetric(Float64Array.from(estimate));
  try {
    return denseMetric(estimate, dim);
  } catch (error) {
    if (!(error instanceof OccamError)) throw error;
    return undefined;
  }
}
