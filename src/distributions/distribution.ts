import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";

/**
 * The shapes every distribution in occam shares. A distribution is a frozen object made by a
 * factory whose options name the parametrisation (`gamma({ shape, rate })`); it carries its
 * parameters, a normalised log density and a sampler. Values outside the support have log density
 * −Infinity; a NaN argument gives NaN.
 */

/** A distribution over the real line (or part of it), evaluated at plain numbers. */
export interface UnivariateDistribution {
  /** The family, e.g. "normal". */
  readonly family: string;
  /** The expectation (NaN when it does not exist, ±Infinity when it diverges). */
  readonly mean: number;
  /** The variance (NaN when it does not exist, Infinity when it diverges). */
  readonly variance: number;
  /** The normalised log density at x (for a discrete distribution, the log probability of x). */
  logPdf(x: number): number;
  /** One draw. */
  sample(rng: Rng): number;
}

/** A univariate distribution with a differentiable density, as gradient-based samplers need. */
export interface ContinuousUnivariateDistribution extends UnivariateDistribution {
  /** d/dx log p(x) inside the support. */
  dLogPdf(x: number): number;
}

/** A distribution over vectors of length `dim`. */
export interface MultivariateDistribution {
  /** The family, e.g. "multivariate-normal". */
  readonly family: string;
  /** Length of the vectors. */
  readonly dim: number;
  /** The normalised log density at x (throws `dimension-mismatch` when x has the wrong length). */
  logPdf(x: Float64Array): number;
  /** One draw, written to `out` when given (allocation-free) or to a new array. */
  sample(rng: Rng, out?: Float64Array): Float64Array;
}

/** A multivariate distribution whose log density has a gradient everywhere on R^dim. */
export interface ContinuousMultivariateDistribution extends MultivariateDistribution {
  /** Writes ∇ log p(x) into `grad` and returns log p(x). */
  gradLogPdf(x: Float64Array, grad: Float64Array): number;
}

/** Throws `dimension-mismatch` unless `x` has length `dim`. */
export function checkDim(x: ArrayLike<number>, dim: number, where: string): void {
  if (x.length !== dim) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: the vector has length ${x.length}, expected ${dim}.`,
    );
  }
}

/** (c)·log(x) with the convention 0·log 0 = 0, for densities like x^(a−1) at the boundary. */
export function xLogY(c: number, y: number): number {
  return c === 0 ? 0 : c * Math.log(y);
}

/** A copy of `values` as a Float64Array, every entry checked to be finite. */
export function finiteVector(values: ArrayLike<number>, name: string): Float64Array {
  if (values === null || typeof values !== "object" || typeof values.length !== "number") {
    throw new OccamError("invalid-argument", `${name} must be an array of numbers.`);
  }
  if (values.length < 1) throw new OccamError("invalid-argument", `${name} must not be empty.`);
  const v = Float64Array.from(values);
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) {
      throw new OccamError("invalid-argument", `${name}[${i}] must be a finite number, got ${v[i]}.`);
    }
  }
  return v;
}

/**
 * A copy of a Cholesky factor, checked: d × d, lower triangular, finite, with a positive diagonal.
 * Catches the common mistake of passing a covariance where a factor is expected.
 */
export function checkedCholeskyFactor(L: ArrayLike<number>, d: number, where: string): Float64Array {
  if (L === null || typeof L !== "object" || L.length !== d * d) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: choleskyL must be a row-major ${d} × ${d} matrix (length ${d * d}), got length ${L?.length}.`,
    );
  }
  const c = Float64Array.from(L);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      const v = c[i * d + j];
      if (!Number.isFinite(v)) {
        throw new OccamError(
          "invalid-argument",
          `${where}: choleskyL(${i}, ${j}) is ${v}; it must be finite.`,
        );
      }
      if (j > i && v !== 0) {
        throw new OccamError(
          "invalid-argument",
          `${where}: choleskyL must be lower triangular but entry (${i}, ${j}) is ${v}. ` +
            "Pass the Cholesky factor (see cholesky in math/linalg) or use the FromCovariance factory.",
        );
      }
    }
    if (!(c[i * d + i] > 0)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: choleskyL(${i}, ${i}) is ${c[i * d + i]}; the diagonal of a Cholesky factor must be > 0.`,
      );
    }
  }
  return c;
}

/** Checks that a parameter is finite and > 0, naming the distribution and parameter. */
export function checkPositiveParameter(value: number, name: string): void {
  if (!(typeof value === "number" && value > 0 && Number.isFinite(value))) {
    throw new OccamError("invalid-argument", `${name} must be a finite number greater than 0, got ${value}.`);
  }
}

/** Checks that a parameter is a finite number. */
export function checkFiniteParameter(value: number, name: string): void {
  if (!(typeof value === "number" && Number.isFinite(value))) {
    throw new OccamError("invalid-argument", `${name} must be a finite number, got ${value}.`);
  }
}

/** Throws a helpful error when a factory is called without its options object. */
export function checkOptions(options: unknown, where: string, fields: string): void {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${where} expects an options object { ${fields} }.`);
  }
}

/**
 * Writes z = L⁻¹(x − μ) into `z` by forward substitution and returns ‖z‖², the squared Mahalanobis
 * distance of x from μ under the scale matrix L Lᵀ. Shared by the multivariate normal and Student-t.
 */
export function whiten(
  x: Float64Array,
  mu: Float64Array,
  L: Float64Array,
  d: number,
  z: Float64Array,
): number {
  let q = 0;
  for (let i = 0; i < d; i++) {
    const row = i * d;
    let s = x[i] - mu[i];
    for (let j = 0; j < i; j++) s -= L[row + j] * z[j];
    const zi = s / L[row + i];
    z[i] = zi;
    q += zi * zi;
  }
  return q;
}
