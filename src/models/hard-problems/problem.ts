/**
 * What every hard problem is (a model with a reference log evidence and the error of that
 * reference), and the two priors the problems share: uniform on a box and isotropic normal.
 */

import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { standardNormalQuantile } from "../../math/special.js";
import type { BayesModel, ParameterBounds } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";

/**
 * An evidence problem with a trusted reference: the model, log Z = log p(D | M) derived without
 * sampling the model (or, where no quadrature exists, from long independent runs), and how far that
 * reference can be from the truth. Estimators are calibrated by comparing their estimate and
 * standard error with `logZ ± logZError`.
 */
export interface EvidenceProblem {
  /** A short identifier, e.g. "shells-d5". */
  readonly name: string;
  /** One line: the prior, the likelihood, and what makes the problem hard. */
  readonly description: string;
  /** The model, validated by `defineModel`, with both gradients and parameter names. */
  readonly model: BayesModel;
  /** The reference log evidence, in nats. */
  readonly logZ: number;
  /** A bound on |logZ − true log Z| (quadrature, truncation, rounding), or the reference's standard error when it comes from Monte Carlo. */
  readonly logZError: number;
  /** How `logZ` was derived, in one sentence. */
  readonly reference: string;
  /** KL(posterior ‖ prior) in nats, where it is known in closed form or by quadrature. */
  readonly information?: number;
}

/** Throws a `dimension-mismatch` OccamError unless θ has the model's dimension. */
export function checkTheta(theta: Float64Array, dim: number, where: string): void {
  if (theta.length !== dim) {
    throw new OccamError("dimension-mismatch", `${where}: θ has length ${theta.length}, expected ${dim}.`);
  }
}

/**
 * The prior half of a {@link BayesModel}: density, gradient, sampler, the map from the unit cube
 * (for nested sampling) and (for a box) bounds.
 */
export interface PriorParts {
  readonly bounds?: ParameterBounds;
  logPrior(theta: Float64Array): number;
  gradLogPrior(theta: Float64Array, grad: Float64Array): number;
  samplePrior(rng: Rng): Float64Array;
  priorTransform(u: Float64Array, out: Float64Array): Float64Array;
}

/**
 * The uniform prior on the cube [lower, upper]^dim: log p = −dim · log(upper − lower) inside (on
 * the closed box, so that a point on a face has the density the bounds' transform sees in the
 * limit) and −Infinity outside; the gradient is zero. Draws lie strictly inside, as `defineModel`
 * requires of a prior with declared bounds.
 */
export function uniformBoxPrior(dim: number, lower: number, upper: number, where: string): PriorParts {
  if (!(Number.isFinite(lower) && Number.isFinite(upper) && lower < upper)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the box needs finite lower < upper, got [${lower}, ${upper}].`,
    );
  }
  const width = upper - lower;
  const logDensity = -dim * Math.log(width);
  const inside = (theta: Float64Array): boolean => {
    for (let j = 0; j < dim; j++) if (!(theta[j] >= lower && theta[j] <= upper)) return false;
    return true;
  };
  return {
    bounds: Object.freeze({
      lower: Object.freeze(new Array<number>(dim).fill(lower)),
      upper: Object.freeze(new Array<number>(dim).fill(upper)),
    }),
    logPrior(theta) {
      checkTheta(theta, dim, `${where}.logPrior`);
      return inside(theta) ? logDensity : Number.NEGATIVE_INFINITY;
    },
    gradLogPrior(theta, grad) {
      checkTheta(theta, dim, `${where}.gradLogPrior`);
      grad.fill(0);
      return inside(theta) ? logDensity : Number.NEGATIVE_INFINITY;
    },
    priorTransform(u, out) {
      checkTheta(u, dim, `${where}.priorTransform`);
      // The prior is closed on the box, so a u that rounds onto a face still has a finite log prior.
      for (let j = 0; j < dim; j++) out[j] = lower + width * u[j];
      return out;
    },
    samplePrior(rng) {
      const theta = new Float64Array(dim);
      for (let j = 0; j < dim; j++) {
        // lower + width · u can round onto a face (u = 0, or u near 1 with a wide box); draw again then.
        let x: number;
        do x = lower + width * rng.uniform();
        while (!(x > lower && x < upper));
        theta[j] = x;
      }
      return theta;
    },
  };
}

/** The isotropic normal prior N(0, sd² I_dim). */
export function isotropicNormalPrior(dim: number, sd: number, where: string): PriorParts {
  if (!(Number.isFinite(sd) && sd > 0)) {
    throw new OccamError("invalid-argument", `${where}: the prior sd must be finite and > 0, got ${sd}.`);
  }
  const variance = sd * sd;
  const logConst = -0.5 * dim * (LOG_2PI + Math.log(variance));
  const value = (theta: Float64Array): number => {
    let s = 0;
    for (let j = 0; j < dim; j++) s += theta[j] * theta[j];
    return logConst - (0.5 * s) / variance;
  };
  return {
    logPrior(theta) {
      checkTheta(theta, dim, `${where}.logPrior`);
      return value(theta);
    },
    gradLogPrior(theta, grad) {
      checkTheta(theta, dim, `${where}.gradLogPrior`);
      for (let j = 0; j < dim; j++) grad[j] = -theta[j] / variance;
      return value(theta);
    },
    priorTransform(u, out) {
      checkTheta(u, dim, `${where}.priorTransform`);
      for (let j = 0; j < dim; j++) out[j] = sd * standardNormalQuantile(u[j]);
      return out;
    },
    samplePrior(rng) {
      const theta = new Float64Array(dim);
      for (let j = 0; j < dim; j++) theta[j] = sd * rng.normal();
      return theta;
    },
  };
}

/** Names θ1 … θd (1-based, as the papers number them). */
export function indexedNames(prefix: string, dim: number, start = 1): readonly string[] {
  return Object.freeze(Array.from({ length: dim }, (_, j) => `${prefix}${j + start}`));
}
