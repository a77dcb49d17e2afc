import { invalidArgument, OccamError } from "../../errors.js";
import type { FamilyView } from "../family.js";

/**
 * Input (variable) selection by enumerating subsets of p candidate inputs.
 *
 * The machinery is generic: a {@link SubsetSystem} holds a symmetric positive-definite q × q matrix G
 * and a vector c over q columns, of which the first `fixed` are in every model (an intercept) and the
 * others belong to p candidate terms, each a block of one column (a numeric input) or several (the
 * dummy columns of a factor, an interaction): a term enters or leaves a model as a whole. For each subset S the enumerator maintains the Cholesky factor L of G_SS
 * and u = L⁻¹c_S, so a visitor reads log|G_SS| = 2 Σ log L_ii and c_Sᵀ G_SS⁻¹ c_S = ‖u‖² at O(1).
 *
 * - NIG regression with V = vI, m = 0 (Everson eqs. 13–17): G = ZᵀZ + I/v, c = Zᵀy (Z = [1, X]).
 * - Zellner–Siow / g-priors: G = X_cᵀX_c, c = X_cᵀy_c on centred data; R² = ‖u‖² / y_cᵀy_c.
 *
 * Numerical care.
 * - Rows of L are kept in a canonical order: fixed columns first, then candidate terms by *decreasing*
 *   index, each term's columns in increasing order. Every row is always computed by the row-oriented (bordered) Cholesky formula from G, c and
 *   the rows above it, never by updating an old row. The factor of a subset is therefore bit-for-bit
 *   the plain Cholesky factor of G_SS, whatever path led there: no rounding error accumulates over the
 *   10⁶ steps of an enumeration.
 * - Adding or removing a candidate recomputes only its row and the rows below it. In reflected
 *   Gray-code order the bit that flips at step t is j = ctz(t), and at that moment the only lower bit
 *   set is j − 1; with the decreasing order at most one term's rows sit below the changed ones. So a
 *   one-column addition costs one forward solve, O(k²), and a removal at most one recomputed row.
 * - A pivot d² = G_jj − ‖l‖² that is not above its own rounding error (4(k+1)ε G_jj) means the new
 *   column is numerically in the span of the others: an OccamError by default, or NaN results (the
 *   `singular: "nan"` option) that stay confined to the subsets containing the offending column.
 * - yᵀy − c_Sᵀ G_SS⁻¹ c_S loses about log₁₀(1/(1 − R²)) digits to cancellation (10⁻¹³ relative at
 *   R² = 0.999); the exact value is positive, and a negative result can only be rounding, so it is
 *   clamped at 0 (β* ≥ b > 0 keeps the logarithm finite).
 */

const EPS = 2.220446049250313e-16;

/** The quadratic-form system over which subsets are enumerated (see the module comment). */
export interface SubsetSystem {
  /** Number of candidate terms p (at most 31: subsets are 32-bit masks). */
  readonly p: number;
  /** Number of leading columns in every model (1 for an intercept, else 0). */
  readonly fixed: number;
  /** G, (fixed + p) × (fixed + p) row-major, symmetric positive definite on every subset. */
  readonly gram: Float64Array;
  /** c, length fixed + (number of candidate columns). */
  readonly rhs: Float64Array;
  /**
   * Term t owns the columns fixed + blocks[t] … fixed + blocks[t + 1] − 1 (blocks has p + 1 entries).
   * @defaultValue one column per term
   */
  readonly blocks?: Int32Array;
  /** Names of the q columns, for error messages. @defaultValue "column i" */
  readonly names?: readonly string[];
}

/**
 * What a visitor sees for the current subset. One object is reused for every subset: read it inside
 * the callback and do not keep it.
 */
