import { OccamError } from "../errors.js";
import { cholesky, invertFromCholesky } from "../math/linalg.js";
import type { Rng } from "../random/rng.js";
import type { GibbsUpdate } from "./gibbs.js";

const NAME = "buildGaussianGibbsUpdates";

/** Options of {@link buildGaussianGibbsUpdates}: a multivariate normal N(mean, covariance); give covariance or precision. */
export interface GaussianGibbsOptions {
  /** The mean vector μ (length d). */
  mean: Float64Array;
  /** The covariance Σ, row-major d × d, symmetric positive definite. */
  covariance?: Float64Array;
  /** The precision Q = Σ⁻¹, row-major d × d, symmetric positive definite (instead of `covariance`). */
  precision?: Float64Array;
}

function checkSymmetric(a: Float64Array, d: number, name: string): void {
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < i; j++) {
      const x = a[i * d + j];
      const y = a[j * d + i];
      if (!(Math.abs(x - y) <= 1e-12 * Math.max(1, Math.abs(x), Math.abs(y)))) {
        throw new OccamError(
          "invalid-argument",
          `${NAME}: ${name} must be symmetric, but entries (${i}, ${j}) = ${x} and (${j}, ${i}) = ${y} differ.`,
        );
      }
    }
  }
}

/**
 * The exact full conditionals of N(μ, Σ), one update per coordinate, for {@link buildGibbsKernel}.
 * With Q = Σ⁻¹ (computed once, through a Cholesky factor), x_i given the rest is normal with mean
 * μ_i − (1/Q_ii) Σ_{j≠i} Q_ij (x_j − μ_j) and variance 1/Q_ii. Each update costs O(d) and allocates
 * nothing. Throws `not-positive-definite` when the matrix is not positive definite.
 *
 * @example
 * const kernel = buildGibbsKernel({ dim: 2, updates: buildGaussianGibbsUpdates({ mean, covariance }) });
 */
export function buildGaussianGibbsUpdates(options: GaussianGibbsOptions): GibbsUpdate[] {
  if (options === null || typeof options !== "object") {
    throw new OccamError(
      "invalid-argument",
      `${NAME}: options must be an object with mean and covariance (or precision).`,
    );
  }
  const { mean, covariance, precision } = options;
  if (!(mean instanceof Float64Array) || mean.length < 1) {
    throw new OccamError("invalid-argument", `${NAME}: mean must be a non-empty Float64Array.`);
  }
  const d = mean.length;
  for (let i = 0; i < d; i++) {
    if (!Number.isFinite(mean[i])) throw new OccamError("non-finite", `${NAME}: mean[${i}] is ${mean[i]}.`);
  }
  if ((covariance === undefined) === (precision === undefined)) {
    throw new OccamError("invalid-argument", `${NAME}: give exactly one of covariance and precision.`);
  }
  const matrix = (covariance ?? precision) as Float64Array;
  const name = covariance !== undefined ? "covariance" : "precision";
  if (!(matrix instanceof Float64Array) || matrix.length !== d * d) {
    throw new OccamError(
      "dimension-mismatch",
      `${NAME}: ${name} must be a row-major Float64Array of length ${d * d} (d × d with d = mean.length = ${d}).`,
    );
  }
  checkSymmetric(matrix, d, name);
  // The Cholesky factorisation checks positive definiteness in both cases.
  const factor = cholesky(matrix, d);
  const q = covariance !== undefined ? invertFromCholesky(factor, d) : Float64Array.from(matrix);
  const mu = Float64Array.from(mean);
  const updates: GibbsUpdate[] = [];
  for (let i = 0; i < d; i++) {
    // Row i of Q divided by Q_ii, with the diagonal zeroed, so the conditional mean is μ_i − coef · (x − μ).
    const coef = new Float64Array(d);
    const qii = q[i * d + i];
    for (let j = 0; j < d; j++) coef[j] = j === i ? 0 : q[i * d + j] / qii;
    const sd = 1 / Math.sqrt(qii);
    updates.push((rng: Rng, x: Float64Array) => {
      let s = 0;
      for (let j = 0; j < d; j++) s += coef[j] * (x[j] - mu[j]);
      x[i] = mu[i] - s + sd * rng.normal();
    });
  }
  return updates;
}
