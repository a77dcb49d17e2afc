import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import {
  cholesky,
  choleskyInPlace,
  choleskyRank1Downdate,
  choleskyRank1Update,
  choleskySolve,
  conditionNumber,
  dot,
  identity,
  invertFromCholesky,
  logDetFromCholesky,
  lowerTimesTranspose,
  lowerTriMatVec,
  lowerTriTransposeMatVec,
  matMul,
  matTVec,
  matVec,
  solveLower,
  solveLowerTranspose,
  solveUpper,
  symmetricEigen,
  symmetricEigenvalues,
  transpose,
} from "../../src/math/linalg.js";

const EPS = Number.EPSILON;

/** A random SPD matrix A = BᵀB + εI with B's entries in [−1, 1] and ε = 0.1, plus a vector x. */
const spdCase = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    b: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: n * n, maxLength: n * n }),
    x: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
  }),
);

function spd(n: number, b: number[]): Float64Array {
  const B = Float64Array.from(b);
  const a = matMul(transpose(B, n, n), B, n, n, n);
  for (let i = 0; i < n; i++) a[i * n + i] += 0.1;
  return a;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/**
 * Tolerances. Cholesky is backward stable: L Lᵀ = A + E with |E| ≤ c n ε |L||Lᵀ| (Higham 2002,
 * Thm 10.3), and |L||Lᵀ| ≤ n max A_ii here; forward errors of solves, inverses and updated factors
 * are that times the condition number κ(A) ≤ (8·8 + 0.1)/0.1 < 650 for these matrices. The constant
 * c = 4 covers the rounding of the test's own reconstruction.
 */
function backwardTol(n: number, a: Float64Array): number {
  return 4 * n * n * EPS * maxAbs(a);
}
const KAPPA = 650;

describe("cholesky", () => {
  it("factors a known matrix exactly", () => {
    const L = cholesky(new Float64Array([4, 2, 2, 3]), 2);
    expect(Array.from(L)).toEqual([2, 0, 1, Math.SQRT2]);
  });

  it("round-trips: L is lower triangular with a positive diagonal and L Lᵀ = A", () => {
    fc.assert(
      fc.property(spdCase, ({ n, b }) => {
        const a = spd(n, b);
        const L = cholesky(a, n);
        for (let i = 0; i < n; i++) {
          expect(L[i * n + i]).toBeGreaterThan(0);
          for (let j = i + 1; j < n; j++) expect(L[i * n + j]).toBe(0);
        }
        expect(maxAbsDiff(lowerTimesTranspose(L, n), a)).toBeLessThanOrEqual(backwardTol(n, a));
        // In place and out of place agree bit for bit.
        expect(Array.from(choleskyInPlace(Float64Array.from(a), n))).toEqual(Array.from(L));
      }),
      { seed: 1, numRuns: 200 },
    );
  });

  it("reads only the lower triangle", () => {
    const a = new Float64Array([4, 999, 2, 3]);
    expect(Array.from(cholesky(a, 2))).toEqual([2, 0, 1, Math.SQRT2]);
  });

  it("throws not-positive-definite naming the failing pivot and its value", () => {
    // Pivot 1 is 1 − 2·2/1 = −3.
    const a = new Float64Array([1, 2, 2, 1]);
    let error: unknown;
    try {
      cholesky(a, 2);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OccamError);
    expect((error as OccamError).code).toBe("not-positive-definite");
    expect((error as OccamError).message).toMatch(/pivot 1 .* -3/);
    expect((error as OccamError).message).toMatch(/jitter/);
    // A singular matrix fails at its zero pivot.
    expect(() => cholesky(new Float64Array([1, 1, 1, 1]), 2)).toThrow(/pivot 1/);
    expect(() => cholesky(new Float64Array([-1]), 1)).toThrow(OccamError);
  });

  it("reports NaN entries as non-finite and sizes as dimension-mismatch", () => {
    expect(() => cholesky(new Float64Array([Number.NaN, 0, 0, 1]), 2)).toThrow(
      expect.objectContaining({ code: "non-finite" }),
    );
    expect(() => cholesky(new Float64Array([1, 0, 0]), 2)).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
    expect(() => cholesky(new Float64Array(4), 2, new Float64Array(3))).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
  });
});

describe("triangular solves", () => {
  it("solve L y = b, Lᵀ x = b, U x = b and A x = b to within κ·(backward error)", () => {
    fc.assert(
      fc.property(spdCase, ({ n, b, x }) => {
        const a = spd(n, b);
        const L = cholesky(a, n);
        const rhs = Float64Array.from(x);
        const y = solveLower(L, n, rhs);
        expect(maxAbsDiff(lowerTriMatVec(L, n, y), rhs)).toBeLessThanOrEqual(
          KAPPA * n * EPS * (maxAbs(y) + 1) * 8,
        );
        const z = solveLowerTranspose(L, n, rhs);
        expect(maxAbsDiff(lowerTriTransposeMatVec(L, n, z), rhs)).toBeLessThanOrEqual(
          KAPPA * n * EPS * (maxAbs(z) + 1) * 8,
        );
        const U = transpose(L, n, n);
        expect(maxAbsDiff(solveUpper(U, n, rhs), z)).toBeLessThanOrEqual(0);
        const sol = choleskySolve(L, n, rhs);
        const residual = maxAbsDiff(matVec(a, n, n, sol), rhs);
        expect(residual).toBeLessThanOrEqual(KAPPA * backwardTol(n, a) * (maxAbs(sol) + 1));
        // In place (out = b) gives the same answer.
        const inPlace = Float64Array.from(rhs);
        choleskySolve(L, n, inPlace, inPlace);
        expect(Array.from(inPlace)).toEqual(Array.from(sol));
      }),
      { seed: 2, numRuns: 200 },
    );
  });
});

describe("log-determinant, inverse and eigenvalues", () => {
  it("logDetFromCholesky is exact for a diagonal matrix", () => {
    const a = new Float64Array([2, 0, 0, 0, 3, 0, 0, 0, 0.25]);
    expect(logDetFromCholesky(cholesky(a, 3), 3)).toBeCloseTo(Math.log(1.5), 14);
  });

  it("logDetFromCholesky agrees with Σ log λ_i from Jacobi eigenvalues", () => {
    fc.assert(
      fc.property(spdCase, ({ n, b }) => {
        const a = spd(n, b);
        const viaEig = symmetricEigenvalues(a, n).reduce((s, v) => s + Math.log(v), 0);
        // Each log λ has relative perturbation ≤ κ n ε; summed over n.
        expect(Math.abs(logDetFromCholesky(cholesky(a, n), n) - viaEig)).toBeLessThanOrEqual(
          KAPPA * n * n * EPS * 8,
        );
      }),
      { seed: 3, numRuns: 100 },
    );
  });

  it("invertFromCholesky gives A A⁻¹ = I", () => {
    fc.assert(
      fc.property(spdCase, ({ n, b }) => {
        const a = spd(n, b);
        const inv = invertFromCholesky(cholesky(a, n), n);
        expect(maxAbsDiff(matMul(a, inv, n, n, n), identity(n))).toBeLessThanOrEqual(
          KAPPA * backwardTol(n, a) * 4,
        );
        expect(maxAbsDiff(inv, transpose(inv, n, n))).toBe(0);
      }),
      { seed: 4, numRuns: 100 },
    );
  });

  it("symmetricEigen returns A v = λ v with orthonormal v, ascending λ, Σλ = trace", () => {
    fc.assert(
      fc.property(spdCase, ({ n, b }) => {
        const a = spd(n, b);
        const { values, vectors } = symmetricEigen(a, n);
        const tol = 64 * n * EPS * maxAbs(a);
        let trace = 0;
        for (let i = 0; i < n; i++) trace += a[i * n + i];
        expect(Math.abs(values.reduce((s, v) => s + v, 0) - trace)).toBeLessThanOrEqual(tol);
        for (let j = 0; j < n; j++) {
          if (j > 0) expect(values[j]).toBeGreaterThanOrEqual(values[j - 1]);
          const v = new Float64Array(n);
          for (let k = 0; k < n; k++) v[k] = vectors[k * n + j];
          expect(Math.abs(dot(v, v) - 1)).toBeLessThanOrEqual(16 * n * EPS);
          const av = matVec(a, n, n, v);
          for (let k = 0; k < n; k++) expect(Math.abs(av[k] - values[j] * v[k])).toBeLessThanOrEqual(tol);
        }
        const vtv = matMul(transpose(vectors, n, n), vectors, n, n, n);
        expect(maxAbsDiff(vtv, identity(n))).toBeLessThanOrEqual(16 * n * EPS);
      }),
      { seed: 5, numRuns: 50 },
    );
  });

  it("finds known eigenvalues and condition numbers", () => {
    // [[2, 1], [1, 2]] has eigenvalues 1 and 3.
    const values = symmetricEigenvalues(new Float64Array([2, 1, 1, 2]), 2);
    expect(values[0]).toBeCloseTo(1, 14);
    expect(values[1]).toBeCloseTo(3, 14);
    expect(conditionNumber(new Float64Array([2, 1, 1, 2]), 2)).toBeCloseTo(3, 13);
    expect(conditionNumber(new Float64Array([1, 2, 2, 1]), 2)).toBe(Number.POSITIVE_INFINITY);
    expect(() => symmetricEigen(new Float64Array([1, Number.NaN, Number.NaN, 1]), 2)).toThrow(OccamError);
  });
});

describe("rank-1 update and downdate", () => {
  it("update equals the refactorised A + x xᵀ; downdate recovers A's factor", () => {
    fc.assert(
      fc.property(spdCase, ({ n, b, x }) => {
        const a = spd(n, b);
        const xv = Float64Array.from(x);
        const L = cholesky(a, n);
        const updated = Float64Array.from(L);
        const work = new Float64Array(n);
        choleskyRank1Update(updated, n, xv, work);
        const aPlus = Float64Array.from(a);
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) aPlus[i * n + j] += xv[i] * xv[j];
        const refactor = cholesky(aPlus, n);
        // Factors are determined by A to within √κ relative (Sun 1991); compare against max|L|.
        const tol = 8 * KAPPA * n * EPS * Math.max(1, maxAbs(refactor));
        expect(maxAbsDiff(updated, refactor)).toBeLessThanOrEqual(tol);
        expect(Array.from(xv)).toEqual(x); // x is not modified
        choleskyRank1Downdate(updated, n, xv, work);
        expect(maxAbsDiff(updated, L)).toBeLessThanOrEqual(2 * tol);
      }),
      { seed: 6, numRuns: 200 },
    );
  });

  it("downdate throws not-positive-definite and leaves L unchanged when A − xxᵀ is not PD", () => {
    const L = cholesky(new Float64Array([1, 0, 0, 1]), 2);
    const before = Array.from(L);
    expect(() => choleskyRank1Downdate(L, 2, new Float64Array([1, 0]))).toThrow(
      expect.objectContaining({ code: "not-positive-definite" }),
    );
    expect(() => choleskyRank1Downdate(L, 2, new Float64Array([0.8, 0.8]))).toThrow(OccamError);
    expect(Array.from(L)).toEqual(before);
    // Just inside: I − 0.36 e₁e₁ᵀ has factor diag(0.8, 1).
    choleskyRank1Downdate(L, 2, new Float64Array([0.6, 0]));
    expect(L[0]).toBeCloseTo(0.8, 15);
    expect(L[3]).toBe(1);
  });
});

