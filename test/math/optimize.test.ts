import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { symmetricEigenvalues } from "../../src/math/linalg.js";
import { minimize, numericalHessian, type Objective } from "../../src/math/optimize.js";

const EPS = Number.EPSILON;

// A fixed SPD matrix (eigenvalues between about 0.3 and 9) and centre for a 4-d quadratic.
const A = new Float64Array([4, 1, 0.5, 0, 1, 3, 0.2, 0.1, 0.5, 0.2, 2, -0.3, 0, 0.1, -0.3, 0.5]);
const C = new Float64Array([1, -2, 3, 0.5]);
const N = 4;

/** f(x) = ½ (x − c)ᵀ A (x − c) + 7, minimised exactly at c. */
const quadratic: Objective = (x, grad) => {
  let f = 7;
  for (let i = 0; i < N; i++) {
    let s = 0;
    for (let j = 0; j < N; j++) s += A[i * N + j] * (x[j] - C[j]);
    grad[i] = s;
    f += 0.5 * (x[i] - C[i]) * s;
  }
  return f;
};

/** The extended Rosenbrock function Σ 100(x_{2i+1} − x_{2i}²)² + (1 − x_{2i})², minimum 0 at all ones. */
const rosenbrock: Objective = (x, grad) => {
  let f = 0;
  for (let i = 0; i < x.length; i += 2) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    f += 100 * a * a + b * b;
    grad[i] = -400 * x[i] * a - 2 * b;
    grad[i + 1] = 200 * a;
  }
  return f;
};

// The Rosenbrock Hessian at (1, 1) is [[802, −400], [−400, 200]]; its smallest eigenvalue bounds how
// far from the minimiser a point with a given gradient can be (to first order): ‖x − x*‖ ≤ ‖g‖ / λ_min.
const ROSENBROCK_LAMBDA_MIN = symmetricEigenvalues(new Float64Array([802, -400, -400, 200]), 2)[0];

describe("minimize", () => {
  it("finds the exact minimiser of a quadratic to within ‖g‖/λ_min", () => {
    const gradTolerance = 1e-10;
    const r = minimize(quadratic, new Float64Array(N), { gradTolerance, functionTolerance: 0 });
    expect(r.converged).toBe(true);
    expect(r.message).toMatch(/gradient/);
    const lambdaMin = symmetricEigenvalues(A, N)[0];
    const bound = (Math.sqrt(N) * gradTolerance) / lambdaMin;
    for (let i = 0; i < N; i++) expect(Math.abs(r.x[i] - C[i])).toBeLessThanOrEqual(bound);
    expect(Math.abs(r.value - 7)).toBeLessThanOrEqual(bound * Math.sqrt(N) * gradTolerance + 8 * EPS * 7);
    expect(r.evaluations).toBeGreaterThan(r.iterations);
  });

  it("solves 2-d Rosenbrock from (−1.2, 1)", () => {
    const gradTolerance = 1e-9;
    const r = minimize(rosenbrock, new Float64Array([-1.2, 1]), { gradTolerance, functionTolerance: 0 });
    expect(r.converged).toBe(true);
    const g = Math.hypot(r.gradient[0], r.gradient[1]);
    expect(g).toBeLessThanOrEqual(Math.SQRT2 * gradTolerance);
    // Quadratic model bound, doubled for the non-quadratic remainder near the minimum.
    const bound = (2 * Math.SQRT2 * gradTolerance) / ROSENBROCK_LAMBDA_MIN;
    expect(Math.abs(r.x[0] - 1)).toBeLessThanOrEqual(bound);
    expect(Math.abs(r.x[1] - 1)).toBeLessThanOrEqual(bound);
    expect(r.iterations).toBeLessThan(100);
  });

  it("solves 20-d extended Rosenbrock", () => {
    const x0 = new Float64Array(20);
    for (let i = 0; i < 20; i += 2) {
      x0[i] = -1.2;
      x0[i + 1] = 1;
    }
    const gradTolerance = 1e-8;
    const r = minimize(rosenbrock, x0, { gradTolerance, functionTolerance: 0, memory: 5 });
    expect(r.converged).toBe(true);
    const bound = (2 * Math.sqrt(20) * gradTolerance) / ROSENBROCK_LAMBDA_MIN;
    for (let i = 0; i < 20; i++) expect(Math.abs(r.x[i] - 1)).toBeLessThanOrEqual(bound);
  });

  it("stops on the function-change test with f within the tolerance of the minimum", () => {
    const functionTolerance = 1e-10;
    const r = minimize(quadratic, new Float64Array(N), { gradTolerance: 0, functionTolerance });
    expect(r.converged).toBe(true);
    expect(r.message).toMatch(/functionTolerance/);
    // With superlinear convergence the remaining gap is at most a few last reductions: ≤ 10 · tol · |f|.
    expect(r.value - 7).toBeLessThanOrEqual(10 * functionTolerance * 7);
  });

  it("treats +Infinity as outside the support and shortens the step", () => {
    // f(x) = x + 1/x on x > 0, minimum at 1; the second (secant) step from x = 4 lands at x < 0.
    let outside = 0;
    const f: Objective = (x, grad) => {
      if (x[0] <= 0) {
        outside++;
        grad[0] = Number.NaN;
        return Number.POSITIVE_INFINITY;
      }
      grad[0] = 1 - 1 / (x[0] * x[0]);
      return x[0] + 1 / x[0];
    };
    const gradTolerance = 1e-10;
    const r = minimize(f, new Float64Array([4]), { gradTolerance, functionTolerance: 0 });
    expect(outside).toBeGreaterThan(0);
    expect(r.converged).toBe(true);
    // f''(1) = 2, so |x − 1| ≤ |g|/2 to first order (doubled for the remainder).
    expect(Math.abs(r.x[0] - 1)).toBeLessThanOrEqual(gradTolerance);
  });

  it("reports non-convergence when the iteration budget runs out", () => {
    const r = minimize(rosenbrock, new Float64Array([-1.2, 1]), { maxIterations: 3 });
    expect(r.converged).toBe(false);
    expect(r.iterations).toBe(3);
    expect(r.message).toMatch(/maxIterations/);
  });

  it("throws non-finite for NaN objectives and non-finite starts; invalid-argument for bad options", () => {
    const nanAfterStart: Objective = (x, grad) => {
      grad[0] = 1;
      return x[0] === 0 ? 0 : Number.NaN;
    };
    expect(() => minimize(nanAfterStart, new Float64Array([0]))).toThrow(
      expect.objectContaining({ code: "non-finite" }),
    );
    const infAtStart: Objective = (_x, grad) => {
      grad[0] = 0;
      return Number.POSITIVE_INFINITY;
    };
    expect(() => minimize(infAtStart, new Float64Array([0]))).toThrow(
      expect.objectContaining({ code: "non-finite" }),
    );
    expect(() => minimize(quadratic, new Float64Array([Number.NaN, 0, 0, 0]))).toThrow(OccamError);
    expect(() => minimize(quadratic, new Float64Array(N), { memory: 0 })).toThrow(
      expect.objectContaining({ code: "invalid-argument" }),
    );
    expect(() => minimize(quadratic, new Float64Array(N), { gradTolerance: -1 })).toThrow(OccamError);
  });
});

