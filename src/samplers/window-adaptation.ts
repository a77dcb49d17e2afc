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
  WelfordVariance,
  type WindowedSchedule,
  type WindowOptions,
  windowedSchedule,
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

/** Welford's running mean and covariance of vectors (the dense metric's estimate). */
class WelfordCovariance {
  private readonly mean: Float64Array;
  private readonly m2: Float64Array;
  private readonly delta: Float64Array;
  count = 0;

  constructor(private readonly dim: number) {
    this.mean = new Float64Array(dim);
    this.m2 = new Float64Array(dim * dim);
    this.delta = new Float64Array(dim);
  }

  add(x: Float64Array): void {
    const d = this.dim;
    this.count++;
    for (let i = 0; i < d; i++) {
      this.delta[i] = x[i] - this.mean[i];
      this.mean[i] += this.delta[i] / this.count;
    }
    for (let i = 0; i < d; i++) {
      const after = x[i] - this.mean[i];
      for (let j = 0; j < d; j++) this.m2[i * d + j] += after * this.delta[j];
    }
  }

  /** The sample covariance (n − 1 denominator), symmetrised, into `out`. */
  covariance(out: Float64Array): void {
    const d = this.dim;
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < d; j++)
        out[i * d + j] = (0.5 * (this.m2[i * d + j] + this.m2[j * d + i])) / (this.count - 1);
    }
  }

  reset(): void {
    this.count = 0;
    this.mean.fill(0);
    this.m2.fill(0);
  }
}

/** The warm-up's state: the parameters it hands the kernel, updated after every warm-up iteration. */
export class WindowAdaptation {
  /** The step size the kernel should use now. */
  stepSize: number;
  /** The metric the kernel should use now. */
  metric: Metric;
  private readonly dim: number;
  private readonly dense: boolean;
  private readonly dual: DualAveraging;
  private readonly schedule: WindowedSchedule;
  private readonly variances: Float64Array;
  private readonly diagonal: WelfordVariance;
  private readonly full: WelfordCovariance | undefined;
  private window = 0;

  constructor(dim: number, warmup: number, stepSize: number, options: WindowAdaptationOptions = {}) {
    checkInteger(dim, "window adaptation dim", 1);
    this.dim = dim;
    this.dense = options.dense ?? false;
    this.stepSize = stepSize;
    this.dual = new DualAveraging(stepSize, {
      ...options.dualAveraging,
      targetAccept: options.targetAccept ?? 0.8,
    });
    this.schedule = windowedSchedule(warmup, options.windows);
    this.variances = new Float64Array(dim).fill(1);
    this.metric = diagonalMetric(this.variances);
    this.diagonal = new WelfordVariance(dim);
    this.full = this.dense ? new WelfordCovariance(dim) : undefined;
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
    const windows = this.schedule.windows;
    if (this.window >= windows.length) return false;
    const [start, end] = windows[this.window];
    if (iteration < start) return false;
    if (this.full === undefined) this.diagonal.add(position);
    else this.full.add(position);
    if (iteration < end) return false;
    this.window++;
    return this.full === undefined ? this.newDiagonal() : this.newDense(this.full);
  }

  /** Ends warm-up: the averaged step size ε̄ stays. */
  finish(): void {
    if (this.dual.iterations > 0) this.stepSize = this.dual.finalStepSize;
  }

  /** Stan's regularised variances, (n/(n + 5)) var + 10⁻³ · 5/(n + 5). */
  private newDiagonal(): boolean {
    const n = this.diagonal.count;
    if (n < 2) {
      this.diagonal.reset();
      return false;
    }
    this.diagonal.variance(this.variances);
    const shrink = n / (n + 5);
    const floor = 1e-3 * (5 / (n + 5));
    for (let i = 0; i < this.dim; i++) this.variances[i] = shrink * this.variances[i] + floor;
    this.diagonal.reset();
    return true;
  }

  /** Stan's regularised covariance, (n/(n + 5)) Σ + 10⁻³ · 5/(n + 5) I. */
  private newDense(full: WelfordCovariance): boolean {
    const n = full.count;
    const d = this.dim;
    if (n < 2) {
      full.reset();
      return false;
    }
    const covariance = new Float64Array(d * d);
    full.covariance(covariance);
    const shrink = n / (n + 5);
    const floor = 1e-3 * (5 / (n + 5));
    for (let k = 0; k < d * d; k++) covariance[k] *= shrink;
    for (let i = 0; i < d; i++) covariance[i * d + i] += floor;
    full.reset();
    try {
      this.metric = denseMetric(covariance, d);
    } catch (error) {
      if (!(error instanceof OccamError)) throw error;
      // A window too short to resolve d dimensions: keep the last metric.
      return false;
    }
    return true;
  }
}
