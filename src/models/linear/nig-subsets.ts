import type { LinearDesign } from "../../data/design.js";
import { OccamError } from "../../errors.js";
import type { StudentTPredictive, SubsetFamily } from "../family.js";
import {
  type CentredStatistics,
  rSquaredOf,
  subsetColumns,
  subsetDesignMatrix,
  termBlocks,
} from "./design.js";
import { nigLogEvidence, nigRegression } from "./nig.js";
import {
  type EnumerateSubsetsOptions,
  enumerateSubsets,
  type SubsetSystem,
  type SubsetTable,
  type SubsetView,
  scoreSubsets,
  subsetView,
  viewSolve,
} from "./subsets.js";

function invalid(where: string, message: string): OccamError {
  return new OccamError("invalid-argument", `${where}: ${message}`);
}

function defaultNames(p: number): string[] {
  return Array.from({ length: p }, (_, j) => `x[${j}]`);
}

/**
 * The NIG log evidence of a subset from its enumerator view (V = vI, m = 0): with G = ZᵀZ + I/v,
 * |I + vZᵀZ| = v^k |G| and the bracket of β* is yᵀy − c_Sᵀ G_SS⁻¹ c_S.
 */
export function nigSubsetScore(
  n: number,
  a: number,
  b: number,
  v: number,
  yy: number,
): (dim: number, logDet: number, quad: number) => number {
  const logV = Math.log(v);
  // yᵀy − c_Sᵀ G_SS⁻¹ c_S = yᵀ(I + v X_S X_Sᵀ)⁻¹ y > 0 exactly; below 0 only through cancellation.
  return (dim, logDet, quad) => nigLogEvidence(n, a, b, dim * logV + logDet, Math.max(0, yy - quad));
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
  const score = nigSubsetScore(n, a, b, v, yy);

  return {
    p,
    n,
    intercept,
    names: [...names],
    system,
    scoreView: (view) => score(view.dim, view.logDet, view.quad),
    logEvidence(members) {
      const view = subsetView(system, members, where);
      return score(view.dim, view.logDet, view.quad);
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
      const view = subsetView(system, members, where);
      const { factor: L, columns: cols, dim: k } = view;
      // m* = G_SS⁻¹ c_S = L⁻ᵀu; b*/a* from the same quadratic form as the evidence.
      const mean = new Float64Array(k);
      viewSolve(view, mean);
      const bStar = b + 0.5 * Math.max(0, yy - view.quad);
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

/** Options of {@link nigFamily}. */
export interface NigFamilyOptions {
  /** Prior scale v of every coefficient: w | σ² ~ N(0, σ² v I). @defaultValue 10000 */
  v?: number;
  /** Shape of the inverse-gamma prior of σ². @defaultValue 1 */
  a?: number;
  /** Scale of the inverse-gamma prior of σ². @defaultValue 1 */
  b?: number;
  /** An intercept in every model, with the same N(0, σ²v) prior. @defaultValue true */
  intercept?: boolean;
  /**
   * Put every candidate column on mean 0 and standard deviation 1 before the prior applies, so that v
   * means the same for every column whatever its unit; coefficients are reported on the columns' own
   * scale.
   * @defaultValue true
   */
  standardize?: boolean;
}

/**
 * The Normal–Inverse-Gamma family over subsets of a design's terms (see {@link nigSubsets} for the
 * formula): the model family contract of `models/family.ts`, scored exactly, with each subset's
 * posterior moments (m* and b* ÷ (a* − 1) · diag V*) and its sampleable {@link nigRegression} model.
 */
export function nigFamily(
  design: LinearDesign,
  stats: CentredStatistics,
  options: NigFamilyOptions = {},
): SubsetFamily {
  const v = options.v ?? 1e4;
  const a = options.a ?? 1;
  const b = options.b ?? 1;
  const intercept = options.intercept ?? true;
  const standardize = options.standardize ?? true;
  for (const [name, value] of [
    ["v", v],
    ["a", a],
    ["b", b],
  ] as const) {
    if (!(Number.isFinite(value) && value > 0)) {
      throw invalid("the NIG prior", `${name} must be a finite number > 0, got ${value}.`);
    }
  }
  const { n, columns: P } = design;
  const fixed = intercept ? 1 : 0;
  const q = fixed + P;
  // G = ZᵀZ + I/v and c = Zᵀy for Z = [1, columns], from the centred statistics: a standardised column
  // has ZᵀZ = C/(sd sd′) and no cross-product with the intercept; a raw one adds back n·mean·mean′.
  const scale = Float64Array.from(stats.sds, (sd) => (standardize ? 1 / sd : 1));
  const shift = standardize ? new Float64Array(P) : stats.means;
  const gram = new Float64Array(q * q);
  const rhs = new Float64Array(q);
  if (intercept) {
    gram[0] = n;
    rhs[0] = n * stats.yMean;
  }
  for (let j = 0; j < P; j++) {
    rhs[fixed + j] = scale[j] * (stats.rhs[j] + n * shift[j] * stats.yMean);
    if (intercept) {
      gram[fixed + j] = n * shift[j];
      gram[(fixed + j) * q] = n * shift[j];
    }
    for (let l = 0; l < P; l++) {
      gram[(fixed + j) * q + fixed + l] =
        scale[j] * scale[l] * (stats.gram[j * P + l] + n * shift[j] * shift[l]);
    }
  }
  for (let i = 0; i < q; i++) gram[i * q + i] += 1 / v;
  const system: SubsetSystem = {
    p: design.terms.length,
    fixed,
    gram,
    rhs,
    blocks: termBlocks(design),
    names: [...(intercept ? ["(intercept)"] : []), ...design.columnNames],
  };
  const score = nigSubsetScore(n, a, b, v, stats.yy);
  const aStar = a + 0.5 * n;
  const solved = new Float64Array(q);
  const diagonal = new Float64Array(q);
  const moments = (view: SubsetView, mean: Float64Array, variance: Float64Array): void => {
    viewSolve(view, solved);
    view.inverseDiagonal(diagonal);
    // w | y ~ t_{2a*}(m*, (b* ÷ a*) V*): variance b* ÷ (a* − 1) · V*_jj.
    const s2 = (b + 0.5 * Math.max(0, stats.yy - view.quad)) / (aStar - 1);
    for (let i = 0; i < view.dim; i++) {
      const c = view.columns[i] - fixed;
      if (c < 0) continue;
      mean[c] = solved[i] * scale[c];
      variance[c] = s2 * diagonal[i] * scale[c] * scale[c];
    }
  };
  const where = "the NIG prior";
  return {
    terms: design.terms,
    columnNames: design.columnNames,
    givesEvidence: true,
    exact: true,
    score(members) {
      const view = subsetView(system, members, where);
      return score(view.dim, view.logDet, view.quad);
    },
    enumerate(maxSize, visit) {
      let current: SubsetView | null = null;
      const fv = {
        mask: 0,
        size: 0,
        score: 0,
        moments: (mean: Float64Array, variance: Float64Array) =>
          moments(current as SubsetView, mean, variance),
      };
      return enumerateSubsets(system, { maxSize }, (view) => {
        current = view;
        fv.mask = view.mask;
        fv.size = view.size;
        fv.score = score(view.dim, view.logDet, view.quad);
        visit(fv);
      });
    },
    moments(members, mean, variance) {
      moments(subsetView(system, members, where), mean, variance);
    },
    rSquared: (members) => rSquaredOf(stats, P, subsetColumns(design, members), design.columnNames),
    model(members) {
      const { Z, k, names } = subsetDesignMatrix(design, stats, members, intercept, standardize);
      if (k === 0) return null;
      return nigRegression({ X: Z, y: design.y, n, p: k, v, a, b, names });
    },
  };
}
