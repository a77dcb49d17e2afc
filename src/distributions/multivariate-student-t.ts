import { logDetFromCholesky, lowerTimesTranspose } from "../math/linalg.js";
import { logGammaRatio } from "../math/special.js";
import type { Rng } from "../random/rng.js";
import { logGammaVariate } from "../random/variates.js";
import {
  type ContinuousMultivariateDistribution,
  checkDim,
  checkedCholeskyFactor,
  checkOptions,
  checkPositiveParameter,
  finiteVector,
  whiten,
} from "./distribution.js";

/** Options of {@link multivariateStudentT}. */
export interface MultivariateStudentTOptions {
  /** Degrees of freedom ν > 0. */
  dof: number;
  /** The location μ (length d; the mean when ν > 1). */
  location: ArrayLike<number>;
  /**
   * L, row-major d × d lower triangular with positive diagonal: the scale matrix is L Lᵀ
   * (the covariance is ν/(ν − 2) L Lᵀ for ν > 2).
   */
  choleskyL: ArrayLike<number>;
}

/** The multivariate Student-t distribution t_ν(μ, L Lᵀ). */
export interface MultivariateStudentT extends ContinuousMultivariateDistribution {
  readonly family: "multivariate-student-t";
  readonly dof: number;
  readonly location: Float64Array;
  readonly choleskyL: Float64Array;
  /** The scale matrix L Lᵀ, row-major. */
  readonly scaleMatrix: Float64Array;
}

/**
 * The multivariate Student-t with ν degrees of freedom, location μ and scale matrix Σ = L Lᵀ:
 * log p(x) = log Γ((ν+d)/2) − log Γ(ν/2) − (d/2) log(νπ) − Σ log L_ii − (ν+d)/2 · log(1 + q/ν),
 * q = ‖L⁻¹(x − μ)‖². Its heavy tails make it a safe importance-sampling proposal around a mode.
 * Draws are μ + L z / √(V/ν), z ~ N(0, I), V ~ χ²_ν.
 */
export function multivariateStudentT(options: MultivariateStudentTOptions): MultivariateStudentT {
  checkOptions(options, "multivariateStudentT", "dof, location, choleskyL");
  const { dof } = options;
  checkPositiveParameter(dof, "multivariateStudentT: dof");
  const location = finiteVector(options.location, "multivariateStudentT: location");
  const d = location.length;
  const L = checkedCholeskyFactor(options.choleskyL, d, "multivariateStudentT");
  const logNorm =
    logGammaRatio(0.5 * dof, 0.5 * d) - 0.5 * d * Math.log(dof * Math.PI) - 0.5 * logDetFromCholesky(L, d);
  const halfDofPlusD = 0.5 * (dof + d);
  const z = new Float64Array(d);

  const whitened = (x: Float64Array): number => whiten(x, location, L, d, z);

  return Object.freeze({
    family: "multivariate-student-t" as const,
    dim: d,
    dof,
    location,
    choleskyL: L,
    scaleMatrix: lowerTimesTranspose(L, d),
    logPdf(x: Float64Array): number {
      checkDim(x, d, "multivariateStudentT.logPdf");
      return logNorm - halfDofPlusD * Math.log1p(whitened(x) / dof);
    },
    gradLogPdf(x: Float64Array, grad: Float64Array): number {
      checkDim(x, d, "multivariateStudentT.gradLogPdf");
      checkDim(grad, d, "multivariateStudentT.gradLogPdf (grad)");
      const q = whitened(x);
      // ∇ log p = −(ν + d)/(ν + q) · Σ⁻¹(x − μ), with Σ⁻¹(x − μ) = L⁻ᵀ z.
      const factor = -(dof + d) / (dof + q);
      for (let i = d - 1; i >= 0; i--) {
        let s = z[i];
        for (let j = i + 1; j < d; j++) s -= L[j * d + i] * grad[j];
        grad[i] = s / L[i * d + i];
      }
      for (let i = 0; i < d; i++) grad[i] *= factor;
      return logNorm - halfDofPlusD * Math.log1p(q / dof);
    },
    sample(rng: Rng, out?: Float64Array): Float64Array {
      const r = out ?? new Float64Array(d);
      checkDim(r, d, "multivariateStudentT.sample (out)");
      for (let i = 0; i < d; i++) r[i] = rng.normal();
      // w = 1/√(V/ν), V = 2 Gamma(ν/2), on the log scale (a Gamma draw with a small shape can underflow).
      const w = Math.exp(0.5 * (Math.log(0.5 * dof) - logGammaVariate(rng, 0.5 * dof)));
      // r ← μ + w L r in place, last row first (row i reads only r_j, j ≤ i).
      for (let i = d - 1; i >= 0; i--) {
        let s = 0;
        const row = i * d;
        for (let j = 0; j <= i; j++) s += L[row + j] * r[j];
        r[i] = location[i] + w * s;
      }
      return r;
    },
  });
}
