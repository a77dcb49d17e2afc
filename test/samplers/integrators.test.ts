import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import {
  type GradLogDensityFn,
  type Integrator,
  leapfrog,
  mclachlan,
  palindromicIntegrator,
  yoshida,
} from "../../src/samplers/integrators.js";
import { diagonalMetric } from "../../src/samplers/metric.js";

const integrators: Integrator[] = [leapfrog, mclachlan, yoshida];

/** log π(q) = −(½ qᵀAq + bᵀq + c Σ qᵢ⁴): a quadratic plus quartic potential. */
function potential(a: Float64Array, b: Float64Array, c: number): GradLogDensityFn {
  const d = b.length;
  return (q, g) => {
    let u = 0;
    for (let i = 0; i < d; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += a[i * d + j] * q[j];
      const q3 = q[i] * q[i] * q[i];
      g[i] = -(s + b[i] + 4 * c * q3);
      u += 0.5 * q[i] * s + b[i] * q[i] + c * q3 * q[i];
    }
    return -u;
  };
}

interface Problem {
  d: number;
  grad: GradLogDensityFn;
  invMass: Float64Array;
  q: Float64Array;
  p: Float64Array;
  eps: number;
  steps: number;
}

/** Random problems: A = BBᵀ + 0.1 I with |Bᵢⱼ| ≤ 1, quartic weight ≤ 0.3, step sizes well inside stability. */
const problems: fc.Arbitrary<Problem> = fc.integer({ min: 1, max: 3 }).chain((d) => {
  const vec = (n: number, lo: number, hi: number) =>
    fc
      .array(fc.double({ min: lo, max: hi, noNaN: true }), { minLength: n, maxLength: n })
      .map((v) => Float64Array.from(v));
  return fc
    .record({
      bm: vec(d * d, -1, 1),
      b: vec(d, -1, 1),
      c: fc.double({ min: 0, max: 0.3, noNaN: true }),
      invMass: vec(d, 0.5, 2),
      q: vec(d, -1.5, 1.5),
      p: vec(d, -1.5, 1.5),
      eps: fc.double({ min: 0.01, max: 0.1, noNaN: true }),
      steps: fc.integer({ min: 1, max: 10 }),
    })
    .map(({ bm, b, c, invMass, q, p, eps, steps }) => {
      const a = new Float64Array(d * d);
      for (let i = 0; i < d; i++) {
        for (let j = 0; j < d; j++) {
          let s = i === j ? 0.1 : 0;
          for (let k = 0; k < d; k++) s += bm[i * d + k] * bm[j * d + k];
          a[i * d + j] = s;
        }
      }
      return { d, grad: potential(a, b, c), invMass, q, p, eps, steps };
    });
});

/** Runs `steps` steps from (q, p) and returns the end point as [q', p'] (copies). */
function flow(
  integrator: Integrator,
  pr: Problem,
  q0: Float64Array,
  p0: Float64Array,
  eps = pr.eps,
): [Float64Array, Float64Array] {
  const q = Float64Array.from(q0);
  const p = Float64Array.from(p0);
  const g = new Float64Array(pr.d);
  pr.grad(q, g);
  for (let s = 0; s < pr.steps; s++) integrator.step(pr.grad, q, p, g, diagonalMetric(pr.invMass), eps);
  return [q, p];
}

