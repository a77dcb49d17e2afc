/**
 * The one-hidden-layer tanh network as a classifier: occam's networks (models/mlp) have Gaussian
 * outputs for regression; this is the classification likelihood they lacked. H tanh hidden units
 * z_h = tanh(c_h + u_h · x) on standardised inputs and softmax outputs η_0 = 0,
 * η_k = b_k + Σ_h v_kh z_h (k = 1 … K − 1), with the weight groups of Neal (1996) as in models/mlp:
 * input→hidden u, hidden biases c, hidden→output v, each N(0, τ_g⁻¹ I) with τ_g ~ Gamma(a_g, r_g)
 * integrated out (a multivariate Student-t per group), and output biases b_k ~ N(0, s_b²).
 *
 * A network is unchanged when two hidden units swap or when one unit's weights all change sign
 * (tanh is odd), so the posterior has 2^H H! copies of each mode. occam samples the networks with
 * positive hidden biases in increasing order, 0 < c_1 < … < c_H (every network has exactly one such
 * copy, up to a set of measure zero), and multiplies the prior by 2^H H! there: the evidence is
 * unchanged and the chains no longer wander between copies.
 */
import { checkInteger, checkPositive } from "../../errors.js";
import { dotAt } from "../../math/dot.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "../mixture-classifier/data.js";
import { tanh } from "../mlp/tanh.js";
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
  addSortedGradient,
  checkHyperprior,
  type GammaHyperprior,
  incrementsFromSorted,
  logOrderings,
  sortedFromIncrements,
  weightGroupPrior,
} from "./priors.js";

/** Options of {@link mlpClassifier}. */
export interface MlpClassifierOptions {
  /** Number of hidden units H. @defaultValue 3 */
  hidden?: number;
  /**
   * Hyperprior of the input→hidden precision. @defaultValue `{ shape: 2, rate: 2 / p }`: mean precision
   * p, so that a hidden unit's input u · x has a prior scale of about 1 whatever the number p of inputs
   */
  inputHidden?: GammaHyperprior;
  /** Hyperprior of the hidden biases' precision. @defaultValue `{ shape: 2, rate: 2 }` (scale about 1) */
  hiddenBias?: GammaHyperprior;
  /**
   * Hyperprior of the hidden→output precision. @defaultValue `{ shape: 2, rate: 8 / H }`: mean
   * precision H/4, so that the logits have a prior scale of about 2 whatever H (Neal's scaling)
   */
  hiddenOutput?: GammaHyperprior;
  /** Standard deviation s_b of the output biases. @defaultValue 2.5 */
  biasSd?: number;
}

/**
 * Builds the network family on training data with standardised inputs (see the module header).
 * Parameter layout: u (H × p, unit by unit), the H hidden biases as log increments
 * (log c_1, log(c_h − c_(h−1))), then for each k = 1 … K − 1 the bias b_k and the H weights v_kh.
 */