export interface SubsetView {
  /** Bit j set when candidate term j is in the subset. */
  mask: number;
  /** |S|, the number of candidate terms in the subset. */
  size: number;
  /** k, the number of columns of the model (fixed ones included). */
  dim: number;
  /** log |G_SS| (NaN when the subset is numerically singular and `singular` is "nan"). */
  logDet: number;
  /** c_Sᵀ G_SS⁻¹ c_S = ‖u‖². */
  quad: number;
  /** L, the Cholesky factor of G_SS: row i at offset i·stride, columns 0 … i. */
  readonly factor: Float64Array;
  /** u = L⁻¹ c_S (first `dim` entries). */
  readonly solved: Float64Array;
  /** The columns (indices into G) of the rows of L: fixed ones first, then terms by decreasing index. */
  readonly columns: Int32Array;
  /** The row stride of `factor` (= fixed + p). */
  readonly stride: number;
  /**
   * Writes the diagonal of G_SS⁻¹ to `out[0 … dim)` in the order of the rows (`columns`). The rows of
   * L⁻¹ are cached and only those below the last change recomputed, so during an enumeration a call
   * costs O(k²) on average instead of O(k³).
   */
  inverseDiagonal(out: Float64Array): void;
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
  /**
   * Visit only the steps `from` … `to − 1` of the Gray-code order (step t visits the subset with mask
   * t ⊕ (t >> 1)), so that the 2^p subsets can be split into blocks enumerated apart, e.g. on several
   * threads. Only with every subset (no `maxSize` below p).
   * @defaultValue every step, 0 … 2^p − 1
   */
  steps?: { readonly from: number; readonly to: number };
}

function checkSystem(system: SubsetSystem, where: string): void {
  if (system === null || typeof system !== "object")
    throw invalidArgument(where, "a SubsetSystem is required.");
  const { p, fixed, gram, rhs } = system;
  if (!(Number.isInteger(p) && p >= 0 && p <= 31)) {
    throw invalidArgument(where, `p must be an integer in [0, 31] (subsets are 32-bit masks), got ${p}.`);
  }
  if (!(Number.isInteger(fixed) && fixed >= 0)) {
    throw invalidArgument(where, `fixed must be a non-negative integer, got ${fixed}.`);
  }
  const blocks = system.blocks;
  if (blocks !== undefined) {
    let ok = blocks instanceof Int32Array && blocks.length === p + 1 && blocks[0] === 0;
    for (let t = 0; ok && t < p; t++) ok = blocks[t + 1] > blocks[t];
    if (!ok) throw invalidArgument(where, "blocks must be p + 1 increasing column offsets starting at 0.");
  }
  const q = columnCount(system);
  if (!(gram instanceof Float64Array) || gram.length !== q * q) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: gram must be a Float64Array of q² = ${q * q} entries (q = fixed + candidate columns), got ${gram?.length}.`,
    );
  }
  if (!(rhs instanceof Float64Array) || rhs.length !== q) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: rhs must be a Float64Array of q = ${q} entries, got ${rhs?.length}.`,
    );
  }
}

/** q = fixed + the number of candidate columns. */
function columnCount(system: SubsetSystem): number {
  return system.fixed + (system.blocks === undefined ? system.p : system.blocks[system.p]);
}