/** Determinant by Gaussian elimination with partial pivoting. */
function determinant(m: Float64Array, n: number): number {
  const a = Float64Array.from(m);
  let det = 1;
  for (let k = 0; k < n; k++) {
    let piv = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(a[i * n + k]) > Math.abs(a[piv * n + k])) piv = i;
    if (a[piv * n + k] === 0) return 0;
    if (piv !== k) {
      for (let j = 0; j < n; j++) [a[k * n + j], a[piv * n + j]] = [a[piv * n + j], a[k * n + j]];
      det = -det;
    }
    det *= a[k * n + k];
    for (let i = k + 1; i < n; i++) {
      const f = a[i * n + k] / a[k * n + k];
      for (let j = k; j < n; j++) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return det;
}

describe.each(integrators.map((i) => [i.name, i] as const))("%s", (_name, integrator) => {
  it("is reversible: flip the momentum, integrate, flip again, and you are back within 1e-10", () => {
    fc.assert(
      fc.property(problems, (pr) => {
        const [q1, p1] = flow(integrator, pr, pr.q, pr.p);
        const [q2, p2] = flow(
          integrator,
          pr,
          q1,
          p1.map((v) => -v),
        );
        for (let i = 0; i < pr.d; i++) {
          expect(Math.abs(q2[i] - pr.q[i])).toBeLessThan(1e-10);
          expect(Math.abs(-p2[i] - pr.p[i])).toBeLessThan(1e-10);
        }
      }),
      { numRuns: 200, seed: 17 },
    );
  });

  it("preserves volume: the Jacobian determinant of (q, p) ↦ (q', p') is 1 within 1e-6", () => {
    fc.assert(
      fc.property(problems, (pr) => {
        const n = 2 * pr.d;
        const jac = new Float64Array(n * n);
        const h = 1e-5;
        for (let k = 0; k < n; k++) {
          const plus = [Float64Array.from(pr.q), Float64Array.from(pr.p)];
          const minus = [Float64Array.from(pr.q), Float64Array.from(pr.p)];
          const block = k < pr.d ? 0 : 1;
          plus[block][k % pr.d] += h;
          minus[block][k % pr.d] -= h;
          const fp = flow(integrator, pr, plus[0], plus[1]);
          const fm = flow(integrator, pr, minus[0], minus[1]);
          for (let i = 0; i < n; i++) {
            const out = i < pr.d ? 0 : 1;
            jac[i * n + k] = (fp[out][i % pr.d] - fm[out][i % pr.d]) / (2 * h);
          }
        }
        expect(Math.abs(determinant(jac, n) - 1)).toBeLessThan(1e-6);
      }),
      { numRuns: 100, seed: 23 },
    );
  });

  it("counts its gradient evaluations", () => {
    let calls = 0;
    const grad: GradLogDensityFn = (q, g) => {
      calls++;
      g[0] = -q[0];
      return -0.5 * q[0] * q[0];
    };
    const q = new Float64Array([1]);
    const p = new Float64Array([0.5]);
    const g = new Float64Array([-1]);
    integrator.step(grad, q, p, g, diagonalMetric(new Float64Array([1])), 0.1);
    expect(calls).toBe(integrator.gradientsPerStep);
  });

  it("stops at a non-finite log density and returns NaN for a non-finite gradient", () => {
    let calls = 0;
    const wall: GradLogDensityFn = (q, g) => {
      calls++;
      g[0] = -q[0];
      return q[0] > 1 ? Number.NEGATIVE_INFINITY : -0.5 * q[0] * q[0];
    };
    const q = new Float64Array([0.9]);
    const p = new Float64Array([10]);
    const g = new Float64Array([-0.9]);
    expect(integrator.step(wall, q, p, g, diagonalMetric(new Float64Array([1])), 0.5)).toBe(
      Number.NEGATIVE_INFINITY,
    );
    expect(calls).toBe(1);
    const badGradient: GradLogDensityFn = (_q, g) => {
      g[0] = Number.NaN;
      return 0;
    };
    const g2 = new Float64Array([0]);
    expect(
      integrator.step(
        badGradient,
        new Float64Array([0]),
        new Float64Array([1]),
        g2,
        diagonalMetric(new Float64Array([1])),
        0.1,
      ),
    ).toBeNaN();
  });
});

describe("integrator accuracy on the harmonic oscillator (log π = −q²/2)", () => {
  const grad: GradLogDensityFn = (q, g) => {
    g[0] = -q[0];
    return -0.5 * q[0] * q[0];
  };
  /** Largest |H − H₀| along a trajectory of total time 10 with step ε. */
  const maxEnergyError = (integrator: Integrator, eps: number) => {
    const q = new Float64Array([1]);
    const p = new Float64Array([0]);
    const g = new Float64Array([-1]);
    const one = new Float64Array([1]);
    let worst = 0;
    for (let s = 0; s < Math.round(10 / eps); s++) {
      const logp = integrator.step(grad, q, p, g, diagonalMetric(one), eps);
      worst = Math.max(worst, Math.abs(-logp + 0.5 * p[0] * p[0] - 0.5));
    }
    return worst;
  };

  it("leapfrog matches the hand-computed step", () => {
    const q = new Float64Array([1]);
    const p = new Float64Array([0.5]);
    const g = new Float64Array([-1]);
    const eps = 0.1;
    const logp = leapfrog.step(grad, q, p, g, diagonalMetric(new Float64Array([2])), eps);
    const pHalf = 0.5 + (eps / 2) * -1;
    const qNew = 1 + eps * 2 * pHalf;
    expect(q[0]).toBeCloseTo(qNew, 15);
    expect(p[0]).toBeCloseTo(pHalf - (eps / 2) * qNew, 15);
    expect(g[0]).toBeCloseTo(-qNew, 15);
    expect(logp).toBeCloseTo(-0.5 * qNew * qNew, 15);
  });

  it("has energy error of order 2 (leapfrog, McLachlan) and 4 (Yoshida)", () => {
    // Halving ε divides the error by 2^order; allow the ratio to be within a factor 1.25 of that.
    for (const [integrator, order] of [
      [leapfrog, 2],
      [mclachlan, 2],
      [yoshida, 4],
    ] as const) {
      const ratio = maxEnergyError(integrator, 0.1) / maxEnergyError(integrator, 0.05);
      expect(ratio).toBeGreaterThan(2 ** order / 1.25);
      expect(ratio).toBeLessThan(2 ** order * 1.25);
    }
  });

  it("McLachlan beats leapfrog at equal cost (two leapfrog steps per McLachlan step)", () => {
    expect(maxEnergyError(mclachlan, 0.2)).toBeLessThan(maxEnergyError(leapfrog, 0.1));
  });
});

describe("palindromicIntegrator", () => {
  it("rejects coefficient lists that are not palindromic, consistent and of odd length", () => {
    expect(() => palindromicIntegrator("x", [0.5, 1])).toThrow(OccamError);
    expect(() => palindromicIntegrator("x", [0.4, 1, 0.6])).toThrow(/palindromic/);
    expect(() => palindromicIntegrator("x", [0.5, 0.9, 0.5])).toThrow(/sum to 1/);
    expect(palindromicIntegrator("x", [0.5, 1, 0.5]).gradientsPerStep).toBe(1);
  });
});
