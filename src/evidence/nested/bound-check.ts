/**
 * A check that bounding ellipsoids hold the whole region above the likelihood bound. The ellipsoids
 * are fitted to the live points, so a part of the region that no live point has entered (the narrow
 * neck of Neal's funnel) is cut off without a trace: uniform draws inside the ellipsoids never reach
 * it, and the new points' insertion ranks stay uniform. A walk that ignores the ellipsoids does reach
 * it: slice steps on the prior restricted to L > L*, from a live point, leave the constrained prior
 * invariant, so the share of their points that fall outside the ellipsoids estimates the share of the
 * region the ellipsoids miss (UltraNest's region checks and dynesty's random walks rest on the same idea).
 */
import { OccamError } from "../../errors.js";
import { choleskyInPlace } from "../../math/linalg.js";
import type { Rng } from "../../random/rng.js";
import type { EllipsoidUnion } from "./bounds.js";
import type { Likelihood, LiveSet, PointSpace } from "./live-points.js";
import { SliceMover } from "./slice.js";

/** Share of the live points, those of highest likelihood, that the walks start from. */
const TOP_SHARE = 0.1;

/** What one walk found. */
export interface WalkResult {
  /** Points the walk visited (one per slice step). */
  readonly points: number;
  /** Of those, points above L* that lie outside every ellipsoid (and inside the cube). */
  readonly outside: number;
}

/**
 * Slice walks from live points that ignore the bound, each step along a direction of the ellipsoid
 * nearest its start, counting the points above L* that fall outside the ellipsoids.
 */
export class BoundCheck {
  private readonly mover: SliceMover;
  private readonly current: Float64Array;
  private readonly next: Float64Array;
  private readonly theta: Float64Array;
  private walks = 0;

  constructor(
    readonly dim: number,
    space: PointSpace,
    likelihood: Likelihood,
    private readonly rng: Rng,
    private readonly steps: number,
    where: string,
  ) {
    this.mover = new SliceMover(
      dim,
      space,
      likelihood,
      { slices: 1, maxExpansions: 100, maxShrinks: 100 },
      where,
    );
    this.current = new Float64Array(dim);
    this.next = new Float64Array(dim);
    this.theta = new Float64Array(dim);
  }

  /**
   * One walk of `steps` slice steps, each along one direction of the metric of the ellipsoid nearest
   * the start, from a live point of high likelihood above `logLStar`; `iteration` is named in a stalled
   * slice's error.
   */
  walk(live: LiveSet, bound: EllipsoidUnion, logLStar: number, iteration: number): WalkResult {
    const d = this.dim;
    const start = this.pickStart(live, logLStar);
    if (start < 0) return { points: 0, outside: 0 };
    this.current.set(live.positions.subarray(start * d, (start + 1) * d));
    const chol = metricOf(bound, this.current);
    if (chol === null) return { points: 0, outside: 0 };
    let logL = live.logL[start];
    let outside = 0;
    for (let s = 0; s < this.steps; s++) {
      logL = this.mover.move(
        this.rng,
        chol,
        this.current,
        0,
        logL,
        logLStar,
        this.next,
        this.theta,
        iteration,
      );
      this.current.set(this.next);
      if (bound.count(this.current) === 0) outside++;
    }
    // The interval width follows the walks' own stepping out and shrinking, as the slice sampler's does.
    if (++this.walks % 4 === 0) this.mover.tune();
    return { points: this.steps, outside };
  }

  /**
   * A live point drawn uniformly from the tenth of highest likelihood (−1 if none lies above L*): a
   * narrow part of the region that the ellipsoids cut off is where the likelihood climbs away from the
   * bulk (the funnel's neck). Measured on the funnel: walks of 2 · dim steps from the top tenth first
   * escaped at log X ≈ −5 to −16, walks of dim steps from random live points only at −20 to −35, after
   * the ellipsoids had biased most of the run. On a Gaussian the top of the live points lies deepest
   * inside the region, so the walks from there do not raise false alarms.
   */
  private pickStart(live: LiveSet, logLStar: number): number {
    const n = Math.max(1, Math.floor(TOP_SHARE * live.size));
    const order = Array.from({ length: live.size }, (_, i) => i).sort((a, b) => live.logL[b] - live.logL[a]);
    const j = order[Math.floor(this.rng.uniform() * n)];
    return live.logL[j] > logLStar ? j : -1;
  }
}

/** The lower Cholesky factor of A Aᵀ for the ellipsoid (x = c + A z) nearest x. */
function metricOf(bound: EllipsoidUnion, x: Float64Array): Float64Array | null {
  let best = bound.ellipsoids[0];
  let nearest = Number.POSITIVE_INFINITY;
  for (const e of bound.ellipsoids) {
    const r = e.distance2(x);
    if (r < nearest) {
      nearest = r;
      best = e;
    }
  }
  const d = best.dim;
  const a = best.axes;
  const m = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += a[i * d + k] * a[j * d + k];
      m[i * d + j] = s;
    }
  }
  try {
    return choleskyInPlace(m, d);
  } catch (error) {
    // A degenerate ellipsoid gives no metric to walk in: that check is skipped, not failed.
    if (error instanceof OccamError) return null;
    throw error;
  }
}
