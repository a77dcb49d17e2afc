import gammaln from "@stdlib/math-base-special-gammaln";
import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { logModelPrior, type ModelPrior } from "./compare.js";

/**
 * Input (variable) selection by enumerating subsets of p candidate inputs.
 *
 * The machinery is generic: a {@link SubsetSystem} holds a symmetric positive-definite q × q matrix G
 * and a vector c over q columns, of which the first `fixed` are in every model (an intercept) and the
 * next p are the candidates. For each subset S the enumerator maintains the Cholesky factor L of G_SS
 * and u = L⁻¹c_S, so a visitor reads log|G_SS| = 2 Σ log L_ii and c_Sᵀ G_SS⁻¹ c_S = ‖u‖² at O(1).
 *
 * - NIG regression with V = vI, m = 0 (Everson eqs. 13–17): G = ZᵀZ + I/v, c = Zᵀy (Z = [1, X]).
 * - Zellner–Siow / g-priors: G = X_cᵀX_c, c = X_cᵀy_c on centred data; R² = ‖u‖² / y_cᵀy_c.
 *
 * Numerical care.
 * - Rows of L are kept in a canonical order: fixed columns first, then candidates by *decreasing*
 *   index. Every row is always computed by the row-oriented (bordered) Cholesky formula from G, c and
 *   the rows above it, never by updating an old row. The factor of a subset is therefore bit-for-bit
 *   the plain Cholesky factor of G_SS, whatever path led there: no rounding error accumulates over the
 *   10⁶ steps of an enumeration.
 * - Adding or removing a candidate recomputes only its row and the rows below it. In reflected
 *   Gray-code order the bit that flips at step t is j = ctz(t), and at that moment the only lower bit
 *   set is j − 1; with the decreasing order at most one row sits below the changed one. So an addition
 *   costs one forward solve, O(k²), and a removal at most one recomputed row, O(k²) — never O(k³).
 * - A pivot d² = G_jj − ‖l‖² that is not above its own rounding error (4(k+1)ε G_jj) means the new
 *   column is numerically in the span of the others: an OccamError by default, or NaN results (the
 *   `singular: "nan"` option) that stay confined to the subsets containing the offending column.
 * - yᵀy − c_Sᵀ G_SS⁻¹ c_S loses about log₁₀(1/(1 − R²)) digits to cancellation (10⁻¹³ relative at
 *   R² = 0.999); the exact value is positive, and a negative result can only be rounding, so it is
 *   clamped at 0 (β* ≥ b > 0 keeps the logarithm finite).
 */

const LOG_TWO_PI = Math.log(2 * Math.PI);
const EPS = 2.220446049250313e-16;
/** Largest p for which all 2^p subsets are enumerated into a table (2^25 doubles = 256 MB). */
export const MAX_ENUMERATED_INPUTS = 25;

/** The quadratic-form system over which subsets are enumerated (see the module comment). */
export interface SubsetSystem {
  /** Number of candidate inputs p (at most 31: subsets are 32-bit masks). */
  readonly p: number;
  /** Number of leading columns in every model (1 for an intercept, else 0). */
  readonly fixed: number;
  /** G, (fixed + p) × (fixed + p) row-major, symmetric positive definite on every subset. */
  readonly gram: Float64Array;
  /** c, length fixed + p. */
  readonly rhs: Float64Array;
}

/**
 * What a visitor sees for the current subset. One object is reused for every subset: read it inside
 * the callback and do not keep it.
 */
export interface SubsetView {
  /** Bit j set when candidate input j is in the subset. */
  mask: number;
  /** |S|, the number of candidate inputs in the subset. */
  size: number;
  /** k = fixed + |S|, the number of columns of the model. */
  dim: number;
  /** log |G_SS| (NaN when the subset is numerically singular and `singular` is "nan"). */
  logDet: number;
  /** c_Sᵀ G_SS⁻¹ c_S = ‖u‖². */
  quad: number;
  /** L, the Cholesky factor of G_SS: row i at offset i·stride, columns 0 … i. */
  readonly factor: Float64Array;
  /** u = L⁻¹ c_S (first `dim` entries). */
  readonly solved: Float64Array;
  /** The columns (indices into G) of the rows of L: fixed ones first, then candidates by decreasing index. */
  readonly columns: Int32Array;
  /** The row stride of `factor` (= fixed + p). */
  readonly stride: number;
}

