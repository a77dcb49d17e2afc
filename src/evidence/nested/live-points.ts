/**
 * The points nested sampling carries: the space its moves work in (the unit cube of a prior transform,
 * or θ itself), the likelihood with its evaluation count, the live set, and the record of dead points
 * (with the thread each belongs to) over which the evidence is summed.
 */
import { OccamError } from "../../errors.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { showPoint } from "../checks.js";

/**
 * Where the sampler moves points. With a prior transform the space is the open unit cube, where the
 * prior is uniform, and θ = F⁻¹(u); without one it is θ itself, where the prior has density p(θ).
 */
export interface PointSpace {
  readonly dim: number;
  readonly kind: "cube" | "theta";
  /**
   * log density, up to a constant, of the prior in this space: 0 inside the open cube and −∞ outside
   * it, or log p(θ). A slice move samples it restricted to L > L*.
   */
  logDensity(x: Float64Array): number;
  /**
   * Writes y = x + t · dir and returns {@link logDensity} there. The slice moves' innermost step: the
   * cube stops at the first coordinate outside it, leaving y unfinished, since the point is discarded.
   */
  along(x: Float64Array, dir: Float64Array, t: number, y: Float64Array): number;
  /** Writes θ for the position x (the transform, or a copy). */
  toTheta(x: Float64Array, theta: Float64Array): void;
  /** Writes a draw from the prior: u uniform in the open cube, or `samplePrior`. */
  draw(rng: Rng, x: Float64Array): void;
  /**
   * Throws when θ (the image of position x) lies outside the prior's support, or its log prior is not
   * a number: the transform, or `samplePrior`, does not describe the prior.
   */
  checkSupport(x: Float64Array, theta: Float64Array): void;
}

/** A uniform variate in the open interval (0, 1): the cube is open, so 0 is drawn again. */
export function openUniform(rng: Rng): number {
  let u = rng.uniform();
  while (u === 0) u = rng.uniform();
  return u;
}

/** True when every coordinate lies strictly inside (0, 1). */
export function insideCube(x: Float64Array): boolean {
  for (let j = 0; j < x.length; j++) if (!(x[j] > 0 && x[j] < 1)) return false;
  return true;
}

/**
 * The point space of `model`: the unit cube when it has a `priorTransform` (checked here for its
 * output's length), else θ with draws from `samplePrior`.
 */
export function pointSpace(model: BayesModel, where: string): PointSpace {
  const d = model.dim;
  const transform = model.priorTransform;
  const support = (x: Float64Array, theta: Float64Array): void => {
    const lp = model.logPrior(theta);
    if (lp > Number.NEGATIVE_INFINITY && lp < Number.POSITIVE_INFINITY) return;
    if (transform !== undefined) {
      throw new OccamError(
        Number.isNaN(lp) ? "non-finite" : "invalid-argument",
        `${where}: model.priorTransform maps u = ${showPoint(x)} to θ = ${showPoint(theta)}, where model.logPrior is ${lp}; ` +
          "the transform must map the open unit cube onto the prior's support (θ = F⁻¹(u) with F the prior's distribution function).",
      );
    }
    throw new OccamError(
      "non-finite",
      `${where}: model.logPrior is ${lp} at θ = ${showPoint(theta)}, a prior draw; samplePrior and logPrior must describe the same prior.`,
    );
  };
  if (transform !== undefined) {
    if (typeof transform !== "function") {
      throw new OccamError(
        "invalid-argument",
        `${where}: model.priorTransform must be a function (u, out) => out.`,
      );
    }
    const probe = transform.call(model, new Float64Array(d).fill(0.5), new Float64Array(d));
    if (!(probe instanceof Float64Array) || probe.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}: model.priorTransform must write θ into out and return it, a Float64Array of length ${d} (model.dim); ` +
          `it returned ${probe instanceof Float64Array ? `one of length ${probe.length}` : String(probe)}.`,
      );
    }
    return {
      dim: d,
      kind: "cube",
      logDensity: (x) => (insideCube(x) ? 0 : Number.NEGATIVE_INFINITY),
      along(x, dir, t, y) {
        for (let j = 0; j < d; j++) {
          const value = x[j] + t * dir[j];
          if (!(value > 0 && value < 1)) return Number.NEGATIVE_INFINITY;
          y[j] = value;
        }
        return 0;
      },
      toTheta(x, theta) {
        const out = transform.call(model, x, theta);
        if (out !== theta) theta.set(out);
      },
      draw(rng, x) {
        for (let j = 0; j < d; j++) x[j] = openUniform(rng);
      },
      checkSupport: support,
    };
  }
  if (typeof model.samplePrior !== "function") {
    throw new OccamError(
      "invalid-argument",
      `${where}: the model needs a priorTransform or a samplePrior to draw its live points from.`,
    );
  }
  return {
    dim: d,
    kind: "theta",
    logDensity(x) {
      const lp = model.logPrior(x);
      if (Number.isNaN(lp)) {
        throw new OccamError("non-finite", `${where}: model.logPrior is NaN at θ = ${showPoint(x)}.`);
      }
      return lp;
    },
    along(x, dir, t, y) {
      for (let j = 0; j < d; j++) y[j] = x[j] + t * dir[j];
      return this.logDensity(y);
    },
    toTheta(x, theta) {
      theta.set(x);
    },
    draw(rng, x) {
      const theta = model.samplePrior(rng);
      if (!(theta instanceof Float64Array) || theta.length !== d) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}: model.samplePrior must return a Float64Array of length ${d} (model.dim).`,
        );
      }
      x.set(theta);
    },
    checkSupport: support,
  };
}

