/**
 * The posterior mode and curvature of the Pima logistic regression, which both the tests and the
 * long reference run (pima-long-run.ts) centre their importance-sampling proposals on.
 */
import { cholesky, choleskySolve, invertFromCholesky, logDetFromCholesky } from "../../../src/math/linalg.js";
import type { BayesModel } from "../../../src/model/model.js";
import type { PimaDesign } from "../../../src/models/hard-problems/index.js";

/** The mode, the negative Hessian there, the Cholesky factor of its inverse and the Laplace log evidence. */
export interface PimaLaplace {
  readonly mode: Float64Array;
  readonly hessian: Float64Array;
  /** L with L Lᵀ = H⁻¹, the Laplace covariance. */
  readonly covarianceCholesky: Float64Array;
  readonly logZLaplace: number;
}

/** Newton's method on the (concave) log posterior, with the analytic Hessian Xᵀ diag(σ(1 − σ)) X + I/s². */
export function pimaLaplace(model: BayesModel, design: PimaDesign, priorSd: number): PimaLaplace {
  const { X, n, p } = design;
  const theta = new Float64Array(p);
  const grad = new Float64Array(p);
  const gradPrior = new Float64Array(p);
  const hessian = new Float64Array(p * p);
  const curvature = (): void => {
    hessian.fill(0);
    for (let i = 0; i < n; i++) {
      let eta = 0;
      for (let j = 0; j < p; j++) eta += X[i * p + j] * theta[j];
      const prob = 1 / (1 + Math.exp(-eta));
      const w = prob * (1 - prob);
      for (let j = 0; j < p; j++)
        for (let k = 0; k < p; k++) hessian[j * p + k] += w * X[i * p + j] * X[i * p + k];
    }
    for (let j = 0; j < p; j++) hessian[j * p + j] += 1 / (priorSd * priorSd);
  };
  for (let iter = 0; iter < 100; iter++) {
    model.gradLogLikelihood?.(theta, grad);
    model.gradLogPrior?.(theta, gradPrior);
    for (let j = 0; j < p; j++) grad[j] += gradPrior[j];
    curvature();
    const step = choleskySolve(cholesky(hessian, p), p, grad);
    let largest = 0;
    for (let j = 0; j < p; j++) {
      theta[j] += step[j];
      largest = Math.max(largest, Math.abs(step[j]));
    }
    if (largest < 1e-13) break;
  }
  curvature();
  const factor = cholesky(hessian, p);
  const covarianceCholesky = cholesky(invertFromCholesky(factor, p), p);
  const logZLaplace =
    model.logPrior(theta) +
    model.logLikelihood(theta) +
    0.5 * p * Math.log(2 * Math.PI) -
    0.5 * logDetFromCholesky(factor, p);
  return { mode: theta, hessian, covarianceCholesky, logZLaplace };
}
