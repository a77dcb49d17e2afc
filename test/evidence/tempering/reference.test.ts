import { describe, expect, it } from "vitest";
import type { MultivariateNormal } from "../../../src/distributions/multivariate-normal.js";
import {
  type MultivariateStudentT,
  multivariateStudentT,
} from "../../../src/distributions/multivariate-student-t.js";
import { SMC_DEFAULTS } from "../../../src/evidence/tempered-smc.js";
import {
  type CloudShape,
  cloudShape,
  LikelihoodCounter,
  measureCloud,
  PooledPosterior,
  priorCloud,
} from "../../../src/evidence/tempering/cloud.js";
import { runTempering } from "../../../src/evidence/tempering/engine.js";
import { combineIslands, resolveTemperingOptions } from "../../../src/evidence/tempering/estimates.js";
import { fitReference, REFERENCE_DOF, referenceModel } from "../../../src/evidence/tempering/reference.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference, expectAccurate } from "../../support/assertions.js";
import { powerPosterior, testModel } from "../tempered-models.js";

/** A Student-t reference around the gaussian-mean model's posterior, shifted by `shift` and widened by `widen`. */
function offsetReference(d: number, shift: number, widen: number) {
  const { mean, sd } = powerPosterior(testModel(d), 1);
  const cholesky = new Float64Array(d * d);
  for (let a = 0; a < d; a++) cholesky[a * d + a] = widen * sd;
  return multivariateStudentT({
    dof: REFERENCE_DOF,
    location: mean.map((m) => m + shift * sd),
    choleskyL: cholesky,
  });
}

describe("tempering from a reference", () => {
  it("keeps the evidence: tempering from a shifted, widened Student-t matches it in fewer temperatures (d = 5)", () => {
    const model = testModel(5);
    const settings = resolveTemperingOptions(model, { particles: 2048 }, SMC_DEFAULTS, "test");
    const fromPrior = runTempering(model, createRng(2), settings, "test");
    const wrapped = referenceModel(model, offsetReference(5, 1, 2));
    const fromReference = runTempering(wrapped, createRng(2), settings, "test");
    const estimate = combineIslands(fromReference.islandLogZ, "product");
    expectAccurate(estimate.logZ, estimate.stdErr, model.exactLogEvidence());
    expect(fromReference.stages.length).toBeLessThan(fromPrior.stages.length / 2);
    // An evaluation of the reference model's likelihood (or its gradient) is one of the model's.
    let calls = 0;
    const counted = {
      ...model,
      logLikelihood(theta: Float64Array) {
        calls++;
        return model.logLikelihood(theta);
      },
      gradLogLikelihood(theta: Float64Array, grad: Float64Array) {
        calls++;
        return model.gradLogLikelihood(theta, grad);
      },
    };
    const run = runTempering(
      referenceModel(counted, offsetReference(5, 1, 2)),
      createRng(3),
      settings,
      "test",
    );
    expect(run.evaluations).toBe(calls);
  });

  it("has the reference as prior and p L / q as likelihood, with their gradients", () => {
    const model = testModel(3);
    const q = offsetReference(3, 0.5, 1.5);
    const wrapped = referenceModel(model, q);
    const rng = createRng(4);
    const grad = new Float64Array(3);
    for (let k = 0; k < 5; k++) {
      const theta = q.sample(rng);
      expect(wrapped.logPrior(theta)).toBe(q.logPdf(theta));
      const logL = model.logPrior(theta) + model.logLikelihood(theta) - q.logPdf(theta);
      expect(wrapped.logLikelihood(theta)).toBeCloseTo(logL, 12);
      expect(wrapped.gradLogLikelihood?.(theta, grad)).toBeCloseTo(logL, 12);
      for (let a = 0; a < 3; a++) {
        const numeric = centralDifference((t) => wrapped.logLikelihood(t), theta, a, 1e-6);
        expect(grad[a]).toBeCloseTo(numeric, 5);
      }
    }
  });

  it("has no gradients where the model has none, and is zero where the prior is", () => {
    const model = testModel(2);
    const { gradLogPrior: _prior, gradLogLikelihood: _likelihood, ...withoutGradients } = model;
    const wrapped = referenceModel(
      { ...withoutGradients, logPrior: () => Number.NEGATIVE_INFINITY },
      offsetReference(2, 0, 1),
    );
    expect(wrapped.gradLogLikelihood).toBeUndefined();
    expect(wrapped.logLikelihood(new Float64Array(2))).toBe(Number.NEGATIVE_INFINITY);
  });

  it("with gradients too, does not ask the likelihood where the prior is zero (a bounded model's NaN there)", () => {
    const model = testModel(2);
    const bounded = {
      ...model,
      gradLogPrior: (theta: Float64Array, grad: Float64Array) =>
        theta[0] < 0 ? Number.NEGATIVE_INFINITY : model.gradLogPrior(theta, grad),
      gradLogLikelihood: (theta: Float64Array, grad: Float64Array) =>
        theta[0] < 0 ? Number.NaN : model.gradLogLikelihood(theta, grad),
    };
    const wrapped = referenceModel(bounded, offsetReference(2, 0, 1));
    const grad = new Float64Array(2).fill(7);
    expect(wrapped.gradLogLikelihood?.(Float64Array.of(-1, 0), grad)).toBe(Number.NEGATIVE_INFINITY);
    expect(Array.from(grad)).toEqual([0, 0]);
    expect(wrapped.gradLogLikelihood?.(Float64Array.of(1, 0), grad)).toBeCloseTo(
      wrapped.logLikelihood(Float64Array.of(1, 0)),
      12,
    );
  });

  it("fits the shape pooled over the run's stages: a Student-t with ν = 5, or a normal", () => {
    const model = testModel(3);
    const cloud = priorCloud(model, 400, createRng(5), new LikelihoodCounter(model, "test"));
    const logW = new Float64Array(400);
    const posterior = new PooledPosterior(400, 3);
    posterior.add(cloud, logW, 0.99);
    const shape = posterior.shape() as CloudShape;
    const t = fitReference({ cloud, logW, posterior }, "student-t") as MultivariateStudentT;
    expect([t.family, t.dof]).toEqual(["multivariate-student-t", 5]);
    expect(Array.from(t.location)).toEqual(Array.from(shape.mean));
    expect(Array.from(t.choleskyL)).toEqual(Array.from(shape.cholesky));
    const normal = fitReference({ cloud, logW, posterior }, "normal") as MultivariateNormal;
    expect(normal.family).toBe("multivariate-normal");
    expect(Array.from(normal.mean)).toEqual(Array.from(shape.mean));
    expect(Array.from(normal.choleskyL)).toEqual(Array.from(shape.cholesky));
  });

  it("fits the final cloud's weighted shape when no stage was pooled", () => {
    const model = testModel(3);
    const cloud = priorCloud(model, 400, createRng(5), new LikelihoodCounter(model, "test"));
    const logW = Float64Array.from(cloud.logLikelihood, (l) => 0.01 * l);
    const shape = cloudShape(3);
    measureCloud(cloud, logW, shape, new Float64Array(9));
    const t = fitReference({ cloud, logW, posterior: new PooledPosterior(400, 3) }, "student-t");
    expect(Array.from((t as MultivariateStudentT).location)).toEqual(Array.from(shape.mean));
    expect(Array.from((t as MultivariateStudentT).choleskyL)).toEqual(Array.from(shape.cholesky));
  });
});
