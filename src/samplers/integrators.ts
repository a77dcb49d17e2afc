import { OccamError } from "../errors.js";
import type { Metric } from "./metric.js";

/** Writes ∇ log π(θ) into `grad` and returns log π(θ), as `LogDensity.gradLogDensity` does. */
export type GradLogDensityFn = (theta: Float64Array, grad: Float64Array) => number;

/**
 * A symplectic, time-reversible integrator of Hamiltonian dynamics with potential U = −log π and
 * kinetic energy ½ pᵀ M⁻¹ p for the metric M (see {@link Metric}).
 */
export interface Integrator {
  /** A short name, for reports. */
  readonly name: string;
  /** Gradient evaluations one step costs. */
  readonly gradientsPerStep: number;
  /**
   * One step of size `stepSize`, in place: on entry `gradient` holds ∇ log π(`position`); on return
   * `position`, `momentum` and `gradient` hold the new point and the return value is log π there.
   * Stops at once and returns the value when a log density is not finite (the buffers then hold a
   * partial step), and returns NaN when a gradient has a non-finite entry.
   */
  step(
    gradLogDensity: GradLogDensityFn,
    position: Float64Array,
    momentum: Float64Array,
    gradient: Float64Array,
    metric: Metric,
    stepSize: number,
  ): number;
}

/**
 * Builds the palindromic splitting integrator with coefficients `[b1, a1, b2, a2, …, a2, b2, a1, b1]`:
 * momentum kicks p += bₖ ε ∇log π(q) at even indices, position drifts q += aₖ ε M⁻¹ p at odd ones.
 * The sequence must be symmetric (so the map is time-reversible) and each set must sum to 1 (so the
 * step is consistent). Every such composition of kicks and drifts is symplectic.
 *
 * @example
 * const leapfrog = palindromicIntegrator("leapfrog", [0.5, 1, 0.5]);
 */
export function palindromicIntegrator(name: string, coefficients: readonly number[]): Integrator {
  const k = coefficients.length;
  if (!(k >= 3 && k % 2 === 1)) {
    throw new OccamError(
      "invalid-argument",
      `integrator ${name}: give an odd number (≥ 3) of coefficients b1, a1, b2, …, b1; got ${k}.`,
    );
  }
  let kicks = 0;
  let drifts = 0;
  for (let s = 0; s < k; s++) {
    const c = coefficients[s];
    if (!Number.isFinite(c) || Math.abs(c - coefficients[k - 1 - s]) > 1e-15) {
      throw new OccamError(
        "invalid-argument",
        `integrator ${name}: coefficients must be finite and palindromic (symmetric), got [${coefficients.join(", ")}].`,
      );
    }
    if (s % 2 === 0) kicks += c;
    else drifts += c;
  }
  if (Math.abs(kicks - 1) > 1e-12 || Math.abs(drifts - 1) > 1e-12) {
    throw new OccamError(
      "invalid-argument",
      `integrator ${name}: kick and drift coefficients must each sum to 1, got ${kicks} and ${drifts}.`,
    );
  }
  const coef = Float64Array.from(coefficients);
  return {
    name,
    gradientsPerStep: (k - 1) / 2,
    step(gradLogDensity, q, p, g, metric, eps) {
      const n = q.length;
      let logp = Number.NaN;
      for (let s = 0; ; s += 2) {
        // Kick. `bad` stays 0 while every gradient entry is finite (x · 0 = 0) and becomes NaN
        // otherwise, which checks the gradient at no extra pass over the vector.
        const b = coef[s] * eps;
        let bad = 0;
        for (let i = 0; i < n; i++) {
          const gi = g[i];
          bad += gi * 0;
          p[i] += b * gi;
        }
        if (bad !== 0) return Number.NaN;
        if (s + 1 === k) return logp;
        // Drift, then the gradient at the new position for the next kick.
        metric.drift(q, p, coef[s + 1] * eps);
        logp = gradLogDensity(q, g);
        if (!(logp > Number.NEGATIVE_INFINITY && logp < Number.POSITIVE_INFINITY)) return logp;
      }
    },
  };
}

/** Leapfrog (velocity Verlet): half kick, drift, half kick. Second order, one gradient per step. */
export const leapfrog: Integrator = palindromicIntegrator("leapfrog", [0.5, 1, 0.5]);

/**
 * McLachlan's (1995) minimal-norm two-stage integrator, λ = 0.1931833275037836: kicks λ, 1 − 2λ, λ
 * around two half drifts. Second order with a much smaller error constant than leapfrog; two
 * gradients per step, so compare it with leapfrog at half the step size.
 */
export const mclachlan: Integrator = ((lambda: number) =>
  palindromicIntegrator("mclachlan", [lambda, 0.5, 1 - 2 * lambda, 0.5, lambda]))(0.1931833275037836);

/**
 * Yoshida's (1990) fourth-order integrator: three leapfrog steps of sizes w₁, w₀, w₁ with
 * w₁ = 1/(2 − 2^{1/3}) and w₀ = 1 − 2w₁ (negative). Three gradients per step.
 */
export const yoshida: Integrator = (() => {
  const w1 = 1 / (2 - 2 ** (1 / 3));
  const w0 = 1 - 2 * w1;
  return palindromicIntegrator("yoshida", [w1 / 2, w1, (w0 + w1) / 2, w0, (w0 + w1) / 2, w1, w1 / 2]);
})();
