/**
 * The options of nested sampling, their defaults and their checks.
 */
import { OccamError } from "../../errors.js";
import type { BayesModel } from "../../model/model.js";
import { checkCount, type RandomOptions } from "../checks.js";

/** How new live points are drawn above the likelihood bound. */
export type NestedSampler = "auto" | "ellipsoid" | "slice";

/** Options of dynamic nested sampling (Higson et al. 2019). */
export interface DynamicNestedOptions {
  /**
   * Batches of live points added after the baseline run.
   * @defaultValue 3
   */
  batches?: number;
  /**
   * Live points of each batch.
   * @defaultValue the run's `livePoints`
   */
  batchLivePoints?: number;
  /**
   * Share of the importance that goes to the posterior (the rest to the evidence), as dynesty's
   * `pfrac`: 1 puts the batches where the posterior mass is, 0 where the evidence is still uncertain.
   * @defaultValue 0.8
   */
  posteriorFraction?: number;
}

/** Options of {@link nestedSampling}. */
export interface NestedSamplingOptions extends RandomOptions {
  /**
   * Number of live points K (at least dim + 1). The standard error falls like √(H/K) (H the
   * information in nats) and the cost grows like K · H.
   * @defaultValue 1500 up to 3 dimensions with ellipsoids (a `priorTransform`), else max(500, 4 · dim)
   */
  livePoints?: number;
  /**
   * Stop when the live points could add at most this many nats to log Z:
   * log(1 + L_max X / Z) < dlogz (dynesty's rule). The live points' own contribution is then added.
   * @defaultValue 0.1
   */
  dlogz?: number;
  /**
   * How new points above the bound are drawn: "ellipsoid" uniformly inside bounding ellipsoids in the
   * unit cube (needs `model.priorTransform`), "slice" by slice sampling from a live point along random
   * directions in the live points' metric, "auto" ellipsoids when the model has a prior transform and
   * dim ≤ 10, switching to slices for the rest of the run if the ellipsoids need more likelihood
   * evaluations per point than the slices would, and starting again with slices if, from 6 dimensions,
   * short walks that ignore the ellipsoids find that they cut off part of the region above the bound
   * (see the nested-sampling guide); slices otherwise.
   * @defaultValue "auto"
   */
  sampler?: NestedSampler;
  /**
   * Slice steps per new point (slice sampler). Each step along a random direction of the live points'
   * metric leaves about e^{−1/dim} of the start's correlation, so a new point keeps e^{−slices/dim} of
   * the live point it started from: 0.35 at dim + 3, which biased log Z low by 2–3 standard errors on
   * 50-dimensional correlated Gaussians (H ≈ 120 nats) but was calibrated up to 20 dimensions; 3 · dim
   * leaves 0.05.
   * @defaultValue dim + 3 (dynesty's rslice default) up to 20 dimensions, 3 · dim beyond
   */
  slices?: number;
  /**
   * Bootstrap resamples that set the ellipsoids' expansion factor (ellipsoid sampler; 0 for none).
   * @defaultValue 5
   */
  bootstraps?: number;
  /**
   * Simulated runs behind the standard error (threads resampled, shrinkage drawn anew).
   * @defaultValue 200
   */
  simulations?: number;
  /**
   * Islands: the live points' threads are dealt into this many groups, and a slice move starts only
   * from a live point of the dead point's own group, so that each group is an independent run with
   * K / islands live points (sharing only the metric). Their log Z's spread is a standard error
   * that sees what the simulated one cannot: new points correlated with the live points they started
   * from (1 for none).
   * @defaultValue 8, or K / 10 with fewer than 80 live points
   */
  islands?: number;
  /**
   * Stop after this many iterations (dead points of the baseline run and the batches together).
   * A run stopped by a limit is marked unreliable.
   * @defaultValue Infinity
   */
  maxIterations?: number;
  /**
   * Stop once this many likelihood evaluations are spent (checked between iterations). A run stopped
   * by a limit is marked unreliable.
   * @defaultValue Infinity
   */
  maxEvaluations?: number;
  /**
   * Proposals inside the ellipsoids per new point before the run is declared stalled, with an
   * `OccamError` that says what to change (sampler "ellipsoid"). Under "auto" a point gives up after
   * the smaller of this and fifty slices' worth of evaluations, and is drawn by a slice move instead.
   * @defaultValue 100000
   */
  maxTries?: number;
  /**
   * Dynamic nested sampling: after the baseline run, batches of live points where the posterior mass
   * is, for better posterior draws (true for the defaults of {@link DynamicNestedOptions}).
   * @defaultValue false
   */
  dynamic?: boolean | DynamicNestedOptions;
}

