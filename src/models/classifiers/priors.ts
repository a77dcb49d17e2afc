/**
 * The prior pieces the classifier families share, each a normalised density over a slice of the
 * parameter vector with its gradient and a sampler:
 *
 * - a weight group whose common precision has a Gamma hyperprior, the precision integrated out
 *   (a multivariate Student-t), so that HMC sees the weights alone;
 * - independent normals of fixed scale (intercepts);
 * - a Dirichlet on class or kernel proportions written in baseline logits, with the Jacobian;
 * - the ordering transforms that remove a family's label-switching symmetry: a vector of exchangeable
 *   values sorted (first value free, then log increments), or sorted and positive (log increments
 *   from zero). Restricting an exchangeable prior to one ordering multiplies it by the number of
 *   orderings (D!, or 2^D D! with signs), so the restricted prior still integrates to one.
 */

import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { logGammaRatio } from "../../math/special.js";
import { gammaln } from "../../math/stdlib.js";
import type { Rng } from "../../random/rng.js";

/** log 2π. */

/** A Gamma distribution by shape and rate (mean shape/rate), the hyperprior of a precision. */
export interface GammaHyperprior {
  readonly shape: number;
  readonly rate: number;
}

/** Throws `invalid-argument` unless the hyperprior has finite shape > 0 and rate > 0. */
export function checkHyperprior(prior: GammaHyperprior, name: string): GammaHyperprior {
  if (
    prior === null ||
    typeof prior !== "object" ||
    !(prior.shape > 0 && Number.isFinite(prior.shape) && prior.rate > 0 && Number.isFinite(prior.rate))
  ) {
    throw new OccamError(
      "invalid-argument",
      `${name} must be { shape, rate } with finite shape > 0 and rate > 0, got ${JSON.stringify(prior)}.`,
    );
  }
  return Object.freeze({ shape: prior.shape, rate: prior.rate });
}

/**
 * A group of d weights w ~ N(0, τ⁻¹ I) with τ ~ Gamma(a, b) integrated out:
 * p(w) = Γ(a + d/2)/Γ(a) · (2πb)^(−d/2) · (1 + ‖w‖²/(2b))^(−(a + d/2)), a multivariate Student-t with
 * 2a degrees of freedom and scale √(b/a). Draws: τ ~ Gamma(a, b), then w = z/√τ.
 */
export interface WeightGroupPrior {
  readonly offset: number;
  readonly length: number;
  logPdf(theta: Float64Array): number;
  /** Adds ∇ log p to `grad` over the group's slice and returns log p. */
  addGradient(theta: Float64Array, grad: Float64Array): number;
  sample(rng: Rng, out: Float64Array): void;
}

/** The {@link WeightGroupPrior} of θ[offset … offset + length). */
export function weightGroupPrior(offset: number, length: number, hyper: GammaHyperprior): WeightGroupPrior {
  const { shape: a, rate: b } = hyper;
  const power = a + 0.5 * length;
  const logNorm = logGammaRatio(a, 0.5 * length) - 0.5 * length * (LOG_2PI + Math.log(b));
  const squared = (theta: Float64Array): number => {
    let s = 0;
    for (let j = offset; j < offset + length; j++) s += theta[j] * theta[j];
    return s;
  };
  return Object.freeze({
    offset,
    length,
    logPdf: (theta: Float64Array) => logNorm - power * Math.log1p(squared(theta) / (2 * b)),
    addGradient(theta: Float64Array, grad: Float64Array): number {
      const s = squared(theta);
      const factor = -power / (b + 0.5 * s);
      for (let j = offset; j < offset + length; j++) grad[j] += factor * theta[j];
      return logNorm - power * Math.log1p(s / (2 * b));
    },
    sample(rng: Rng, out: Float64Array): void {
      const sd = 1 / Math.sqrt(rng.gamma(a) / b);
      for (let j = offset; j < offset + length; j++) out[j] = sd * rng.normal();
    },
  });
}

/** Independent N(0, sd²) on θ[offset … offset + length): log p, its gradient added to `grad`. */
export function addNormalPrior(
  theta: Float64Array,
  offset: number,
  length: number,
  sd: number,
  grad: Float64Array | null,
): number {
  let value = -length * (0.5 * LOG_2PI + Math.log(sd));
  const precision = 1 / (sd * sd);
  for (let j = offset; j < offset + length; j++) {
    value -= 0.5 * precision * theta[j] * theta[j];
    if (grad !== null) grad[j] -= precision * theta[j];
  }
  return value;
}

