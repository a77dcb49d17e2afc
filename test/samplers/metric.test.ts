import { describe, expect, it } from "vitest";
import { createRng } from "../../src/random/rng.js";
import { denseMetric, diagonalMetric } from "../../src/samplers/metric.js";

describe("metrics", () => {
  const sigma = new Float64Array([4, 1.2, 1.2, 1]); // Σ = M⁻¹
  const p = new Float64Array([0.5, -2]);

  it("dense: the velocity is Σp, the kinetic energy ½ pᵀΣp, and a drift moves q by a Σp", () => {
    const metric = denseMetric(sigma, 2);
    const v = new Float64Array(2);
    metric.velocity(p, v);
    expect(v[0]).toBeCloseTo(4 * 0.5 + 1.2 * -2, 12);
    expect(v[1]).toBeCloseTo(1.2 * 0.5 + 1 * -2, 12);
    expect(metric.kinetic(p)).toBeCloseTo(0.5 * (p[0] * v[0] + p[1] * v[1]), 12);
    const q = new Float64Array([1, 1]);
    metric.drift(q, p, 0.1);
    expect(q[0]).toBeCloseTo(1 + 0.1 * v[0], 12);
    expect(q[1]).toBeCloseTo(1 + 0.1 * v[1], 12);
  });

  it("dense: momenta have covariance M = Σ⁻¹ (each entry within 4 standard errors over 20 000 draws)", () => {
    const metric = denseMetric(sigma, 2);
    const rng = createRng(1);
    const n = 20_000;
    const out = new Float64Array(2);
    const sums = [0, 0, 0];
    for (let t = 0; t < n; t++) {
      metric.sampleMomentum(rng, out);
      sums[0] += out[0] * out[0];
      sums[1] += out[0] * out[1];
      sums[2] += out[1] * out[1];
    }
    const det = 4 * 1 - 1.2 * 1.2;
    const m = [1 / det, -1.2 / det, 4 / det];
    for (let k = 0; k < 3; k++) {
      // Var(p_i p_j) = M_ii M_jj + M_ij² for Gaussian momenta.
      const se = Math.sqrt((k === 1 ? m[0] * m[2] + m[1] * m[1] : 2 * m[k] * m[k]) / n);
      expect(Math.abs(sums[k] / n - m[k])).toBeLessThan(4 * se);
    }
  });

  it("diagonal: the same formulas with Σ diagonal, reading the inverse masses in place", () => {
    const inverseMass = new Float64Array([4, 1]);
    const metric = diagonalMetric(inverseMass);
    expect(metric.kinetic(p)).toBeCloseTo(0.5 * (4 * 0.25 + 4), 12);
    inverseMass[0] = 2;
    expect(metric.kinetic(p)).toBeCloseTo(0.5 * (2 * 0.25 + 4), 12);
  });
});
