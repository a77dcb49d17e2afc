/**
 * The likelihood-constrained draw of nested sampling: a new point from the prior restricted to
 * L > L*, uniformly inside bounding ellipsoids in the unit cube or by slice sampling from a live point,
 * with the bounds and the slice metric refitted to the live points as the run goes, and "auto"'s switch
 * from ellipsoids to slices when the ellipsoids become more expensive.
 */
import { OccamError } from "../../errors.js";
import type { Rng } from "../../random/rng.js";
import { BoundCheck } from "./bound-check.js";
import { type EllipsoidUnion, fitBound, fitEllipsoids } from "./bounds.js";
import { insideCube, type Likelihood, type LiveSet, type PointSpace } from "./live-points.js";
import type { NestedSettings } from "./options.js";
import { SliceMover } from "./slice.js";

/** What the constrained draws did, for the diagnostics. */
export interface ProposalStats {
  /** The sampler that drew the last points. */
  readonly kind: "ellipsoid" | "slice";
  /** Iteration at which "auto" switched from ellipsoids to slices (null when it did not). */
  readonly switchedAt: number | null;
  /** Points drawn inside ellipsoids (or the whole cube) and the likelihood evaluations they took (failed tries included). */
  readonly ellipsoidPoints: number;
  readonly ellipsoidEvaluations: number;
  /** Bounds fitted, the most ellipsoids in one, and the largest bootstrap expansion factor applied. */
  readonly boundFits: number;
  readonly maxEllipsoids: number;
  readonly maxExpansion: number;
  /** Points drawn by slice moves and the likelihood evaluations they took. */
  readonly slicePoints: number;
  readonly sliceEvaluations: number;
  /** Points "auto" drew by a slice move after too many tries inside the ellipsoids. */
  readonly fallbacks: number;
  /** The bound check's walks ("auto" with ellipsoids from 6 dimensions; null when it did not run). */
  readonly boundCheck: BoundCheckStats | null;
}

/** What the walks that check the ellipsoids found (see bound-check.ts). */
export interface BoundCheckStats {
  /** Walks made, and of those the ones that reached a point above L* outside every ellipsoid. */
  readonly walks: number;
  readonly escapes: number;
  /** Points the walks visited, and of those the ones above L* outside every ellipsoid. */
  readonly points: number;
  readonly outside: number;
  /** Likelihood evaluations the walks took. */
  readonly evaluations: number;
  /** Iteration at which the escapes made "auto" switch to slices (null when they did not). */
  readonly cutOffAt: number | null;
  /** Expected log prior volume at the last walk: how far the ellipsoids drew the points. */
  readonly lastLogX: number;
}

/** Run-wide things a draw needs. */
export interface DrawContext {
  readonly rng: Rng;
  readonly space: PointSpace;
  readonly likelihood: Likelihood;
  readonly settings: NestedSettings;
  readonly where: string;
}

/** Likelihood evaluations a slice move is expected to cost per slice (two ends, a step out, a shrink or two). */
const EVALUATIONS_PER_SLICE = 5;
/**
 * The bound check runs from this dimension on. A bound whose radius falls short of the region's by a
 * factor r misses a share 1 − r^{−d} of the volume near its surface: 10 % in 2 dimensions at r = 1.05,
 * 39 % in 10; the walks found the funnel's ellipsoids short by 1–20 %, and in two to five dimensions the
 * bootstrap expansion covers that (the suite's problems there are calibrated without the check).
 */
const BOUND_CHECK_MIN_DIM = 6;
/**
 * Walks (of 2 · dim slice steps) after each bound fit: they cost about a sixth of the evaluations
 * on the ten-dimensional shells.
 */
const WALKS_PER_FIT = 1;
/**
 * The ellipsoids are taken to cut off part of the region once at least this many walks escaped them
 * and their points outside number at least {@link OUTSIDE_TO_SWITCH}. A walk that grazes the surface
 * with a point or two is the bootstrap expansion's ordinary shortfall (on one run of the
 * ten-dimensional mixture two of 61 walks escaped, with one point each); walks into the funnel's neck stay
 * out for several steps (5 to 22 points in the first two or three escapes).
 */
const ESCAPES_TO_SWITCH = 2;
const OUTSIDE_TO_SWITCH = 6;

/**
 * Draws new live points above the likelihood bound and keeps the bounds (ellipsoid sampler) or the
 * metric (slice sampler) fitted to the live points: ellipsoids are refitted once the likelihood
 * evaluations since the last fit reach the number of live points (a bound fitted earlier still holds
 * the smaller region, it only wastes draws), the slice metric every fifth of the live points'
 * number of iterations.
 */
