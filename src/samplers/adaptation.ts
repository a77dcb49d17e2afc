/**
 * Warm-up adaptation shared by the gradient and random-walk kernels: dual averaging of a step size
 * (Hoffman & Gelman 2014, algorithm 5), Robbins–Monro scale adaptation, a Welford running variance and
 * Stan's windowed warm-up schedule for a diagonal mass matrix.
 */
import { checkInteger, checkPositive, OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import type { Adaptation, Kernel, StepInfo } from "./kernel.js";

/** Options of {@link DualAveraging}. */
export interface DualAveragingOptions {
  /**
   * The acceptance probability to aim for.
   * @defaultValue 0.8
   */
  targetAccept?: number;
  /**
   * γ, how strongly the iterates shrink towards μ.
   * @defaultValue 0.05
   */
  gamma?: number;
  /**
   * t₀, which damps the first iterations.
   * @defaultValue 10
   */
  t0?: number;
  /**
   * κ ∈ (0.5, 1], the decay of the averaging weights m^{−κ}.
   * @defaultValue 0.75
   */
  kappa?: number;
}

function checkProbability(value: number, name: string): void {
  if (!(value > 0 && value < 1)) {
    throw new OccamError("invalid-argument", `${name} must lie strictly between 0 and 1, got ${value}.`);
  }
}

function checkAcceptProbability(alpha: number, where: string): void {
  if (!(alpha >= 0 && alpha <= 1)) {
    throw new OccamError("internal", `${where}: acceptance probability must lie in [0, 1], got ${alpha}.`);
  }
}

/**
 * Dual averaging of the log step size (Hoffman & Gelman 2014, algorithm 5):
 * H̄ₘ = (1 − 1/(m + t₀)) H̄ₘ₋₁ + (δ − αₘ)/(m + t₀), log εₘ = μ − √m H̄ₘ / γ,
 * log ε̄ₘ = m^{−κ} log εₘ + (1 − m^{−κ}) log ε̄ₘ₋₁, with μ = log(10 ε₀).
 * Use `stepSize` during warm-up and `finalStepSize` (ε̄) afterwards.
 */
export class DualAveraging {
  /** δ, the target acceptance probability. */
  readonly targetAccept: number;
  private readonly gamma: number;
  private readonly t0: number;
  private readonly kappa: number;
  private mu = 0;
  private hBar = 0;
  private logStepSize = 0;
  private logStepSizeBar = 0;
  private m = 0;

  constructor(initialStepSize: number, options: DualAveragingOptions = {}) {
    this.targetAccept = options.targetAccept ?? 0.8;
    this.gamma = options.gamma ?? 0.05;
    this.t0 = options.t0 ?? 10;
    this.kappa = options.kappa ?? 0.75;
    checkProbability(this.targetAccept, "dual averaging targetAccept");
    checkPositive(this.gamma, "dual averaging gamma");
    if (!(this.t0 >= 0 && Number.isFinite(this.t0))) {
      throw new OccamError("invalid-argument", `dual averaging t0 must be finite and ≥ 0, got ${this.t0}.`);
    }
    if (!(this.kappa > 0.5 && this.kappa <= 1)) {
      throw new OccamError(
        "invalid-argument",
        `dual averaging kappa must lie in (0.5, 1], got ${this.kappa}.`,
      );
    }
    this.restart(initialStepSize);
  }

  /** Restarts the averaging from `stepSize`, with μ = log(10 · stepSize), as Stan does after each window. */
  restart(stepSize: number): void {
    checkPositive(stepSize, "dual averaging initial step size");
    this.mu = Math.log(10 * stepSize);
    this.hBar = 0;
    this.logStepSize = Math.log(stepSize);
    this.logStepSizeBar = 0;
    this.m = 0;
  }

  /** Feeds the acceptance probability of the last step and returns the next step size to use. */
  update(acceptProbability: number): number {
    checkAcceptProbability(acceptProbability, "dual averaging");
    this.m++;
    const m = this.m;
    const eta = 1 / (m + this.t0);
    this.hBar = (1 - eta) * this.hBar + eta * (this.targetAccept - acceptProbability);
    this.logStepSize = this.mu - (Math.sqrt(m) / this.gamma) * this.hBar;
    const w = m ** -this.kappa;
    this.logStepSizeBar = w * this.logStepSize + (1 - w) * this.logStepSizeBar;
    return Math.exp(this.logStepSize);
  }

  /** The step size to use now, during warm-up. */
  get stepSize(): number {
    return Math.exp(this.logStepSize);
  }

  /** The averaged step size ε̄ to keep after warm-up (the current one if nothing was fed yet). */
  get finalStepSize(): number {
    return this.m === 0 ? Math.exp(this.logStepSize) : Math.exp(this.logStepSizeBar);
  }

  /** Updates fed since the last restart. */
  get iterations(): number {
    return this.m;
  }
}

/** Options of {@link RobbinsMonro}. */
export interface RobbinsMonroOptions {
  /**
   * The acceptance probability to aim for.
   * @defaultValue 0.234
   */
  targetAccept?: number;
  /**
   * c in the gain γₙ = c (n + 1)^{−κ}.
   * @defaultValue 1
   */
  gain?: number;
  /**
   * κ ∈ (0.5, 1] in the gain γₙ = c (n + 1)^{−κ}; the gains sum to ∞ and their squares converge.
   * @defaultValue 0.6
   */
  decay?: number;
}

/**
 * Robbins–Monro adaptation of a proposal scale on the log scale (Andrieu & Thoms 2008):
 * log sₙ₊₁ = log sₙ + γₙ (αₙ − α*), with γₙ = c (n + 1)^{−κ}. Feeding the acceptance probability
 * (rather than the 0/1 outcome) lowers the noise. Serves random-walk Metropolis and MALA.
 */
export class RobbinsMonro {
  /** α*, the target acceptance probability. */
  readonly targetAccept: number;
  private readonly gain: number;
  private readonly decay: number;
  private logScale: number;
  private n = 0;

  constructor(initialScale: number, options: RobbinsMonroOptions = {}) {
    checkPositive(initialScale, "Robbins–Monro initial scale");
    this.targetAccept = options.targetAccept ?? 0.234;
    this.gain = options.gain ?? 1;
    this.decay = options.decay ?? 0.6;
    checkProbability(this.targetAccept, "Robbins–Monro targetAccept");
    checkPositive(this.gain, "Robbins–Monro gain");
    if (!(this.decay > 0.5 && this.decay <= 1)) {
      throw new OccamError(
        "invalid-argument",
        `Robbins–Monro decay must lie in (0.5, 1], got ${this.decay}.`,
      );
    }
    this.logScale = Math.log(initialScale);
  }

  /** Feeds the acceptance probability of the last step and returns the scale to use next. */
  update(acceptProbability: number): number {
    checkAcceptProbability(acceptProbability, "Robbins–Monro");
    this.n++;
    this.logScale += this.gain * this.n ** -this.decay * (acceptProbability - this.targetAccept);
    return Math.exp(this.logScale);
  }

  /** The current scale. */
  get scale(): number {
    return Math.exp(this.logScale);
  }
}

/** A kernel's step with one scale parameter as an argument, and the kernel built from a fixed scale. */
export interface ScaledTransition<S, I extends StepInfo, K extends Kernel<S, I>> {
  init(position: Float64Array): S;
  step(rng: Rng, state: S, scale: number): { state: S; info: I };
  build(scale: number): K;
}

/**
 * Robbins–Monro warm-up of one scale (MALA's step size, a random walk's scale factor) as an
 * {@link Adaptation}: each warm-up step runs the transition at the current scale, then moves the scale
 * by the step's acceptance probability; the kept draws use the last scale, fixed.
 */
export function robbinsMonroWarmup<S, I extends StepInfo, K extends Kernel<S, I>>(
  transition: ScaledTransition<S, I, K>,
  initialScale: number,
  options: RobbinsMonroOptions,
): Adaptation<S, I, K> {
  // Checked now rather than at the first warm-up step.
  new RobbinsMonro(initialScale, options);
  return {
    init: (position) => transition.init(position),
    start() {
      const adapter = new RobbinsMonro(initialScale, options);
      let scale = initialScale;
      return {
        step(rng, state) {
          const result = transition.step(rng, state, scale);
          scale = adapter.update(result.info.acceptProbability);
          return result;
        },
        finish: () => transition.build(scale),
      };
    },
  };
}

/** Welford's one-pass running mean and variance of vectors, numerically stable. */
export class WelfordVariance {
  /** The dimension of the vectors. */
  readonly dim: number;
  private readonly runningMean: Float64Array;
  private readonly m2: Float64Array;
  private n = 0;

  constructor(dim: number) {
    checkInteger(dim, "Welford dimension", 1);
    this.dim = dim;
    this.runningMean = new Float64Array(dim);
    this.m2 = new Float64Array(dim);
  }

  /** Adds one vector. */
  add(x: Float64Array): void {
    if (x.length !== this.dim) {
      throw new OccamError(
        "dimension-mismatch",
        `Welford variance of dimension ${this.dim} was given a vector of length ${x.length}.`,
      );
    }
    this.n++;
    const inv = 1 / this.n;
    const mean = this.runningMean;
    const m2 = this.m2;
    for (let i = 0; i < this.dim; i++) {
      const delta = x[i] - mean[i];
      mean[i] += delta * inv;
      m2[i] += delta * (x[i] - mean[i]);
    }
  }

  /** Vectors added since the last reset. */
  get count(): number {
    return this.n;
  }

  /** Writes the running mean into `out` (allocated when omitted) and returns it. */
  mean(out: Float64Array = new Float64Array(this.dim)): Float64Array {
    out.set(this.runningMean);
    return out;
  }

  /** Writes the sample variance (denominator n − 1) into `out`; needs at least two vectors. */
  variance(out: Float64Array = new Float64Array(this.dim)): Float64Array {
    if (this.n < 2) {
      throw new OccamError("internal", `a sample variance needs at least 2 vectors, got ${this.n}.`);
    }
    for (let i = 0; i < this.dim; i++) out[i] = this.m2[i] / (this.n - 1);
    return out;
  }

  /** Forgets every vector added. */
  reset(): void {
    this.n = 0;
    this.runningMean.fill(0);
    this.m2.fill(0);
  }
}

/** Options of {@link windowedSchedule}: the buffers of Stan's warm-up, in iterations. */
export interface WindowOptions {
  /**
   * The initial fast window: step size only, while the chain finds the typical set.
   * @defaultValue 75
   */
  initBuffer?: number;
  /**
   * The terminal fast window: step size only, for the final mass matrix.
   * @defaultValue 50
   */
  termBuffer?: number;
  /**
   * The first slow window; each following one doubles, and the last stretches to the terminal buffer.
   * @defaultValue 25
   */
  baseWindow?: number;
}

/** Stan's warm-up plan: slow windows, each collecting draws for one mass-matrix estimate. */
export interface WindowedSchedule {
  readonly warmup: number;
  readonly initBuffer: number;
  readonly termBuffer: number;
  /** The slow windows as inclusive iteration ranges [start, end]; empty when warm-up is too short. */
  readonly windows: readonly (readonly [number, number])[];
}

/**
 * Stan's windowed warm-up schedule. When the three buffers do not fit into `warmup`, the initial and
 * terminal buffers become 15% and 10% of warm-up and a single slow window fills the rest; below
 * 20 warm-up iterations there are no slow windows. Each slow window doubles the last, and a window
 * that would leave less than twice its size before the terminal buffer swallows the remainder.
 * With warmup = 1000: windows [75, 99], [100, 149], [150, 249], [250, 449], [450, 949].
 */
export function windowedSchedule(warmup: number, options: WindowOptions = {}): WindowedSchedule {
  checkInteger(warmup, "warmup", 0);
  let initBuffer = options.initBuffer ?? 75;
  let termBuffer = options.termBuffer ?? 50;
  let baseWindow = options.baseWindow ?? 25;
  checkInteger(initBuffer, "initBuffer", 0);
  checkInteger(termBuffer, "termBuffer", 0);
  checkInteger(baseWindow, "baseWindow", 1);
  if (warmup < 20) return { warmup, initBuffer: warmup, termBuffer: 0, windows: [] };
  if (initBuffer + baseWindow + termBuffer > warmup) {
    initBuffer = Math.floor(0.15 * warmup);
    termBuffer = Math.floor(0.1 * warmup);
    baseWindow = warmup - (initBuffer + termBuffer);
  }
  // Replays Stan's windowed_adaptation state machine so that the windows match it exactly.
  const lastEnd = warmup - termBuffer - 1;
  const windows: [number, number][] = [];
  let size = baseWindow;
  let next = initBuffer + size - 1;
  let start = initBuffer;
  for (let counter = 0; counter < warmup; counter++) {
    if (counter === next) {
      windows.push([start, counter]);
      start = counter + 1;
      if (next === lastEnd) break;
      size *= 2;
      next = counter + size;
      if (next !== lastEnd && next + 2 * size >= warmup - termBuffer) next = lastEnd;
    }
  }
  return { warmup, initBuffer, termBuffer, windows };
}

/** Welford's one-pass running mean and covariance of vectors (a dense metric's estimate). */
export class WelfordCovariance {
  private readonly runningMean: Float64Array;
  private readonly m2: Float64Array;
  private readonly delta: Float64Array;
  private n = 0;

  constructor(private readonly dim: number) {
    checkInteger(dim, "Welford dimension", 1);
    this.runningMean = new Float64Array(dim);
    this.m2 = new Float64Array(dim * dim);
    this.delta = new Float64Array(dim);
  }

  /** Adds one vector. */
  add(x: Float64Array): void {
    const d = this.dim;
    this.n++;
    for (let i = 0; i < d; i++) {
      this.delta[i] = x[i] - this.runningMean[i];
      this.runningMean[i] += this.delta[i] / this.n;
    }
    for (let i = 0; i < d; i++) {
      const after = x[i] - this.runningMean[i];
      for (let j = 0; j < d; j++) this.m2[i * d + j] += after * this.delta[j];
    }
  }

  /** Vectors added since the last reset. */
  get count(): number {
    return this.n;
  }

  /** Writes the sample covariance (n − 1 denominator, symmetrised) into `out` (d × d, row-major). */
  covariance(out: Float64Array): Float64Array {
    const d = this.dim;
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < d; j++)
        out[i * d + j] = (0.5 * (this.m2[i * d + j] + this.m2[j * d + i])) / (this.n - 1);
    }
    return out;
  }

  /** Forgets every vector added. */
  reset(): void {
    this.n = 0;
    this.runningMean.fill(0);
    this.m2.fill(0);
  }
}

