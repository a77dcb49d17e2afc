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

import { checkInteger, checkPositive } from "../../errors.js";
import { HALF_LOG_2PI } from "../../math/constants.js";
import { gammaln } from "../../math/stdlib.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "../mixture-classifier/data.js";
import {
  type ConditionalClassifier,
  conditionalClassifier,
  type LogitFunction,
  logSoftmax,
  MULTIMODAL_HMC_MAX_STEPS,
} from "./family.js";
import {
  addDirichletLogits,
  addNormalPrior,
  addSortedGradient,
  incrementsFromSorted,
  logOrderings,
  sampleDirichletLogits,
  sortedFromIncrements,
} from "./priors.js";

/**
 * A class's sum Σ_d w_kd e^{log N_d − M} below this is recomputed in log space: its terms would be
 * near the smallest normal double (1e−308) and lose digits.
 */
const MIN_SCALED_SUM = 1e-250;

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

/** The resolved options of {@link mixtureClassifier} and the prior's constants that follow from them. */
interface MixturePrior {
  readonly meanSd: number;
  readonly a: number;
  readonly g: number;
  readonly h: number;
  readonly deltaW: number;
  readonly deltaP: number;
  /** log of the precisions' normaliser once β_i is integrated out, per input. */
  readonly logPrecNorm: number;
  /** g + D a: the power of (h + Σ_d λ_di) in that marginal. */
  readonly power: number;
  /** log D!: the prior is confined to one of the kernels' D! orderings, and multiplied by D! there. */
  readonly logKernelOrder: number;
}

/**
 * Where each block of θ starts (see {@link mixtureClassifier}), with the sizes it follows from, and
 * the buffers that one evaluation fills: allocated once per family, so that no row or θ allocates.
 */
interface MixtureState {
  readonly K: number;
  readonly D: number;
  readonly p: number;
  readonly oWeights: number;
  readonly oFirst: number;
  /** D × (p − 1) means of the other inputs. */
  readonly oMeans: number;
  /** D × p log precisions. */
  readonly oPrec: number;
  readonly dim: number;
  /** The θ of the last `prepare`: the class logits are read from it. */
  theta: Float64Array;
  // Kernel means and precisions input by input (entry i·D + d), so that a row's inputs are read once for all kernels.
  readonly mu: Float64Array;
  readonly lam: Float64Array;
  readonly logNormConst: Float64Array;
  readonly logW: Float64Array;
  readonly wts: Float64Array;
  readonly logN: Float64Array;
  readonly resp: Float64Array;
  readonly scaled: Float64Array;
  /** The class proportions π_k = softmax(0, a_1 … a_(K−1)). */
  readonly classWeight: Float64Array;
  /** A row's π_k S_k. */
  readonly classMass: Float64Array;
  readonly fallbackLogits: Float64Array;
  // The gradient's per-row sums, kept as sufficient statistics of the rows: with G_rd the weight of
  // log N_d at row r and x̃ = x − c (c the inputs' training means, so the sums do not cancel on inputs
  // far from zero), S0_d = Σ_r G_rd, S1_di = Σ_r G_rd x̃_ri and S2_di = Σ_r G_rd x̃_ri². Then
  // ∂/∂μ_di = λ_di (S1_di − m S0_d) and ∂/∂log λ_di = ½ S0_d − ½ λ_di (S2_di − 2 m S1_di + m² S0_d),
  // m = μ_di − c_i: a row costs two multiply-adds per kernel and input instead of recomputing x − μ.
  readonly centre: Float64Array;
  readonly s0: Float64Array;
  readonly weightOfN: Float64Array;
  readonly s1: Float64Array;
  readonly s2: Float64Array;
  readonly gZ: Float64Array;
  readonly gA: Float64Array;
  readonly dFirst: Float64Array;
  readonly priorLam: Float64Array;
  /** The sorted means on the first input. */
  readonly first: Float64Array;
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
  const { D, prior } = resolveMixtureOptions(options);
  const st = mixtureState(data, D);
  const { K, p, dim } = st;
  const net: LogitFunction = {
    family: "mixture",
    hmcMaxSteps: MULTIMODAL_HMC_MAX_STEPS,
    dim,
    names: mixtureNames(data, D),
    classes: K,
    inputs: p,
    logPrior: (t) => mixtureLogPrior(st, prior, t, null),
    gradLogPrior: (t, grad) => mixtureLogPrior(st, prior, t, grad),
    samplePrior: (rng) => sampleMixturePrior(st, prior, rng),
    prepare: (t) => prepareMixture(st, t),
    logits(X, offset, eta) {
      kernelLogDensities(st, X, offset);
      classLogitsScaled(st, eta, scaleKernels(st));
    },
    logProbability: (X, offset, label, prob) => mixtureLogProbability(st, X, offset, label, prob),
    accumulate: (X, offset, dEta) => accumulateMixture(st, X, offset, dEta),
    writeGradient: (t, grad) => writeMixtureGradient(st, t, grad),
  };
  return conditionalClassifier(net, data, undefined, `${D} kernels shared by the classes, ${dim} parameters`);
}