/** Options of {@link enumerateSubsets}. */
export interface EnumerateSubsetsOptions {
  /**
   * Visit only subsets of at most this many candidate inputs (depth-first enumeration).
   * @defaultValue p (all 2^p subsets, in Gray-code order)
   */
  maxSize?: number;
  /**
   * What to do with a numerically singular subset: throw an OccamError, or report NaN `logDet` and
   * `quad` for it (and every subset containing the offending column in that position) and go on.
   * @defaultValue "throw"
   */
  singular?: "throw" | "nan";
}

function invalid(where: string, message: string): OccamError {
  return new OccamError("invalid-argument", `${where}: ${message}`);
}

function checkSystem(system: SubsetSystem, where: string): void {
  if (system === null || typeof system !== "object") throw invalid(where, "a SubsetSystem is required.");
  const { p, fixed, gram, rhs } = system;
  if (!(Number.isInteger(p) && p >= 0 && p <= 31)) {
    throw invalid(where, `p must be an integer in [0, 31] (subsets are 32-bit masks), got ${p}.`);
  }
  if (!(Number.isInteger(fixed) && fixed >= 0)) {
    throw invalid(where, `fixed must be a non-negative integer, got ${fixed}.`);
  }
  const q = p + fixed;
  if (!(gram instanceof Float64Array) || gram.length !== q * q) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: gram must be a Float64Array of (fixed + p)² = ${q * q} entries, got ${gram?.length}.`,
    );
  }
  if (!(rhs instanceof Float64Array) || rhs.length !== q) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: rhs must be a Float64Array of fixed + p = ${q} entries, got ${rhs?.length}.`,
    );
  }
}

/**
 * The incremental factor: rows of L kept in the canonical order, each row recomputed from scratch
 * (see the module comment). Preallocated once; no allocation per step.
 */
class SubsetFactor {
  readonly q: number;
  readonly L: Float64Array;
  readonly u: Float64Array;
  readonly cols: Int32Array;
  /** logDiag[i] = Σ_{l<i} log L_ll; quadPrefix[i] = Σ_{l<i} u_l². */
  readonly logDiag: Float64Array;
  readonly quadPrefix: Float64Array;
  k = 0;

  constructor(
    readonly G: Float64Array,
    readonly c: Float64Array,
    q: number,
    private readonly singular: "throw" | "nan",
    private readonly where: string,
  ) {
    this.q = q;
    this.L = new Float64Array(q * q);
    this.u = new Float64Array(q);
    this.cols = new Int32Array(q);
    this.logDiag = new Float64Array(q + 1);
    this.quadPrefix = new Float64Array(q + 1);
  }

  /** Computes row i from G, c and rows 0 … i−1 (bordered Cholesky; O(i²)). */
  private row(i: number): void {
    const { q, L, G, u, cols } = this;
    const ci = cols[i];
    const ri = i * q;
    const gi = ci * q;
    let d2 = G[gi + ci];
    let ui = this.c[ci];
    for (let j = 0; j < i; j++) {
      const rj = j * q;
      let s = G[gi + cols[j]];
      for (let l = 0; l < j; l++) s -= L[ri + l] * L[rj + l];
      const lij = s / L[rj + j];
      L[ri + j] = lij;
      d2 -= lij * lij;
      ui -= lij * u[j];
    }
    // d² below its own rounding error: the column is (numerically) in the span of the ones above.
    if (!(d2 > 4 * (i + 1) * EPS * Math.abs(G[gi + ci]))) {
      if (this.singular === "throw" && !Number.isNaN(d2)) {
        throw new OccamError(
          "not-positive-definite",
          `${this.where}: column ${ci} is numerically a linear combination of columns ` +
            `[${Array.from(cols.subarray(0, i)).join(", ")}] (pivot ${d2}); remove duplicated or collinear ` +
            "inputs, or use a proper prior (v < ∞) on them.",
        );
      }
      L[ri + i] = Number.NaN;
      u[i] = Number.NaN;
      this.logDiag[i + 1] = Number.NaN;
      this.quadPrefix[i + 1] = Number.NaN;
      return;
    }
    const lii = Math.sqrt(d2);
    L[ri + i] = lii;
    ui /= lii;
    u[i] = ui;
    this.logDiag[i + 1] = this.logDiag[i] + Math.log(lii);
    this.quadPrefix[i + 1] = this.quadPrefix[i] + ui * ui;
  }