/**
 * Collects positions in Stan's slow windows and, at the end of each, produces Stan's inverse mass
 * matrix: the regularised variances (n/(n + 5)) · var + 10⁻³ · 5/(n + 5), or with `dense` the
 * covariance (n/(n + 5)) · Σ + 10⁻³ · 5/(n + 5) · I, which shrink a short window's estimate towards a
 * small multiple of the identity.
 */
export class WindowedVarianceAdaptation {
  /** The schedule being followed. */
  readonly schedule: WindowedSchedule;
  private readonly welford: WelfordVariance | WelfordCovariance;
  private readonly dim: number;
  private window = 0;

  constructor(dim: number, warmup: number, options: WindowOptions = {}, dense = false) {
    this.dim = dim;
    this.welford = dense ? new WelfordCovariance(dim) : new WelfordVariance(dim);
    this.schedule = windowedSchedule(warmup, options);
  }

  /**
   * Records the position after warm-up iteration `iteration` (0-based). At the end of a slow window
   * writes the new inverse mass matrix into `out` (d variances, or d × d with `dense`) and returns
   * true; otherwise returns false.
   */
  update(iteration: number, position: Float64Array, out: Float64Array): boolean {
    const windows = this.schedule.windows;
    if (this.window >= windows.length) return false;
    const [start, end] = windows[this.window];
    if (iteration < start) return false;
    this.welford.add(position);
    if (iteration < end) return false;
    this.window++;
    const welford = this.welford;
    const n = welford.count;
    if (n < 2) {
      welford.reset();
      return false;
    }
    const shrink = n / (n + 5);
    const floor = 1e-3 * (5 / (n + 5));
    if (welford instanceof WelfordVariance) {
      welford.variance(out);
      for (let i = 0; i < out.length; i++) out[i] = shrink * out[i] + floor;
    } else {
      welford.covariance(out);
      for (let k = 0; k < out.length; k++) out[k] *= shrink;
      for (let i = 0; i < this.dim; i++) out[i * this.dim + i] += floor;
    }
    welford.reset();
    return true;
  }
}
