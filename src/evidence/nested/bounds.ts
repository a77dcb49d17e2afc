/**
 * Bounding ellipsoids for nested sampling (Mukherjee, Parkinson & Liddle 2006; Feroz, Hobson & Bridges
 * 2009, MultiNest; Speagle 2020, dynesty): an ellipsoid fitted to the live points (their covariance,
 * scaled until every point is inside), split recursively by 2-means while the split's volume is much
 * smaller, enlarged by a bootstrap factor so that the region L > L* the points sample is inside it, and
 * uniform draws from the union of the ellipsoids.
 */

import { LOG_PI } from "../../math/constants.js";
import { symmetricEigen } from "../../math/linalg.js";
import { logAddExp, logSumExp } from "../../math/logspace.js";
import { lowerScatter, mirrorLower, rowMean } from "../../math/moments.js";
import { gammaln } from "../../math/stdlib.js";
import type { Rng } from "../../random/rng.js";

/** log of the volume of the unit ball in d dimensions, π^{d/2} / Γ(d/2 + 1). */
function logUnitBallVolume(d: number): number {
  return 0.5 * d * LOG_PI - gammaln(0.5 * d + 1);
}

/**
 * An ellipsoid {x : ‖W (x − c)‖ ≤ 1}: `axes` maps the unit ball onto it (x = c + axes · z, column j the
 * j-th semi-axis) and `inverse` = axes⁻¹ (row j the j-th principal direction over its semi-axis length).
 */
export class Ellipsoid {
  constructor(
    readonly dim: number,
    readonly center: Float64Array,
    readonly axes: Float64Array,
    readonly inverse: Float64Array,
    public logVolume: number,
  ) {}

  /** ‖W (x − c)‖², which is ≤ 1 inside. */
  distance2(x: Float64Array, offset = 0): number {
    const d = this.dim;
    const { center, inverse } = this;
    let s = 0;
    for (let j = 0; j < d; j++) {
      let t = 0;
      const row = j * d;
      for (let k = 0; k < d; k++) t += inverse[row + k] * (x[offset + k] - center[k]);
      s += t * t;
    }
    return s;
  }

  /** Scales every axis by `factor` (> 0) about the centre. */
  scale(factor: number): void {
    const d = this.dim;
    for (let i = 0; i < d * d; i++) {
      this.axes[i] *= factor;
      this.inverse[i] /= factor;
    }
    this.logVolume += d * Math.log(factor);
  }

  /**
   * Grows the shortest axes, each to a common length t (the longer ones unchanged), until the volume is
   * e^{logVolume}: the least change that gives a thin ellipsoid (points nearly on a lower-dimensional
   * set) the volume it must have, where scaling every axis would make it needlessly long.
   */
  growShortAxes(logVolume: number): void {
    const d = this.dim;
    if (!(logVolume > this.logVolume)) return;
    const lengths = new Float64Array(d);
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let i = 0; i < d; i++) s += this.axes[i * d + j] ** 2;
      lengths[j] = Math.sqrt(s);
    }
    const sorted = Float64Array.from(lengths, Math.log).sort();
    // Σ_j log max(a_j, t) must rise by the volume's log ratio: raise the k shortest to t.
    let target = logVolume - this.logVolume;
    for (const l of sorted) target += l;
    let logT = 0;
    let rest = 0;
    for (const l of sorted) rest += l;
    for (let k = 1; k <= d; k++) {
      rest -= sorted[k - 1];
      logT = (target - rest) / k;
      if (k === d || logT <= sorted[k]) break;
    }
    for (let j = 0; j < d; j++) {
      const g = Math.exp(logT) / lengths[j];
      if (!(g > 1)) continue;
      for (let i = 0; i < d; i++) {
        this.axes[i * d + j] *= g;
        this.inverse[j * d + i] /= g;
      }
    }
    this.logVolume = logVolume;
  }

  /** The two ends of the longest axis (the 2-means starting centres). */
  majorAxisEnds(): [Float64Array, Float64Array] {
    const d = this.dim;
    let best = 0;
    let bestLength = -1;
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let i = 0; i < d; i++) s += this.axes[i * d + j] ** 2;
      if (s > bestLength) {
        bestLength = s;
        best = j;
      }
    }
    const a = Float64Array.from(this.center);
    const b = Float64Array.from(this.center);
    for (let i = 0; i < d; i++) {
      a[i] += this.axes[i * d + best];
      b[i] -= this.axes[i * d + best];
    }
    return [a, b];
  }

  /** Writes a uniform draw from the ellipsoid into `out` (`z` is scratch of length d). */
  sample(rng: Rng, out: Float64Array, z: Float64Array): void {
    const d = this.dim;
    let norm = 0;
    for (let j = 0; j < d; j++) {
      z[j] = rng.normal();
      norm += z[j] * z[j];
    }
    // A uniform point of the unit ball: a uniform direction at radius U^{1/d}.
    const r = rng.uniform() ** (1 / d) / Math.sqrt(norm);
    for (let i = 0; i < d; i++) {
      let s = this.center[i];
      const row = i * d;
      for (let j = 0; j < d; j++) s += this.axes[row + j] * z[j] * r;
      out[i] = s;
    }
  }
}

