import { invalidArgument, OccamError } from "../errors.js";
import { erfcinv, tCdf } from "../math/stdlib.js";
import { type TabulatedT, tabulatedT } from "../math/t-cdf-table.js";
import type {
  PredictiveComponent,
  PredictiveResponse,
  StudentTPredictive,
  SubsetFamily,
} from "../models/family.js";

/**
 * Bayesian model averaging of predictions (Everson et al. eq. 5): the predictive distribution is the
 * mixture Σ_i p(M_i | D) p(y | x, D, M_i) of the models' Student-t predictives. Its mean and sd are
 * closed-form; its central intervals are quantiles of the mixture, found by safeguarded Newton
 * iteration (bisection whenever a Newton step leaves the bracket) on the mixture CDF.
 */

/** The CDF of the standard Student-t distribution with ν > 0 degrees of freedom (from @stdlib). */
export function studentTCdf(t: number, dof: number): number {
  if (Number.isNaN(t) || !(dof > 0)) {
    throw new OccamError(
      "invalid-argument",
      `studentTCdf: need a number t and dof > 0, got t = ${t}, dof = ${dof}.`,
    );
  }
  return tCdf(t, dof);
}

/** Options of {@link modelAverage}. */
export interface ModelAverageOptions {
  /** Posterior model probabilities (or any non-negative weights; normalised over the kept models). */
  weights: ArrayLike<number>;
  /** The Student-t predictive of model i at the new inputs; called only for the models kept. */
  predictive: (i: number) => StudentTPredictive;
  /** Number of new inputs m (length of each predictive's location and scale). */
  m: number;
  /**
   * Levels of the central predictive intervals.
   * @defaultValue [0.5, 0.9, 0.95]
   */
  levels?: readonly number[];
  /**
   * Models with weight ≤ threshold × (total weight) are dropped (their share is reported as `weightDropped`).
   * @defaultValue 1e-6
   */
  threshold?: number;
}

/** A central predictive interval at each new input. */
export interface PredictiveInterval {
  readonly level: number;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
}

/** The model-averaged predictive distribution at m new inputs. */
export interface ModelAverage {
  /** Mixture mean (NaN if a kept model has ν ≤ 1). */
  readonly mean: Float64Array;
  /** Mixture standard deviation (NaN if a kept model has ν ≤ 2; Infinity never returned as a number). */
  readonly sd: Float64Array;
  readonly intervals: readonly PredictiveInterval[];
  /** The models kept, and their renormalised weights. */
  readonly models: Int32Array;
  readonly weights: Float64Array;
  /** Share of the total weight dropped by the threshold. */
  readonly weightDropped: number;
  /** The mixture CDF at new input r. */
  cdf(r: number, value: number): number;
  /** The mixture quantile at new input r. */
  quantile(r: number, probability: number): number;
}

/**
 * The models of {@link modelAverage} whose weight passes `floor`: their indices, renormalised weights,
 * degrees of freedom and their predictives' locations and scales (component-major: [c·m + r]), checked.
 */
function keptComponents(options: ModelAverageOptions, weights: ArrayLike<number>, floor: number, m: number) {
  const kept: number[] = [];
  let keptWeight = 0;
  let droppedWeight = 0;
  for (let i = 0; i < weights.length; i++) {
    if (weights[i] > floor) {
      kept.push(i);
      keptWeight += weights[i];
    } else droppedWeight += weights[i];
  }
  const K = kept.length;
  const w = new Float64Array(K);
  const dof = new Float64Array(K);
  const loc = new Float64Array(K * m); // component-major: loc[c·m + r]
  const scale = new Float64Array(K * m);
  for (let c = 0; c < K; c++) {
    const i = kept[c];
    w[c] = weights[i] / keptWeight;
    const pred = options.predictive(i);
    if (!(pred.dof > 0) || pred.location?.length !== m || pred.scale?.length !== m) {
      throw new OccamError(
        "dimension-mismatch",
        `modelAverage: the predictive of model ${i} must have dof > 0 and location and scale of length m = ${m}.`,
      );
    }
    dof[c] = pred.dof;
    for (let r = 0; r < m; r++) {
      const s = pred.scale[r];
      const mu = pred.location[r];
      if (!(s > 0 && Number.isFinite(s) && Number.isFinite(mu))) {
        throw new OccamError(
          "non-finite",
          `modelAverage: model ${i} has location ${mu} and scale ${s} at new input ${r}; need finite values and scale > 0.`,
        );
      }
      loc[c * m + r] = mu;
      scale[c * m + r] = s;
    }
  }

  return { kept, droppedWeight, K, w, dof, loc, scale };
}

