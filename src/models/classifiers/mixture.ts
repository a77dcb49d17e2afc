/**
 * Sykacek's mixture classifier used as a classifier: the class-conditional densities of Sykacek's
 * paper (and of `select-inputs --structure shared`) — D Gaussian kernels with diagonal covariances
 * shared by the classes, N(x; μ_d, diag(λ_d)⁻¹), with class-specific kernel weights w_kd — and class
 * proportions π, so that p(x | y = k) = Σ_d w_kd N(x; μ_d, diag(λ_d)⁻¹) and the predictive is
 * p(y = k | x, θ) ∝ π_k p(x | y = k, θ), i.e. η_k = log π_k + log Σ_d w_kd N(x; μ_d, diag(λ_d)⁻¹).
 *
 * What this family's evidence measures: the labels given the inputs, p(y | X, M) = ∫ p(θ) ∏_i p(y_i |
 * x_i, θ) dθ, the quantity every family answers, with the mixture's parameters under their prior. The
 * generative model that `select-inputs` samples (with Gibbs and reversible-jump moves, its parameters
 * integrated out) explains the inputs as well, p(X, y | M); its p(y | X, M) would condition the prior
 * on every input, which no fold scheme can estimate from that sampler. Here the data enter through
 * p(y | x, θ) only, and HMC samples the parameters, all continuous, over every input (no input
 * selection).
 *
 * Prior (on standardised inputs): π ~ Dirichlet(δ_P); each class's kernel weights ~ Dirichlet(δ_w);
 * μ_di ~ N(0, s_μ²); λ_di | β_i ~ Gamma(a, β_i) with β_i ~ Gamma(g, h) per input (Sykacek's hierarchy,
 * the β_i integrated out; Sykacek also ties the means' prior to λ, which occam drops so that HMC sees
 * independent blocks). Swapping two kernels (with their weights) changes nothing, so occam samples the
 * kernels with their means on the first input in increasing order and multiplies the prior by D!
 * there, which leaves the evidence unchanged.
 */
import gammaln from "@stdlib/math-base-special-gammaln";
import { checkInteger, checkPositive } from "../../errors.js";
import { HALF_LOG_2PI } from "../../math/constants.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "../mixture-classifier/data.js";
import { type ConditionalClassifier, conditionalClassifier, type LogitFunction } from "./family.js";
import {
  addDirichletLogits,
  addNormalPrior,
  addSortedGradient,
  incrementsFromSorted,
  logOrderings,
  sampleDirichletLogits,
  sortedFromIncrements,
} from "./priors.js";

/** Options of {@link mixtureClassifier}. */
export interface MixtureFamilyOptions {
  /** Kernels D, shared by the classes. @defaultValue 2 */
  kernels?: number;
  /** Prior standard deviation s_μ of a kernel mean (inputs are standardised). @defaultValue 1.5 */
  meanSd?: number;
  /** Shape a of the kernel precisions' Gamma prior. @defaultValue 2 */
  a?: number;
  /** Shape g of the hyperprior β_i ~ Gamma(g, h). @defaultValue 2 */
  g?: number;
  /** Rate h of the hyperprior on β_i (prior mean precision a·h/(g − 1) = 2: kernels of width 0.7). @defaultValue 1 */
  h?: number;
  /** Dirichlet count δ_w of each class's kernel weights. @defaultValue 1 */
  deltaW?: number;
  /** Dirichlet count δ_P of the class proportions. @defaultValue 1 */
  deltaP?: number;
}

/**
 * Builds the mixture family on training data with standardised inputs (see the module header).
 * Parameter layout: class logits a_k (k = 1 … K − 1, a_0 = 0); kernel-weight logits z_kd
 * (k = 0 … K − 1, d = 1 … D − 1, z_k0 = 0); the kernels' means on the first input as increments
 * (μ_01, then log(μ_d1 − μ_(d−1)1)); the other means μ_di (kernel by kernel); log precisions log λ_di.
 */
