/**
 * The softmax output layer the network families share: logits η_0 = 0 and η_k = b_k + Σ_m v_km f_m
 * (k = 1 … K − 1) over M features f (tanh hidden units, radial basis functions), stored in θ from
 * `offset` as K − 1 blocks [b_k, v_k1 … v_kM], each bias b_k ~ N(0, s_b²). The output weights v are
 * handled outside the blocks, packed as (K − 1) × M, because their prior is a group prior over all of
 * them. Everything here runs per row or per prior evaluation and allocates nothing.
 */
import type { Rng } from "../../random/rng.js";
import { addNormalPrior } from "./priors.js";

/** Draws the K − 1 biases from N(0, s_b²) and writes them with the packed output weights into θ. */
export function sampleOutputLayer(
  rng: Rng,
  t: Float64Array,
  offset: number,
  K: number,
  M: number,
  biasSd: number,
  weights: Float64Array,
): void {
  for (let k = 0; k < K - 1; k++) {
    t[offset + k * (M + 1)] = biasSd * rng.normal();
    for (let m = 0; m < M; m++) t[offset + k * (M + 1) + 1 + m] = weights[k * M + m];
  }
}

/**
 * Adds the biases' log prior to `value` one bias at a time (with their gradient into `grad` when
 * given) and packs the output weights of θ into `weights`; returns the new value.
 */
export function addOutputBiasPriors(
  value: number,
  t: Float64Array,
  offset: number,
  K: number,
  M: number,
  biasSd: number,
  grad: Float64Array | null,
  weights: Float64Array,
): number {
  let v = value;
  for (let k = 0; k < K - 1; k++) {
    v += addNormalPrior(t, offset + k * (M + 1), 1, biasSd, grad);
    for (let m = 0; m < M; m++) weights[k * M + m] = t[offset + k * (M + 1) + 1 + m];
  }
  return v;
}

/** Adds the gradient of the packed output weights, (K − 1) × M, to their places in `grad`. */
export function addOutputWeightGradient(
  grad: Float64Array,
  offset: number,
  K: number,
  M: number,
  dWeights: Float64Array,
): void {
  for (let k = 0; k < K - 1; k++) {
    for (let m = 0; m < M; m++) grad[offset + k * (M + 1) + 1 + m] += dWeights[k * M + m];
  }
}

/** Writes the K logits of the features `f` into `eta`. */
export function outputLogits(
  theta: Float64Array,
  offset: number,
  K: number,
  M: number,
  f: Float64Array,
  eta: Float64Array,
): void {
  eta[0] = 0;
  for (let k = 1; k < K; k++) {
    const o = offset + (k - 1) * (M + 1);
    let e = theta[o];
    for (let m = 0; m < M; m++) e += theta[o + 1 + m] * f[m];
    eta[k] = e;
  }
}

/**
 * Back-propagation through the layer for feature m: adds Σ_k dEta_k f_m to the gradient `gOut` of its
 * output weights (laid out as the blocks, from 0) and returns ∂/∂f_m of Σ_k dEta_k η_k, Σ_k dEta_k v_km.
 */
export function featureGradient(
  theta: Float64Array,
  offset: number,
  K: number,
  M: number,
  f: Float64Array,
  m: number,
  dEta: Float64Array,
  gOut: Float64Array,
): number {
  let g = 0;
  for (let k = 1; k < K; k++) {
    const o = (k - 1) * (M + 1);
    g += dEta[k] * theta[offset + o + 1 + m];
    gOut[o + 1 + m] += dEta[k] * f[m];
  }
  return g;
}

/** Adds dEta_k to the gradient `gOut` of each bias b_k (laid out as the blocks, from 0). */
export function addOutputBiasGradient(K: number, M: number, dEta: Float64Array, gOut: Float64Array): void {
  for (let k = 1; k < K; k++) gOut[(k - 1) * (M + 1)] += dEta[k];
}
