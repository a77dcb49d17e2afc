/**
 * Gaussian test targets and moment checks shared by the sampler tests (not a test file itself).
 */
import { effectiveSampleSize } from "../../src/diagnostics/ess.js";
import { cholesky, invertFromCholesky, logDetFromCholesky } from "../../src/math/linalg.js";
import type { LogDensity } from "../../src/model/model.js";
import type { Rng } from "../../src/random/rng.js";
import { createRng } from "../../src/random/rng.js";
import type { Proposal } from "../../src/samplers/importance.js";

/** A normalised multivariate normal N(mean, covariance) as a LogDensity, with what tests need to know about it. */
export interface GaussianTarget extends LogDensity {
  readonly mean: Float64Array;
  readonly covariance: Float64Array;
  readonly precision: Float64Array;
  /** Marginal standard deviations. */
  readonly sd: Float64Array;
  /** Cholesky factor of the covariance. */
  readonly chol: Float64Array;
  gradLogDensity(theta: Float64Array, grad: Float64Array): number;
}

/** N(mean, covariance) with its normalising constant, log density O(d²) and gradient −Q(x − μ). */
export function gaussianTarget(mean: Float64Array, covariance: Float64Array): GaussianTarget {
  const d = mean.length;
  const chol = cholesky(covariance, d);
  const precision = invertFromCholesky(chol, d);
  const logNorm = -0.5 * d * Math.log(2 * Math.PI) - 0.5 * logDetFromCholesky(chol, d);
  const diff = new Float64Array(d);
  const sd = new Float64Array(d);
  for (let i = 0; i < d; i++) sd[i] = Math.sqrt(covariance[i * d + i]);
  const gradLogDensity = (x: Float64Array, grad: Float64Array): number => {
    for (let i = 0; i < d; i++) diff[i] = x[i] - mean[i];
    let quad = 0;
    for (let i = 0; i < d; i++) {
      let s = 0;
      const row = i * d;
      for (let j = 0; j < d; j++) s += precision[row + j] * diff[j];
      grad[i] = -s;
      quad += diff[i] * s;
    }
    return logNorm - 0.5 * quad;
  };
  // The density alone through the Cholesky factor: |L⁻¹(x − μ)|² by forward substitution, d²/2 flops.
  const z = new Float64Array(d);
  const logDensity = (x: Float64Array): number => {
    let quad = 0;
    for (let i = 0; i < d; i++) {
      let s = x[i] - mean[i];
      const row = i * d;
      for (let k = 0; k < i; k++) s -= chol[row + k] * z[k];
      z[i] = s / chol[row + i];
      quad += z[i] * z[i];
    }
    return logNorm - 0.5 * quad;
  };
  return {
    dim: d,
    mean,
    covariance,
    precision,
    sd,
    chol,
    gradLogDensity,
    logDensity,
  };
}

/** A fixed-seed uniformly random rotation (QR of a Gaussian matrix, signs fixed) as a row-major d × d matrix. */
export function randomRotation(d: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const r = new Float64Array(d * d);
  for (let i = 0; i < d * d; i++) r[i] = rng.normal();
  // Modified Gram–Schmidt on the columns.
  for (let j = 0; j < d; j++) {
    for (let k = 0; k < j; k++) {
      let dot = 0;
      for (let i = 0; i < d; i++) dot += r[i * d + j] * r[i * d + k];
      for (let i = 0; i < d; i++) r[i * d + j] -= dot * r[i * d + k];
    }
    let norm = 0;
    for (let i = 0; i < d; i++) norm += r[i * d + j] ** 2;
    norm = Math.sqrt(norm);
    for (let i = 0; i < d; i++) r[i * d + j] /= norm;
  }
  return r;
}

/** R diag(eigenvalues) Rᵀ, symmetrised exactly. */
export function rotatedCovariance(eigenvalues: Float64Array, rotation: Float64Array): Float64Array {
  const d = eigenvalues.length;
  const c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += rotation[i * d + k] * eigenvalues[k] * rotation[j * d + k];
      c[i * d + j] = s;
      c[j * d + i] = s;
    }
  }
  return c;
}