export class Proposals {
  private kind: "ellipsoid" | "slice";
  private switchedAt: number | null = null;
  private bound: EllipsoidUnion | null = null;
  private fitted = false;
  private evaluationsAtFit = 0;
  private drawsSinceMetric = Number.POSITIVE_INFINITY;
  private slice: SliceMover | null = null;
  /** Cholesky factors of the live points' clusters (slice sampler), and each live point's cluster. */
  private metrics: Float64Array[] = [];
  private labels = new Int32Array(0);
  /** Points drawn and likelihood evaluations when the current window of the cost comparison began. */
  private window = { points: 0, evaluations: 0 };
  /** The walks that check the ellipsoids ("auto" with ellipsoids in 6 or more dimensions). */
  private check: BoundCheck | null = null;
  private checkStats = {
    walks: 0,
    escapes: 0,
    points: 0,
    outside: 0,
    evaluations: 0,
    cutOffAt: null as number | null,
    lastLogX: 0,
  };
  private stats = {
    ellipsoidPoints: 0,
    ellipsoidEvaluations: 0,
    boundFits: 0,
    maxEllipsoids: 0,
    maxExpansion: 1,
    slicePoints: 0,
    sliceEvaluations: 0,
    fallbacks: 0,
  };

  constructor(private readonly context: DrawContext) {
    const { settings, space } = context;
    const ellipsoids =
      space.kind === "cube" &&
      (settings.sampler === "ellipsoid" || (settings.sampler === "auto" && space.dim <= 10));
    this.kind = ellipsoids ? "ellipsoid" : "slice";
    if (ellipsoids && settings.sampler === "auto" && space.dim >= BOUND_CHECK_MIN_DIM) {
      // A stream of its own, so that the walks take no variates from the draws'.
      const [checkRng] = context.rng.split(1);
      this.check = new BoundCheck(
        space.dim,
        space,
        context.likelihood,
        checkRng,
        2 * space.dim,
        context.where,
      );
    }
  }

  /** Whether the bound check found that the ellipsoids cut off part of the region above the bound. */
  get cutOff(): boolean {
    return this.checkStats.cutOffAt !== null;
  }

  /** Ends the bound check (before a dynamic run's batches, which would not start again). */
  endCheck(): void {
    this.check = null;
  }

  /** Refits the bound or metric to `live` at the next draw (a batch's new live set). */
  invalidate(): void {
    this.fitted = false;
    this.drawsSinceMetric = Number.POSITIVE_INFINITY;
  }

  /** What the draws did so far. */
  summary(): ProposalStats {
    return {
      kind: this.kind,
      switchedAt: this.switchedAt,
      ...this.stats,
      boundCheck: this.checkStats.walks === 0 ? null : { ...this.checkStats },
    };
  }

  /** Mean whitened squared jump of the slice moves over 2d (null before any slice move). */
  sliceJump(): { jump: number | null; truncated: number; scale: number | null } {
    const s = this.slice;
    if (s === null || s.moves === 0) return { jump: null, truncated: 0, scale: null };
    return { jump: s.jumpSum / s.moves, truncated: s.truncated, scale: s.scale };
  }

  /**
   * Writes into `x` and `theta` a new point from the prior restricted to L > `logLStar`, drawn with
   * the help of the live points (`exclude`, the dead point's index, is not used as a slice start; −1
   * for none), and returns its log likelihood. `logX` is the expected log prior volume above L*.
   */
  draw(
    live: LiveSet,
    exclude: number,
    logLStar: number,
    logX: number,
    x: Float64Array,
    theta: Float64Array,
    iteration: number,
  ): number {
    if (this.kind === "ellipsoid") {
      const before = this.context.likelihood.evaluations - this.checkStats.evaluations;
      const logL = this.drawInBound(live, logLStar, logX, x, theta, iteration);
      this.stats.ellipsoidEvaluations +=
        this.context.likelihood.evaluations - this.checkStats.evaluations - before;
      if (logL !== null) {
        this.stats.ellipsoidPoints++;
        return logL;
      }
      if (this.kind === "ellipsoid") {
        // "auto" gave up on this point: a slice move draws it, and the bound is refitted for the next.
        this.stats.fallbacks++;
        this.fitted = false;
      }
    }
    return this.drawBySlices(live, exclude, logLStar, x, theta, iteration);
  }