/** The options of {@link modelAverage} checked, with their defaults, and the weights' total. */
function checkedOptions(options: ModelAverageOptions) {
  if (options === null || typeof options !== "object") {
    throw invalidArgument("modelAverage", "options { weights, predictive, m } are required.");
  }
  const { weights, m } = options;
  const levels = options.levels ?? [0.5, 0.9, 0.95];
  const threshold = options.threshold ?? 1e-6;
  if (typeof options.predictive !== "function")
    throw invalidArgument("modelAverage", "predictive must be a function (i) => StudentTPredictive.");
  if (!(Number.isInteger(m) && m >= 1))
    throw invalidArgument("modelAverage", `m must be a positive integer, got ${m}.`);
  if (!(threshold >= 0 && threshold < 1))
    throw invalidArgument("modelAverage", `threshold must be in [0, 1), got ${threshold}.`);
  for (const level of levels) {
    if (!(level > 0 && level < 1))
      throw invalidArgument("modelAverage", `every interval level must be in (0, 1), got ${level}.`);
  }
  if (weights === null || typeof weights !== "object" || weights.length < 1) {
    throw invalidArgument("modelAverage", "weights must be a non-empty array of numbers.");
  }
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i];
    if (!(w >= 0 && Number.isFinite(w)))
      throw invalidArgument("modelAverage", `weights[${i}] must be finite and ≥ 0, got ${w}.`);
    total += w;
  }
  if (!(total > 0)) throw invalidArgument("modelAverage", "the weights sum to 0.");
  return { weights, m, levels, threshold, total };
}

/**
 * Averages the Student-t predictives of several models with their posterior probabilities.
 *
 * @example
 * const avg = modelAverage({ weights: cmp.probability, predictive: (i) => preds[i], m: 1 });
 * avg.intervals[2].lower[0]; // lower end of the 95 % interval at the first new input
 */
export function modelAverage(options: ModelAverageOptions): ModelAverage {
  const { weights, m, levels, threshold, total } = checkedOptions(options);
  const { kept, droppedWeight, K, w, dof, loc, scale } = keptComponents(
    options,
    weights,
    threshold * total,
    m,
  );

  const mean = new Float64Array(m);
  const sd = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    let mu = 0;
    for (let c = 0; c < K; c++) mu += w[c] * (dof[c] > 1 ? loc[c * m + r] : Number.NaN);
    // Var = Σ w_c [s_c² ν/(ν − 2) + (μ_c − μ)²]: the law of total variance, no cancellation.
    let v = 0;
    for (let c = 0; c < K; c++) {
      const d = loc[c * m + r] - mu;
      const varC = dof[c] > 2 ? (scale[c * m + r] ** 2 * dof[c]) / (dof[c] - 2) : Number.NaN;
      v += w[c] * (varC + d * d);
    }
    mean[r] = mu;
    sd[r] = Math.sqrt(v);
  }

  // One table per distinct ν (a g-prior's or NIG's components share theirs).
  const tables = new Map<number, TabulatedT>();
  const tOf = Array.from(dof, (nu) => {
    let table = tables.get(nu);
    if (table === undefined) {
      table = tabulatedT(nu);
      tables.set(nu, table);
    }
    return table;
  });
  const cdf = (r: number, x: number): number => {
    let F = 0;
    for (let c = 0; c < K; c++) F += w[c] * tOf[c].cdf((x - loc[c * m + r]) / scale[c * m + r]);
    return F;
  };
  const pdf = (r: number, x: number): number => {
    let f = 0;
    for (let c = 0; c < K; c++) {
      const s = scale[c * m + r];
      f += (w[c] / s) * tOf[c].pdf((x - loc[c * m + r]) / s);
    }
    return f;
  };
  const quantile = (r: number, prob: number): number => {
    if (!(Number.isInteger(r) && r >= 0 && r < m))
      throw invalidArgument("modelAverage", `new input ${r} is not in [0, ${m}).`);
    if (!(prob > 0 && prob < 1))
      throw invalidArgument("modelAverage", `probability must be in (0, 1), got ${prob}.`);
    let sMin = Number.POSITIVE_INFINITY;
    let centre = 0;
    for (let c = 0; c < K; c++) {
      sMin = Math.min(sMin, scale[c * m + r]);
      centre += w[c] * loc[c * m + r];
    }
    const spread = Number.isFinite(sd[r]) && sd[r] > 0 ? sd[r] : sMin;
    const start = Number.isFinite(mean[r]) ? mean[r] - Math.SQRT2 * erfcinv(2 * prob) * spread : centre;
    return solveCdf(
      (x) => cdf(r, x) - prob,
      (x) => pdf(r, x),
      start,
      spread,
      1e-12 * sMin,
    );
  };
  const intervals = levels.map((level) => {
    const lower = new Float64Array(m);
    const upper = new Float64Array(m);
    for (let r = 0; r < m; r++) {
      lower[r] = quantile(r, 0.5 * (1 - level));
      upper[r] = quantile(r, 0.5 * (1 + level));
    }
    return { level, lower, upper };
  });
  return {
    mean,
    sd,
    intervals,
    models: Int32Array.from(kept),
    weights: w,
    weightDropped: droppedWeight / total,
    cdf: (r, value) => {
      if (!(Number.isInteger(r) && r >= 0 && r < m))
        throw invalidArgument("modelAverage", `new input ${r} is not in [0, ${m}).`);
      return cdf(r, value);
    },
    quantile,
  };
}

