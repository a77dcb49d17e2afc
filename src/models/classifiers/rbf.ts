/**
 * The radial-basis-function network classifier, Everson et al.'s semi-local family: J Gaussian basis
 * functions φ_j(x) = exp(−‖x − c_j‖² / (2 p s_j²)) on the p standardised inputs (the squared distance
 * divided by p, so that a width s_j ≈ 1 means "about as wide as the data" whatever p), and softmax
 * outputs η_0 = 0, η_k = b_k + Σ_j v_kj φ_j(x). Centres, widths and output weights are all sampled, as
 * Everson et al. describe the family (Andrieu, de Freitas & Doucet 2001 also sample J; occam fixes J
 * and compares networks of different J as different families if asked).
 *
 * Prior: centre coordinates c_ji ~ N(0, s_c²); log widths log s_j ~ N(0, σ_s²); output weights
 * v ~ N(0, τ⁻¹ I) with τ ~ Gamma(a, r) integrated out; biases b_k ~ N(0, s_b²). Relabelling the basis
 * functions leaves the likelihood unchanged, which would give the posterior J! copies of each mode
 * (chains in different copies look unmixed, and bridge sampling sees one copy): occam samples the
 * centres with their first coordinates sorted, c_10 < c_20 < …, and multiplies the prior by J! there,
 * which leaves the evidence unchanged.
 */
import { checkInteger, checkPositive } from "../../errors.js";
import { squaredDistanceAt } from "../../math/dot.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "../mixture-classifier/data.js";
import {
  type ConditionalClassifier,
  conditionalClassifier,
  type LogitFunction,
  MULTIMODAL_HMC_MAX_STEPS,
} from "./family.js";
import {
  addOutputBiasGradient,
  addOutputBiasPriors,
  addOutputWeightGradient,
  featureGradient,
  outputLogits,
  sampleOutputLayer,
} from "./output-layer.js";
import {
  addNormalPrior,
  addSortedGradient,
  checkHyperprior,
  type GammaHyperprior,
  incrementsFromSorted,
  logOrderings,
  sortedFromIncrements,
  type WeightGroupPrior,
  weightGroupPrior,
} from "./priors.js";

/** Options of {@link rbfClassifier}. */
export interface RbfClassifierOptions {
  /** Number of basis functions J. @defaultValue 3 */
  centres?: number;
  /** Prior standard deviation s_c of each centre coordinate (inputs are standardised). @defaultValue 1 */
  centreSd?: number;
  /** Prior standard deviation σ_s of each log width. @defaultValue 0.7 */
  logWidthSd?: number;
  /**
   * Hyperprior of the output weights' common precision (integrated out).
   * @defaultValue `{ shape: 2, rate: 8 }`: mean precision 1/4, output weights of typical size 2
   */
  precisionPrior?: GammaHyperprior;
  /** Standard deviation s_b of the output biases. @defaultValue 2.5 */
  biasSd?: number;
}

/**
 * Builds the RBF family on training data with standardised inputs (see the module header).
 * Parameter layout: the J sorted first centre coordinates as increments (c_10, then log(c_j0 − c_(j−1)0)),
 * the other J(p − 1) centre coordinates (centre by centre), J log widths, then for each k = 1 … K − 1
 * the bias b_k and the J weights v_kj.
 */
export function rbfClassifier(
  data: ClassificationData,
  options: RbfClassifierOptions = {},
): ConditionalClassifier {
  const settings = resolveRbfOptions(options);
  const { J, centreSd, logWidthSd, biasSd, hyper } = settings;
  const K = data.classNames.length;
  const p = data.p;
  const oRest = J; // other centre coordinates: J × (p − 1)
  const oWidth = oRest + J * (p - 1);
  const oOut = oWidth + J; // (K − 1) × (J + 1)
  const dim = oOut + (K - 1) * (J + 1);

  // Unpacked parameters and their gradient accumulators.
  const centres = new Float64Array(J * p);
  const invScale = new Float64Array(J); // 1 / (p s_j²)
  const phi = new Float64Array(J);
  const dist = new Float64Array(J);
  const first = new Float64Array(J);
  const gCentres = new Float64Array(J * p);
  const gLogWidth = new Float64Array(J);
  const gOut = new Float64Array((K - 1) * (J + 1));
  const dFirst = new Float64Array(J);
  let theta: Float64Array = new Float64Array(dim);

  // Output weights without their biases, packed for the group prior.
  const weights = new Float64Array((K - 1) * J);
  const group = weightGroupPrior(0, weights.length, hyper);

  const prior = rbfPrior(settings, p, K, group);

  const names = rbfNames(data, J);

  const net: LogitFunction = {
    family: "rbf",
    hmcMaxSteps: MULTIMODAL_HMC_MAX_STEPS,
    dim,
    names,
    classes: K,
    inputs: p,
    logPrior: (t) => prior(t, null),
    gradLogPrior: (t, grad) => prior(t, grad),
    samplePrior(rng: Rng) {
      const t = new Float64Array(dim);
      for (let j = 0; j < J; j++) first[j] = centreSd * rng.normal();
      first.sort();
      incrementsFromSorted(first, false, t, 0);
      for (let j = oRest; j < oWidth; j++) t[j] = centreSd * rng.normal();
      for (let j = oWidth; j < oOut; j++) t[j] = logWidthSd * rng.normal();
      group.sample(rng, weights);
      sampleOutputLayer(rng, t, oOut, K, J, biasSd, weights);
      return t;
    },
    prepare(t) {
      theta = t;
      sortedFromIncrements(t, 0, J, false, first);
      for (let j = 0; j < J; j++) {
        centres[j * p] = first[j];
        for (let i = 1; i < p; i++) centres[j * p + i] = t[oRest + j * (p - 1) + i - 1];
        invScale[j] = Math.exp(-2 * t[oWidth + j]) / p;
      }
      gCentres.fill(0);
      gLogWidth.fill(0);
      gOut.fill(0);
    },
    logits(X, offset, eta) {
      for (let j = 0; j < J; j++) {
        const d = squaredDistanceAt(X, offset, centres, j * p, p);
        dist[j] = d;
        phi[j] = Math.exp(-0.5 * d * invScale[j]);
      }
      outputLogits(theta, oOut, K, J, phi, eta);
    },
    accumulate(X, offset, dEta) {
      for (let j = 0; j < J; j++) {
        // g_j = ∂/∂φ_j of Σ_k dEta_k η_k.
        const g = featureGradient(theta, oOut, K, J, phi, j, dEta, gOut);
        const gp = g * phi[j] * invScale[j];
        // ∂φ/∂c_ji = φ (x_i − c_ji)/(p s²); ∂φ/∂log s = φ ‖x − c‖²/(p s²).
        for (let i = 0; i < p; i++) gCentres[j * p + i] += gp * (X[offset + i] - centres[j * p + i]);
        gLogWidth[j] += gp * dist[j];
      }
      addOutputBiasGradient(K, J, dEta, gOut);
    },
    writeGradient(t, grad) {
      grad.fill(0);
      for (let j = 0; j < J; j++) {
        dFirst[j] = gCentres[j * p];
        for (let i = 1; i < p; i++) grad[oRest + j * (p - 1) + i - 1] = gCentres[j * p + i];
        grad[oWidth + j] = gLogWidth[j];
      }
      addSortedGradient(t, 0, J, false, dFirst, grad, false);
      for (let j = 0; j < gOut.length; j++) grad[oOut + j] = gOut[j];
    },
  };
  return conditionalClassifier(net, data, undefined, `${J} basis functions, ${dim} parameters`);
}