/** Points as rows of a row-major matrix, a subset of them named by `rows`. */
interface PointRows {
  readonly points: Float64Array;
  readonly rows: Int32Array;
  readonly dim: number;
}

/**
 * The ellipsoid of the points' mean and covariance scaled so that the farthest point (in its own
 * metric) lies just inside. Eigenvalues below 1e-10 of the largest are raised to it, so that points
 * on a lower-dimensional set still give a proper ellipsoid.
 */
export function fitEllipsoid({ points, rows, dim: d }: PointRows): Ellipsoid {
  const n = rows.length;
  const center = rowMean(points, d, rows, new Float64Array(d));
  const cov = lowerScatter(points, d, rows, center, new Float64Array(d * d));
  for (let i = 0; i < d; i++) for (let j = 0; j <= i; j++) cov[i * d + j] /= n;
  mirrorLower(cov, d);
  const { values, vectors } = symmetricEigen(cov, d);
  const floor = Math.max(values[d - 1] * 1e-10, 1e-300);
  const axes = new Float64Array(d * d);
  const inverse = new Float64Array(d * d);
  let logVolume = logUnitBallVolume(d);
  for (let j = 0; j < d; j++) {
    const sd = Math.sqrt(Math.max(values[j], floor));
    logVolume += Math.log(sd);
    for (let i = 0; i < d; i++) {
      axes[i * d + j] = vectors[i * d + j] * sd;
      inverse[j * d + i] = vectors[i * d + j] / sd;
    }
  }
  const ellipsoid = new Ellipsoid(d, center, axes, inverse, logVolume);
  let far = 0;
  for (const r of rows) far = Math.max(far, ellipsoid.distance2(points, r * d));
  // A hair more than the farthest point's distance keeps it inside despite rounding.
  if (far > 0) ellipsoid.scale(Math.sqrt(far) * (1 + 1e-9));
  return ellipsoid;
}

/**
 * Two clusters of the points by Lloyd's 2-means, 10 sweeps from `starts`, with coordinates divided by
 * `spread` (the points' standard deviations), as dynesty clusters.
 */
function twoMeans(
  { points, rows, dim: d }: PointRows,
  starts: [Float64Array, Float64Array],
  spread: Float64Array,
): [Int32Array, Int32Array] {
  const n = rows.length;
  const centres = [Float64Array.from(starts[0]), Float64Array.from(starts[1])];
  // 2 marks a point not yet assigned, so that the first sweep counts as a change.
  const labels = new Uint8Array(n).fill(2);
  const sums = [new Float64Array(d), new Float64Array(d)];
  const sizes = [0, 0];
  for (let sweep = 0; sweep < 10; sweep++) {
    let changed = false;
    sums[0].fill(0);
    sums[1].fill(0);
    sizes[0] = sizes[1] = 0;
    for (let k = 0; k < n; k++) {
      const o = rows[k] * d;
      let d0 = 0;
      let d1 = 0;
      for (let j = 0; j < d; j++) {
        const x = points[o + j];
        d0 += ((x - centres[0][j]) / spread[j]) ** 2;
        d1 += ((x - centres[1][j]) / spread[j]) ** 2;
      }
      const label = d1 < d0 ? 1 : 0;
      if (label !== labels[k]) changed = true;
      labels[k] = label;
      sizes[label]++;
      for (let j = 0; j < d; j++) sums[label][j] += points[o + j];
    }
    for (const c of [0, 1]) {
      if (sizes[c] > 0) for (let j = 0; j < d; j++) centres[c][j] = sums[c][j] / sizes[c];
    }
    if (!changed) break;
  }
  const out: [Int32Array, Int32Array] = [new Int32Array(sizes[0]), new Int32Array(sizes[1])];
  const fill = [0, 0];
  for (let k = 0; k < n; k++) out[labels[k]][fill[labels[k]]++] = rows[k];
  return out;
}