/**
 * A Dirichlet(δ, …, δ) on K proportions π written in baseline logits z (K − 1 free values, the
 * reference's logit fixed at 0): π_k = e^{z_k} / Σ e^{z}. The density of z is the Dirichlet's times
 * the Jacobian ∏_k π_k: log p(z) = log Γ(Kδ) − K log Γ(δ) + δ Σ_k log π_k, with
 * ∂/∂z_j = δ − Kδ π_j. Reads θ[offset … offset + K − 1); adds the gradient when `grad` is given.
 */
export function addDirichletLogits(
  theta: Float64Array,
  offset: number,
  K: number,
  delta: number,
  grad: Float64Array | null,
): number {
  let max = 0;
  for (let j = 0; j < K - 1; j++) max = Math.max(max, theta[offset + j]);
  let sum = Math.exp(-max);
  let sumZ = 0;
  for (let j = 0; j < K - 1; j++) {
    sum += Math.exp(theta[offset + j] - max);
    sumZ += theta[offset + j];
  }
  const lse = max + Math.log(sum);
  if (grad !== null) {
    for (let j = 0; j < K - 1; j++) grad[offset + j] += delta - K * delta * Math.exp(theta[offset + j] - lse);
  }
  // Σ_k log π_k = Σ_k z_k − K lse, the reference's z being 0.
  return gammaln(K * delta) - K * gammaln(delta) + delta * (sumZ - K * lse);
}

/** Draws baseline logits of Dirichlet(δ, …, δ) proportions into θ[offset … offset + K − 1). */
export function sampleDirichletLogits(
  rng: Rng,
  out: Float64Array,
  offset: number,
  K: number,
  delta: number,
): void {
  // log of Gamma variates; the reference's is subtracted. Small δ is safe on the log scale.
  const ref = Math.log(rng.gamma(delta));
  for (let j = 0; j < K - 1; j++) out[offset + j] = Math.log(rng.gamma(delta)) - ref;
}

/**
 * Sorted values from unconstrained coordinates: v_0 = θ_0, v_j = v_{j−1} + e^{θ_j}
 * (`positive` false), or v_0 = e^{θ_0}, v_j = v_{j−1} + e^{θ_j} (`positive` true). Writes v into
 * `out` and returns log |∂v/∂θ| = Σ of the θ_j that are exponentiated.
 */
export function sortedFromIncrements(
  theta: Float64Array,
  offset: number,
  length: number,
  positive: boolean,
  out: Float64Array,
): number {
  let logJacobian = 0;
  let v = 0;
  for (let j = 0; j < length; j++) {
    const t = theta[offset + j];
    if (j === 0 && !positive) v = t;
    else {
      v += Math.exp(t);
      logJacobian += t;
    }
    out[j] = v;
  }
  return logJacobian;
}

/**
 * The chain rule through {@link sortedFromIncrements}: given ∂f/∂v in `dv` (length `length`), adds
 * ∂f/∂θ to grad[offset …] (∂v_i/∂θ_j = e^{θ_j} for i ≥ j when θ_j is an increment), plus, with
 * `jacobian`, the gradient of the log Jacobian (1 for each exponentiated coordinate).
 */
export function addSortedGradient(
  theta: Float64Array,
  offset: number,
  length: number,
  positive: boolean,
  dv: Float64Array,
  grad: Float64Array,
  jacobian: boolean,
): void {
  let tail = 0;
  for (let j = length - 1; j >= 0; j--) {
    tail += dv[j];
    if (j === 0 && !positive) grad[offset] += tail;
    else grad[offset + j] += tail * Math.exp(theta[offset + j]) + (jacobian ? 1 : 0);
  }
}

/** The inverse of {@link sortedFromIncrements} for strictly increasing v (and v_0 > 0 when positive). */
export function incrementsFromSorted(
  v: ArrayLike<number>,
  positive: boolean,
  out: Float64Array,
  offset: number,
): void {
  for (let j = 0; j < v.length; j++) {
    const step = j === 0 ? (positive ? v[0] : Number.NaN) : v[j] - v[j - 1];
    out[offset + j] = j === 0 && !positive ? v[0] : Math.log(step);
  }
}

/** log of the number of orderings of D exchangeable units (D!), times 2^D when signs are fixed too. */
export function logOrderings(D: number, signs: boolean): number {
  return gammaln(D + 1) + (signs ? D * Math.LN2 : 0);
}