  private switchToSlices(iteration: number): void {
    this.kind = "slice";
    this.switchedAt = iteration;
  }

  /** Uniform draws inside the bound (or the cube) until one is above L*; null when "auto" gives up. */
  private drawInBound(
    live: LiveSet,
    logLStar: number,
    logX: number,
    x: Float64Array,
    theta: Float64Array,
    iteration: number,
  ): number | null {
    const { rng, space, likelihood, settings } = this.context;
    if (!this.fitted || likelihood.evaluations - this.evaluationsAtFit >= live.size) {
      if (this.costlierThanSlices(live.size)) {
        this.switchToSlices(iteration);
        return null;
      }
      this.fitBound(live, logX);
      if (this.boundCutOff(live, logLStar, logX, iteration)) {
        this.switchToSlices(iteration);
        return null;
      }
    }
    const bound = this.bound;
    // Under "auto" a point that would cost ten slice moves is drawn by one instead: the bound has
    // lost most of its region (a mode with too few points to get an ellipsoid of its own).
    const maxTries =
      settings.sampler === "auto"
        ? Math.min(settings.maxTries, 10 * EVALUATIONS_PER_SLICE * settings.slices)
        : settings.maxTries;
    for (let tries = 0; tries < maxTries; ) {
      if (bound !== null) {
        tries += bound.sample(rng, x);
        if (!insideCube(x)) continue;
      } else {
        space.draw(rng, x);
        tries++;
      }
      space.toTheta(x, theta);
      const logL = likelihood.evaluate(theta);
      if (logL > logLStar) return logL;
    }
    if (settings.sampler === "auto") return null;
    throw new OccamError(
      "invalid-argument",
      `${this.context.where}: no new point found within ${settings.maxTries} tries inside the bounding ellipsoids ` +
        `(iteration ${iteration}, log L* = ${logLStar}, ${live.size} live points, ` +
        `${bound === null ? "the whole cube" : `${bound.ellipsoids.length} ellipsoid(s)`}): the region above the ` +
        'bound is a tiny part of the ellipsoids. Use sampler "slice" (or "auto"), raise livePoints, or raise maxTries.',
    );
  }

  /**
   * Walks from live points that ignore the fitted bound (bound-check.ts); true once enough of them
   * have reached points above L* outside it: the ellipsoids cut off part of the region, and uniform
   * draws inside them would shrink the prior volume faster than the run counts.
   */
  private boundCutOff(live: LiveSet, logLStar: number, logX: number, iteration: number): boolean {
    const check = this.check;
    if (check === null || this.bound === null) return false;
    const { likelihood } = this.context;
    const before = likelihood.evaluations;
    const stats = this.checkStats;
    for (let w = 0; w < WALKS_PER_FIT; w++) {
      const walk = check.walk(live, this.bound, logLStar, iteration);
      stats.walks++;
      stats.points += walk.points;
      stats.outside += walk.outside;
      if (walk.outside > 0) stats.escapes++;
    }
    stats.lastLogX = logX;
    stats.evaluations += likelihood.evaluations - before;
    // The walks' evaluations do not count towards the next refit.
    this.evaluationsAtFit = likelihood.evaluations;
    if (stats.escapes < ESCAPES_TO_SWITCH || stats.outside < OUTSIDE_TO_SWITCH) return false;
    stats.cutOffAt = iteration;
    return true;
  }

  /**
   * Under "auto", whether the ellipsoids have cost more likelihood evaluations per point than slice
   * moves would, judged over windows of at least a quarter of the live points' number of new points
   * (or 50 evaluations per live point, when points come that slowly): a bound or two fitted poorly
   * while a mode dies (eggbox) cost a few hundred evaluations, and must not end the ellipsoids for the
   * rest of the run.
   */
  private costlierThanSlices(livePoints: number): boolean {
    const { settings, likelihood } = this.context;
    if (settings.sampler !== "auto") return false;
    const drawn = this.stats.ellipsoidPoints + this.stats.slicePoints;
    const points = drawn - this.window.points;
    // The bound check's walks are not the ellipsoids' cost.
    const spent = likelihood.evaluations - this.checkStats.evaluations;
    const evaluations = spent - this.window.evaluations;
    if (points < livePoints / 4 && evaluations < 50 * livePoints) return false;
    this.window = { points: drawn, evaluations: spent };
    return evaluations / Math.max(points, 1) > EVALUATIONS_PER_SLICE * settings.slices;
  }

