/**
 * Model averaging of generalised linear models: each model's weighted posterior draws (importance
 * sampling from its evidence's proposal, `glmPosteriorDraws`) pooled with weights p(M | y) · w_s, into
 * the coefficients in the inputs' units (0 in the models that leave a column out) and the mean response
 * at new rows (probability, or rate), each with its mean and central interval.
 */
import type { Standardized } from "../data/csv.js";
import type { GlmPosteriorDraws } from "../models/glm/evidence.js";
import { type GlmLink, inverseLink } from "../models/glm/family.js";

/** One model's part in the averages. */
export interface AveragedGlm {
  /** Its posterior probability (over the models averaged). */
  readonly probability: number;
  /** The design columns it holds, in the order of its coefficients after the intercept. */
  readonly columns: readonly number[];
  readonly draws: GlmPosteriorDraws;
  /** With random terms and new rows: each draw's random part of the linear predictor there (count × rows). */
  readonly randomPart?: Float64Array;
}

/** A model-averaged coefficient, in the inputs' units. */
export interface GlmCoefficient {
  /** "(intercept)" or the design column's name. */
  readonly name: string;
  readonly inclusionProbability: number;
  readonly mean: number;
  readonly sd: number;
  /** Central 95 % interval. */
  readonly lower: number;
  readonly upper: number;
}

/** The model-averaged mean response at one new row: a probability (logit, probit) or an expected count (log, the offset included). */
export interface GlmPrediction {
  readonly mean: number;
  /** Central 90 % interval. */
  readonly lower: number;
  readonly upper: number;
}

/** The values at probabilities `lower` and `upper` of a weighted sample (weights summing to 1). */
function weightedInterval(
  values: Float64Array,
  weights: Float64Array,
  lower: number,
  upper: number,
): [number, number] {
  const order = Array.from(values.keys()).sort((a, b) => values[a] - values[b]);
  let cumulative = 0;
  let low = Number.NaN;
  for (const i of order) {
    cumulative += weights[i];
    if (Number.isNaN(low) && cumulative >= lower) low = values[i];
    if (cumulative >= upper) return [low, values[i]];
  }
  return [low, values[order[order.length - 1]]];
}

/** Every pooled draw's weight p(M | y) · w_s, model after model. */
function pooledWeights(models: readonly AveragedGlm[]): Float64Array {
  const out = new Float64Array(models.reduce((s, m) => s + m.draws.count, 0));
  let at = 0;
  for (const m of models)
    for (let s = 0; s < m.draws.count; s++) out[at++] = m.probability * m.draws.weights[s];
  return out;
}

/** Mean, standard deviation and central interval of a weighted sample. */
function summary(values: Float64Array, weights: Float64Array, level: number) {
  let mean = 0;
  for (let i = 0; i < values.length; i++) mean += weights[i] * values[i];
  let variance = 0;
  for (let i = 0; i < values.length; i++) variance += weights[i] * (values[i] - mean) ** 2;
  const [lower, upper] = weightedInterval(values, weights, (1 - level) / 2, (1 + level) / 2);
  return { mean, sd: Math.sqrt(variance), lower, upper };
}

/**
 * The model-averaged intercept and coefficients of every design column in the inputs' units: a model's
 * coefficients θ on standardised columns become θ_c / sd_c, and its intercept θ_0 − Σ θ_c mean_c / sd_c.
 */
export function averagedCoefficients(
  models: readonly AveragedGlm[],
  columnNames: readonly string[],
  scaling: Pick<Standardized, "means" | "sds">,
  inclusion: (column: number) => number,
): GlmCoefficient[] {
  const weights = pooledWeights(models);
  const P = columnNames.length;
  const values = Array.from({ length: P + 1 }, () => new Float64Array(weights.length));
  let at = 0;
  for (const m of models) {
    const k = m.columns.length + 1;
    for (let s = 0; s < m.draws.count; s++, at++) {
      const { theta } = m.draws;
      let intercept = theta[s * k];
      for (let j = 0; j < m.columns.length; j++) {
        const c = m.columns[j];
        const slope = theta[s * k + j + 1];
        values[c + 1][at] = slope / scaling.sds[c];
        intercept -= (slope * scaling.means[c]) / scaling.sds[c];
      }
      values[0][at] = intercept;
    }
  }
  return values.map((v, c) => ({
    name: c === 0 ? "(intercept)" : columnNames[c - 1],
    inclusionProbability: c === 0 ? 1 : inclusion(c - 1),
    ...summary(v, weights, 0.95),
  }));
}

/**
 * The model-averaged mean response at each of m new rows (`X`, m × P in the design's columns, before
 * standardisation; `offset` added to the linear predictor, as in training).
 */
export function averagedPredictions(
  models: readonly AveragedGlm[],
  link: GlmLink,
  scaling: Pick<Standardized, "means" | "sds">,
  X: Float64Array,
  m: number,
  offset: Float64Array | undefined,
): GlmPrediction[] {
  const weights = pooledWeights(models);
  const P = scaling.means.length;
  const values = new Float64Array(weights.length);
  const out: GlmPrediction[] = [];
  for (let r = 0; r < m; r++) {
    let at = 0;
    for (const model of models) {
      const k = model.columns.length + 1;
      for (let s = 0; s < model.draws.count; s++, at++) {
        const theta = model.draws.theta;
        let eta = theta[s * k] + (offset?.[r] ?? 0) + (model.randomPart?.[s * m + r] ?? 0);
        for (let j = 0; j < model.columns.length; j++) {
          const c = model.columns[j];
          eta += (theta[s * k + j + 1] * (X[r * P + c] - scaling.means[c])) / scaling.sds[c];
        }
        values[at] = inverseLink(link, eta);
      }
    }
    const { mean, lower, upper } = summary(values, weights, 0.9);
    out.push({ mean, lower, upper });
  }
  return out;
}
