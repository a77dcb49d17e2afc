/**
 * The metric (mass matrix) of Hamiltonian dynamics: the kinetic energy ½ pᵀ M⁻¹ p, the velocity
 * M⁻¹ p and momenta drawn from N(0, M). A diagonal metric holds the posterior variances, a dense one
 * the posterior covariance Σ = M⁻¹ (as Stan's `diag_e` and `dense_e`). Hot loops allocate nothing.
 */
import { OccamError } from "../errors.js";
import { choleskyInPlace } from "../math/linalg.js";
import { lowerTimesPlus, lowerTransposeTimes } from "../math/triangular.js";
import type { Rng } from "../random/rng.js";

/** A Euclidean metric: the kinetic energy, the velocity and the momentum distribution of M. */
export interface Metric {
  readonly dim: number;
  /** "diagonal" or "dense". */
  readonly kind: "diagonal" | "dense";
  /** M⁻¹ as held: the d variances of a diagonal metric, the d × d covariance (row-major) of a dense one. */
  readonly inverseMass: Float64Array;
  /** ½ pᵀ M⁻¹ p. */
  kinetic(p: Float64Array): number;
  /** Writes M⁻¹ p (the velocity, Betancourt's p♯) into `out`. */
  velocity(p: Float64Array, out: Float64Array): void;
  /** q ← q + a · M⁻¹ p, in place: an integrator's drift. */
  drift(q: Float64Array, p: Float64Array, a: number): void;
  /** Writes a draw of p ~ N(0, M) into `out`. */
  sampleMomentum(rng: Rng, out: Float64Array): void;
}

/**
 * A diagonal metric with inverse mass matrix `inverseMass` (the posterior variances). The array is
 * held, not copied.
 */
export function diagonalMetric(inverseMass: Float64Array): Metric {
  const d = inverseMass.length;
  return {
    dim: d,
    kind: "diagonal",
    inverseMass,
    kinetic(p) {
      let k = 0;
      for (let i = 0; i < d; i++) k += inverseMass[i] * p[i] * p[i];
      return 0.5 * k;
    },
    velocity(p, out) {
      for (let i = 0; i < d; i++) out[i] = inverseMass[i] * p[i];
    },
    drift(q, p, a) {
      for (let i = 0; i < d; i++) q[i] += a * inverseMass[i] * p[i];
    },
    sampleMomentum(rng, out) {
      for (let i = 0; i < d; i++) out[i] = rng.normal() * (1 / Math.sqrt(inverseMass[i]));
    },
  };
}

/**
 * A dense metric whose inverse mass matrix is the covariance Σ (d × d, row-major, positive definite).
 * With Σ = L Lᵀ: M⁻¹ p = L (Lᵀ p), and p = L⁻ᵀ z with z ~ N(0, I) has covariance Σ⁻¹ = M. Throws a
 * `not-positive-definite` OccamError when Σ has no Cholesky factor.
 */
export function denseMetric(covariance: Float64Array, d: number): Metric {
  if (covariance.length !== d * d) {
    throw new OccamError("dimension-mismatch", `denseMetric: the covariance must hold ${d} × ${d} entries.`);
  }
  const L = Float64Array.from(covariance);
  choleskyInPlace(L, d);
  const scratch = new Float64Array(d);
  const product = new Float64Array(d);
  // scratch ← Lᵀ p.
  const transposeTimes = (p: Float64Array) => lowerTransposeTimes(L, d, p, scratch);
  return {
    dim: d,
    kind: "dense",
    inverseMass: Float64Array.from(covariance),
    kinetic(p) {
      transposeTimes(p);
      let k = 0;
      for (let a = 0; a < d; a++) k += scratch[a] * scratch[a];
      return 0.5 * k;
    },
    velocity(p, out) {
      transposeTimes(p);
      lowerTimesPlus(L, d, scratch, null, out);
    },
    drift(q, p, a) {
      transposeTimes(p);
      lowerTimesPlus(L, d, scratch, null, product);
      for (let r = 0; r < d; r++) q[r] += a * product[r];
    },
    sampleMomentum(rng, out) {
      // Solve Lᵀ p = z by back substitution.
      for (let a = d - 1; a >= 0; a--) {
        let v = rng.normal();
        for (let b = a + 1; b < d; b++) v -= L[b * d + a] * out[b];
        out[a] = v / L[a * d + a];
      }
    },
  };
}

/**
 * The metric of an inverse mass matrix given by a user, checked: d positive variances (diagonal) or a
 * d × d positive definite covariance (dense, row-major), as blackjax takes `inverse_mass_matrix`.
 * Unit variances when `inverseMass` is undefined. The array is copied.
 */
export function metricFromInverseMass(
  where: string,
  inverseMass: Float64Array | undefined,
  dim: number,
): Metric {
  if (inverseMass === undefined) return diagonalMetric(new Float64Array(dim).fill(1));
  if (
    !(inverseMass instanceof Float64Array) ||
    (inverseMass.length !== dim && inverseMass.length !== dim * dim)
  ) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: inverseMassMatrix must be a Float64Array of ${dim} variances or ${dim} × ${dim} covariances, got ${inverseMass instanceof Float64Array ? `length ${inverseMass.length}` : String(inverseMass)}.`,
    );
  }
  if (inverseMass.length === dim) {
    for (let i = 0; i < dim; i++) {
      if (!(Number.isFinite(inverseMass[i]) && inverseMass[i] > 0)) {
        throw new OccamError(
          "invalid-argument",
          `${where}: inverseMassMatrix[${i}] must be finite and > 0, got ${inverseMass[i]}.`,
        );
      }
    }
    return diagonalMetric(Float64Array.from(inverseMass));
  }
  try {
    return denseMetric(inverseMass, dim);
  } catch (error) {
    if (!(error instanceof OccamError)) throw error;
    throw new OccamError(
      "invalid-argument",
      `${where}: inverseMassMatrix must be positive definite (${error.message})`,
    );
  }
}
