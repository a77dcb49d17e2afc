/**
 * A linear design over candidate terms, and the centred sufficient statistics every linear family over
 * subsets starts from. Statistics are centred in two passes (means first, then products of deviations),
 * which keeps the precision that Σxy − n x̄ȳ loses for columns with large means.
 */

import type { LinearDesign } from "../../data/design.js";
import { invalidArgument, OccamError } from "../../errors.js";
import { choleskyInPlace, solveLower } from "../../math/linalg.js";
import type { SubsetSystem } from "./subsets.js";

/** The centred statistics of a design: Xcᵀ Xc, Xcᵀ yc, yc ᵀ yc, means and sample standard deviations. */
export interface CentredStatistics {
  readonly gram: Float64Array;
  readonly rhs: Float64Array;
  /** Σ (y − ȳ)², the total sum of squares. */
  readonly tss: number;
  readonly yMean: number;
  readonly yy: number;
  readonly means: Float64Array;
  /** Sample standard deviations (denominator n − 1). */
  readonly sds: Float64Array;
}

/**
 * The centred statistics of a design. Throws an `invalid-data` OccamError naming the column when a
 * column's spread is zero to rounding (it copies the intercept) or its squares overflow.
 */
export function centredStatistics(design: LinearDesign): CentredStatistics {
  const { X, y, n, columns: P, columnNames } = design;
  const means = new Float64Array(P);
  let yMean = 0;
  for (let i = 0; i < n; i++) {
    yMean += y[i];
    for (let j = 0; j < P; j++) means[j] += X[i * P + j];
  }
  yMean /= n;
  for (let j = 0; j < P; j++) means[j] /= n;
  const gram = new Float64Array(P * P);
  const rhs = new Float64Array(P);
  const row = new Float64Array(P);
  let tss = 0;
  let yy = 0;
  for (let i = 0; i < n; i++) {
    const dy = y[i] - yMean;
    tss += dy * dy;
    yy += y[i] * y[i];
    for (let j = 0; j < P; j++) row[j] = X[i * P + j] - means[j];
    for (let j = 0; j < P; j++) {
      const r = row[j];
      rhs[j] += r * dy;
      for (let l = 0; l <= j; l++) gram[j * P + l] += r * row[l];
    }
  }
  for (let j = 0; j < P; j++) for (let l = 0; l < j; l++) gram[l * P + j] = gram[j * P + l];
  const sds = new Float64Array(P);
  for (let j = 0; j < P; j++) {
    const ss = gram[j * P + j];
    const name = columnNames[j];
    if (!Number.isFinite(ss)) {
      throw new OccamError(
        "invalid-data",
        `Column "${name}": its squared deviations overflow (values near ${means[j].toPrecision(3)} and beyond); rescale the column (e.g. to thousands or millions of its unit).`,
      );
    }
    // A spread below rounding of the mean: numerically constant, a copy of the intercept.
    if (!(ss > (1e-13 * means[j]) ** 2 * n)) {
      throw new OccamError(
        "invalid-data",
        `Column "${name}" is constant to within rounding (mean ${means[j].toPrecision(6)}, spread ${Math.sqrt(ss / n).toPrecision(3)}): it duplicates the intercept. Leave it out, or subtract its mean first.`,
      );
    }
    sds[j] = Math.sqrt(ss / (n - 1));
  }
  if (!(tss > 0 && Number.isFinite(tss))) {
    throw new OccamError(
      "invalid-data",
      `The target's squared deviations are ${tss}: ${tss === 0 ? "it is constant, so there is nothing to explain" : "they overflow; rescale the target"}.`,
    );
  }
  return { gram, rhs, tss, yMean, yy, means, sds };
}

/** The term blocks of a design as a SubsetSystem expects them (column offsets, p + 1 entries). */
export function termBlocks(design: LinearDesign): Int32Array {
  const blocks = new Int32Array(design.terms.length + 1);
  design.terms.forEach((term, t) => {
    // A random term owns no columns: an empty block.
    const first = term.columns[0] ?? blocks[t];
    if (first !== blocks[t] || term.columns.some((c, i) => c !== first + i)) {
      throw new OccamError(
        "internal",
        `term "${term.name}" does not own the next contiguous run of design columns.`,
      );
    }
    blocks[t + 1] = first + term.columns.length;
  });
  if (blocks[design.terms.length] !== design.columns) {
    throw new OccamError("internal", "the terms do not cover every design column.");
  }
  return blocks;
}