export function mixtureClassifier(
  data: ClassificationData,
  options: MixtureFamilyOptions = {},
): ConditionalClassifier {
  const D = options.kernels ?? 2;
  checkInteger(D, "mixture: kernels", 1);
  const s = {
    meanSd: options.meanSd ?? 1.5,
    a: options.a ?? 2,
    g: options.g ?? 2,
    h: options.h ?? 1,
    deltaW: options.deltaW ?? 1,
    deltaP: options.deltaP ?? 1,
  };
  for (const [name, value] of Object.entries(s)) checkPositive(value, `mixture: ${name}`);
  const K = data.classNames.length;
  const p = data.p;
  const oWeights = K - 1;
  const oFirst = oWeights + K * (D - 1);
  const oMeans = oFirst + D; // D × (p − 1)
  const oPrec = oMeans + D * (p - 1); // D × p
  const dim = oPrec + D * p;
  const logPrecNorm = gammaln(s.g + D * s.a) - gammaln(s.g) - D * gammaln(s.a) + s.g * Math.log(s.h);
  const power = s.g + D * s.a;
  const logKernelOrder = logOrderings(D, false);

  const mu = new Float64Array(D * p);
  const lam = new Float64Array(D * p);
  const logNormConst = new Float64Array(D);
  const logW = new Float64Array(K * D);
  const wts = new Float64Array(K * D);
  const logN = new Float64Array(D);
  const resp = new Float64Array(K * D);
  const gMu = new Float64Array(D * p);
  const gLogLam = new Float64Array(D * p);
  const gZ = new Float64Array(K * D);
  const gA = new Float64Array(K);
  const dFirst = new Float64Array(D);
  const first = new Float64Array(D);
  let theta: Float64Array = new Float64Array(dim);

  const prior = (t: Float64Array, grad: Float64Array | null): number => {
    if (grad !== null) grad.fill(0);
    let value = addDirichletLogits(t, 0, K, s.deltaP, grad);
    for (let k = 0; k < K; k++) value += addDirichletLogits(t, oWeights + k * (D - 1), D, s.deltaW, grad);
    // Sorted means on the first input: D! ∏ N(μ_d1; 0, s_μ²) on the ordered region, with the Jacobian.
    value += logKernelOrder + sortedFromIncrements(t, oFirst, D, false, first);
    value += addNormalPrior(first, 0, D, s.meanSd, null);
    if (grad !== null) {
      for (let d = 0; d < D; d++) dFirst[d] = -first[d] / (s.meanSd * s.meanSd);
      addSortedGradient(t, oFirst, D, false, dFirst, grad, true);
    }
    value += addNormalPrior(t, oMeans, D * (p - 1), s.meanSd, grad);
    // Each input's precisions λ_·i: λ | β ~ Gamma(a, β), β ~ Gamma(g, h) integrated, times the Jacobian ∏ λ.
    for (let i = 0; i < p; i++) {
      let sumLam = 0;
      let sumLog = 0;
      for (let d = 0; d < D; d++) {
        sumLam += Math.exp(t[oPrec + d * p + i]);
        sumLog += t[oPrec + d * p + i];
      }
      value += logPrecNorm + s.a * sumLog - power * Math.log(s.h + sumLam);
      if (grad !== null) {
        for (let d = 0; d < D; d++) {
          grad[oPrec + d * p + i] += s.a - (power * Math.exp(t[oPrec + d * p + i])) / (s.h + sumLam);
        }
      }
    }
    return value;
  };

  const names: string[] = [];
  for (let k = 1; k < K; k++) names.push(`a[${data.classNames[k]}]`);
  for (let k = 0; k < K; k++) for (let d = 1; d < D; d++) names.push(`z[${data.classNames[k]},${d}]`);
  for (let d = 0; d < D; d++)
    names.push(d === 0 ? `mu[0,${data.inputNames[0]}]` : `log(mu[${d},·] − mu[${d - 1},·])`);
  for (let d = 0; d < D; d++) for (let i = 1; i < p; i++) names.push(`mu[${d},${data.inputNames[i]}]`);
  for (let d = 0; d < D; d++)
    for (let i = 0; i < p; i++) names.push(`log lambda[${d},${data.inputNames[i]}]`);

  const net: LogitFunction = {
    family: "mixture",
    dim,
    names,
    classes: K,
    inputs: p,
    logPrior: (t) => prior(t, null),
    gradLogPrior: (t, grad) => prior(t, grad),
    samplePrior(rng: Rng) {
      const t = new Float64Array(dim);
      sampleDirichletLogits(rng, t, 0, K, s.deltaP);
      for (let k = 0; k < K; k++) sampleDirichletLogits(rng, t, oWeights + k * (D - 1), D, s.deltaW);
      for (let d = 0; d < D; d++) first[d] = s.meanSd * rng.normal();
      first.sort();
      incrementsFromSorted(first, false, t, oFirst);
      for (let j = oMeans; j < oPrec; j++) t[j] = s.meanSd * rng.normal();
      for (let i = 0; i < p; i++) {
        const beta = rng.gamma(s.g) / s.h;
        for (let d = 0; d < D; d++) t[oPrec + d * p + i] = Math.log(rng.gamma(s.a) / beta);
      }
      return t;
    },
    prepare(t) {
      theta = t;
      sortedFromIncrements(t, oFirst, D, false, first);
      for (let d = 0; d < D; d++) {
        mu[d * p] = first[d];
        for (let i = 1; i < p; i++) mu[d * p + i] = t[oMeans + d * (p - 1) + i - 1];
        let c = -p * HALF_LOG_2PI;
        for (let i = 0; i < p; i++) {
          lam[d * p + i] = Math.exp(t[oPrec + d * p + i]);
          c += 0.5 * t[oPrec + d * p + i];
        }
        logNormConst[d] = c;
      }
      // Kernel weights of each class: softmax of [0, z_k1 … z_k(D−1)].
      for (let k = 0; k < K; k++) {
        let max = 0;
        for (let d = 1; d < D; d++) max = Math.max(max, t[oWeights + k * (D - 1) + d - 1]);
        let sum = 0;
        for (let d = 0; d < D; d++) sum += Math.exp((d === 0 ? 0 : t[oWeights + k * (D - 1) + d - 1]) - max);
        const lse = max + Math.log(sum);
        for (let d = 0; d < D; d++) {
          logW[k * D + d] = (d === 0 ? 0 : t[oWeights + k * (D - 1) + d - 1]) - lse;
          wts[k * D + d] = Math.exp(logW[k * D + d]);
        }
      }
      gMu.fill(0);
      gLogLam.fill(0);
      gZ.fill(0);
      gA.fill(0);
    },
    logits(X, offset, eta) {
      for (let d = 0; d < D; d++) {
        let q = 0;
        for (let i = 0; i < p; i++) {
          const u = X[offset + i] - mu[d * p + i];
          q += lam[d * p + i] * u * u;
        }
        logN[d] = logNormConst[d] - 0.5 * q;
      }
      for (let k = 0; k < K; k++) {
        let max = Number.NEGATIVE_INFINITY;
        for (let d = 0; d < D; d++) {
          const v = logW[k * D + d] + logN[d];
          resp[k * D + d] = v;
          if (v > max) max = v;
        }
        let sum = 0;
        for (let d = 0; d < D; d++) {
          resp[k * D + d] = Math.exp(resp[k * D + d] - max);
          sum += resp[k * D + d];
        }
        for (let d = 0; d < D; d++) resp[k * D + d] /= sum;
        eta[k] = (k === 0 ? 0 : theta[k - 1]) + max + Math.log(sum);
      }
    },
    accumulate(X, offset, dEta) {
      for (let k = 1; k < K; k++) gA[k] += dEta[k];
      for (let d = 0; d < D; d++) {
        // G_d = Σ_k dEta_k r_kd, the weight of log N_d; ∂f_k/∂z_kd = r_kd − w_kd.
        let G = 0;
        for (let k = 0; k < K; k++) {
          G += dEta[k] * resp[k * D + d];
          gZ[k * D + d] += dEta[k] * (resp[k * D + d] - wts[k * D + d]);
        }
        for (let i = 0; i < p; i++) {
          const u = X[offset + i] - mu[d * p + i];
          const l = lam[d * p + i];
          gMu[d * p + i] += G * l * u;
          gLogLam[d * p + i] += G * (0.5 - 0.5 * l * u * u);
        }
      }
    },
    writeGradient(t, grad) {
      grad.fill(0);
      for (let k = 1; k < K; k++) grad[k - 1] = gA[k];
      for (let k = 0; k < K; k++)
        for (let d = 1; d < D; d++) grad[oWeights + k * (D - 1) + d - 1] = gZ[k * D + d];
      for (let d = 0; d < D; d++) {
        dFirst[d] = gMu[d * p];
        for (let i = 1; i < p; i++) grad[oMeans + d * (p - 1) + i - 1] = gMu[d * p + i];
        for (let i = 0; i < p; i++) grad[oPrec + d * p + i] = gLogLam[d * p + i];
      }
      addSortedGradient(t, oFirst, D, false, dFirst, grad, false);
    },
  };
  return conditionalClassifier(net, data, undefined, `${D} kernels shared by the classes, ${dim} parameters`);
}