/**
 * The model's log likelihood with a count of its evaluations. NaN or +∞ (a model that overflows in its
 * prior's tail) is counted in `nonFinite` and taken as a zero likelihood, so the point is never kept.
 */
export class Likelihood {
  /** Number of evaluations so far. */
  evaluations = 0;
  /** Evaluations that gave NaN or +∞. */
  nonFinite = 0;
  /** Live points drawn from the whole prior, and how many of them gave NaN or +∞. */
  priorDraws = 0;
  nonFinitePriorDraws = 0;

  constructor(private readonly model: BayesModel) {}

  /** {@link evaluate} at a live point drawn from the whole prior, counted apart. */
  evaluatePriorDraw(theta: Float64Array): number {
    const nonFinite = this.nonFinite;
    const value = this.evaluate(theta);
    this.priorDraws++;
    this.nonFinitePriorDraws += this.nonFinite - nonFinite;
    return value;
  }

  /** log L(θ), counted; −∞ for NaN or +∞ (counted in `nonFinite`). */
  evaluate(theta: Float64Array): number {
    const value = this.model.logLikelihood(theta);
    this.evaluations++;
    if (value < Number.POSITIVE_INFINITY) return value;
    this.nonFinite++;
    return Number.NEGATIVE_INFINITY;
  }
}

/**
 * The live set: K points, each with its position in the sampler's space, θ, its log likelihood and
 * the thread it continues (a thread is the chain of points that replaced one another).
 */
export class LiveSet {
  readonly positions: Float64Array;
  readonly thetas: Float64Array;
  readonly logL: Float64Array;
  readonly thread: Int32Array;

  constructor(
    readonly size: number,
    readonly dim: number,
  ) {
    this.positions = new Float64Array(size * dim);
    this.thetas = new Float64Array(size * dim);
    this.logL = new Float64Array(size);
    this.thread = new Int32Array(size);
  }

  /** Position of point i (a view). */
  position(i: number): Float64Array {
    return this.positions.subarray(i * this.dim, (i + 1) * this.dim);
  }

  /** θ of point i (a view). */
  theta(i: number): Float64Array {
    return this.thetas.subarray(i * this.dim, (i + 1) * this.dim);
  }

  set(i: number, x: Float64Array, theta: Float64Array, logL: number, thread: number): void {
    this.positions.set(x, i * this.dim);
    this.thetas.set(theta, i * this.dim);
    this.logL[i] = logL;
    this.thread[i] = thread;
  }

  /** Index of the lowest log likelihood (the first of equals). */
  worst(): number {
    const logL = this.logL;
    let w = 0;
    for (let i = 1; i < this.size; i++) if (logL[i] < logL[w]) w = i;
    return w;
  }

  /** The highest log likelihood. */
  maxLogL(): number {
    let m = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < this.size; i++) if (this.logL[i] > m) m = this.logL[i];
    return m;
  }
}

/** Grows a typed array to at least `needed` entries (doubling), copying the old contents. */
function grow<T extends Float64Array | Int32Array>(array: T, needed: number, make: (n: number) => T): T {
  if (needed <= array.length) return array;
  const next = make(Math.max(needed, 2 * array.length));
  next.set(array);
  return next;
}

/**
 * The dead points in the order they died (a dynamic run appends each batch's after the last), with
 * their threads, and each thread's birth: the log-likelihood bound its first point was drawn above
 * (−∞ for a thread started from the prior) and the batch it belongs to.
 */
export class DeadPoints {
  count = 0;
  logL = new Float64Array(1024);
  thread = new Int32Array(1024);
  /** Likelihood evaluations spent on the iteration that killed the point (0 for the final live points). */
  evaluations = new Int32Array(1024);
  positions: Float64Array;
  thetas: Float64Array;
  threadCount = 0;
  threadBirth = new Float64Array(1024);
  threadGroup = new Int32Array(1024);

  constructor(readonly dim: number) {
    this.positions = new Float64Array(1024 * dim);
    this.thetas = new Float64Array(1024 * dim);
  }

  /** Starts `n` threads born above `birthLogL` in batch `group`; returns the first one's id. */
  addThreads(n: number, birthLogL: number, group: number): number {
    const first = this.threadCount;
    this.threadBirth = grow(this.threadBirth, first + n, (m) => new Float64Array(m));
    this.threadGroup = grow(this.threadGroup, first + n, (m) => new Int32Array(m));
    this.threadBirth.fill(birthLogL, first, first + n);
    this.threadGroup.fill(group, first, first + n);
    this.threadCount += n;
    return first;
  }

  /** Records live point i of `live` as dead; returns its index. */
  push(live: LiveSet, i: number, evaluations: number): number {
    const k = this.count;
    const d = this.dim;
    if (k === this.logL.length) {
      this.logL = grow(this.logL, k + 1, (m) => new Float64Array(m));
      this.thread = grow(this.thread, k + 1, (m) => new Int32Array(m));
      this.evaluations = grow(this.evaluations, k + 1, (m) => new Int32Array(m));
      this.positions = grow(this.positions, (k + 1) * d, (m) => new Float64Array(m));
      this.thetas = grow(this.thetas, (k + 1) * d, (m) => new Float64Array(m));
    }
    this.logL[k] = live.logL[i];
    this.thread[k] = live.thread[i];
    this.evaluations[k] = evaluations;
    this.positions.set(live.position(i), k * d);
    this.thetas.set(live.theta(i), k * d);
    this.count = k + 1;
    return k;
  }
}