/** The resolved dynamic settings. */
export interface DynamicSettings {
  readonly batches: number;
  readonly batchLivePoints: number;
  readonly posteriorFraction: number;
}

/** The resolved options. */
export interface NestedSettings {
  readonly livePoints: number;
  readonly dlogz: number;
  readonly sampler: NestedSampler;
  readonly slices: number;
  readonly bootstraps: number;
  readonly simulations: number;
  readonly islands: number;
  readonly maxIterations: number;
  readonly maxEvaluations: number;
  readonly maxTries: number;
  readonly dynamic: DynamicSettings | null;
}

/** A limit: a positive integer or Infinity. */
function checkLimit(value: number, name: string, where: string): void {
  if (!(value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 1))) {
    throw new OccamError(
      "invalid-argument",
      `${where}: ${name} must be a positive integer or Infinity, got ${value}.`,
    );
  }
}

function resolveDynamic(
  value: boolean | DynamicNestedOptions | undefined,
  livePoints: number,
  dim: number,
  where: string,
): DynamicSettings | null {
  if (value === undefined || value === false) return null;
  if (value !== true && (value === null || typeof value !== "object")) {
    throw new OccamError(
      "invalid-argument",
      `${where}: dynamic must be true, false or { batches, batchLivePoints, posteriorFraction }.`,
    );
  }
  const options = value === true ? {} : value;
  const settings = {
    batches: options.batches ?? 3,
    batchLivePoints: options.batchLivePoints ?? livePoints,
    posteriorFraction: options.posteriorFraction ?? 0.8,
  };
  checkCount(settings.batches, "dynamic.batches", where, 1);
  checkCount(settings.batchLivePoints, "dynamic.batchLivePoints", where, dim + 1);
  if (!(settings.posteriorFraction >= 0 && settings.posteriorFraction <= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: dynamic.posteriorFraction must lie in [0, 1], got ${settings.posteriorFraction}.`,
    );
  }
  return settings;
}

/**
 * Slice moves need at least this many live points or slices per dimension: below both, the moves
 * follow the live points' noisy metric closely enough to bias log Z (measured in 50 dimensions: 100
 * live points and 53 slices 7 nats high; 300 live points, or 200 slices, within 0.2).
 */
export const SLICE_POINTS_PER_DIM = 4;

/** Up to this dimension a run on ellipsoids has {@link LOW_DIMENSION_LIVE_POINTS} live points by default. */
const LOW_DIMENSION = 3;
/**
 * Live points by default in one to three dimensions with ellipsoids (a `priorTransform`): there a new
 * point costs about two evaluations, so three times dynesty's 500 cost little and bring the standard
 * error √(H/K) down by √3 — on the eggbox from 0.12 to 0.065 nats, within 0.1 nats of the truth in 5
 * seeds of 5, at 32 000 evaluations a run (500 live points: 2 of 5, 22 000; dynesty's 500: 57 000–74 000).
 * Slice moves cost d + 3 slices a point, and keep 500.
 */
const LOW_DIMENSION_LIVE_POINTS = 1500;

/**
 * The default number of live points in `d` dimensions: 1500 up to three when new points come from
 * ellipsoids (`ellipsoids`), otherwise dynesty's 500, and never fewer than the
 * {@link SLICE_POINTS_PER_DIM} · d below which the slices' metric is too noisy. The standard error,
 * √(H/K), then grows with the information H: about half a nat on the 50-dimensional box (H ≈ 120),
 * at 48 million evaluations, where 25 d live points spent 121 million for 0.3 nats.
 */
export function defaultLivePoints(d: number, ellipsoids: boolean): number {
  return ellipsoids && d <= LOW_DIMENSION
    ? LOW_DIMENSION_LIVE_POINTS
    : Math.max(500, SLICE_POINTS_PER_DIM * d);
}

/** Fills the defaults of {@link NestedSamplingOptions} and checks every option, throwing at once. */
export function resolveNestedOptions(
  model: BayesModel,
  options: NestedSamplingOptions,
  where: string,
): NestedSettings {
  const d = model.dim;
  const ellipsoids = model.priorTransform !== undefined && options.sampler !== "slice";
  const livePoints = options.livePoints ?? defaultLivePoints(d, ellipsoids);
  if (!(Number.isInteger(livePoints) && livePoints >= d + 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: livePoints must be an integer ≥ dim + 1 = ${d + 1} (the bounds and the slice metric need a ` +
        `covariance of the live points), got ${livePoints}; a few hundred is usual.`,
    );
  }
  const dlogz = options.dlogz ?? 0.1;
  if (!(dlogz > 0 && Number.isFinite(dlogz))) {
    throw new OccamError(
      "invalid-argument",
      `${where}: dlogz must be a finite number > 0 (the nats the live points may still add when the run stops; ` +
        `0.01–0.5 is usual), got ${dlogz}.`,
    );
  }
  const sampler = options.sampler ?? "auto";
  if (sampler !== "auto" && sampler !== "ellipsoid" && sampler !== "slice") {
    throw new OccamError(
      "invalid-argument",
      `${where}: sampler must be "auto", "ellipsoid" or "slice", got ${JSON.stringify(sampler)}.`,
    );
  }
  if (sampler === "ellipsoid" && model.priorTransform === undefined) {
    throw new OccamError(
      "invalid-argument",
      `${where}: sampler "ellipsoid" draws uniformly in the unit cube and needs model.priorTransform; ` +
        `give the model one, or use sampler "slice".`,
    );
  }
  const settings: NestedSettings = {
    livePoints,
    dlogz,
    sampler,
    slices: options.slices ?? (d <= 20 ? d + 3 : 3 * d),
    bootstraps: options.bootstraps ?? 5,
    simulations: options.simulations ?? 200,
    islands: options.islands ?? Math.max(1, Math.min(8, Math.floor(livePoints / 10))),
    maxIterations: options.maxIterations ?? Number.POSITIVE_INFINITY,
    maxEvaluations: options.maxEvaluations ?? Number.POSITIVE_INFINITY,
    maxTries: options.maxTries ?? 100_000,
    dynamic: resolveDynamic(options.dynamic, livePoints, d, where),
  };
  checkCount(settings.slices, "slices", where, 1);
  checkCount(settings.bootstraps, "bootstraps", where, 0);
  checkCount(settings.simulations, "simulations", where, 10);
  checkCount(settings.islands, "islands", where, 1);
  if (settings.islands > livePoints / 2) {
    throw new OccamError(
      "invalid-argument",
      `${where}: islands must be at most livePoints / 2 = ${Math.floor(livePoints / 2)} (each island is a run of its ` +
        `own live points), got ${settings.islands}.`,
    );
  }
  checkCount(settings.maxTries, "maxTries", where, 1);
  checkLimit(settings.maxIterations, "maxIterations", where);
  checkLimit(settings.maxEvaluations, "maxEvaluations", where);
  return settings;
}
