import type { LinearDesign } from "../../data/design.js";
import { invalidArgument } from "../../errors.js";
import type { SubsetFamily } from "../family.js";
import {
  type CentredStatistics,
  checkNewRows,
  rSquaredOf,
  subsetColumns,
  subsetDesignMatrix,
  termBlocks,
} from "./design.js";
import { nigLogEvidence, nigRegression } from "./nig.js";
import { enumerateFamily, type SubsetSystem, type SubsetView, subsetView, viewSolve } from "./subsets.js";

/**
 * The NIG log evidence of a subset from its enumerator view (V = vI, m = 0): with G = ZᵀZ + I/v,
 * |I + vZᵀZ| = v^k |G| and the bracket of β* is yᵀy − c_Sᵀ G_SS⁻¹ c_S.
 */
function nigSubsetScore(
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
 * The enumerator's system of the NIG family: G = ZᵀZ + I/v and c = Zᵀy for Z = [1, columns], from the
 * centred statistics (a standardised column has ZᵀZ = C/(sd sd′) and no cross-product with the intercept;
 * a raw one adds back n·mean·mean′), and the scale of each column in Z (1/sd, or 1).
 */
function nigSystem(
  design: LinearDesign,
  stats: CentredStatistics,
  v: number,
  intercept: boolean,
  standardize: boolean,
): { system: SubsetSystem; scale: Float64Array } {
  const { n, columns: P } = design;
  const fixed = intercept ? 1 : 0;
  const q = fixed + P;
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
  return { system, scale };
}

/**
 * The Normal–Inverse-Gamma family over subsets of a design's terms (V = vI, m = 0; Everson et al. eqs.
 * 10–17, m = 0 so eq. 16 holds as printed):
 *   log p(y | X_S) = −(n/2) log 2π − (k/2) log v − ½ log|V*⁻¹| + a log b − a* log b* + log Γ(a*) − log Γ(a),
 * V*⁻¹ = Z_SᵀZ_S + I/v, b* = b + (yᵀy − yᵀZ_S V* Z_Sᵀy)/2, a* = a + n/2, k = |S| (+1 with an intercept).
 * The model family contract of `models/family.ts`: every subset scored exactly in O(k²) by the
 * enumerator, each subset's posterior moments (m* and b* ÷ (a* − 1) · diag V*), its Student-t posterior
 * predictive and its sampleable {@link nigRegression} model.
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
      throw invalidArgument("the NIG prior", `${name} must be a finite number > 0, got ${value}.`);
    }
  }
  const { n, columns: P } = design;
  const fixed = intercept ? 1 : 0;
  const q = fixed + P;
  const { system, scale } = nigSystem(design, stats, v, intercept, standardize);
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
    enumerate: (maxSize, visit, steps) =>
      enumerateFamily(
        system,
        maxSize,
        (view) => score(view.dim, view.logDet, view.quad),
        moments,
        visit,
        steps,
      ),
    moments(members, mean, variance) {
      moments(subsetView(system, members, where), mean, variance);
    },
    rSquared: (members) => rSquaredOf(stats, P, subsetColumns(design, members), design.columnNames),
    model(members) {
      const { Z, k, names } = subsetDesignMatrix(design, stats, members, intercept, standardize);
      if (k === 0) return null;
      return nigRegression({ X: Z, y: design.y, n, p: k, v, a, b, names });
    },
    predictive(members, Xnew, m, response = "observation") {
      checkNewRows(Xnew, m, P, where);
      const view = subsetView(system, members, where);
      const { factor: L, columns: cols, dim: k } = view;
      // m* = G_SS⁻¹ c_S = L⁻ᵀu; b*/a* from the same quadratic form as the evidence.
      const mean = new Float64Array(k);
      viewSolve(view, mean);
      const s2 = (b + 0.5 * Math.max(0, stats.yy - view.quad)) / aStar;
      const location = new Float64Array(m);
      const spread = new Float64Array(m);
      const x = new Float64Array(k);
      for (let r = 0; r < m; r++) {
        for (let i = 0; i < k; i++) {
          const c = cols[i] - fixed;
          // The model's column: the intercept, or the input standardised as the prior saw it.
          x[i] = c < 0 ? 1 : standardize ? (Xnew[r * P + c] - stats.means[c]) * scale[c] : Xnew[r * P + c];
        }
        let loc = 0;
        for (let i = 0; i < k; i++) loc += x[i] * mean[i];
        // x*ᵀ V* x* = ‖L⁻¹x*‖² (V* = G_SS⁻¹), by forward substitution in place.
        let qf = 0;
        for (let i = 0; i < k; i++) {
          let t = x[i];
          for (let j = 0; j < i; j++) t -= L[i * q + j] * x[j];
          x[i] = t / L[i * q + i];
          qf += x[i] * x[i];
        }
        location[r] = loc;
        spread[r] = Math.sqrt(s2 * ((response === "observation" ? 1 : 0) + qf));
      }
      return [{ weight: 1, predictive: { dof: 2 * aStar, location, scale: spread } }];
    },
  };
}