/** The kernels D and the prior's settings, defaults filled in and checked. */
function resolveMixtureOptions(options: MixtureFamilyOptions): { D: number; prior: MixturePrior } {
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
  const logPrecNorm = gammaln(s.g + D * s.a) - gammaln(s.g) - D * gammaln(s.a) + s.g * Math.log(s.h);
  const power = s.g + D * s.a;
  return { D, prior: { ...s, logPrecNorm, power, logKernelOrder: logOrderings(D, false) } };
}

/** The parameter layout on `data` with D kernels, and its evaluation buffers. */
function mixtureState(data: ClassificationData, D: number): MixtureState {
  const K = data.classNames.length;
  const p = data.p;
  const oWeights = K - 1;
  const oFirst = oWeights + K * (D - 1);
  const oMeans = oFirst + D;
  const oPrec = oMeans + D * (p - 1);
  const dim = oPrec + D * p;
  return {
    K,
    D,
    p,
    oWeights,
    oFirst,
    oMeans,
    oPrec,
    dim,
    theta: new Float64Array(dim),
    mu: new Float64Array(D * p),
    lam: new Float64Array(D * p),
    logNormConst: new Float64Array(D),
    logW: new Float64Array(K * D),
    wts: new Float64Array(K * D),
    logN: new Float64Array(D),
    resp: new Float64Array(K * D),
    scaled: new Float64Array(D),
    classWeight: new Float64Array(K),
    classMass: new Float64Array(K),
    fallbackLogits: new Float64Array(K),
    centre: inputMeans(data),
    s0: new Float64Array(D),
    weightOfN: new Float64Array(D),
    s1: new Float64Array(D * p),
    s2: new Float64Array(D * p),
    gZ: new Float64Array(K * D),
    gA: new Float64Array(K),
    dFirst: new Float64Array(D),
    priorLam: new Float64Array(D),
    first: new Float64Array(D),
  };
}

/** The parameters' names, in the layout of {@link mixtureClassifier}. */
function mixtureNames(data: ClassificationData, D: number): string[] {
  const K = data.classNames.length;
  const p = data.p;
  const names: string[] = [];
  for (let k = 1; k < K; k++) names.push(`a[${data.classNames[k]}]`);
  for (let k = 0; k < K; k++) for (let d = 1; d < D; d++) names.push(`z[${data.classNames[k]},${d}]`);
  for (let d = 0; d < D; d++)
    names.push(d === 0 ? `mu[0,${data.inputNames[0]}]` : `log(mu[${d},·] − mu[${d - 1},·])`);
  for (let d = 0; d < D; d++) for (let i = 1; i < p; i++) names.push(`mu[${d},${data.inputNames[i]}]`);
  for (let d = 0; d < D; d++)
    for (let i = 0; i < p; i++) names.push(`log lambda[${d},${data.inputNames[i]}]`);
  return names;
}

/** log p(θ), with its gradient written into `grad` when given (see the module header). */
function mixtureLogPrior(
  st: MixtureState,
  s: MixturePrior,
  t: Float64Array,
  grad: Float64Array | null,
): number {
  const { K, D, p, oWeights, oFirst, oMeans, oPrec, first, dFirst, priorLam } = st;
  if (grad !== null) grad.fill(0);
  let value = addDirichletLogits(t, 0, K, s.deltaP, grad);
  for (let k = 0; k < K; k++) value += addDirichletLogits(t, oWeights + k * (D - 1), D, s.deltaW, grad);
  // Sorted means on the first input: D! ∏ N(μ_d1; 0, s_μ²) on the ordered region, with the Jacobian.
  value += s.logKernelOrder + sortedFromIncrements(t, oFirst, D, false, first);
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
      const l = Math.exp(t[oPrec + d * p + i]);
      priorLam[d] = l;
      sumLam += l;
      sumLog += t[oPrec + d * p + i];
    }
    value += s.logPrecNorm + s.a * sumLog - s.power * Math.log(s.h + sumLam);
    if (grad !== null) {
      for (let d = 0; d < D; d++) grad[oPrec + d * p + i] += s.a - (s.power * priorLam[d]) / (s.h + sumLam);
    }
  }
  return value;
}

/** A draw of θ from the prior: the kernels' means on the first input drawn, then sorted. */
function sampleMixturePrior(st: MixtureState, s: MixturePrior, rng: Rng): Float64Array {
  const { K, D, p, oWeights, oFirst, oMeans, oPrec, dim, first } = st;
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
}