/**
 * Model-averaged predictions of a family's models at the m rows of `Xnew` (m × the family's columns): the
 * models weighted by their posterior probabilities (`logPosterior`, as `searchSubsets` and
 * `summarizeSubsets` rank them), each model's predictive (a Student-t, or a mixture of them) computed
 * only when its probability passes the threshold, of a new observation or (`response: "mean"`) of the
 * mean response. Throws an `invalid-argument` OccamError when the family has no predictive.
 *
 * @example
 * const summary = searchSubsets(family, { top: 2 ** family.terms.length });
 * const avg = averageSubsetPredictions(family, summary.top, Xnew, m);
 */
export function averageSubsetPredictions(
  family: SubsetFamily,
  models: readonly { readonly members: ArrayLike<number>; readonly logPosterior: number }[],
  Xnew: ArrayLike<number>,
  m: number,
  options: Pick<ModelAverageOptions, "levels" | "threshold"> & { response?: PredictiveResponse } = {},
): ModelAverage {
  const predictive = family.predictive;
  if (predictive === undefined) {
    throw new OccamError(
      "invalid-argument",
      "averageSubsetPredictions: this family has no closed-form predictive (use a g-prior or the NIG prior).",
    );
  }
  const threshold = options.threshold ?? 1e-6;
  const weights = models.map((model) => Math.exp(model.logPosterior));
  const total = weights.reduce((a, b) => a + b, 0);
  // Each kept model's components, weighted by its probability: one mixture over models and components.
  const components: PredictiveComponent[] = [];
  const kept: number[] = [];
  let keptWeight = 0;
  models.forEach((model, i) => {
    if (!(weights[i] > threshold * total)) return;
    kept.push(i);
    keptWeight += weights[i];
    for (const c of predictive(model.members, Xnew, m, options.response ?? "observation")) {
      components.push({ weight: weights[i] * c.weight, predictive: c.predictive });
    }
  });
  if (kept.length === 0) {
    throw invalidArgument("averageSubsetPredictions", "no model has a positive probability.");
  }
  const mixture = modelAverage({
    ...(options.levels === undefined ? {} : { levels: options.levels }),
    threshold: 0,
    weights: components.map((c) => c.weight),
    m,
    predictive: (i) => components[i].predictive,
  });
  return {
    ...mixture,
    models: Int32Array.from(kept),
    weights: Float64Array.from(kept, (i) => weights[i] / keptWeight),
    weightDropped: 1 - keptWeight / total,
  };
}

/**
 * The root of an increasing CDF's offset g(x) = F(x) − p, with f = F′: Newton from `start` (the
 * normal quantile with the mixture's mean and sd), keeping the bracket its evaluations set —
 * bisection once both ends are known and a step leaves them, doubling steps of `spread`/4 outwards
 * before — to `tol`. A handful of evaluations of the CDF, each a sum over every component.
 */
function solveCdf(
  g: (x: number) => number,
  f: (x: number) => number,
  start: number,
  spread: number,
  tol: number,
): number {
  let x = start;
  let lo = Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  let step = 0.25 * spread;
  for (let iter = 0; iter < 200; iter++) {
    const value = g(x);
    if (value === 0) return x;
    if (value < 0) lo = x;
    else hi = x;
    if (hi - lo <= tol) return x;
    const slope = f(x);
    let next = slope > 0 ? x - value / slope : Number.NaN;
    if (!(next > lo && next < hi)) {
      if (Number.isFinite(lo) && Number.isFinite(hi)) next = 0.5 * (lo + hi);
      else {
        next = value < 0 ? x + step : x - step;
        step *= 2;
      }
    }
    if (Math.abs(next - x) <= tol) return next;
    x = next;
  }
  return x;
}
