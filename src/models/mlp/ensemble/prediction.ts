/** The predictive distribution of the ensemble approximation, linearised around q(w)'s mean. */
import { OccamError } from "../../../errors.js";
import { lowerTriTransposeMatVec } from "../../../math/linalg.js";
import type { EnsembleMlpFit } from "./fit.js";

/** The ensemble's predictive distribution at new inputs, each n × O row-major. */
export interface EnsemblePredictive {
  readonly n: number;
  readonly outputs: number;
  /** Predictive mean f(x; w̄). */
  readonly mean: Float64Array;
  /** Predictive standard deviation √(g Σ gᵀ + E_q[τ⁻¹]), g = ∂f/∂w at w̄. */
  readonly sd: Float64Array;
}

/**
 * The ensemble's predictive distribution (thesis §6.3.4, "the first approach"): the network output is
 * linearised around w̄, f(x; w) ≈ f(x; w̄) + g(x)ᵀ(w − w̄), so over q(w) it is Gaussian with variance
 * g Σ gᵀ = ‖Cᵀg‖² (Σ = C Cᵀ, the refined q(w) unless `steps` was 0); the noise adds
 * E_q[1/τ] = rate/(shape − 1). Returns the mean f(x; w̄) and the standard
 * deviation. The gradient g is by central differences of the forward pass (2W passes over the inputs).
 */
export function predictEnsembleMlp(fit: EnsembleMlpFit, X: Float64Array, n: number): EnsemblePredictive {
  const where = "predictEnsembleMlp";
  const { network } = fit.model;
  const I = network.inputs;
  const O = network.outputs;
  const W = network.size;
  if (!(Number.isInteger(n) && n >= 1) || !(X instanceof Float64Array) || X.length !== n * I) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: X must be a Float64Array of n·I = ${n}·${I} values.`,
    );
  }
  const mean = new Float64Array(n * O);
  network.predict(fit.mean, X, n, mean);
  const grads = new Float64Array(W * n * O); // grads[j][c]
  const up = new Float64Array(n * O);
  const down = new Float64Array(n * O);
  const w = Float64Array.from(fit.mean);
  for (let j = 0; j < W; j++) {
    const h = 6e-6 * Math.max(1, Math.abs(w[j]));
    const wj = w[j];
    w[j] = wj + h;
    network.predict(w, X, n, up);
    w[j] = wj - h;
    network.predict(w, X, n, down);
    w[j] = wj;
    for (let c = 0; c < n * O; c++) grads[j * n * O + c] = (up[c] - down[c]) / (2 * h);
  }
  const noiseVar =
    fit.noise.shape > 1 ? fit.noise.rate / (fit.noise.shape - 1) : fit.noise.rate / fit.noise.shape;
  const g = new Float64Array(W);
  const v = new Float64Array(W);
  const sd = new Float64Array(n * O);
  for (let c = 0; c < n * O; c++) {
    for (let j = 0; j < W; j++) g[j] = grads[j * n * O + c];
    // g Σ gᵀ = ‖Cᵀ g‖² since Σ = C Cᵀ.
    lowerTriTransposeMatVec(fit.covarianceCholesky, W, g, v);
    let s = 0;
    for (let j = 0; j < W; j++) s += v[j] * v[j];
    sd[c] = Math.sqrt(s + noiseVar);
  }
  return Object.freeze({ n, outputs: O, mean, sd });
}