export function mlpClassifier(
  data: ClassificationData,
  options: MlpClassifierOptions = {},
): ConditionalClassifier {
  const K = data.classNames.length;
  const p = data.p;
  const { H, biasSd, inputHidden, hiddenBias, hiddenOutput } = resolveMlpOptions(options, p);
  const oBias = H * p;
  const oOut = oBias + H; // (K − 1) × (H + 1)
  const dim = oOut + (K - 1) * (H + 1);
  const logSymmetry = logOrderings(H, true);
  const uPrior = weightGroupPrior(0, H * p, inputHidden);
  const cPrior = weightGroupPrior(0, H, hiddenBias);
  const vPrior = weightGroupPrior(0, (K - 1) * H, hiddenOutput);

  const c = new Float64Array(H);
  const dc = new Float64Array(H);
  const v = new Float64Array((K - 1) * H);
  const dv = new Float64Array((K - 1) * H);
  const z = new Float64Array(H);
  const gU = new Float64Array(H * p);
  const gC = new Float64Array(H);
  const gOut = new Float64Array((K - 1) * (H + 1));
  let theta: Float64Array = new Float64Array(dim);

  const prior = (t: Float64Array, grad: Float64Array | null): number => {
    if (grad !== null) grad.fill(0);
    let value = logSymmetry + sortedFromIncrements(t, oBias, H, true, c);
    value = addOutputBiasPriors(value, t, oOut, K, H, biasSd, grad, v);
    if (grad === null) return value + uPrior.logPdf(t) + cPrior.logPdf(c) + vPrior.logPdf(v);
    value += uPrior.addGradient(t, grad);
    dc.fill(0);
    value += cPrior.addGradient(c, dc);
    addSortedGradient(t, oBias, H, true, dc, grad, true);
    dv.fill(0);
    value += vPrior.addGradient(v, dv);
    addOutputWeightGradient(grad, oOut, K, H, dv);
    return value;
  };

  const names = mlpNames(data, H);

  const net: LogitFunction = {
    family: "mlp",
    hmcMaxSteps: MULTIMODAL_HMC_MAX_STEPS,
    dim,
    names,
    classes: K,
    inputs: p,
    logPrior: (t) => prior(t, null),
    gradLogPrior: (t, grad) => prior(t, grad),
    samplePrior(rng: Rng) {
      const t = new Float64Array(dim);
      uPrior.sample(rng, t);
      cPrior.sample(rng, c);
      for (let h = 0; h < H; h++) c[h] = Math.abs(c[h]);
      c.sort();
      incrementsFromSorted(c, true, t, oBias);
      vPrior.sample(rng, v);
      sampleOutputLayer(rng, t, oOut, K, H, biasSd, v);
      return t;
    },
    prepare(t) {
      theta = t;
      sortedFromIncrements(t, oBias, H, true, c);
      gU.fill(0);
      gC.fill(0);
      gOut.fill(0);
    },
    logits(X, offset, eta) {
      for (let h = 0; h < H; h++) {
        z[h] = tanh(c[h] + dotAt(theta, h * p, X, offset, p));
      }
      outputLogits(theta, oOut, K, H, z, eta);
    },
    accumulate(X, offset, dEta) {
      for (let h = 0; h < H; h++) {
        const g = featureGradient(theta, oOut, K, H, z, h, dEta, gOut);
        const delta = g * (1 - z[h] * z[h]);
        gC[h] += delta;
        for (let i = 0; i < p; i++) gU[h * p + i] += delta * X[offset + i];
      }
      addOutputBiasGradient(K, H, dEta, gOut);
    },
    writeGradient(t, grad) {
      grad.fill(0);
      grad.set(gU, 0);
      addSortedGradient(t, oBias, H, true, gC, grad, false);
      grad.set(gOut, oOut);
    },
  };
  return conditionalClassifier(net, data, undefined, `${H} hidden units, ${dim} weights`);
}

/** The options of {@link mlpClassifier} checked, with their defaults for p inputs. */
function resolveMlpOptions(options: MlpClassifierOptions, p: number) {
  const H = options.hidden ?? 3;
  checkInteger(H, "mlp: hidden", 1);
  const biasSd = options.biasSd ?? 2.5;
  checkPositive(biasSd, "mlp: biasSd");
  const inputHidden = checkHyperprior(options.inputHidden ?? { shape: 2, rate: 2 / p }, "mlp: inputHidden");
  const hiddenBias = checkHyperprior(options.hiddenBias ?? { shape: 2, rate: 2 }, "mlp: hiddenBias");
  const hiddenOutput = checkHyperprior(
    options.hiddenOutput ?? { shape: 2, rate: 8 / H },
    "mlp: hiddenOutput",
  );
  return { H, biasSd, inputHidden, hiddenBias, hiddenOutput };
}

/** The parameters' names in the layout of {@link mlpClassifier}. */
function mlpNames(data: ClassificationData, H: number): string[] {
  const names: string[] = [];
  for (let h = 0; h < H; h++) for (let i = 0; i < data.p; i++) names.push(`u[${h},${data.inputNames[i]}]`);
  for (let h = 0; h < H; h++) names.push(h === 0 ? "log c[0]" : `log(c[${h}] − c[${h - 1}])`);
  for (let k = 1; k < data.classNames.length; k++) {
    names.push(`b[${data.classNames[k]}]`);
    for (let h = 0; h < H; h++) names.push(`v[${data.classNames[k]},${h}]`);
  }
  return names;
}
