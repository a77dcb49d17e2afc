import { describe, expect, it } from "vitest";
import { mixtureClassifier } from "../../../src/models/classifiers/mixture.js";
import type { ClassificationData } from "../../../src/models/mixture-classifier/data.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference } from "../../support/assertions.js";
import { simulatedInputs } from "./support.js";

/** log Σ exp(v), written out. */
function logSumExp(v: number[]): number {
  const max = Math.max(...v);
  return max + Math.log(v.reduce((s, x) => s + Math.exp(x - max), 0));
}

/**
 * log p(y_r | x_r, θ) of the mixture family written from its definition in log space, with the
 * parameter layout of `mixtureClassifier`: class logits, kernel-weight logits, the first input's
 * sorted means as increments, the other means, log precisions.
 */
function referencePointwise(data: ClassificationData, D: number, t: Float64Array): number[] {
  const { X, labels, n, p } = data;
  const K = data.classNames.length;
  const oWeights = K - 1;
  const oFirst = oWeights + K * (D - 1);
  const oMeans = oFirst + D;
  const oPrec = oMeans + D * (p - 1);
  const a = [0, ...Array.from(t.subarray(0, K - 1))];
  const logPi = a.map((v) => v - logSumExp(a));
  const logW: number[][] = [];
  for (let k = 0; k < K; k++) {
    const z = [0, ...Array.from(t.subarray(oWeights + k * (D - 1), oWeights + (k + 1) * (D - 1)))];
    logW.push(z.map((v) => v - logSumExp(z)));
  }
  const mu = (d: number, i: number): number => {
    if (i > 0) return t[oMeans + d * (p - 1) + i - 1];
    let v = t[oFirst];
    for (let j = 1; j <= d; j++) v += Math.exp(t[oFirst + j]);
    return v;
  };
  const out: number[] = [];
  for (let r = 0; r < n; r++) {
    const logN: number[] = [];
    for (let d = 0; d < D; d++) {
      let v = 0;
      for (let i = 0; i < p; i++) {
        const logLam = t[oPrec + d * p + i];
        const u = X[r * p + i] - mu(d, i);
        v += -0.5 * Math.log(2 * Math.PI) + 0.5 * logLam - 0.5 * Math.exp(logLam) * u * u;
      }
      logN.push(v);
    }
    const joint = logPi.map((lp, k) => lp + logSumExp(logW[k].map((lw, d) => lw + logN[d])));
    out.push(joint[labels[r]] - logSumExp(joint));
  }
  return out;
}

/** Largest relative difference between the likelihood's gradient and central differences. */
function gradientError(model: ReturnType<typeof mixtureClassifier>, theta: Float64Array): number {
  const grad = new Float64Array(theta.length);
  model.gradLogLikelihood?.(theta, grad);
  let worst = 0;
  for (let j = 0; j < theta.length; j++) {
    const h = 1e-5 * (1 + Math.abs(theta[j]));
    const numeric = centralDifference((t) => model.logLikelihood(t), theta, j, h);
    worst = Math.max(worst, Math.abs(numeric - grad[j]) / (1 + Math.abs(numeric)));
  }
  return worst;
}

describe("mixture family", () => {
  const K = 3;
  const data = simulatedInputs(30, 4, K, 11);
  const layout = (D: number) => {
    const oWeights = K - 1;
    const oFirst = oWeights + K * (D - 1);
    const oMeans = oFirst + D;
    return { oWeights, oFirst, oMeans, oPrec: oMeans + D * (data.p - 1) };
  };

  for (const D of [2, 3]) {
    it(`${D} kernels: the likelihood is the class-conditional mixture's, also where class or kernel weights underflow`, () => {
      const model = mixtureClassifier(data, { kernels: D });
      const { oWeights, oPrec } = layout(D);
      const rng = createRng(5);
      const points: Float64Array[] = [];
      for (let i = 0; i < 3; i++) points.push(model.samplePrior(rng));
      // A class of proportion e^−800 (its probability underflows in linear space).
      const rareClass = Float64Array.from(points[0]);
      rareClass[0] = -800;
      points.push(rareClass);
      // A kernel weight of e^−900 in every class (its terms underflow beside the other kernel's).
      const rareKernel = Float64Array.from(points[1]);
      for (let k = 0; k < K; k++) rareKernel[oWeights + k * (D - 1)] = -900;
      points.push(rareKernel);
      // Narrow kernels: e^{log N_d − M} far below the smallest double for most rows.
      const narrow = Float64Array.from(points[2]);
      for (let j = oPrec; j < model.dim; j++) narrow[j] = 7;
      points.push(narrow);
      const pointwise = new Float64Array(data.n);
      for (const theta of points) {
        model.logLikelihoodPointwise(theta, pointwise);
        const reference = referencePointwise(data, D, theta);
        for (let r = 0; r < data.n; r++) {
          expect(Math.abs(pointwise[r] - reference[r])).toBeLessThan(1e-9 * (1 + Math.abs(reference[r])));
        }
        expect(model.logLikelihood(theta)).toBeCloseTo(
          reference.reduce((s, v) => s + v, 0),
          7,
        );
      }
      expect(gradientError(model, rareClass)).toBeLessThan(1e-6);
      expect(gradientError(model, rareKernel)).toBeLessThan(1e-6);
    });
  }

  it("the gradient matches central differences on inputs far from zero (not standardised)", () => {
    const shifted = { ...data, X: data.X.map((x, j) => 100 + 3 * x + (j % data.p)) };
    const model = mixtureClassifier(shifted, { kernels: 2, meanSd: 100 });
    const rng = createRng(9);
    for (let draw = 0; draw < 3; draw++) {
      const theta = model.samplePrior(rng);
      // Precisions near those of the shifted inputs' scale, so that the likelihood is not flat.
      const { oPrec } = layout(2);
      for (let j = oPrec; j < model.dim; j++) theta[j] = -2 + 0.3 * rng.normal();
      expect(gradientError(model, theta)).toBeLessThan(1e-6);
    }
  });
});