/** Term t's columns (indices into G), from the blocks (one column per term without them). */
function termColumns(system: SubsetSystem): Int32Array[] {
  const { p, fixed, blocks } = system;
  return Array.from({ length: p }, (_, t) => {
    const from = blocks === undefined ? t : blocks[t];
    const to = blocks === undefined ? t + 1 : blocks[t + 1];
    return Int32Array.from({ length: to - from }, (_, i) => fixed + from + i);
  });
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
  /** Rows of L⁻¹ (made on first use), valid above row `inverseRows`, and running column sums of their squares. */
  private inverse: Float64Array | null = null;
  private inverseSquares: Float64Array | null = null;
  private inverseRows = 0;

  constructor(
    readonly G: Float64Array,
    readonly c: Float64Array,
    q: number,
    private readonly singular: "throw" | "nan",
    private readonly where: string,
    private readonly names?: readonly string[],
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
    if (i < this.inverseRows) this.inverseRows = i;
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
        const name = (c: number) => (this.names === undefined ? `column ${c}` : `"${this.names[c]}"`);
        throw new OccamError(
          "not-positive-definite",
          `${this.where}: ${name(ci)} is numerically a linear combination of ` +
            `${Array.from(cols.subarray(0, i), name).join(", ") || "nothing (it is zero)"} (pivot ${d2}); ` +
            "remove duplicated or collinear inputs.",
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

  /** Inserts the columns `block` at rows pos … (rows below are recomputed). */
  insert(block: Int32Array, pos: number): void {
    const { cols } = this;
    const w = block.length;
    for (let i = this.k - 1; i >= pos; i--) cols[i + w] = cols[i];
    for (let i = 0; i < w; i++) cols[pos + i] = block[i];
    this.k += w;
    for (let i = pos; i < this.k; i++) this.row(i);
  }

  /** Removes `width` rows at `pos` (rows below are recomputed). */
  remove(pos: number, width: number): void {
    const { cols } = this;
    this.k -= width;
    for (let i = pos; i < this.k; i++) cols[i] = cols[i + width];
    for (let i = pos; i < this.k; i++) this.row(i);
  }

  /**
   * diag(G_SS⁻¹) = the column sums of squares of L⁻¹ (see {@link SubsetView.inverseDiagonal}). Row r of
   * L⁻¹ is −(Σ_{j<r} L_rj (L⁻¹)_j·)/L_rr from rows above it, so like L it is the same bit for bit
   * whatever path led to the subset; each recomputed row costs O(r²).
   */
  inverseDiagonal(out: Float64Array): void {
    const { q, L, k } = this;
    if (this.inverse === null) {
      this.inverse = new Float64Array(q * q);
      this.inverseSquares = new Float64Array(q * q);
    }
    const M = this.inverse;
    const S = this.inverseSquares as Float64Array;
    for (let r = this.inverseRows; r < k; r++) {
      const rr = r * q;
      const lrr = L[rr + r];
      for (let i = 0; i < r; i++) {
        let s = 0;
        for (let j = i; j < r; j++) s -= L[rr + j] * M[j * q + i];
        const z = s / lrr;
        M[rr + i] = z;
        S[rr + i] = S[rr - q + i] + z * z;
      }
      const z = 1 / lrr;
      M[rr + r] = z;
      S[rr + r] = z * z;
    }
    if (this.inverseRows < k) this.inverseRows = k;
    const last = (k - 1) * q;
    for (let i = 0; i < k; i++) out[i] = S[last + i];
  }

  /** Sets the factor to that of the given columns, in the given order. */
  setColumns(columns: ArrayLike<number>): void {
    this.k = columns.length;
    for (let i = 0; i < this.k; i++) this.cols[i] = columns[i];
    for (let i = 0; i < this.k; i++) this.row(i);
  }
}

/** The checked Gray-code steps of {@link EnumerateSubsetsOptions.steps}: all 2^p by default. */
function checkSteps(
  steps: EnumerateSubsetsOptions["steps"],
  p: number,
  where: string,
): { from: number; to: number } {
  const total = 2 ** p;
  if (steps === undefined) return { from: 0, to: total };
  const { from, to } = steps;
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from < to && to <= total)) {
    throw invalidArgument(
      where,
      `steps must satisfy 0 ≤ from < to ≤ 2^${p} (integers), got from ${from}, to ${to}.`,
    );
  }
  return { from, to };
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
  if (typeof visit !== "function") throw invalidArgument(where, "visit must be a function.");
  const { p, fixed } = system;
  const maxSize = options?.maxSize ?? p;
  if (!(Number.isInteger(maxSize) && maxSize >= 0)) {
    throw invalidArgument(where, `maxSize must be a non-negative integer, got ${maxSize}.`);
  }
  if (options?.steps !== undefined && maxSize < p) {
    throw invalidArgument(where, "steps apply only to the enumeration of every subset (no maxSize below p).");
  }
  const singular = options?.singular ?? "throw";
  if (singular !== "throw" && singular !== "nan") {
    throw invalidArgument(where, `singular must be "throw" or "nan", got ${String(singular)}.`);
  }
  const q = columnCount(system);
  const terms = termColumns(system);
  const f = new SubsetFactor(system.gram, system.rhs, q, singular, where, system.names);
  f.insert(
    Int32Array.from({ length: fixed }, (_, i) => i),
    0,
  );
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
    inverseDiagonal: (out) => f.inverseDiagonal(out),
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
    if (p > 30) throw invalidArgument(where, `all 2^${p} subsets are too many to enumerate; give maxSize.`);
    const { from, to } = checkSteps(options?.steps, p, where);
    // The subset of step `from`, its terms' columns in the rows the Gray walk keeps them in (the higher
    // term first, below the fixed columns).
    let mask = (from ^ (from >>> 1)) >>> 0;
    let size = 0;
    for (let j = p - 1; j >= 0; j--) {
      if ((mask >>> j) & 1) {
        f.insert(terms[j], f.k);
        size++;
      }
    }
    emit(mask, size);
    count++;
    for (let t = from + 1; t < to; t++) {
      const j = 31 - Math.clz32(t & -t); // the term the Gray code flips at step t
      const bit = 1 << j;
      // Rows above term j: the fixed ones and the columns of the active terms above j.
      let pos = fixed;
      for (let m = mask >>> (j + 1); m !== 0; m &= m - 1)
        pos += terms[j + 1 + 31 - Math.clz32(m & -m)].length;
      if (mask & bit) {
        f.remove(pos, terms[j].length);
        size--;
      } else {
        f.insert(terms[j], pos);
        size++;
      }
      mask ^= bit;
      emit(mask >>> 0, size);
      count++;
    }
    return count;
  }
  // Depth-first: children of S add a term below S's smallest one, appended as the last rows (O(k²) per
  // column), and backtracking drops them (free: the leading block of L is the factor of the leading block).
  emit(0, 0);
  count++;
  const dfs = (below: number, mask: number, size: number): void => {
    for (let j = below - 1; j >= 0; j--) {
      f.insert(terms[j], f.k);
      const m = (mask | (1 << j)) >>> 0;
      emit(m, size + 1);
      count++;
      if (size + 1 < maxSize) dfs(j, m, size + 1);
      f.k -= terms[j].length;
    }
  };
  if (maxSize > 0) dfs(p, 0, 0);
  return count;
}