/**
 * dynesty's recursive split (`_bounding_ellipsoids`): the points of `ellipsoid` are split in two by
 * 2-means, each half bounded by its own ellipsoid and split again; the split is kept when the volume
 * falls by more than the BIC penalty of the extra ellipsoid, log V₁ − log V₀ < −k · p log(n)/n with
 * p = d(d + 3)/2 parameters per ellipsoid (X-means, Pelleg & Moore 2000; Feroz et al. 2009). Clusters
 * of fewer than 2d points are not formed: their ellipsoids would be poorly determined.
 */
function splitEllipsoids(set: PointRows, ellipsoid: Ellipsoid, spread: Float64Array): Cluster[] {
  const { rows, dim: d } = set;
  const n = rows.length;
  const minSize = 2 * d;
  const whole = [{ ellipsoid, rows }];
  if (n < 2 * minSize) return whole;
  const halves = twoMeans(set, ellipsoid.majorAxisEnds(), spread);
  if (halves[0].length < minSize || halves[1].length < minSize) return whole;
  const parts = halves.map((h) => fitEllipsoid({ points: set.points, rows: h, dim: d }));
  const penalty = ((d * (d + 3)) / 2) * (Math.log(n) / n);
  const split = [
    ...splitEllipsoids({ points: set.points, rows: halves[0], dim: d }, parts[0], spread),
    ...splitEllipsoids({ points: set.points, rows: halves[1], dim: d }, parts[1], spread),
  ];
  if (logAddExp(parts[0].logVolume, parts[1].logVolume) - ellipsoid.logVolume < -penalty) return split;
  const total = logSumExp(split.map((c) => c.ellipsoid.logVolume));
  if (total - ellipsoid.logVolume < -penalty * (split.length - 1)) return split;
  return whole;
}

/** An ellipsoid and the points it was fitted to. */
export interface Cluster {
  readonly ellipsoid: Ellipsoid;
  readonly rows: Int32Array;
}

/** The ellipsoids bounding the points: one, or several when splitting pays (see {@link splitEllipsoids}). */
export function fitEllipsoids(set: PointRows, multi: boolean): Cluster[] {
  const first = fitEllipsoid(set);
  if (!multi) return [{ ellipsoid: first, rows: set.rows }];
  const { points, rows, dim: d } = set;
  const spread = new Float64Array(d);
  const mean = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += points[r * d + j] / rows.length;
  for (const r of rows) for (let j = 0; j < d; j++) spread[j] += (points[r * d + j] - mean[j]) ** 2;
  for (let j = 0; j < d; j++) spread[j] = Math.sqrt(spread[j] / rows.length) || 1;
  return splitEllipsoids(set, first, spread);
}

/**
 * dynesty's bootstrap expansion factor: `bootstraps` times, refit the ellipsoids to a resample (with
 * replacement) of the points and find how far the points left out lie outside them (the smallest
 * distance over the ellipsoids); the largest such factor (at least 1) is how much the ellipsoids of all
 * the points must grow to hold the region the points were drawn from, not only the points.
 */
export function bootstrapExpansion(set: PointRows, multi: boolean, rng: Rng, bootstraps: number): number {
  const { points, rows, dim: d } = set;
  const n = rows.length;
  let expansion = 1;
  const chosen = new Uint8Array(n);
  for (let b = 0; b < bootstraps; b++) {
    chosen.fill(0);
    for (let k = 0; k < n; k++) chosen[rng.integer(n)] = 1;
    let inCount = 0;
    for (let k = 0; k < n; k++) inCount += chosen[k];
    if (inCount < d + 1 || inCount === n) continue;
    const inRows = new Int32Array(inCount);
    const outRows = new Int32Array(n - inCount);
    let a = 0;
    let c = 0;
    for (let k = 0; k < n; k++) {
      if (chosen[k]) inRows[a++] = rows[k];
      else outRows[c++] = rows[k];
    }
    const clusters = fitEllipsoids({ points, rows: inRows, dim: d }, multi);
    for (const r of outRows) {
      let nearest = Number.POSITIVE_INFINITY;
      for (const c of clusters) nearest = Math.min(nearest, c.ellipsoid.distance2(points, r * d));
      expansion = Math.max(expansion, Math.sqrt(nearest));
    }
  }
  return expansion;
}

/**
 * A union of ellipsoids with uniform draws from it: pick an ellipsoid with probability ∝ its volume,
 * draw uniformly inside it, and keep the point with probability 1/q, q the number of ellipsoids that
 * contain it (so overlaps are not drawn twice as often).
 */