describe("products", () => {
  it("matVec, matTVec, lowerTriMatVec agree with naive sums; lowerTriMatVec works in place", () => {
    const a = new Float64Array([1, 2, 3, 4, 5, 6]); // 2 × 3
    expect(Array.from(matVec(a, 2, 3, [1, 0, -1]))).toEqual([-2, -2]);
    expect(Array.from(matTVec(a, 2, 3, [1, -1]))).toEqual([-3, -3, -3]);
    const L = new Float64Array([2, 0, 0, 1, 3, 0, -1, 0.5, 4]);
    const x = new Float64Array([1, 2, 3]);
    expect(Array.from(lowerTriMatVec(L, 3, x))).toEqual([2, 7, 12]);
    expect(Array.from(lowerTriTransposeMatVec(L, 3, x))).toEqual([2 + 2 - 3, 6 + 1.5, 12]);
    lowerTriMatVec(L, 3, x, x);
    expect(Array.from(x)).toEqual([2, 7, 12]);
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
  });

  it("rejects mismatched sizes with dimension-mismatch", () => {
    const mismatch = expect.objectContaining({ code: "dimension-mismatch" });
    expect(() => matVec(new Float64Array(6), 2, 3, [1, 2])).toThrow(mismatch);
    expect(() => matTVec(new Float64Array(6), 2, 3, [1, 2, 3])).toThrow(mismatch);
    expect(() => solveLower(new Float64Array(4), 2, [1])).toThrow(mismatch);
    expect(() => dot([1], [1, 2])).toThrow(mismatch);
    expect(() => matMul(new Float64Array(4), new Float64Array(5), 2, 2, 2)).toThrow(mismatch);
    expect(() => cholesky(new Float64Array(4), 0)).toThrow(OccamError);
  });
});