  /** Inserts column `col` at row `pos` (rows below are recomputed). */
  insert(col: number, pos: number): void {
    const { cols } = this;
    for (let i = this.k; i > pos; i--) cols[i] = cols[i - 1];
    cols[pos] = col;
    this.k++;
    for (let i = pos; i < this.k; i++) this.row(i);
  }

  /** Removes the row at `pos` (rows below are recomputed). */
  remove(pos: number): void {
    const { cols } = this;
    this.k--;
    for (let i = pos; i < this.k; i++) cols[i] = cols[i + 1];
    for (let i = pos; i < this.k; i++) this.row(i);
  }

  /** Sets the factor to that of the given columns, in the given order. */
  setColumns(columns: ArrayLike<number>): void {
    this.k = columns.length;
    for (let i = 0; i < this.k; i++) this.cols[i] = columns[i];
    for (let i = 0; i < this.k; i++) this.row(i);
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Calls `visit` once for every subset of the p candidate inputs (of at most `maxSize` inputs), with
 * the Cholesky factor of G_SS, log|G_SS| and c_Sᵀ G_SS⁻¹ c_S ready in a reused {@link SubsetView}.
 * Without `maxSize` the order is the reflected Gray code (each step adds or removes one input; the
 * empty subset comes first); with it, a depth-first search that appends inputs in decreasing index
 * order. Each subset costs O(k²). Returns the number of subsets visited.
 *
 * @example
 * enumerateSubsets(system, {}, (s) => { out[s.mask] = score(s.logDet, s.quad, s.dim); });
 */
export function enumerateSubsets(
  system: SubsetSystem,
  options: EnumerateSubsetsOptions,
  visit: (view: SubsetView) => void,
): number {
  const where = "enumerateSubsets";
  checkSystem(system, where);
  if (typeof visit !== "function") throw invalid(where, "visit must be a function.");
  const { p, fixed } = system;
  const maxSize = options?.maxSize ?? p;
  if (!(Number.isInteger(maxSize) && maxSize >= 0)) {
    throw invalid(where, `maxSize must be a non-negative integer, got ${maxSize}.`);
  }
  const singular = options?.singular ?? "throw";
  if (singular !== "throw" && singular !== "nan") {
    throw invalid(where, `singular must be "throw" or "nan", got ${String(singular)}.`);
  }
  const q = p + fixed;
  const f = new SubsetFactor(system.gram, system.rhs, q, singular, where);
  for (let i = 0; i < fixed; i++) f.insert(i, i);
  const view: SubsetView = {
    mask: 0,
    size: 0,
    dim: fixed,
    logDet: 0,
    quad: 0,
    factor: f.L,
    solved: f.u,
    columns: f.cols,
    stride: q,
  };
  const emit = (mask: number, size: number): void => {
    view.mask = mask;
    view.size = size;
    view.dim = f.k;
    view.logDet = 2 * f.logDiag[f.k];
    view.quad = f.quadPrefix[f.k];
    visit(view);
  };
  let count = 0;
  if (maxSize >= p) {
    if (p > 30) throw invalid(where, `all 2^${p} subsets are too many to enumerate; give maxSize.`);
    let mask = 0;
    let size = 0;
    emit(0, 0);
    count++;
    const total = 2 ** p;
    for (let t = 1; t < total; t++) {
      const j = 31 - Math.clz32(t & -t); // the bit the Gray code flips at step t
      const bit = 1 << j;
      const pos = fixed + popcount(mask >>> (j + 1)); // rows above: fixed + active candidates > j
      if (mask & bit) {
        f.remove(pos);
        size--;
      } else {
        f.insert(fixed + j, pos);
        size++;
      }
      mask ^= bit;
      emit(mask >>> 0, size);
      count++;
    }
    return count;
  }
  // Depth-first: children of S add an input below S's smallest one, appended as the last row (O(k²)),
  // and backtracking drops the last row (free: the leading block of L is the factor of the leading block).
  emit(0, 0);
  count++;
  const dfs = (below: number, mask: number, size: number): void => {
    for (let j = below - 1; j >= 0; j--) {
      f.insert(fixed + j, f.k);
      const m = (mask | (1 << j)) >>> 0;
      emit(m, size + 1);
      count++;
      if (size + 1 < maxSize) dfs(j, m, size + 1);
      f.k--;
    }
  };
  if (maxSize > 0) dfs(p, 0, 0);
  return count;
}

/** Scores of subsets in compact form: entry i is the subset `masks[i]` with `sizes[i]` inputs. */
export interface SubsetTable {
  /** Number of candidate inputs. */
  readonly p: number;
  /** Number of subsets scored. */
  readonly count: number;
  /** The subsets as bitmasks (bit j: input j). For a full enumeration masks[i] = i. */
  readonly masks: Uint32Array;
  /** |S| of each subset. */
  readonly sizes: Uint8Array;
  /** The log evidence (or other score) of each subset. */
  readonly logEvidence: Float64Array;
  /** Names of the p candidate inputs. */
  readonly names: readonly string[];
}

function defaultNames(p: number): string[] {
  return Array.from({ length: p }, (_, j) => `x[${j}]`);
}

/**
 * Scores every subset (of at most `maxSize` inputs) with `score(view)` and returns the compact
 * {@link SubsetTable}. For a full enumeration the table is indexed by mask. Any scorer built on G_SS's
 * factor fits (NIG evidence, Zellner–Siow through R², BIC, …).
 */
export function scoreSubsets(
  system: SubsetSystem,
  options: EnumerateSubsetsOptions & { names?: readonly string[] },
  score: (view: SubsetView) => number,
): SubsetTable {
  const where = "scoreSubsets";
  checkSystem(system, where);
  const { p } = system;
  const maxSize = Math.min(options?.maxSize ?? p, p);
  let count = 0;
  for (let k = 0; k <= maxSize; k++) count += binomial(p, k);
  if (maxSize === p && p > MAX_ENUMERATED_INPUTS) {
    throw invalid(
      where,
      `all 2^${p} subsets of ${p} inputs are too many to tabulate (limit ${MAX_ENUMERATED_INPUTS} inputs); ` +
        "give maxSize, or sample subsets with sampleSubsets.",
    );
  }
  if (count > 2 ** 26) {
    throw invalid(where, `${count} subsets are too many to tabulate; lower maxSize or use sampleSubsets.`);
  }
  const names = options?.names ?? defaultNames(p);
  if (names.length !== p) {
    throw new OccamError("dimension-mismatch", `${where}: names has ${names.length} entries, expected ${p}.`);
  }
  const masks = new Uint32Array(count);
  const sizes = new Uint8Array(count);
  const logEvidence = new Float64Array(count);
  const full = maxSize === p;
  let i = 0;
  enumerateSubsets(system, options, (view) => {
    // A full enumeration stores by mask (Gray order is not index order); a partial one in visit order.
    const at = full ? view.mask : i;
    masks[at] = view.mask;
    sizes[at] = view.size;
    logEvidence[at] = score(view);
    i++;
  });
  return { p, count, masks, sizes, logEvidence, names: [...names] };
}

/** C(n, k) as a double (exact below 2^53). */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  k = Math.min(k, n - k);
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return Math.round(c);
}

/** Options of {@link nigSubsets}. */
export interface NigSubsetsOptions {
  /** The n × p candidate inputs, row-major (no column of ones: see `intercept`). */
  X: ArrayLike<number>;
  /** The n responses. */
  y: ArrayLike<number>;
  /** Number of observations. */
  n: number;
  /** Number of candidate inputs (at most 31). */
  p: number;
  /**
   * Include an intercept in every model, with the same N(0, σ²v) prior as the weights (Everson's
   * setting: a proper prior on the bias keeps the evidence finite).
   * @defaultValue true
   */
  intercept?: boolean;
  /**
   * The prior scale v of every weight: w | σ² ~ N(0, σ² v I) (Everson et al.: v = 10⁴).
   * @defaultValue 1
   */
  v?: number;
  /** Shape a > 0 of the inverse-gamma prior of σ². */
  a: number;
  /** Scale b > 0 of the inverse-gamma prior of σ². */
  b: number;
  /**
   * Names of the candidate inputs.
   * @defaultValue ["x[0]", …]
   */
  names?: readonly string[];
}

/** The Student-t predictive distributions of one model at m new inputs. */
export interface StudentTPredictive {
  /** Degrees of freedom 2a*. */
  readonly dof: number;
  /** x*ᵀm* at each new input. */
  readonly location: Float64Array;
  /** √((b* ÷ a*)(1 + x*ᵀV*x*)) at each new input. */
  readonly scale: Float64Array;
}

/** All subsets of a NIG linear regression (V = vI, m = 0), sharing one set of sufficient statistics. */
export interface NigSubsets {
  readonly p: number;
  readonly n: number;
  readonly intercept: boolean;
  readonly names: readonly string[];
  /** The system G = ZᵀZ + I/v, c = Zᵀy (Z = [1, X] with an intercept). */
  readonly system: SubsetSystem;
  /** log p(y | X_S) from an enumerator's view (O(1)). */
  scoreView(view: SubsetView): number;
  /** log p(y | X_S) of the subset given by its candidate indices (O(k³)). */
  logEvidence(members: ArrayLike<number>): number;
  /** The table of log evidences of all subsets (of at most `maxSize` inputs). */
  enumerate(options?: EnumerateSubsetsOptions): SubsetTable;
  /** The posterior predictive of the subset at the m rows of `Xnew` (m × p, all p candidate columns). */
  predictive(members: ArrayLike<number>, Xnew: ArrayLike<number>, m: number): StudentTPredictive;
}

/**
 * Exact log evidences of subsets of p candidate inputs of a Normal–Inverse-Gamma linear regression
 * (Everson et al. eqs. 10–17, m = 0 so eq. 16 holds as printed, V = vI):
 *   log p(y | X_S) = −(n/2) log 2π − (k/2) log v − ½ log|V*⁻¹| + a log b − a* log b* + log Γ(a*) − log Γ(a),
 * V*⁻¹ = X_SᵀX_S + I/v, b* = b + (yᵀy − yᵀX_S V* X_Sᵀy)/2, a* = a + n/2, k = |S| (+1 with an intercept).
 * XᵀX and Xᵀy are computed once (O(np²)); each subset then costs O(k²) (see {@link enumerateSubsets}).
 *
 * @example
 * const table = nigSubsets({ X, y, n, p: 10, v: 1e4, a: 1, b: 1 }).enumerate();
 */
export function nigSubsets(options: NigSubsetsOptions): NigSubsets {
  const where = "nigSubsets";
  if (options === null || typeof options !== "object") {
    throw invalid(where, "options { X, y, n, p, a, b } are required.");
  }
  const { n, p, a, b } = options;
  const intercept = options.intercept ?? true;
  const v = options.v ?? 1;
  if (!(Number.isInteger(n) && n >= 1)) throw invalid(where, `n must be a positive integer, got ${n}.`);
  if (!(Number.isInteger(p) && p >= 1 && p <= 31)) {
    throw invalid(where, `p must be an integer in [1, 31], got ${p}.`);
  }
  if (!(Number.isFinite(a) && a > 0))
    throw invalid(where, `the prior shape a must be finite and > 0, got ${a}.`);
  if (!(Number.isFinite(b) && b > 0))
    throw invalid(where, `the prior scale b must be finite and > 0, got ${b}.`);
  if (!(Number.isFinite(v) && v > 0))
    throw invalid(where, `the prior scale v must be finite and > 0, got ${v}.`);
  if (typeof intercept !== "boolean") throw invalid(where, "intercept must be true or false.");
  const { X, y } = options;
  if (X === null || typeof X !== "object" || X.length !== n * p) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: X must have n·p = ${n * p} entries, got ${X?.length}.`,
    );
  }
  if (y === null || typeof y !== "object" || y.length !== n) {
    throw new OccamError("dimension-mismatch", `${where}: y must have n = ${n} entries, got ${y?.length}.`);
  }
  const names = options.names ?? defaultNames(p);
  if (names.length !== p) {
    throw new OccamError("dimension-mismatch", `${where}: names has ${names.length} entries, expected ${p}.`);
  }
  const fixed = intercept ? 1 : 0;
  const q = p + fixed;
  const G = new Float64Array(q * q);
  const c = new Float64Array(q);
  const z = new Float64Array(q);
  let yy = 0;
  for (let i = 0; i < n; i++) {
    if (intercept) z[0] = 1;
    for (let j = 0; j < p; j++) {
      const x = X[i * p + j];
      if (!Number.isFinite(x)) {
        throw new OccamError("invalid-data", `${where}: X[${i}][${j}] is ${x}; every value must be finite.`);
      }
      z[fixed + j] = x;
    }
    const yi = y[i];
    if (!Number.isFinite(yi)) {
      throw new OccamError("invalid-data", `${where}: y[${i}] is ${yi}; every value must be finite.`);
    }
    yy += yi * yi;
    for (let j = 0; j < q; j++) {
      const zj = z[j];
      c[j] += zj * yi;
      for (let k = 0; k <= j; k++) G[j * q + k] += zj * z[k];
    }
  }
  for (let j = 0; j < q; j++) {
    G[j * q + j] += 1 / v;
    for (let k = 0; k < j; k++) G[k * q + j] = G[j * q + k];
  }
  const system: SubsetSystem = { p, fixed, gram: G, rhs: c };
  const aStar = a + 0.5 * n;
  const constant = -0.5 * n * LOG_TWO_PI + a * Math.log(b) + gammaln(aStar) - gammaln(a);
  const halfLogV = 0.5 * Math.log(v);
  const score = (dim: number, logDet: number, quad: number): number => {
    // yᵀy − c_Sᵀ G_SS⁻¹ c_S = yᵀ(I + v X_S X_Sᵀ)⁻¹ y > 0 exactly; below 0 only through cancellation.
    const bStar = b + 0.5 * Math.max(0, yy - quad);
    return constant - dim * halfLogV - 0.5 * logDet - aStar * Math.log(bStar);
  };
  const scratch = new SubsetFactor(G, c, q, "throw", where);
  const columnsOf = (members: ArrayLike<number>): Int32Array => {
    const cols = new Int32Array(fixed + members.length);
    if (intercept) cols[0] = 0;
    for (let i = 0; i < members.length; i++) {
      const j = members[i];
      if (!(Number.isInteger(j) && j >= 0 && j < p)) {
        throw invalid(where, `subset member ${j} is not an input index in [0, ${p}).`);
      }
      cols[fixed + i] = fixed + j;
    }
    const seen = new Set(cols);
    if (seen.size !== cols.length) throw invalid(where, "a subset lists an input twice.");
    return cols;
  };
  return {
    p,
    n,
    intercept,
    names: [...names],
    system,
    scoreView: (view) => score(view.dim, view.logDet, view.quad),
    logEvidence(members) {
      const cols = columnsOf(members);
      scratch.setColumns(cols);
      return score(cols.length, 2 * scratch.logDiag[cols.length], scratch.quadPrefix[cols.length]);
    },
    enumerate(enumOptions) {
      return scoreSubsets(system, { ...enumOptions, names }, (view) =>
        score(view.dim, view.logDet, view.quad),
      );
    },
    predictive(members, Xnew, m) {
      if (!(Number.isInteger(m) && m >= 1)) throw invalid(where, `m must be a positive integer, got ${m}.`);
      if (Xnew === null || typeof Xnew !== "object" || Xnew.length !== m * p) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}.predictive: Xnew must have m·p = ${m * p} entries (all p candidate columns), got ${Xnew?.length}.`,
        );
      }
      const cols = columnsOf(members);
      const k = cols.length;
      scratch.setColumns(cols);
      const { L, u } = scratch;
      // m* = G_SS⁻¹ c_S = L⁻ᵀu; b*/a* from the same quadratic form as the evidence.
      const mean = new Float64Array(k);
      for (let i = k - 1; i >= 0; i--) {
        let s = u[i];
        for (let j = i + 1; j < k; j++) s -= L[j * q + i] * mean[j];
        mean[i] = s / L[i * q + i];
      }
      const bStar = b + 0.5 * Math.max(0, yy - scratch.quadPrefix[k]);
      const s2 = bStar / aStar;
      const location = new Float64Array(m);
      const scale = new Float64Array(m);
      const x = new Float64Array(k);
      for (let r = 0; r < m; r++) {
        for (let i = 0; i < k; i++) {
          const col = cols[i];
          x[i] = col < fixed ? 1 : Xnew[r * p + col - fixed];
        }
        let loc = 0;
        for (let i = 0; i < k; i++) loc += x[i] * mean[i];
        // x*ᵀ V* x* = ‖L⁻¹x*‖² (V* = G_SS⁻¹), by forward substitution in place.
        let qf = 0;
        for (let i = 0; i < k; i++) {
          let s = x[i];
          for (let j = 0; j < i; j++) s -= L[i * q + j] * x[j];
          x[i] = s / L[i * q + i];
          qf += x[i] * x[i];
        }
        location[r] = loc;
        scale[r] = Math.sqrt(s2 * (1 + qf));
      }
      return { dof: 2 * aStar, location, scale };
    },
  };
}