export class EllipsoidUnion {
  /** log of the summed volumes (≥ the union's volume). */
  readonly logVolume: number;
  private readonly cumulative: Float64Array;
  private readonly z: Float64Array;

  constructor(readonly ellipsoids: readonly Ellipsoid[]) {
    this.logVolume = logSumExp(ellipsoids.map((e) => e.logVolume));
    this.cumulative = new Float64Array(ellipsoids.length);
    let s = 0;
    ellipsoids.forEach((e, k) => {
      s += Math.exp(e.logVolume - this.logVolume);
      this.cumulative[k] = s;
    });
    this.z = new Float64Array(ellipsoids[0].dim);
  }

  /** How many of the ellipsoids contain x. */
  count(x: Float64Array): number {
    let q = 0;
    for (const e of this.ellipsoids) if (e.distance2(x) <= 1) q++;
    return q;
  }

  /** Writes a uniform draw from the union into `out`; returns the number of draws it took (≥ 1). */
  sample(rng: Rng, out: Float64Array): number {
    const m = this.ellipsoids.length;
    for (let tries = 1; ; tries++) {
      const u = rng.uniform() * this.cumulative[m - 1];
      let k = 0;
      while (k < m - 1 && this.cumulative[k] <= u) k++;
      this.ellipsoids[k].sample(rng, out, this.z);
      if (m === 1) return tries;
      // q = 0 only by rounding at the surface of the ellipsoid it was drawn from.
      const q = Math.max(1, this.count(out));
      if (q === 1 || rng.uniform() * q < 1) return tries;
    }
  }
}

/**
 * The largest bootstrap factor applied. A larger one comes from a lone point that the split left in
 * a cluster of another mode (a stray survivor of a dying mode on the eggbox): left out of a resample
 * it lies a hundred radii away, and scaling the whole ellipsoid by that much makes draws inside it a
 * hundred-fold less efficient, while the ellipsoid fitted to all its points already holds the point.
 */
const MAX_EXPANSION = 3;

/** A fitted bound and what it took: the ellipsoids' count and the bootstrap factor applied. */
export interface FittedBound {
  readonly union: EllipsoidUnion;
  /** The largest bootstrap expansion factor applied to an ellipsoid's axes (≥ 1). */
  readonly expansion: number;
}

/**
 * Ellipsoids around the points (`multi`: split when it pays), each grown by its own bootstrap
 * expansion factor and to at least the volume its points stand for.
 *
 * The factor of each ellipsoid comes from resampling its own points ({@link bootstrapExpansion} with
 * one ellipsoid), not from refitting the whole decomposition as dynesty does: a resample that happens to
 * split the modes differently then cannot inflate every ellipsoid (on the eggbox dynesty's global factor
 * swings between 1.4 and 7.5 from one fit to the next). An ellipsoid of fewer than 4d points takes the
 * largest factor of the others, its own bootstrap being too noisy to trust.
 *
 * The volume floor is MultiNest's (Feroz et al. 2009, §5.1.2): the points are uniform in the region
 * above the bound, whose volume is expected to be X = e^{logX}, so an ellipsoid holding n_k of the
 * n points must have at least the volume X n_k / n; a smaller one is grown to it.
 */
export function fitBound(
  set: PointRows,
  multi: boolean,
  rng: Rng,
  bootstraps: number,
  logX: number,
): FittedBound {
  const { points, rows, dim: d } = set;
  const clusters = fitEllipsoids(set, multi);
  const factors = clusters.map((c) =>
    bootstraps > 0 && c.rows.length >= 4 * d
      ? bootstrapExpansion({ points, rows: c.rows, dim: d }, false, rng, bootstraps)
      : Number.NaN,
  );
  const known = factors.filter((f) => !Number.isNaN(f));
  const fallback =
    bootstraps > 0 && known.length === 0
      ? bootstrapExpansion(set, multi, rng, bootstraps)
      : Math.max(1, ...known);
  let expansion = 1;
  clusters.forEach((c, k) => {
    const own = Number.isNaN(factors[k]) ? (bootstraps > 0 ? fallback : 1) : factors[k];
    const factor = Math.min(own, MAX_EXPANSION);
    if (factor > 1) c.ellipsoid.scale(factor);
    c.ellipsoid.growShortAxes(logX + Math.log(c.rows.length / rows.length));
    expansion = Math.max(expansion, factor);
  });
  return { union: new EllipsoidUnion(clusters.map((c) => c.ellipsoid)), expansion };
}