/**
 * N(mean, c² Σ) as an independent proposal for a Gaussian target N(mean, Σ): with c > 1 the ratio
 * target/proposal is at most c^d (attained at the mean), so log M = d log c is an exact envelope.
 */
export function inflatedProposal(target: GaussianTarget, c: number): Proposal {
  const d = target.dim;
  const z = new Float64Array(d);
  const L = target.chol;
  const logDet = 2 * d * Math.log(c) + 2 * sumLogDiag(L, d);
  const c2 = c * c;
  return {
    dim: d,
    sample(rng: Rng, out: Float64Array) {
      for (let i = 0; i < d; i++) z[i] = rng.normal();
      for (let i = 0; i < d; i++) {
        let s = 0;
        for (let k = 0; k <= i; k++) s += L[i * d + k] * z[k];
        out[i] = target.mean[i] + c * s;
      }
    },
    logPdf(x: Float64Array) {
      let quad = 0;
      for (let i = 0; i < d; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += target.precision[i * d + j] * (x[j] - target.mean[j]);
        quad += (x[i] - target.mean[i]) * s;
      }
      return -0.5 * d * Math.log(2 * Math.PI) - 0.5 * logDet - (0.5 * quad) / c2;
    },
  };
}

function sumLogDiag(L: Float64Array, d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += Math.log(L[i * d + i]);
  return s;
}

/** One coordinate's check: the z-scores of its sample mean and sample variance against the truth. */
export interface MomentCheck {
  coordinate: number;
  meanZ: number;
  varianceZ: number;
  ess: number;
  essOfSquares: number;
}

/**
 * Compares the sample mean and variance of each coordinate with the truth, in units of their Monte
 * Carlo standard errors: MCSE(mean) = sd / √ESS and, for a normal target, SE(variance) ≈ σ² √(2 / ESS of
 * the squared deviations), with ESS from `effectiveSampleSize` over the chains.
 */
export function momentChecks(
  chainsPerCoordinate: (j: number) => Float64Array[],
  dim: number,
  trueMean: Float64Array,
  trueVariance: Float64Array,
): MomentCheck[] {
  const checks: MomentCheck[] = [];
  for (let j = 0; j < dim; j++) {
    const chains = chainsPerCoordinate(j);
    let n = 0;
    let sum = 0;
    for (const c of chains) {
      for (const v of c) sum += v;
      n += c.length;
    }
    const m = sum / n;
    let ss = 0;
    for (const c of chains) for (const v of c) ss += (v - m) ** 2;
    const variance = ss / (n - 1);
    const ess = effectiveSampleSize(chains);
    const squares = chains.map((c) => c.map((v) => (v - trueMean[j]) ** 2));
    const essOfSquares = effectiveSampleSize(squares);
    const meanZ = (m - trueMean[j]) / Math.sqrt(trueVariance[j] / ess);
    const varianceZ = (variance - trueVariance[j]) / (trueVariance[j] * Math.sqrt(2 / essOfSquares));
    checks.push({ coordinate: j, meanZ, varianceZ, ess, essOfSquares });
  }
  return checks;
}

/** The checks whose |z| exceeds `limit`, for a readable failure message. */
export function failures(checks: readonly MomentCheck[], limit = 4): MomentCheck[] {
  return checks.filter((c) => !(Math.abs(c.meanZ) < limit && Math.abs(c.varianceZ) < limit));
}

/** A d × d diagonal matrix, row-major. */
export function diag(v: number[]): Float64Array {
  const d = v.length;
  const m = new Float64Array(d * d);
  v.forEach((x, i) => {
    m[i * d + i] = x;
  });
  return m;
}

/** A 1-d log density with a gradient, from a function of x returning [log π, d log π / dx]. */
export function oneDim(f: (x: number) => [number, number]): LogDensity {
  return {
    dim: 1,
    logDensity: (x) => f(x[0])[0],
    gradLogDensity: (x, g) => {
      const [v, d] = f(x[0]);
      g[0] = d;
      return v;
    },
  };
}
