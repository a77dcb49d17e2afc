import { OccamError } from "../errors.js";

/**
 * Dense linear algebra on Float64Array for the small dimensions of a posterior (up to a few hundred):
 * Cholesky factorisation, triangular solves, log-determinants, rank-1 updates, matrix–vector
 * products and symmetric eigenvalues. Matrices are row-major with an explicit size: entry (i, j) of an
 * n × n matrix is `a[i * n + j]`. The kernels are hand-written rather than taken from a BLAS because
 * they run inside sampler steps, where a call into a general library costs more than the arithmetic
 * and where nothing may be allocated: every function takes an optional `out` buffer.
 *
 * A Cholesky factor L is stored as a full n × n row-major matrix whose strict upper triangle is zero.
 */

function checkSize(n: number, where: string): void {
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new OccamError("invalid-argument", `${where}: size must be a positive integer, got ${n}.`);
  }
}

function checkLength(array: ArrayLike<number>, expected: number, name: string, where: string): void {
  if (array.length !== expected) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: ${name} has length ${array.length}, expected ${expected}; check the dimension you passed.`,
    );
  }
}

function output(out: Float64Array | undefined, length: number, where: string): Float64Array {
  if (out === undefined) return new Float64Array(length);
  checkLength(out, length, "out", where);
  return out;
}

/** The dot product Σ a_i b_i of two vectors of equal length. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkLength(b, a.length, "b", "dot");
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** The n × n identity matrix. */
export function identity(n: number): Float64Array {
  checkSize(n, "identity");
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) a[i * n + i] = 1;
  return a;
}

/** The transpose of a rows × cols matrix (a cols × rows matrix). */
export function transpose(a: Float64Array, rows: number, cols: number, out?: Float64Array): Float64Array {
  checkSize(rows, "transpose");
  checkSize(cols, "transpose");
  checkLength(a, rows * cols, "a", "transpose");
  const t = output(out, rows * cols, "transpose");
  if (t === a) throw new OccamError("invalid-argument", "transpose: out must not be the input matrix.");
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = a[i * cols + j];
  return t;
}

/** The product C = A B of an m × k matrix A and a k × n matrix B (an m × n matrix). */
export function matMul(
  a: Float64Array,
  b: Float64Array,
  m: number,
  k: number,
  n: number,
  out?: Float64Array,
): Float64Array {
  checkSize(m, "matMul");
  checkSize(k, "matMul");
  checkSize(n, "matMul");
  checkLength(a, m * k, "A", "matMul");
  checkLength(b, k * n, "B", "matMul");
  const c = output(out, m * n, "matMul");
  if (c === a || c === b) throw new OccamError("invalid-argument", "matMul: out must not alias A or B.");
  c.fill(0);
  // i-p-j loop order: the inner loop runs along contiguous rows of B and C.
  for (let i = 0; i < m; i++) {
    const ci = i * n;
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      if (aip === 0) continue;
      const bp = p * n;
      for (let j = 0; j < n; j++) c[ci + j] += aip * b[bp + j];
    }
  }
  return c;
}

/** y = A x for a rows × cols matrix A. */
export function matVec(
  a: Float64Array,
  rows: number,
  cols: number,
  x: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  checkSize(rows, "matVec");
  checkSize(cols, "matVec");
  checkLength(a, rows * cols, "A", "matVec");
  checkLength(x, cols, "x", "matVec");
  const y = output(out, rows, "matVec");
  if (y === x) throw new OccamError("invalid-argument", "matVec: out must not be x.");
  for (let i = 0; i < rows; i++) {
    let s = 0;
    const r = i * cols;
    for (let j = 0; j < cols; j++) s += a[r + j] * x[j];
    y[i] = s;
  }
  return y;
}

/** y = Aᵀ x for a rows × cols matrix A (so x has length rows and y length cols). */
export function matTVec(
  a: Float64Array,
  rows: number,
  cols: number,
  x: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  checkSize(rows, "matTVec");
  checkSize(cols, "matTVec");
  checkLength(a, rows * cols, "A", "matTVec");
  checkLength(x, rows, "x", "matTVec");
  const y = output(out, cols, "matTVec");
  if (y === x) throw new OccamError("invalid-argument", "matTVec: out must not be x.");
  y.fill(0);
  // Row-wise accumulation keeps the inner loop on contiguous memory.
  for (let i = 0; i < rows; i++) {
    const xi = x[i];
    const r = i * cols;
    for (let j = 0; j < cols; j++) y[j] += a[r + j] * xi;
  }
  return y;
}

/**
 * y = L x for a lower-triangular n × n matrix L (only the lower triangle is read). `out` may be `x`
 * itself: rows are computed from the last to the first, so each row reads only entries not yet
 * overwritten. This is how a multivariate normal draw μ + L z is made without scratch memory.
 */
export function lowerTriMatVec(
  L: Float64Array,
  n: number,
  x: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  checkSize(n, "lowerTriMatVec");
  checkLength(L, n * n, "L", "lowerTriMatVec");
  checkLength(x, n, "x", "lowerTriMatVec");
  const y = output(out, n, "lowerTriMatVec");
  for (let i = n - 1; i >= 0; i--) {
    let s = 0;
    const r = i * n;
    for (let j = 0; j <= i; j++) s += L[r + j] * x[j];
    y[i] = s;
  }
  return y;
}

/** y = Lᵀ x for a lower-triangular n × n matrix L. `out` may be `x` (rows are computed first to last). */
export function lowerTriTransposeMatVec(
  L: Float64Array,
  n: number,
  x: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  checkSize(n, "lowerTriTransposeMatVec");
  checkLength(L, n * n, "L", "lowerTriTransposeMatVec");
  checkLength(x, n, "x", "lowerTriTransposeMatVec");
  const y = output(out, n, "lowerTriTransposeMatVec");
  // (Lᵀx)_i = Σ_{j ≥ i} L_ji x_j reads x_j for j ≥ i only, so ascending i is safe in place.
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = i; j < n; j++) s += L[j * n + i] * x[j];
    y[i] = s;
  }
  return y;
}

function notPositiveDefinite(where: string, pivot: number, value: number, n: number): OccamError {
  if (Number.isNaN(value)) {
    return new OccamError(
      "non-finite",
      `${where}: the matrix (${n} × ${n}) contains NaN or infinite entries (pivot ${pivot} is NaN); ` +
        "check how the matrix was computed.",
    );
  }
  return new OccamError(
    "not-positive-definite",
    `${where}: the ${n} × ${n} matrix is not positive definite: pivot ${pivot} (0-based) is ${value} ≤ 0. ` +
      "Check that it is symmetric positive definite (a covariance, not a precision or a Hessian of the " +
      "wrong sign); if it is only numerically singular, add a small multiple of the identity (jitter) " +
      "to its diagonal or rescale the parameters.",
  );
}

/**
 * Overwrites the lower triangle of the symmetric positive-definite n × n matrix `a` with its Cholesky
 * factor L (A = L Lᵀ) and zeroes the strict upper triangle. Only the lower triangle of `a` is read.
 * Throws `not-positive-definite`, naming the failing pivot, when A is not positive definite (then `a`
 * is left partly overwritten), and `non-finite` when it meets NaN.
 */
export function choleskyInPlace(a: Float64Array, n: number): Float64Array {
  checkSize(n, "cholesky");
  checkLength(a, n * n, "A", "cholesky");
  // Row-oriented Cholesky–Banachiewicz: row i of L needs only rows < i, all contiguous in memory.
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    for (let j = 0; j < i; j++) {
      const rj = j * n;
      let s = a[ri + j];
      for (let k = 0; k < j; k++) s -= a[ri + k] * a[rj + k];
      a[ri + j] = s / a[rj + j];
    }
    let d = a[ri + i];
    for (let k = 0; k < i; k++) d -= a[ri + k] * a[ri + k];
    if (!(d > 0) || d === Number.POSITIVE_INFINITY) {
      throw notPositiveDefinite("cholesky", i, d === Number.POSITIVE_INFINITY ? Number.NaN : d, n);
    }
    a[ri + i] = Math.sqrt(d);
    for (let j = i + 1; j < n; j++) a[ri + j] = 0;
  }
  return a;
}

/**
 * The Cholesky factor L of a symmetric positive-definite n × n matrix A (A = L Lᵀ, L lower
 * triangular with a positive diagonal), written to `out` (which may be `a`). Only the lower triangle
 * of A is read. Throws `not-positive-definite` naming the failing pivot and its value.
 *
 * @example
 * const L = cholesky(new Float64Array([4, 2, 2, 3]), 2); // [2, 0, 1, √2]
 */
export function cholesky(a: Float64Array, n: number, out?: Float64Array): Float64Array {
  checkSize(n, "cholesky");
  checkLength(a, n * n, "A", "cholesky");
  const L = output(out, n * n, "cholesky");
  if (L !== a) L.set(a);
  return choleskyInPlace(L, n);
}

/**
 * Solves T x = b for a triangular n × n matrix T whose entry (i, j) is `t[i * rowStride + j * colStride]`,
 * rows first to last (`forward`, T lower) or last to first (T upper). Reading through strides lets a
 * transposed factor be solved without forming it. `x` may be `b`: row i reads b[i] before writing x[i].
 */
function substitute(
  t: Float64Array,
  n: number,
  rowStride: number,
  colStride: number,
  b: ArrayLike<number>,
  x: Float64Array,
  forward: boolean,
): void {
  for (let step = 0; step < n; step++) {
    const i = forward ? step : n - 1 - step;
    const r = i * rowStride;
    let s = b[i];
    const end = forward ? i : n;
    for (let j = forward ? 0 : i + 1; j < end; j++) s -= t[r + j * colStride] * x[j];
    x[i] = s / t[r + i * colStride];
  }
}

/** Solves L y = b for y by forward substitution (L lower triangular). `out` may be `b`. */
export function solveLower(
  L: Float64Array,
  n: number,
  b: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  checkSize(n, "solveLower");
  checkLength(L, n * n, "L", "solveLower");
  checkLength(b, n, "b", "solveLower");
  const y = output(out, n, "solveLower");
  substitute(L, n, n, 1, b, y, true);
  return y;
}

/** Solves U x = b for x by back substitution (U upper triangular). `out` may be `b`. */
export function solveUpper(
  U: Float64Array,
  n: number,
  b: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  checkSize(n, "solveUpper");
  checkLength(U, n * n, "U", "solveUpper");
  checkLength(b, n, "b", "solveUpper");
  const x = output(out, n, "solveUpper");
  substitute(U, n, n, 1, b, x, false);
  return x;
}

/** Solves Lᵀ x = b for x (L lower triangular, so Lᵀ is upper) without forming Lᵀ. `out` may be `b`. */
export function solveLowerTranspose(
  L: Float64Array,
  n: number,
  b: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  checkSize(n, "solveLowerTranspose");
  checkLength(L, n * n, "L", "solveLowerTranspose");
  checkLength(b, n, "b", "solveLowerTranspose");
  const x = output(out, n, "solveLowerTranspose");
  // Entry (i, j) of Lᵀ is L[j * n + i]: the strides of U swapped.
  substitute(L, n, 1, n, b, x, false);
  return x;
}

/** Solves A x = b given the Cholesky factor L of A (A = L Lᵀ): two triangular solves. `out` may be `b`. */
export function choleskySolve(
  L: Float64Array,
  n: number,
  b: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  const y = solveLower(L, n, b, out);
  return solveLowerTranspose(L, n, y, y);
}

/** log det A = 2 Σ log L_ii given the Cholesky factor L of A. */
export function logDetFromCholesky(L: Float64Array, n: number): number {
  checkSize(n, "logDetFromCholesky");
  checkLength(L, n * n, "L", "logDetFromCholesky");
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.log(L[i * n + i]);
  return 2 * s;
}

/** A = L Lᵀ, the matrix whose Cholesky factor is L (lower triangle of L read). */
export function lowerTimesTranspose(L: Float64Array, n: number, out?: Float64Array): Float64Array {
  checkSize(n, "lowerTimesTranspose");
  checkLength(L, n * n, "L", "lowerTimesTranspose");
  const a = output(out, n * n, "lowerTimesTranspose");
  if (a === L) throw new OccamError("invalid-argument", "lowerTimesTranspose: out must not be L.");
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k <= j; k++) s += L[i * n + k] * L[j * n + k];
      a[i * n + j] = s;
      a[j * n + i] = s;
    }
  }
  return a;
}

/** A⁻¹ = L⁻ᵀ L⁻¹ from the Cholesky factor L of A, as a full symmetric n × n matrix. */
export function invertFromCholesky(L: Float64Array, n: number, out?: Float64Array): Float64Array {
  checkSize(n, "invertFromCholesky");
  checkLength(L, n * n, "L", "invertFromCholesky");
  const inv = output(out, n * n, "invertFromCholesky");
  if (inv === L) throw new OccamError("invalid-argument", "invertFromCholesky: out must not be L.");
  // M = L⁻¹ (lower triangular), column by column: L m_j = e_j.
  const m = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    m[j * n + j] = 1 / L[j * n + j];
    for (let i = j + 1; i < n; i++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= L[i * n + k] * m[k * n + j];
      m[i * n + j] = s / L[i * n + i];
    }
  }
  // (A⁻¹)_ij = Σ_k M_ki M_kj over k ≥ max(i, j).
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < n; k++) s += m[k * n + i] * m[k * n + j];
      inv[i * n + j] = s;
      inv[j * n + i] = s;
    }
  }
  return inv;
}

/**
 * The rotation of pivot k of a rank-1 update (sL = s) or downdate (sL = −s) applied below the pivot:
 * L_ik ← (L_ik + sL w_i)/c and w_i ← c w_i − s L_ik for i > k.
 */
function rotateBelowPivot(
  L: Float64Array,
  n: number,
  k: number,
  w: Float64Array,
  c: number,
  sL: number,
  s: number,
): void {
  for (let i = k + 1; i < n; i++) {
    const lik = (L[i * n + k] + sL * w[i]) / c;
    L[i * n + k] = lik;
    w[i] = c * w[i] - s * lik;
  }
}

/**
 * Updates the Cholesky factor L of A in place to that of A + x xᵀ (O(n²), by Givens-like rotations).
 * `x` is not modified; `work` (length n) is used as scratch when given, so a hot loop allocates nothing.
 */
export function choleskyRank1Update(
  L: Float64Array,
  n: number,
  x: ArrayLike<number>,
  work?: Float64Array,
): void {
  checkSize(n, "choleskyRank1Update");
  checkLength(L, n * n, "L", "choleskyRank1Update");
  checkLength(x, n, "x", "choleskyRank1Update");
  const w = output(work, n, "choleskyRank1Update");
  for (let i = 0; i < n; i++) w[i] = x[i];
  for (let k = 0; k < n; k++) {
    const lkk = L[k * n + k];
    const r = Math.hypot(lkk, w[k]);
    const c = r / lkk;
    const s = w[k] / lkk;
    L[k * n + k] = r;
    rotateBelowPivot(L, n, k, w, c, s, s);
  }
}

/**
 * Downdates the Cholesky factor L of A in place to that of A − x xᵀ. Throws `not-positive-definite`
 * (leaving L unchanged) when A − x xᵀ is not positive definite, which is when ‖L⁻¹x‖ ≥ 1.
 * `x` is not modified; `work` (length n) is scratch.
 */
export function choleskyRank1Downdate(
  L: Float64Array,
  n: number,
  x: ArrayLike<number>,
  work?: Float64Array,
): void {
  checkSize(n, "choleskyRank1Downdate");
  checkLength(L, n * n, "L", "choleskyRank1Downdate");
  checkLength(x, n, "x", "choleskyRank1Downdate");
  const w = output(work, n, "choleskyRank1Downdate");
  // det(A − xxᵀ) = det(A)(1 − ‖L⁻¹x‖²): check definiteness first so that a failure leaves L intact.
  solveLower(L, n, x, w);
  let pp = 0;
  for (let i = 0; i < n; i++) pp += w[i] * w[i];
  if (!(pp < 1)) {
    throw new OccamError(
      "not-positive-definite",
      `choleskyRank1Downdate: A − x xᵀ is not positive definite (‖L⁻¹x‖² = ${pp} ≥ 1); ` +
        "the vector removed is too large for the matrix. Refactorise from scratch or drop the downdate.",
    );
  }
  for (let i = 0; i < n; i++) w[i] = x[i];
  for (let k = 0; k < n; k++) {
    const lkk = L[k * n + k];
    const d = (lkk - w[k]) * (lkk + w[k]);
    if (!(d > 0)) {
      // Reachable only through rounding when ‖L⁻¹x‖ is within a few ulps of 1.
      throw new OccamError(
        "not-positive-definite",
        `choleskyRank1Downdate: pivot ${k} became ${d} ≤ 0 through rounding; the downdated matrix is ` +
          "numerically singular. Refactorise from scratch.",
      );
    }
    const r = Math.sqrt(d);
    const c = r / lkk;
    const s = w[k] / lkk;
    L[k * n + k] = r;
    // L_ik − s w_i is L_ik + (−s) w_i to the bit: IEEE subtraction is the addition of the negation.
    rotateBelowPivot(L, n, k, w, c, -s, s);
  }
}

/** The eigen-decomposition of a symmetric matrix: A = V diag(values) Vᵀ. */
export interface SymmetricEigen {
  /** Eigenvalues in ascending order. */
  readonly values: Float64Array;
  /** Row-major n × n matrix whose column j is the unit eigenvector of `values[j]`. */
  readonly vectors: Float64Array;
}

/**
 * A plane rotation by (c, s) of two length-n lines of a matrix, starting at offsets `a` and `b` and
 * stepping by `step` (n for columns, 1 for rows): x ← c x − s y, y ← s x + c y.
 */
function rotatePair(
  m: Float64Array,
  n: number,
  a: number,
  b: number,
  step: number,
  c: number,
  s: number,
): void {
  for (let k = 0; k < n; k++) {
    const x = m[a + k * step];
    const y = m[b + k * step];
    m[a + k * step] = c * x - s * y;
    m[b + k * step] = s * x + c * y;
  }
}

/**
 * Eigenvalues and eigenvectors of a symmetric n × n matrix by the cyclic Jacobi method (accurate to
 * high relative precision, O(n³) per sweep; meant for n up to a few hundred). Only the lower triangle
 * is read; the upper is assumed to mirror it.
 */
export function symmetricEigen(a: Float64Array, n: number): SymmetricEigen {
  checkSize(n, "symmetricEigen");
  checkLength(a, n * n, "A", "symmetricEigen");
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = a[i * n + j];
      if (!Number.isFinite(v)) {
        throw new OccamError(
          "non-finite",
          `symmetricEigen: entry (${i}, ${j}) is ${v}; the matrix must be finite.`,
        );
      }
      m[i * n + j] = v;
      m[j * n + i] = v;
    }
  }
  const v = identity(n);
  const maxSweeps = 100;
  let sweep = 0;
  for (; sweep < maxSweeps; sweep++) {
    let off = 0;
    let diag = 0;
    for (let i = 0; i < n; i++) {
      diag += m[i * n + i] * m[i * n + i];
      for (let j = 0; j < i; j++) off += m[i * n + j] * m[i * n + j];
    }
    if (off === 0 || off <= 1e-30 * diag) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p * n + q];
        if (apq === 0) continue;
        const app = m[p * n + p];
        const aqq = m[q * n + q];
        // The rotation angle that zeroes (p, q), computed stably (Golub & Van Loan, Alg. 8.5.1).
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        // M ← Jᵀ M J (columns, then rows) and V ← V J.
        rotatePair(m, n, p, q, n, c, s);
        rotatePair(m, n, p * n, q * n, 1, c, s);
        m[p * n + q] = 0;
        m[q * n + p] = 0;
        rotatePair(v, n, p, q, n, c, s);
      }
    }
  }
  if (sweep === maxSweeps) {
    throw new OccamError(
      "internal",
      `symmetricEigen: Jacobi iteration did not converge in ${maxSweeps} sweeps.`,
    );
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => m[i * n + i] - m[j * n + j]);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const src = order[j];
    values[j] = m[src * n + src];
    for (let k = 0; k < n; k++) vectors[k * n + j] = v[k * n + src];
  }
  return { values, vectors };
}

/** The eigenvalues of a symmetric n × n matrix, ascending (see {@link symmetricEigen}). */
export function symmetricEigenvalues(a: Float64Array, n: number): Float64Array {
  return symmetricEigen(a, n).values;
}

/**
 * The 2-norm condition number λ_max / λ_min of a symmetric positive-definite matrix; Infinity when
 * the smallest eigenvalue is not positive.
 */
export function conditionNumber(a: Float64Array, n: number): number {
  const values = symmetricEigenvalues(a, n);
  const min = values[0];
  return min > 0 ? values[n - 1] / min : Number.POSITIVE_INFINITY;
}