/**
 * Exact NIG log evidences of all subsets (or all of at most `maxSize` inputs) in compact form: a
 * shorthand for `nigSubsets(options).enumerate({ maxSize })`.
 */
export function subsetLogEvidence(options: NigSubsetsOptions & { maxSize?: number }): SubsetTable {
  return nigSubsets(options).enumerate({ maxSize: options?.maxSize });
}

/** Options of {@link sampleSubsets}. */
export interface SampleSubsetsOptions {
  /** Number of candidate inputs p ≥ 1 (any size). */
  p: number;
  /** log p(y | S) of a subset given by its sorted candidate indices (e.g. `nigSubsets(…).logEvidence`). */
  logEvidence: (members: Int32Array) => number;
  /** The random generator. */
  rng: Rng;
  /**
   * The prior over subsets: "uniform" over all 2^p, or "uniform-size" (uniform over |S|, then within a size).
   * @defaultValue "uniform"
   */
  prior?: ModelPrior;
  /**
   * Number of Metropolis–Hastings steps kept.
   * @defaultValue 10000
   */
  iterations?: number;
  /**
   * Steps discarded first.
   * @defaultValue 1000
   */
  burnIn?: number;
  /**
   * Probability of a swap move (one input out, one in); otherwise one input is flipped (added or removed).
   * @defaultValue 0.5
   */
  swapProbability?: number;
  /**
   * The starting subset (candidate indices).
   * @defaultValue the empty subset
   */
  start?: readonly number[];
}

