/**
 * Test support for nested sampling (not a test file): the gaussian-mean model with a prior transform,
 * and models that break the contract in the ways nested sampling must catch.
 */

import { standardNormalQuantile } from "../../../src/math/special.js";
import type { BayesModel } from "../../../src/model/model.js";
import { type GaussianMeanModel, gaussianMeanModel } from "../../../src/models/gaussian-mean/index.js";

/** The gaussian-mean model of dimension d (n = 20, σ = 1, prior N(0, 1), data seed 3). */
export function meanModel(d: number): GaussianMeanModel {
  return gaussianMeanModel({ dim: d, n: 20, seed: 3 });
}

/** The same model with its prior transform μ_j = m0 + s0 Φ⁻¹(u_j). */
export function withTransform(model: GaussianMeanModel): GaussianMeanModel {
  return {
    ...model,
    priorTransform(u: Float64Array, out: Float64Array): Float64Array {
      for (let j = 0; j < model.dim; j++)
        out[j] = model.priorMean + model.priorSd * standardNormalQuantile(u[j]);
      return out;
    },
  };
}

/** A uniform prior on [0, 1]^d with a Gaussian likelihood at `centre` of width `sd`, and a transform of its own making. */
export function boxModel(
  d: number,
  transform: (u: Float64Array, out: Float64Array) => Float64Array,
  logLikelihood?: (theta: Float64Array) => number,
): BayesModel {
  return {
    dim: d,
    logPrior: (theta) => (theta.every((v) => v >= 0 && v <= 1) ? 0 : Number.NEGATIVE_INFINITY),
    logLikelihood:
      logLikelihood ??
      ((theta) => {
        let s = 0;
        for (const v of theta) s += (v - 0.5) ** 2;
        return -s / (2 * 0.01);
      }),
    samplePrior: (rng) => Float64Array.from({ length: d }, () => rng.uniform()),
    priorTransform: transform,
  };
}

/** The identity transform of the unit box. */
export function identity(u: Float64Array, out: Float64Array): Float64Array {
  out.set(u);
  return out;
}
