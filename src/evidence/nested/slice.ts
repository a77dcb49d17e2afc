/**
 * The likelihood-constrained move of nested sampling in high dimension: slice sampling (Neal 2003)
 * along random directions in the metric of the live points' covariance, as PolyChord (Handley, Hobson
 * & Lasenby 2015) and dynesty's "rslice" do. A move starts from a randomly chosen live point (which
 * already lies above L*) and makes `slices` slice steps on the prior restricted to L > L*; the point
 * it ends at replaces the dead one.
 */

import { OccamError } from "../../errors.js";
import { choleskyInPlace } from "../../math/linalg.js";
import { lowerScatter, rowMean } from "../../math/moments.js";
import type { Rng } from "../../random/rng.js";
import { type Likelihood, openUniform, type PointSpace } from "./live-points.js";

/** How a slice move is bounded. */
export interface SliceSettings {
  /** Slice steps per new point. */
  readonly slices: number;
  /** Stepping-out steps per slice (both sides together) before the interval is taken as it is. */
  readonly maxExpansions: number;
  /** Shrinking steps per slice before the move is declared stalled. */
  readonly maxShrinks: number;
}

/**
 * Slice moves in the live points' metric. Each move draws one random unit vector v and slices along
 * the columns of L H, where L Lᵀ is the live points' covariance and H = I − 2vvᵀ a random reflection:
 * an orthonormal basis in the whitened space, taken in a random order. Each direction then costs O(d)
 * instead of the O(d²) of L times a fresh random vector, and d normal variates per move instead of per
 * slice; each step leaves the constrained prior invariant whatever direction it takes, since the
 * directions do not depend on the point.
 *
 * The interval's initial width is `scale` along the direction, tuned as dynesty does so that stepping
 * out and shrinking take about as many steps.
 */
export class SliceMover {
  /** Width of the initial interval, in units of the whitened direction. */
  scale = 1;
  /** Sum over moves of ‖L⁻¹(x_new − x_start)‖² / 2d: about 1 per move when the new point is independent of the start. */
  jumpSum = 0;
  /** Moves made. */
  moves = 0;
  /** Slices whose stepping out stopped at `maxExpansions` before leaving the slice. */
  truncated = 0;
  private expansions = 0;
  private contractions = 0;
  private chol: Float64Array;
  private readonly v: Float64Array;
  private readonly lv: Float64Array;
  private readonly dir: Float64Array;
  private readonly x0: Float64Array;
  private readonly start: Float64Array;
  private readonly y: Float64Array;
  private readonly thetaY: Float64Array;
  private readonly thetaCur: Float64Array;
  private readonly order: Int32Array;
  private height = Number.NEGATIVE_INFINITY;
  private logLStar = Number.NEGATIVE_INFINITY;
  private lastLogL = Number.NEGATIVE_INFINITY;
  private lastLogDensity = 0;
  private yLogDensity = 0;

  constructor(
    readonly dim: number,
    private readonly space: PointSpace,
    private readonly likelihood: Likelihood,
    private readonly settings: SliceSettings,
    private readonly where: string,
  ) {
    const d = dim;
    this.chol = new Float64Array(d * d);
    for (let i = 0; i < d; i++) this.chol[i * d + i] = 1;
    this.v = new Float64Array(d);
    this.lv = new Float64Array(d);
    this.dir = new Float64Array(d);
    this.x0 = new Float64Array(d);
    this.start = new Float64Array(d);
    this.y = new Float64Array(d);
    this.thetaY = new Float64Array(d);
    this.thetaCur = new Float64Array(d);
    this.order = new Int32Array(d);
  }

  /**
   * The metric of some points (rows `rows` of `positions`): the lower Cholesky factor of their
   * covariance. A singular covariance (points on a lower-dimensional set) gets a ridge of 1e-10 of its
   * largest variance, then more.
   */
  static metric(positions: Float64Array, rows: Int32Array, d: number): Float64Array {
    const count = rows.length;
    const mean = rowMean(positions, d, rows, new Float64Array(d));
    const cov = lowerScatter(positions, d, rows, mean, new Float64Array(d * d));
    let maxVar = 0;
    for (let i = 0; i < d; i++) {
      for (let j = 0; j <= i; j++) cov[i * d + j] /= Math.max(count - 1, 1);
      maxVar = Math.max(maxVar, cov[i * d + i]);
    }
    for (let ridge = 1e-10; ; ridge *= 100) {
      const a = new Float64Array(d * d);
      for (let i = 0; i < d; i++) {
        for (let j = 0; j <= i; j++) a[i * d + j] = cov[i * d + j];
        a[i * d + i] += ridge * (maxVar || 1);
      }
      try {
        choleskyInPlace(a, d);
        for (let i = 0; i < d; i++) for (let j = i + 1; j < d; j++) a[i * d + j] = 0;
        return a;
      } catch (error) {
        if (!(error instanceof OccamError) || ridge > 1) throw error;
      }
    }
  }