/**
 * A family's `enumerate` (see `models/family.ts`) over a system: every subset of at most `maxSize` terms
 * shown to `visit` through one reused {@link FamilyView}, with the family's `score` of the enumerator's
 * view and its `moments` computed only if the visitor asks. Returns the number of subsets.
 */
export function enumerateFamily(
  system: SubsetSystem,
  maxSize: number,
  score: (view: SubsetView) => number,
  moments: (view: SubsetView, mean: Float64Array, variance: Float64Array) => void,
  visit: (view: FamilyView) => void,
  steps?: EnumerateSubsetsOptions["steps"],
): number {
  let current: SubsetView | null = null;
  const shown = {
    mask: 0,
    size: 0,
    score: 0,
    moments: (mean: Float64Array, variance: Float64Array) => moments(current as SubsetView, mean, variance),
  };
  return enumerateSubsets(system, { maxSize, ...(steps === undefined ? {} : { steps }) }, (view) => {
    current = view;
    shown.mask = view.mask;
    shown.size = view.size;
    shown.score = score(view);
    visit(shown);
  });
}

/**
 * The posterior-mean-like solve G_SS⁻¹ c_S = L⁻ᵀu of the view's subset, written to `out[0 … dim)` in the
 * order of the view's rows (`view.columns`).
 */
export function viewSolve(view: SubsetView, out: Float64Array): void {
  const { factor: L, solved: u, stride, dim } = view;
  for (let i = dim - 1; i >= 0; i--) {
    let s = u[i];
    for (let j = i + 1; j < dim; j++) s -= L[j * stride + i] * out[j];
    out[i] = s / L[i * stride + i];
  }
}

/**
 * The view of one subset (distinct term indices, in any order), factored from scratch in the canonical
 * order: what {@link enumerateSubsets} shows, bit for bit, for a subset met out of order (an MCMC
 * proposal, a listed model). O(k³).
 */
export function subsetView(system: SubsetSystem, members: ArrayLike<number>, where: string): SubsetView {
  const { p, fixed } = system;
  const terms = termColumns(system);
  const cols: number[] = Array.from({ length: fixed }, (_, i) => i);
  let mask = 0;
  const seen = new Set<number>();
  for (let i = 0; i < members.length; i++) {
    const t = members[i];
    if (!(Number.isInteger(t) && t >= 0 && t < p) || seen.has(t)) {
      throw invalidArgument(
        where,
        `a subset lists term ${t} twice or outside [0, ${p}); list distinct terms.`,
      );
    }
    seen.add(t);
    if (t < 31) mask |= 1 << t;
  }
  for (const t of [...seen].sort((x, y) => y - x)) for (const c of terms[t]) cols.push(c);
  const q = columnCount(system);
  const f = new SubsetFactor(system.gram, system.rhs, q, "throw", where, system.names);
  f.setColumns(cols);
  return {
    mask: mask >>> 0,
    size: members.length,
    dim: f.k,
    logDet: 2 * f.logDiag[f.k],
    quad: f.quadPrefix[f.k],
    factor: f.L,
    solved: f.u,
    columns: f.cols,
    stride: q,
    inverseDiagonal: (out) => f.inverseDiagonal(out),
  };
}
