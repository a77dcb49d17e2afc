import { describe, expect, it } from "vitest";
import type { ConditionalClassifier } from "../../../src/models/classifiers/family.js";
import { logisticClassifier } from "../../../src/models/classifiers/logistic.js";
import { mixtureClassifier } from "../../../src/models/classifiers/mixture.js";
import { mlpClassifier } from "../../../src/models/classifiers/mlp.js";
import { rbfClassifier } from "../../../src/models/classifiers/rbf.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference } from "../../support/assertions.js";
import { simulatedInputs } from "./support.js";

const data3 = simulatedInputs(30, 3, 3, 1);
const data1 = simulatedInputs(40, 1, 2, 2);

const families: [string, (d: typeof data3) => ConditionalClassifier][] = [
  ["logistic", (d) => logisticClassifier(d)],
  ["rbf", (d) => rbfClassifier(d, { centres: 2 })],
  ["mlp", (d) => mlpClassifier(d, { hidden: 2 })],
  ["mixture", (d) => mixtureClassifier(d, { kernels: 3 })],
];

/** Largest relative difference between an analytic gradient and central differences. */
function gradientError(
  f: (t: Float64Array) => number,
  g: (t: Float64Array, out: Float64Array) => number,
  theta: Float64Array,
): number {
  const grad = new Float64Array(theta.length);
  g(theta, grad);
  let worst = 0;
  for (let j = 0; j < theta.length; j++) {
    const numeric = centralDifference(f, theta, j, 1e-5 * (1 + Math.abs(theta[j])));
    worst = Math.max(worst, Math.abs(numeric - grad[j]) / (1 + Math.abs(numeric)));
  }
  return worst;
}

/** log of the N(0, 1) density's constant over [−3, 3]: √(2π) (Φ(3) − Φ(−3)). */
const LOG_TRUNCATED_NORM = 0.5 * Math.log(2 * Math.PI) + Math.log(0.9973002039367398);

describe("classifier families", () => {
  for (const [name, build] of families) {
    it(`${name}: gradients of the prior and the likelihood match central differences (3 classes)`, () => {
      const model = build(data3);
      const rng = createRng(7);
      for (let draw = 0; draw < 3; draw++) {
        const theta = model.samplePrior(rng);
        expect(gradientError(model.logPrior, model.gradLogPrior!, theta)).toBeLessThan(1e-6);
        expect(gradientError(model.logLikelihood, model.gradLogLikelihood!, theta)).toBeLessThan(1e-6);
      }
    });

    it(`${name}: the pointwise terms, the subsets and the predictive agree with the likelihood`, () => {
      const model = build(data3);
      const theta = model.samplePrior(createRng(3));
      const pointwise = new Float64Array(data3.n);
      model.logLikelihoodPointwise(theta, pointwise);
      const total = pointwise.reduce((s, v) => s + v, 0);
      expect(model.logLikelihood(theta)).toBeCloseTo(total, 9);
      const rows = Int32Array.of(2, 5, 11, 17);
      const sub = model.subset(rows);
      expect(sub.logLikelihood(theta)).toBeCloseTo(
        rows.reduce((s, r) => s + pointwise[r], 0),
        9,
      );
      // The predictive at the training inputs gives the same probabilities, and they sum to one.
      const logP = new Float64Array(data3.n * 3);
      model.logPredictive(theta, data3.X, data3.n, logP);
      for (let r = 0; r < data3.n; r++) {
        expect(logP[r * 3 + data3.labels[r]]).toBeCloseTo(pointwise[r], 9);
        expect(Math.exp(logP[r * 3]) + Math.exp(logP[r * 3 + 1]) + Math.exp(logP[r * 3 + 2])).toBeCloseTo(
          1,
          12,
        );
      }
    });

    it(`${name}: the prior integrates to one`, () => {
      // The ordering constraints, Jacobians and integrated precisions must leave a normalised density,
      // or every evidence of the family is off by a constant. For prior draws θ and a normalised q,
      // E[q(θ)/p(θ)] = ∫ q / c = 1/c when logPrior is c times the sampler's density. q: normals at the
      // draws' medians with half their spread, truncated to ±3 of their sd (bounded weights).
      // One input keeps the dimension (7) low enough for the weights' variance.
      const model = build(data1);
      const rng = createRng(11);
      const d = model.dim;
      const N = 40_000;
      const draws = Array.from({ length: N }, () => model.samplePrior(rng));
      const centre = new Float64Array(d);
      const scale = new Float64Array(d);
      for (let j = 0; j < d; j++) {
        const v = draws.map((x) => x[j]).sort((a, b) => a - b);
        centre[j] = v[N >> 1];
        scale[j] = 0.5 * 0.5 * (v[Math.floor(0.84 * N)] - v[Math.floor(0.16 * N)]);
      }
      let sum = 0;
      let sumSq = 0;
      for (const theta of draws) {
        let logQ = 0;
        for (let j = 0; j < d; j++) {
          const z = (theta[j] - centre[j]) / scale[j];
          logQ +=
            Math.abs(z) > 3
              ? Number.NEGATIVE_INFINITY
              : -0.5 * z * z - LOG_TRUNCATED_NORM - Math.log(scale[j]);
        }
        const w = Math.exp(logQ - model.logPrior(theta));
        sum += w;
        sumSq += w * w;
      }
      const estimate = sum / N;
      const se = Math.sqrt((sumSq / N - estimate * estimate) / N);
      expect(se / estimate).toBeLessThan(0.05);
      expect(Math.abs(estimate - 1)).toBeLessThan(4 * se);
    });
  }
});