/** The subsets an MCMC run visited, in compact form (CSR: members of subset i are members[offsets[i] … offsets[i+1])). */
export interface SubsetSample {
  readonly p: number;
  /** Number of distinct subsets visited. */
  readonly count: number;
  readonly offsets: Int32Array;
  readonly members: Int32Array;
  readonly sizes: Uint8Array;
  /** The exact log evidence of each distinct subset. */
  readonly logEvidence: Float64Array;
  /** Steps spent in each subset (after burn-in); sums to `iterations`. */
  readonly visits: Float64Array;
  /** The bitmasks of the subsets when p ≤ 31 (so the sample can be passed to `compareSubsets`). */
  readonly masks?: Uint32Array;
  /** Fraction of steps each input was in the model (the MCMC estimate of inclusion probabilities). */
  readonly inclusionFrequency: Float64Array;
  readonly acceptanceRate: number;
  readonly iterations: number;
  /** Number of distinct log-evidence evaluations (they are cached). */
  readonly nEvaluations: number;
}

/**
 * Metropolis–Hastings over input subsets for p too large to enumerate (Sykacek's add/remove/swap
 * moves, with the exact log evidence in place of reversible jumps). Moves: with probability
 * 1 − swapProbability flip a uniformly chosen input (q = (1 − w)/p both ways); otherwise swap a
 * uniformly chosen member with a uniformly chosen non-member (q = w/(k(p − k)) both ways; a swap from
 * the empty or full subset is a rejected step). Both moves are symmetric, so the acceptance
 * probability is min(1, e^Δ) with Δ the change of log evidence + log model prior. Log evidences are
 * cached per subset.
 */
