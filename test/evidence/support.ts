import { Draws } from "../../src/model/draws.js";
import type { BayesModel } from "../../src/model/model.js";
import type { GaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { createRng } from "../../src/random/rng.js";

/**
 * Autocorrelated "MCMC" draws with the exact posterior as stationary law: nChains AR(1) chains
 * θ_t = μ + ρ(θ_{t−1} − μ) + √(1 − ρ²) s ε_t started in stationarity, so tests of the autocorrelation
 * corrections do not depend on the samplers.
 */
export function arPosteriorDraws(
  model: GaussianMeanModel,
  seed: number,
  nChains: number,
  nDraws: number,
  rho: number,
): Draws {
  const { mean, sd } = model.posterior();
  const d = model.dim;
  const rng = createRng(seed);
  const innovation = Math.sqrt(1 - rho * rho) * sd;
  const chains: Float64Array[][] = [];
  for (let c = 0; c < nChains; c++) {
    const chain: Float64Array[] = [];
    let x = new Float64Array(d);
    for (let j = 0; j < d; j++) x[j] = mean[j] + sd * rng.normal();
    for (let t = 0; t < nDraws; t++) {
      const y = new Float64Array(d);
      for (let j = 0; j < d; j++) y[j] = mean[j] + rho * (x[j] - mean[j]) + innovation * rng.normal();
      chain.push(y);
      x = y;
    }
    chains.push(chain);
  }
  return Draws.fromArrays(chains);
}

/** Exact posterior draws of the gaussian-mean model. */
export function exactDraws(model: GaussianMeanModel, seed: number, n: number): Float64Array[] {
  return model.samplePosterior(createRng(seed), n);
}

/**
 * A copy of `model` whose log likelihood is NaN at the points where `bad` holds (to test that
 * estimators name the offending draw).
 */
export function withNaNLikelihood(model: BayesModel, bad: (theta: Float64Array) => boolean): BayesModel {
  return {
    dim: model.dim,
    logPrior: (theta) => model.logPrior(theta),
    logLikelihood: (theta) => (bad(theta) ? Number.NaN : model.logLikelihood(theta)),
    samplePrior: (rng) => model.samplePrior(rng),
  };
}

/** Catches what `fn` throws (undefined when it returns). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