/** The centred system Xcᵀ Xc, Xcᵀ yc over the design's terms (no fixed column): R² = quad / tss. */
export function centredSystem(design: LinearDesign, stats: CentredStatistics): SubsetSystem {
  return {
    p: design.terms.length,
    fixed: 0,
    gram: stats.gram,
    rhs: stats.rhs,
    blocks: termBlocks(design),
    names: design.columnNames,
  };
}

/** The design columns of a subset of terms (ascending term indices). */
export function subsetColumns(design: LinearDesign, members: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < members.length; i++) for (const c of design.terms[members[i]].columns) out.push(c);
  return out;
}

/**
 * R² of the least-squares fit with an intercept on the given design columns, from the centred
 * statistics (O(k³), no pass over the data). Throws `not-positive-definite` naming the columns when they
 * are collinear.
 */
export function rSquaredOf(
  stats: CentredStatistics,
  P: number,
  columns: readonly number[],
  names: readonly string[],
): number {
  const k = columns.length;
  if (k === 0) return 0;
  const A = new Float64Array(k * k);
  const b = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    b[i] = stats.rhs[columns[i]];
    for (let j = 0; j <= i; j++) A[i * k + j] = stats.gram[columns[i] * P + columns[j]];
  }
  return rSquaredFromCrossProducts(
    A,
    b,
    k,
    stats.tss,
    `the columns ${columns.map((c) => `"${names[c]}"`).join(", ")} are collinear (with each other or the intercept); drop one of them.`,
  );
}

/**
 * R² = ‖L⁻¹b‖²/tss from centred cross-products: A = XcᵀXc (k × k, lower triangle, overwritten by its
 * Cholesky factor L) and b = Xcᵀyc. Throws `not-positive-definite` with `collinear` as the message when
 * A is singular.
 */
export function rSquaredFromCrossProducts(
  A: Float64Array,
  b: Float64Array,
  k: number,
  tss: number,
  collinear: string,
): number {
  try {
    choleskyInPlace(A, k);
  } catch (error) {
    if (error instanceof OccamError && error.code === "not-positive-definite") {
      throw new OccamError("not-positive-definite", collinear);
    }
    throw error;
  }
  const z = solveLower(A, k, b);
  let ess = 0;
  for (let j = 0; j < k; j++) ess += z[j] * z[j];
  return ess / tss;
}

/**
 * The n × k design [1, Z_S] (or Z_S without an intercept) of a subset of terms, each column standardised
 * (mean 0, sd 1) when `standardize`, with the names of its columns.
 */
export function subsetDesignMatrix(
  design: LinearDesign,
  stats: CentredStatistics,
  members: ArrayLike<number>,
  intercept: boolean,
  standardize: boolean,
): { Z: Float64Array; k: number; names: string[] } {
  const { n, columns: P } = design;
  const cols = subsetColumns(design, members);
  const fixed = intercept ? 1 : 0;
  const k = fixed + cols.length;
  const Z = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    if (intercept) Z[i * k] = 1;
    cols.forEach((c, j) => {
      const x = design.X[i * P + c];
      Z[i * k + fixed + j] = standardize ? (x - stats.means[c]) / stats.sds[c] : x;
    });
  }
  const names = [...(intercept ? ["(intercept)"] : []), ...cols.map((c) => design.columnNames[c])];
  return { Z, k, names };
}

/** Checks the new rows of a family's predictive: m ≥ 1 rows of every one of the P design columns. */
export function checkNewRows(Xnew: ArrayLike<number>, m: number, P: number, where: string): void {
  if (!(Number.isInteger(m) && m >= 1))
    throw invalidArgument(where, `m must be a positive integer, got ${m}.`);
  if (Xnew === null || typeof Xnew !== "object" || Xnew.length !== m * P) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: the new inputs must have m × columns = ${m * P} entries (every design column), got ${Xnew?.length}.`,
    );
  }
}
