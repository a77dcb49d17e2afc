/**
 * Bayesian multinomial logistic regression, Everson et al.'s global family: for K ≥ 2 classes,
 * η_0 = 0 and η_k = b_k + w_k · x for k = 1 … K − 1 (baseline-category logits; for two classes,
 * ordinary logistic regression). Inputs are standardised by the training rows. Prior: intercepts
 * b_k ~ N(0, s_b²); all slopes w ~ N(0, τ⁻¹ I) with a common precision τ ~ Gamma(a, rate r),
 * integrated out (a multivariate Student-t over the slopes, see priors.ts), or τ fixed. With the
 * precision integrated the posterior is over the (K − 1)(p + 1) weights alone and HMC samples it.
 *
 * The baseline parametrisation is identified (no two weight vectors give the same probabilities), at
 * the price of a prior that treats the reference class (the first) slightly differently: the log odds
 * between two other classes have prior variance 2/τ, against 1/τ for the reference.
 */
import { checkPositive, OccamError } from "../../errors.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "../mixture-classifier/data.js";
import { type ConditionalClassifier, conditionalClassifier, type LogitFunction } from "./family.js";
import { addNormalPrior, checkHyperprior, type GammaHyperprior, weightGroupPrior } from "./priors.js";

/** Options of {@link logisticClassifier}. */
export interface LogisticClassifierOptions {
  /**
   * Hyperprior of the slopes' common precision τ (integrated out).
   * @defaultValue `{ shape: 2, rate: 8 / p }`: mean precision p/4, slopes of typical size 2/√p, so that
   * the logits of standardised inputs have a prior scale of about 2 whatever the number p of inputs
   */
  precisionPrior?: GammaHyperprior;
  /** A fixed slope precision τ instead of the hyperprior (slopes N(0, 1/τ)). @defaultValue none */
  precision?: number;
  /** Standard deviation s_b of the intercepts' normal prior. @defaultValue 2.5 */
  interceptSd?: number;
}

/**
 * Builds the logistic family on training data with standardised inputs (see the module header).
 * Parameters, for k = 1 … K − 1: [b_k, w_k1 … w_kp], named "b[k]" and "w[k,input]".
 *
 * @example
 * const model = logisticClassifier(standardizeClassifierInputs(train).train);
 * const cv = crossValidatedEvidence(model, { form: "chain-rule", seed: 1 });
 */
export function logisticClassifier(
  data: ClassificationData,
  options: LogisticClassifierOptions = {},
): ConditionalClassifier {
  const K = data.classNames.length;
  const p = data.p;
  const q = p + 1;
  const interceptSd = options.interceptSd ?? 2.5;
  checkPositive(interceptSd, "logistic: interceptSd");
  if (options.precision !== undefined) {
    checkPositive(options.precision, "logistic: precision");
    if (options.precisionPrior !== undefined) {
      throw new OccamError("invalid-argument", "logistic: give precision or precisionPrior, not both.");
    }
  }
  const hyper = checkHyperprior(
    options.precisionPrior ?? { shape: 2, rate: 8 / p },
    "logistic: precisionPrior",
  );
  const slopeSd = options.precision === undefined ? Number.NaN : 1 / Math.sqrt(options.precision);
  const dim = (K - 1) * q;
  // The slopes are not contiguous (an intercept leads each class's block), so the group prior reads a
  // packed copy of them.
  const slopes = new Float64Array((K - 1) * p);
  const slopeGrad = new Float64Array((K - 1) * p);
  const group = weightGroupPrior(0, slopes.length, hyper);
  const pack = (theta: Float64Array) => {
    for (let k = 0; k < K - 1; k++) for (let i = 0; i < p; i++) slopes[k * p + i] = theta[k * q + 1 + i];
  };
  const slopePrior = (theta: Float64Array, grad: Float64Array | null): number => {
    pack(theta);
    if (options.precision !== undefined) {
      slopeGrad.fill(0);
      const v = addNormalPrior(slopes, 0, slopes.length, slopeSd, slopeGrad);
      if (grad !== null) unpackGradient(slopeGrad, grad);
      return v;
    }
    if (grad === null) return group.logPdf(slopes);
    slopeGrad.fill(0);
    const v = group.addGradient(slopes, slopeGrad);
    unpackGradient(slopeGrad, grad);
    return v;
  };
  const unpackGradient = (g: Float64Array, grad: Float64Array) => {
    for (let k = 0; k < K - 1; k++) for (let i = 0; i < p; i++) grad[k * q + 1 + i] += g[k * p + i];
  };
  const interceptPrior = (theta: Float64Array, grad: Float64Array | null): number => {
    let v = 0;
    for (let k = 0; k < K - 1; k++) v += addNormalPrior(theta, k * q, 1, interceptSd, grad);
    return v;
  };

  let w: Float64Array = new Float64Array(dim);
  const acc = new Float64Array(dim);
  const names: string[] = [];
  for (let k = 1; k < K; k++) {
    names.push(`b[${data.classNames[k]}]`);
    for (let i = 0; i < p; i++) names.push(`w[${data.classNames[k]},${data.inputNames[i]}]`);
  }
  const net: LogitFunction = {
    family: "logistic",
    dim,
    names,
    classes: K,
    inputs: p,
    logPrior: (theta) => interceptPrior(theta, null) + slopePrior(theta, null),
    gradLogPrior(theta, grad) {
      grad.fill(0);
      return interceptPrior(theta, grad) + slopePrior(theta, grad);
    },
    samplePrior(rng: Rng) {
      const theta = new Float64Array(dim);
      if (options.precision === undefined) group.sample(rng, slopes);
      else for (let j = 0; j < slopes.length; j++) slopes[j] = slopeSd * rng.normal();
      for (let k = 0; k < K - 1; k++) {
        theta[k * q] = interceptSd * rng.normal();
        for (let i = 0; i < p; i++) theta[k * q + 1 + i] = slopes[k * p + i];
      }
      return theta;
    },
    prepare(theta) {
      w = theta;
      acc.fill(0);
    },
    logits(X, offset, eta) {
      eta[0] = 0;
      for (let k = 1; k < K; k++) {
        const o = (k - 1) * q;
        let e = w[o];
        for (let i = 0; i < p; i++) e += w[o + 1 + i] * X[offset + i];
        eta[k] = e;
      }
    },
    accumulate(X, offset, dEta) {
      for (let k = 1; k < K; k++) {
        const o = (k - 1) * q;
        const g = dEta[k];
        acc[o] += g;
        for (let i = 0; i < p; i++) acc[o + 1 + i] += g * X[offset + i];
      }
    },
    writeGradient(_theta, grad) {
      grad.set(acc);
    },
  };
  const prior =
    options.precision === undefined
      ? `slope precision ~ Gamma(${fmt(hyper.shape)}, ${fmt(hyper.rate)})`
      : `slope precision ${fmt(options.precision)}`;
  return conditionalClassifier(net, data, undefined, `${dim} weights, ${prior}`);
}

function fmt(x: number): string {
  return Number(x.toPrecision(3)).toString();
}