/** The options of {@link rbfClassifier} checked, with their defaults. */
function resolveRbfOptions(options: RbfClassifierOptions) {
  const J = options.centres ?? 3;
  checkInteger(J, "rbf: centres", 1);
  const centreSd = options.centreSd ?? 1;
  const logWidthSd = options.logWidthSd ?? 0.7;
  const biasSd = options.biasSd ?? 2.5;
  checkPositive(centreSd, "rbf: centreSd");
  checkPositive(logWidthSd, "rbf: logWidthSd");
  checkPositive(biasSd, "rbf: biasSd");
  const hyper = checkHyperprior(options.precisionPrior ?? { shape: 2, rate: 8 }, "rbf: precisionPrior");
  return { J, centreSd, logWidthSd, biasSd, hyper };
}

/**
 * log p(θ) of the RBF family (see the module header) in its parameter layout, for p inputs and K
 * classes, with its gradient written into `grad` when given; `group` is the output weights' prior.
 */
function rbfPrior(
  o: ReturnType<typeof resolveRbfOptions>,
  p: number,
  K: number,
  group: WeightGroupPrior,
): (t: Float64Array, grad: Float64Array | null) => number {
  const { J, centreSd, logWidthSd, biasSd } = o;
  const oRest = J;
  const oWidth = oRest + J * (p - 1);
  const oOut = oWidth + J;
  const logJ = logOrderings(J, false);
  const first = new Float64Array(J);
  const dFirst = new Float64Array(J);
  const weights = new Float64Array((K - 1) * J);
  const weightGrad = new Float64Array((K - 1) * J);
  return (t, grad) => {
    if (grad !== null) grad.fill(0);
    // Sorted first coordinates: J! ∏ N(c_j0; 0, s_c²) on the ordered region, with the Jacobian.
    let value = logJ + sortedFromIncrements(t, 0, J, false, first);
    value += addNormalPrior(first, 0, J, centreSd, null);
    if (grad !== null) {
      for (let j = 0; j < J; j++) dFirst[j] = -first[j] / (centreSd * centreSd);
      addSortedGradient(t, 0, J, false, dFirst, grad, true);
    }
    value += addNormalPrior(t, oRest, J * (p - 1), centreSd, grad);
    value += addNormalPrior(t, oWidth, J, logWidthSd, grad);
    value = addOutputBiasPriors(value, t, oOut, K, J, biasSd, grad, weights);
    if (grad === null) return value + group.logPdf(weights);
    weightGrad.fill(0);
    value += group.addGradient(weights, weightGrad);
    addOutputWeightGradient(grad, oOut, K, J, weightGrad);
    return value;
  };
}

/** The parameters' names in the layout of {@link rbfClassifier}. */
function rbfNames(data: ClassificationData, J: number): string[] {
  const names: string[] = [];
  for (let j = 0; j < J; j++) names.push(j === 0 ? "c[0,0]" : `log(c[${j},0] − c[${j - 1},0])`);
  for (let j = 0; j < J; j++) for (let i = 1; i < data.p; i++) names.push(`c[${j},${data.inputNames[i]}]`);
  for (let j = 0; j < J; j++) names.push(`log s[${j}]`);
  for (let k = 1; k < data.classNames.length; k++) {
    names.push(`b[${data.classNames[k]}]`);
    for (let j = 0; j < J; j++) names.push(`v[${data.classNames[k]},${j}]`);
  }
  return names;
}