/**
 * Unpacks θ for the rows that follow: the kernels' means, precisions and normalising constants, each
 * class's kernel weights and the class proportions; zeroes the gradient's sums.
 */
function prepareMixture(st: MixtureState, t: Float64Array): void {
  const { K, D, p, oWeights, oFirst, oMeans, oPrec, first, mu, lam, logNormConst, logW, wts, classWeight } =
    st;
  st.theta = t;
  sortedFromIncrements(t, oFirst, D, false, first);
  for (let d = 0; d < D; d++) {
    mu[d] = first[d];
    for (let i = 1; i < p; i++) mu[i * D + d] = t[oMeans + d * (p - 1) + i - 1];
    let c = -p * HALF_LOG_2PI;
    for (let i = 0; i < p; i++) {
      lam[i * D + d] = Math.exp(t[oPrec + d * p + i]);
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
  let maxA = 0;
  for (let k = 1; k < K; k++) maxA = Math.max(maxA, t[k - 1]);
  let sumA = 0;
  for (let k = 0; k < K; k++) {
    classWeight[k] = Math.exp((k === 0 ? 0 : t[k - 1]) - maxA);
    sumA += classWeight[k];
  }
  for (let k = 0; k < K; k++) classWeight[k] /= sumA;
  st.s0.fill(0);
  st.s1.fill(0);
  st.s2.fill(0);
  st.gZ.fill(0);
  st.gA.fill(0);
}

/** Writes log N_d(x) of the row X[offset … offset + p) for every kernel into `logN`. */
function kernelLogDensities(st: MixtureState, X: Float64Array, offset: number): void {
  // The state's arrays as locals, read once rather than on every pass of the loops.
  const { D, logN, logNormConst } = st;
  const means = st.mu;
  const precisions = st.lam;
  const end = offset + st.p;
  if (D === 2) {
    // The default two kernels side by side, each summed in the same order as below.
    let q0 = 0;
    let q1 = 0;
    for (let j = offset, k = 0; j < end; j++, k += 2) {
      const x = X[j];
      const u0 = x - means[k];
      q0 += precisions[k] * u0 * u0;
      const u1 = x - means[k + 1];
      q1 += precisions[k + 1] * u1 * u1;
    }
    logN[0] = logNormConst[0] - 0.5 * q0;
    logN[1] = logNormConst[1] - 0.5 * q1;
  } else {
    for (let d = 0; d < D; d++) {
      let q = 0;
      for (let j = offset, k = d; j < end; j++, k += D) {
        const u = X[j] - means[k];
        q += precisions[k] * u * u;
      }
      logN[d] = logNormConst[d] - 0.5 * q;
    }
  }
}

/** Writes e^{log N_d − M} into `scaled` and returns M, the largest log N_d. */
function scaleKernels(st: MixtureState): number {
  const { D, logN, scaled } = st;
  let M = Number.NEGATIVE_INFINITY;
  for (let d = 0; d < D; d++) if (logN[d] > M) M = logN[d];
  for (let d = 0; d < D; d++) scaled[d] = Math.exp(logN[d] - M);
  return M;
}

/** S_k = Σ_d w_kd e^{log N_d − M}, writing class k's responsibilities (normalised when S_k > 0). */
function classSum(st: MixtureState, k: number): number {
  const { D, wts, scaled, resp } = st;
  let sum = 0;
  for (let d = 0; d < D; d++) {
    const v = wts[k * D + d] * scaled[d];
    resp[k * D + d] = v;
    sum += v;
  }
  for (let d = 0; d < D; d++) resp[k * D + d] /= sum;
  return sum;
}

/**
 * The logits η_k = a_k + log Σ_d w_kd N_d from `logN`, with e^{log N_d − M} in `scaled`:
 * M + log S_k, D exponentials a row shared by the classes rather than K·D. A class whose sum is so
 * small that its terms lose precision (a kernel weight below about e^−575 on the row's nearest
 * kernel), or is not finite, is summed in log space instead.
 */
function classLogitsScaled(st: MixtureState, eta: Float64Array, M: number): void {
  const theta = st.theta;
  for (let k = 0; k < st.K; k++) {
    const sum = classSum(st, k);
    eta[k] =
      (k === 0 ? 0 : theta[k - 1]) +
      (sum > MIN_SCALED_SUM && sum < Number.POSITIVE_INFINITY ? M + Math.log(sum) : logSumExpClass(st, k));
  }
}

/** log Σ_d w_kd N_d in log space, writing class k's responsibilities (the exact path of `logits`). */
function logSumExpClass(st: MixtureState, k: number): number {
  const { D, logW, logN, resp } = st;
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
  return max + Math.log(sum);
}

/**
 * log p(y = label | x) of a row, as `logits` then {@link logSoftmax} would give it:
 * p(y = k | x) = π_k S_k / Σ_c π_c S_c with S_k = Σ_d w_kd e^{log N_d − M}, one logarithm a row
 * instead of one per class and the softmax's exponentials, unless a class's sum or the label's
 * probability is so small that it would lose digits, or is not finite; then the logits' path.
 */
function mixtureLogProbability(
  st: MixtureState,
  X: Float64Array,
  offset: number,
  label: number,
  prob: Float64Array | null,
): number {
  const { K, classMass, classWeight } = st;
  kernelLogDensities(st, X, offset);
  const M = scaleKernels(st);
  let total = 0;
  let usable = true;
  for (let k = 0; k < K && usable; k++) {
    const sum = classSum(st, k);
    usable = sum > MIN_SCALED_SUM && sum < Number.POSITIVE_INFINITY;
    classMass[k] = classWeight[k] * sum;
    total += classMass[k];
  }
  const labelProbability = classMass[label] / total;
  if (usable && labelProbability > MIN_SCALED_SUM && labelProbability <= 1) {
    if (prob !== null) for (let k = 0; k < K; k++) prob[k] = classMass[k] / total;
    return Math.log(labelProbability);
  }
  classLogitsScaled(st, st.fallbackLogits, M);
  return logSoftmax(st.fallbackLogits, K, label, prob);
}

/** After the row's logits: adds Σ_k dEta[k] ∂η_k/∂θ to the gradient's per-row sums. */
function accumulateMixture(st: MixtureState, X: Float64Array, offset: number, dEta: Float64Array): void {
  const { K, D, p, gA, gZ, s0, resp, wts, weightOfN } = st;
  for (let k = 1; k < K; k++) gA[k] += dEta[k];
  const c = st.centre;
  const first = st.s1;
  const second = st.s2;
  for (let d = 0; d < D; d++) {
    // G_d = Σ_k dEta_k r_kd, the weight of log N_d; ∂f_k/∂z_kd = r_kd − w_kd.
    let G = 0;
    for (let k = 0; k < K; k++) {
      G += dEta[k] * resp[k * D + d];
      gZ[k * D + d] += dEta[k] * (resp[k * D + d] - wts[k * D + d]);
    }
    s0[d] += G;
    weightOfN[d] = G;
  }
  if (D === 2) {
    const g0 = weightOfN[0];
    const g1 = weightOfN[1];
    for (let i = 0, k = 0; i < p; i++, k += 2) {
      const x = X[offset + i] - c[i];
      const a = g0 * x;
      first[k] += a;
      second[k] += a * x;
      const b = g1 * x;
      first[k + 1] += b;
      second[k + 1] += b * x;
    }
  } else {
    for (let i = 0; i < p; i++) {
      const x = X[offset + i] - c[i];
      for (let d = 0, k = i * D; d < D; d++, k++) {
        const gx = weightOfN[d] * x;
        first[k] += gx;
        second[k] += gx * x;
      }
    }
  }
}

/** Writes the gradient with respect to θ from the accumulated sums (see {@link MixtureState}). */
function writeMixtureGradient(st: MixtureState, t: Float64Array, grad: Float64Array): void {
  const { K, D, p, oWeights, oFirst, oMeans, oPrec, gA, gZ, s0, s1, s2, mu, lam, centre, dFirst } = st;
  grad.fill(0);
  for (let k = 1; k < K; k++) grad[k - 1] = gA[k];
  for (let k = 0; k < K; k++)
    for (let d = 1; d < D; d++) grad[oWeights + k * (D - 1) + d - 1] = gZ[k * D + d];
  for (let d = 0; d < D; d++) {
    const g0 = s0[d];
    for (let i = 0; i < p; i++) {
      const k = i * D + d;
      const m = mu[k] - centre[i];
      const l = lam[k];
      // Σ_r G_rd (x_ri − μ_di) and Σ_r G_rd (x_ri − μ_di)², from the sums about c.
      const first = s1[k] - m * g0;
      const second = s2[k] - m * s1[k] - m * first;
      const gMu = l * first;
      if (i === 0) dFirst[d] = gMu;
      else grad[oMeans + d * (p - 1) + i - 1] = gMu;
      grad[oPrec + d * p + i] = 0.5 * g0 - 0.5 * l * second;
    }
  }
  addSortedGradient(t, oFirst, D, false, dFirst, grad, false);
}

/** The mean of each input over the training rows (the centre of the gradient's sums). */
function inputMeans(data: ClassificationData): Float64Array {
  const { X, n, p } = data;
  const mean = new Float64Array(p);
  for (let r = 0; r < n; r++) for (let i = 0; i < p; i++) mean[i] += X[r * p + i];
  for (let i = 0; i < p; i++) mean[i] /= n;
  return mean;
}
