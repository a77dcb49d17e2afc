import type { ClassifierModel } from "../../../src/models/classifiers/family.js";
import type { ClassificationData } from "../../../src/models/mixture-classifier/data.js";
import { createRng } from "../../../src/random/rng.js";

/** Inputs drawn N(0, 1) (already on the standardised scale) and labels drawn by `label(x, rng)`. */
export function simulatedInputs(n: number, p: number, K: number, seed: number): ClassificationData {
  const rng = createRng(seed);
  const X = new Float64Array(n * p);
  for (let j = 0; j < X.length; j++) X[j] = rng.normal();
  const labels = new Int32Array(n);
  for (let r = 0; r < n; r++) labels[r] = r % K;
  return {
    X,
    labels,
    n,
    p,
    inputNames: Array.from({ length: p }, (_, i) => `x${i}`),
    classNames: Array.from({ length: K }, (_, k) => `c${k}`),
  };
}

/** Labels drawn from the model's predictive at θ. */
export function simulateLabels(
  model: ClassifierModel,
  theta: Float64Array,
  data: ClassificationData,
  seed: number,
): ClassificationData {
  const K = model.classes;
  const logP = new Float64Array(data.n * K);
  model.logPredictive(theta, data.X, data.n, logP);
  const rng = createRng(seed);
  const labels = new Int32Array(data.n);
  for (let r = 0; r < data.n; r++) {
    let u = rng.uniform();
    let k = 0;
    while (k < K - 1 && u >= Math.exp(logP[r * K + k])) {
      u -= Math.exp(logP[r * K + k]);
      k++;
    }
    labels[r] = k;
  }
  return { ...data, labels };
}