describe("numericalHessian", () => {
  it("recovers a quadratic's Hessian from gradients to within rounding ε·|g|/h", () => {
    const x = new Float64Array([0.3, -1, 2, 5]);
    const H = numericalHessian(quadratic, x);
    const h = 2 ** (-52 / 3) * 5; // the largest step taken (|x_j| ≤ 5)
    const gMax = 4 * 8; // |A(x ± h − c)| ≤ Σ|A_ij| · max|x − c|, bounded loosely by 32
    for (let i = 0; i < N * N; i++)
      expect(Math.abs(H[i] - A[i])).toBeLessThanOrEqual((4 * EPS * gMax) / (h / 5));
    for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) expect(H[i * N + j]).toBe(H[j * N + i]);
  });

  it("recovers it from values alone to within rounding ε·|f|/h²", () => {
    const x = new Float64Array([0.3, -1, 2, 5]);
    const H = numericalHessian(quadratic, x, { useGradient: false });
    const h = 2 ** (-52 / 4); // smallest step (|x_j| ≥ 1 → step ≥ h)
    const fMax = 7 + 0.5 * 9 * 30; // |f| ≤ 7 + ½ λ_max ‖x − c‖² near x
    for (let i = 0; i < N * N; i++)
      expect(Math.abs(H[i] - A[i])).toBeLessThanOrEqual((16 * EPS * fMax) / (h * h));
  });

  it("matches the analytic Rosenbrock Hessian at (1, 1) to within the O(h²) truncation", () => {
    const H = numericalHessian(rosenbrock, new Float64Array([1, 1]));
    const exact = [802, -400, -400, 200];
    // Truncation of central differences: h²/6 · |∂³g| with ∂³g ≤ 2400 and h ≈ 6e-6.
    const h = 2 ** (-52 / 3);
    for (let i = 0; i < 4; i++)
      expect(Math.abs(H[i] - exact[i])).toBeLessThanOrEqual((h * h * 2400) / 6 + 1e-6);
  });

  it("detects an objective that never writes its gradient", () => {
    const valueOnly: Objective = (x) => x[0] * x[0];
    expect(() => numericalHessian(valueOnly, new Float64Array([1]))).toThrow(/useGradient: false/);
    const H = numericalHessian(valueOnly, new Float64Array([1]), { useGradient: false });
    expect(Math.abs(H[0] - 2)).toBeLessThan(1e-6);
    expect(() =>
      numericalHessian((x) => (x[0] > 0 ? 1 : Number.NaN), new Float64Array([0]), { useGradient: false }),
    ).toThrow(expect.objectContaining({ code: "non-finite" }));
  });
});