  /**
   * Moves from a live point (row `row` of `positions`, with log L `startLogL` above L* = `logLStar`)
   * through `slices` slice steps in the metric `chol` (see {@link SliceMover.metric}); writes the end
   * point's position and θ into `out` and `theta` and returns its log likelihood. `iteration` is named
   * in the error thrown when a slice cannot shrink onto a point.
   */
  move(
    rng: Rng,
    chol: Float64Array,
    positions: Float64Array,
    row: number,
    startLogL: number,
    logLStar: number,
    out: Float64Array,
    theta: Float64Array,
    iteration: number,
  ): number {
    const d = this.dim;
    this.chol = chol;
    const { v, lv, x0, order, start } = this;
    for (let j = 0; j < d; j++) start[j] = positions[row * d + j];
    x0.set(start);
    this.logLStar = logLStar;
    let logL = startLogL;
    this.space.toTheta(x0, this.thetaCur);
    this.lastLogDensity = this.space.kind === "theta" ? this.space.logDensity(x0) : 0;
    let norm = 0;
    for (let j = 0; j < d; j++) {
      v[j] = rng.normal();
      norm += v[j] * v[j];
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < d; j++) v[j] /= norm;
    for (let i = 0; i < d; i++) {
      let s = 0;
      for (let j = 0; j <= i; j++) s += chol[i * d + j] * v[j];
      lv[i] = s;
    }
    const { dir, scale } = this;
    for (let s = 0; s < this.settings.slices; s++) {
      const k = s % d;
      if (k === 0) shuffleOrder(rng, order);
      const axis = order[k];
      const reflect = 2 * v[axis];
      for (let i = 0; i < d; i++) dir[i] = scale * (chol[i * d + axis] - reflect * lv[i]);
      logL = this.sliceStep(rng, logL, iteration);
    }
    this.recordJump(start);
    out.set(x0);
    theta.set(this.thetaCur);
    return logL;
  }

  /**
   * Retunes `scale` from the steps since the last call, as dynesty does: multiplied by
   * 2 · expansions / (expansions + contractions), kept within a factor of 2 per call.
   */
  tune(): void {
    const e = Math.max(this.expansions, 1);
    const c = this.contractions;
    this.scale *= Math.min(2, Math.max(0.5, (2 * e) / (e + c)));
    this.expansions = 0;
    this.contractions = 0;
  }

  /** One slice step from x0 along `dir`: stepping out, then shrinking (Neal 2003, §4). */
  private sliceStep(rng: Rng, logL: number, iteration: number): number {
    const { maxExpansions, maxShrinks } = this.settings;
    // A height under the prior density at x0 (flat in the cube: every point inside qualifies).
    this.height =
      this.space.kind === "theta"
        ? this.lastLogDensity + Math.log(openUniform(rng))
        : Number.NEGATIVE_INFINITY;
    const r = rng.uniform();
    let left = -r;
    let right = 1 - r;
    let steps = 0;
    while (steps < maxExpansions && this.inSlice(left)) {
      left -= 1;
      steps++;
    }
    while (steps < maxExpansions && this.inSlice(right)) {
      right += 1;
      steps++;
    }
    if (steps >= maxExpansions) this.truncated++;
    this.expansions += steps;
    for (let s = 0; s < maxShrinks; s++) {
      const t = left + rng.uniform() * (right - left);
      this.contractions++;
      if (this.inSlice(t)) {
        this.lastLogDensity = this.yLogDensity;
        this.x0.set(this.y);
        this.thetaCur.set(this.thetaY);
        return this.lastLogL;
      }
      if (t < 0) left = t;
      else right = t;
    }
    throw new OccamError(
      "invalid-argument",
      `${this.where}: no new point found within ${maxShrinks} shrinking steps of a slice from a live point with ` +
        `log L = ${logL} above the bound log L* = ${this.logLStar} (iteration ${iteration}): the likelihood is flat or ` +
        "discontinuous at that level. Give a likelihood without plateaus (ties), or raise livePoints so that the " +
        "bound rises in smaller steps.",
    );
  }

  /** Whether x0 + t · dir is in the slice: above the height and above L*. Leaves the point in y if so. */
  private inSlice(t: number): boolean {
    const density = this.space.along(this.x0, this.dir, t, this.y);
    if (!(density > this.height)) return false;
    this.space.toTheta(this.y, this.thetaY);
    this.lastLogL = this.likelihood.evaluate(this.thetaY);
    this.yLogDensity = density;
    return this.lastLogL > this.logLStar;
  }

  /** Adds ‖L⁻¹(x0 − start)‖² / 2d to the jump statistic (forward substitution, O(d²)). */
  private recordJump(start: Float64Array): void {
    const d = this.dim;
    const { chol, lv: w } = this;
    let s = 0;
    for (let i = 0; i < d; i++) {
      let t = this.x0[i] - start[i];
      for (let j = 0; j < i; j++) t -= chol[i * d + j] * w[j];
      w[i] = t / chol[i * d + i];
      s += w[i] * w[i];
    }
    this.jumpSum += s / (2 * d);
    this.moves++;
  }
}

/** Fills `order` with a uniformly random permutation of 0 … n − 1 (Fisher–Yates). */
function shuffleOrder(rng: Rng, order: Int32Array): void {
  const n = order.length;
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}
