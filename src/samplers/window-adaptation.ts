/**
 * Stan's warm-up for Hamiltonian samplers as its own algorithm (blackjax's `window_adaptation`): it
 * watches the chain and hands the kernel its parameters, a step size and a metric. The step size
 * follows dual averaging towards a target acceptance; the metric is re-estimated at the end of each
 * slow window (the posterior variances, or with `dense` the covariance), regularised towards a small
 * multiple of the identity; after each new metric the kernel searches a step size again and dual
 * averaging restarts from it. After warm-up the averaged step size ε̄ and the last metric stay.
 */
import { checkInteger, OccamError } from "../errors.js";
import {
  DualAveraging,
  type DualAveragingOptions,
  WindowedVarianceAdaptation,
  type WindowOptions,
} from "./adaptation.js";
import { denseMetric, diagonalMetric, type Metric } from "./metric.js";

/** Options of {@link WindowAdaptation}. */
export interface WindowAdaptationOptions {
  /** The acceptance probability dual averaging aims for. @defaultValue 0.8 */
  targetAccept?: number;
  /** γ, t₀ and κ of dual averaging. @defaultValue `{ gamma: 0.05, t0: 10, kappa: 0.75 }` */
  dualAveraging?: Omit<DualAveragingOptions, "targetAccept">;
  /** Estimate a dense metric (the covariance) rather than a diagonal one (the variances). @defaultValue false */
  dense?: boolean;
  /** The buffers of the windows. @defaultValue `{ initBuffer: 75, termBuffer: 50, baseWindow: 25 }` */
  windows?: WindowOptions;
}

/** The warm-up's state: the parameters it hands the kernel, updated after every warm-up iteration. */
export class WindowAdaptation {
  /** The step size the kernel should use now. */
  stepSize: number;
  /** The metric the kernel should use now (diagonal and the identity until the first window ends). */
  metric: Metric;
  private readonly dim: number;
  private readonly dense: boolean;
  private readonly dual: DualAveraging;
  private readonly windows: WindowedVarianceAdaptation;
  /** The windows' estimate: d variances (held by the diagonal metric), or d × d covariances. */
  private readonly estimate: Float64Array;

  constructor(dim: number, warmup: number, stepSize: number, options: WindowAdaptationOptions = {}) {
    checkInteger(dim, "window adaptation dim", 1);
    this.dim = dim;
    this.dense = options.dense ?? false;
    this.stepSize = stepSize;
    this.dual = new DualAveraging(stepSize, {
      ...options.dualAveraging,
      targetAccept: options.targetAccept ?? 0.8,
    });
    this.windows = new WindowedVarianceAdaptation(dim, warmup, options.windows, this.dense);
    const variances = new Float64Array(dim).fill(1);
    this.metric = diagonalMetric(variances);
    this.estimate = this.dense ? new Float64Array(dim * dim) : variances;
  }

  /** Starts dual averaging again from a step size the kernel searched for (at the start, after each window). */
  restart(stepSize: number): void {
    this.stepSize = stepSize;
    this.dual.restart(stepSize);
  }

  /**
   * Feeds warm-up iteration `iteration` (0-based): the position it ended at and its acceptance
   * probability. Returns true when a slow window ended with a new metric: the kernel should then
   * search a step size again and {@link restart}.
   */
  update(position: Float64Array, acceptProbability: number, iteration: number): boolean {
    this.stepSize = this.dual.update(acceptProbability);
    if (!this.windows.update(iteration, position, this.estimate)) return false;
    if (!this.dense) return true;
    try {
      this.metric = denseMetric(this.estimate, this.dim);
    } catch (error) {
      if (!(error instanceof OccamError)) throw error;
      // A window too short to resolve every direction: keep the last metric.
      return false;
    }
    return true;
  }

  /** Ends warm-up: the averaged step size ε̄ stays. */
  finish(): void {
    if (this.dual.iterations > 0) this.stepSize = this.dual.finalStepSize;
  }
}