  /** Ellipsoids around the live points in the cube, or none while they are larger than the cube. */
  private fitBound(live: LiveSet, logX: number): void {
    const { rng, likelihood, settings } = this.context;
    const rows = Int32Array.from({ length: live.size }, (_, i) => i);
    const { union, expansion } = fitBound(
      { points: live.positions, rows, dim: live.dim },
      true,
      rng,
      settings.bootstraps,
      logX,
    );
    this.bound = union.logVolume < 0 ? union : null;
    this.fitted = true;
    this.evaluationsAtFit = likelihood.evaluations;
    this.stats.boundFits++;
    this.stats.maxEllipsoids = Math.max(this.stats.maxEllipsoids, union.ellipsoids.length);
    this.stats.maxExpansion = Math.max(this.stats.maxExpansion, expansion);
  }

  /** A slice move from a random live point above L* (not `exclude`). */
  private drawBySlices(
    live: LiveSet,
    exclude: number,
    logLStar: number,
    x: Float64Array,
    theta: Float64Array,
    iteration: number,
  ): number {
    const { rng, space, likelihood, settings, where } = this.context;
    if (this.slice === null) {
      this.slice = new SliceMover(
        live.dim,
        space,
        likelihood,
        { slices: settings.slices, maxExpansions: 100, maxShrinks: 100 },
        where,
      );
    }
    const slice = this.slice;
    if (this.drawsSinceMetric >= Math.max(1, Math.floor(live.size / 5))) {
      if (this.drawsSinceMetric !== Number.POSITIVE_INFINITY) slice.tune();
      this.fitMetrics(live);
      this.drawsSinceMetric = 0;
    }
    this.drawsSinceMetric++;
    const start = this.pickStart(live, exclude, logLStar);
    const label = this.labels[start];
    const before = likelihood.evaluations;
    const logL = slice.move(
      rng,
      this.metrics[label],
      live.positions,
      start,
      live.logL[start],
      logLStar,
      x,
      theta,
      iteration,
    );
    // The new point is in its start's cluster (a slice move does not cross between modes).
    if (exclude >= 0) this.labels[exclude] = label;
    this.stats.slicePoints++;
    this.stats.sliceEvaluations += likelihood.evaluations - before;
    return logL;
  }

  /**
   * The slice metrics: in up to 10 dimensions the live points are clustered as the ellipsoids are
   * (2-means while it pays) and each cluster gets the metric of its own covariance, so that a move
   * within one of several modes is scaled by that mode and not by the spread between modes; in more
   * dimensions the clustering costs more than it is worth, and all points share one metric.
   */
  private fitMetrics(live: LiveSet): void {
    const d = live.dim;
    const rows = Int32Array.from({ length: live.size }, (_, i) => i);
    const set = { points: live.positions, rows, dim: d };
    const clusters = d <= 10 ? fitEllipsoids(set, true) : [{ rows }];
    this.metrics = clusters.map((c) => SliceMover.metric(live.positions, c.rows, d));
    this.labels = new Int32Array(live.size);
    clusters.forEach((c, k) => {
      for (const r of c.rows) this.labels[r] = k;
    });
  }

  /**
   * A uniformly chosen live point above L*, other than `exclude`, from the dead point's island (its
   * thread modulo the islands), so that the islands stay independent runs; from any island when its
   * own has no other point above L*.
   */
  private pickStart(live: LiveSet, exclude: number, logLStar: number): number {
    const { rng, settings } = this.context;
    const islands = settings.islands;
    const island = exclude >= 0 ? live.thread[exclude] % islands : -1;
    for (let k = 0; k < 4 * islands * live.size; k++) {
      const j = Math.floor(rng.uniform() * live.size);
      if (isStart(live, j, exclude, logLStar, islands, island)) return j;
    }
    for (let j = 0; j < live.size; j++) if (isStart(live, j, exclude, logLStar, islands, island)) return j;
    for (let j = 0; j < live.size; j++) if (isStart(live, j, exclude, logLStar, islands, -1)) return j;
    throw new OccamError(
      "internal",
      `${this.context.where}: no live point lies above the bound log L* = ${logLStar} to start a slice from.`,
    );
  }
}

/** Whether live point j can start a slice: above L*, not the dead point, in `island` (−1: any). */
function isStart(
  live: LiveSet,
  j: number,
  exclude: number,
  logLStar: number,
  islands: number,
  island: number,
): boolean {
  return j !== exclude && live.logL[j] > logLStar && (island < 0 || live.thread[j] % islands === island);
}
