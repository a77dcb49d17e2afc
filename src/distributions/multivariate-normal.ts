import { OccamError } from "../errors.js";
import { LOG_2PI } from "../math/constants.js";
import { cholesky, logDetFromCholesky, lowerTimesTranspose } from "../math/linalg.js";
import type { Rng } from "../random/rng.js";
import { multivariateNormal as mvnVariate } from "../random/variates.js";
import {
  type ContinuousMultivariateDistribution,
  checkDim,
  checkedCholeskyFactor,
  checkOptions,
  finiteVector,
  whiten,
} from "./distribution.js";

/** Options of {@link multivariateNormal}: the mean and the Cholesky factor of the covariance. */
export interface MultivariateNormalOptions {
  /** The mean μ (length d). */
  mean: ArrayLike<number>;
  /** L, row-major d × d lower triangular with positive diagonal, such that the covariance is L Lᵀ. */
  choleskyL: ArrayLike<number>;
}

/** Options of {@link multivariateNormalFromCovariance}. */
export interface MultivariateNormalFromCovarianceOptions {
  /** The mean μ (length d). */
  mean: ArrayLike<number>;
  /** The covariance Σ, row-major d × d, symmetric positive definite. */
  covariance: ArrayLike<number>;
}

/** The multivariate normal distribution N(μ, L Lᵀ). */
export interface MultivariateNormal extends ContinuousMultivariateDistribution {
  readonly family: "multivariate-normal";
  readonly mean: Float64Array;
  readonly choleskyL: Float64Array;
  /** Σ = L Lᵀ, row-major. */
  readonly covariance: Float64Array;
  /** log det Σ. */
  readonly logDetCovariance: number;
}

/**
 * The multivariate normal with mean μ and covariance Σ = L Lᵀ, parametrised by the Cholesky factor:
 * log p(x) = −(d/2) log 2π − Σ log L_ii − ½‖L⁻¹(x − μ)‖², computed by one triangular solve (no
 * inverse). `logPdf`, `gradLogPdf` and `sample` allocate nothing (the object owns a scratch vector,
 * so it is not re-entrant — fine in single-threaded JavaScript).
 */
export function multivariateNormal(options: MultivariateNormalOptions): MultivariateNormal {
  checkOptions(options, "multivariateNormal", "mean, choleskyL");
  const mean = finiteVector(options.mean, "multivariateNormal: mean");
  const d = mean.length;
  const L = checkedCholeskyFactor(options.choleskyL, d, "multivariateNormal");
  const logDet = logDetFromCholesky(L, d);
  const logNorm = -0.5 * d * LOG_2PI - 0.5 * logDet;
  const z = new Float64Array(d);

  const whitened = (x: Float64Array): number => whiten(x, mean, L, d, z);

  return Object.freeze({
    family: "multivariate-normal" as const,
    dim: d,
    mean,
    choleskyL: L,
    covariance: lowerTimesTranspose(L, d),
    logDetCovariance: logDet,
    logPdf(x: Float64Array): number {
      checkDim(x, d, "multivariateNormal.logPdf");
      return logNorm - 0.5 * whitened(x);
    },
    gradLogPdf(x: Float64Array, grad: Float64Array): number {
      checkDim(x, d, "multivariateNormal.gradLogPdf");
      checkDim(grad, d, "multivariateNormal.gradLogPdf (grad)");
      const q = whitened(x);
      // ∇ log p = −Σ⁻¹(x − μ) = −L⁻ᵀ z: back substitution.
      for (let i = d - 1; i >= 0; i--) {
        let s = z[i];
        for (let j = i + 1; j < d; j++) s -= L[j * d + i] * grad[j];
        grad[i] = s / L[i * d + i];
      }
      for (let i = 0; i < d; i++) grad[i] = -grad[i];
      return logNorm - 0.5 * q;
    },
    sample(rng: Rng, out?: Float64Array): Float64Array {
      return mvnVariate(rng, mean, L, d, out);
    },
  });
}

/**
 * The multivariate normal N(μ, Σ) from a covariance matrix: Σ is factorised once (Cholesky) and the
 * result is {@link multivariateNormal}. Throws `not-positive-definite` when Σ is not, and
 * `invalid-argument` when it is not symmetric.
 */
export function multivariateNormalFromCovariance(
  options: MultivariateNormalFromCovarianceOptions,
): MultivariateNormal {
  checkOptions(options, "multivariateNormalFromCovariance", "mean, covariance");
  const mean = finiteVector(options.mean, "multivariateNormalFromCovariance: mean");
  const d = mean.length;
  const cov = options.covariance;
  if (cov === null || typeof cov !== "object" || cov.length !== d * d) {
    throw new OccamError(
      "dimension-mismatch",
      `multivariateNormalFromCovariance: covariance must be a row-major ${d} × ${d} matrix (length ${d * d}), got length ${cov?.length}.`,
    );
  }
  const sigma = finiteVector(cov, "multivariateNormalFromCovariance: covariance");
  checkSymmetric(sigma, d, "multivariateNormalFromCovariance: covariance");
  const L = cholesky(sigma, d, sigma);
  return multivariateNormal({ mean, choleskyL: L });
}

/** Throws unless a (row-major d × d) is symmetric to within 1e-10 relative to its diagonal scale. */
export function checkSymmetric(a: Float64Array, d: number, name: string): void {
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < i; j++) {
      const aij = a[i * d + j];
      const aji = a[j * d + i];
      const scale = Math.sqrt(Math.abs(a[i * d + i] * a[j * d + j])) + Math.abs(aij) + Math.abs(aji);
      if (Math.abs(aij - aji) > 1e-10 * scale) {
        throw new OccamError(
          "invalid-argument",
          `${name} is not symmetric: entry (${i}, ${j}) is ${aij} but (${j}, ${i}) is ${aji}. ` +
            "Symmetrise it, e.g. (A + Aᵀ)/2.",
        );
      }
    }
  }
}