export function sampleSubsets(options: SampleSubsetsOptions): SubsetSample {
  const where = "sampleSubsets";
  if (options === null || typeof options !== "object") {
    throw invalid(where, "options { p, logEvidence, rng } are required.");
  }
  const { p, rng } = options;
  if (!(Number.isInteger(p) && p >= 1 && p <= 255)) {
    throw invalid(where, `p must be an integer in [1, 255], got ${p}.`);
  }
  if (typeof options.logEvidence !== "function") throw invalid(where, "logEvidence must be a function.");
  if (rng === null || typeof rng !== "object" || typeof rng.uniform !== "function") {
    throw invalid(where, "rng must be an Rng (createRng(seed)).");
  }
  const prior = options.prior ?? "uniform";
  const iterations = options.iterations ?? 10000;
  const burnIn = options.burnIn ?? 1000;
  const swapProbability = options.swapProbability ?? 0.5;
  if (!(Number.isInteger(iterations) && iterations >= 1)) {
    throw invalid(where, `iterations must be a positive integer, got ${iterations}.`);
  }
  if (!(Number.isInteger(burnIn) && burnIn >= 0)) {
    throw invalid(where, `burnIn must be a non-negative integer, got ${burnIn}.`);
  }
  if (!(swapProbability >= 0 && swapProbability <= 1)) {
    throw invalid(where, `swapProbability must be in [0, 1], got ${swapProbability}.`);
  }
  logModelPrior(prior, p, 0); // validates the prior name
  const inModel = new Uint8Array(p);
  for (const j of options.start ?? []) {
    if (!(Number.isInteger(j) && j >= 0 && j < p) || inModel[j]) {
      throw invalid(where, `start must list distinct input indices in [0, ${p}); got ${j}.`);
    }
    inModel[j] = 1;
  }
  const cache = new Map<string, number>();
  const index = new Map<string, number>();
  const distinctMembers: number[][] = [];
  const distinctLogEv: number[] = [];
  const visitCounts: number[] = [];
  const membersBuf = new Int32Array(p);
  let nEvaluations = 0;
  const keyOf = (): string => {
    let key = "";
    for (let j = 0; j < p; j++) key += inModel[j] ? "1" : "0";
    return key;
  };
  const evaluate = (key: string): number => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    let k = 0;
    for (let j = 0; j < p; j++) if (inModel[j]) membersBuf[k++] = j;
    const value = options.logEvidence(membersBuf.subarray(0, k));
    if (Number.isNaN(value) || value === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${where}: logEvidence returned ${value} for the subset {${Array.from(membersBuf.subarray(0, k)).join(", ")}}.`,
      );
    }
    nEvaluations++;
    cache.set(key, value);
    return value;
  };
  let size = 0;
  for (let j = 0; j < p; j++) size += inModel[j];
  let key = keyOf();
  let logTarget = evaluate(key) + logModelPrior(prior, p, size);
  if (logTarget === Number.NEGATIVE_INFINITY) {
    throw invalid(where, "the starting subset has zero posterior probability; give another start.");
  }
  const inclusion = new Float64Array(p);
  let accepted = 0;
  const total = burnIn + iterations;
  for (let t = 0; t < total; t++) {
    let flipA = -1;
    let flipB = -1;
    if (rng.uniform() < swapProbability) {
      if (size > 0 && size < p) {
        // The r-th member and the s-th non-member, uniformly.
        let r = rng.integer(size);
        let s = rng.integer(p - size);
        for (let j = 0; j < p; j++) {
          if (inModel[j]) {
            if (r-- === 0) flipA = j;
          } else if (s-- === 0) flipB = j;
        }
      }
    } else {
      flipA = rng.integer(p);
    }
    if (flipA >= 0) {
      inModel[flipA] ^= 1;
      if (flipB >= 0) inModel[flipB] ^= 1;
      const newSize = flipB >= 0 ? size : size + (inModel[flipA] ? 1 : -1);
      const newKey = keyOf();
      const proposal = evaluate(newKey) + logModelPrior(prior, p, newSize);
      const logRatio = proposal - logTarget;
      if (logRatio >= 0 || Math.log(rng.uniform()) < logRatio) {
        logTarget = proposal;
        size = newSize;
        key = newKey;
        if (t >= burnIn) accepted++;
      } else {
        inModel[flipA] ^= 1;
        if (flipB >= 0) inModel[flipB] ^= 1;
      }
    }
    if (t < burnIn) continue;
    for (let j = 0; j < p; j++) inclusion[j] += inModel[j];
    let at = index.get(key);
    if (at === undefined) {
      at = distinctMembers.length;
      index.set(key, at);
      const members: number[] = [];
      for (let j = 0; j < p; j++) if (inModel[j]) members.push(j);
      distinctMembers.push(members);
      distinctLogEv.push(cache.get(key) as number);
      visitCounts.push(0);
    }
    visitCounts[at]++;
  }
  const count = distinctMembers.length;
  const offsets = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) offsets[i + 1] = offsets[i] + distinctMembers[i].length;
  const members = new Int32Array(offsets[count]);
  const sizes = new Uint8Array(count);
  let masks: Uint32Array | undefined;
  if (p <= 31) masks = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    members.set(distinctMembers[i], offsets[i]);
    sizes[i] = distinctMembers[i].length;
    if (masks) {
      let mk = 0;
      for (const j of distinctMembers[i]) mk |= 1 << j;
      masks[i] = mk >>> 0;
    }
  }
  for (let j = 0; j < p; j++) inclusion[j] /= iterations;
  return {
    p,
    count,
    offsets,
    members,
    sizes,
    logEvidence: Float64Array.from(distinctLogEv),
    visits: Float64Array.from(visitCounts),
    masks,
    inclusionFrequency: inclusion,
    acceptanceRate: accepted / iterations,
    iterations,
    nEvaluations,
  };
}
