/**
 * Zellner's g-prior with a fixed g: the Bayes factor of a linear model with k inputs (plus an
 * intercept with a flat prior, and p(σ²) ∝ 1/σ²) against the intercept-only model depends on the data
 * only through n and the coefficient of determination R² (Liang et al. 2008, JASA 103, eq. 5):
 *
 *   BF(g) = (1 + g)^((n − 1 − k)/2) · [1 + g(1 − R²)]^(−(n − 1)/2).
 *
 * Mixtures of g-priors (Zellner–Siow, in `zellner-siow.ts`) integrate this over a prior on g.
 */

import type { LinearDesign } from "../../data/design.js";
import { OccamError } from "../../errors.js";
import type { SubsetFamily } from "../family.js";
import { type CentredStatistics, centredSystem, checkNewRows, rSquaredOf, subsetColumns } from "./design.js";
import { enumerateFamily, type SubsetView, subsetView, viewSolve } from "./subsets.js";

/**
 * Checks the summary statistics of a regression Bayes factor: R² in [0, 1), n and k integers with
 * 0 ≤ k ≤ n − 2 (the model needs k weights, an intercept and a noise variance). Throws an
 * `invalid-argument` OccamError naming `where` otherwise.
 */
export function checkR2Statistics(r2: number, n: number, k: number, where: string): void {
  if (!(Number.isFinite(r2) && r2 >= 0 && r2 < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: R² must be in [0, 1), got ${r2}. R² = 1 is an exact fit, for which the Bayes factor is infinite; check the data for a column that copies the target.`,
    );
  }
  if (!(Number.isInteger(n) && n >= 2)) {
    throw new OccamError("invalid-argument", `${where}: n must be an integer of at least 2, got ${n}.`);
  }
  if (!(Number.isInteger(k) && k >= 0 && k <= n - 2)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the number of inputs k must be an integer in [0, n − 2] = [0, ${n - 2}], got ${k}: a model with an intercept needs n ≥ k + 2 observations.`,
    );
  }
}

/**
 * log BF of the linear model with k inputs against the intercept-only model under Zellner's g-prior
 * with a fixed g > 0 (Liang et al. 2008, eq. 5): (n − 1 − k)/2 · log(1 + g) − (n − 1)/2 · log(1 + g(1 − R²)).
 *
 * @example
 * gPriorLogBayesFactor(0.5, 30, 2, 30); // ≈ 6.156
 */
export function gPriorLogBayesFactor(r2: number, n: number, k: number, g: number): number {
  checkR2Statistics(r2, n, k, "gPriorLogBayesFactor");
  if (!(Number.isFinite(g) && g > 0)) {
    throw new OccamError(
      "invalid-argument",
      `gPriorLogBayesFactor: g must be a finite number greater than 0, got ${g}; g = n (the unit-information prior) is a common choice.`,
    );
  }
  return 0.5 * (n - 1 - k) * Math.log1p(g) - 0.5 * (n - 1) * Math.log1p(g * (1 - r2));
}

/** How a g-prior (fixed g or a mixture) scores a subset from its (R², k) and n. */
export interface GPriorScorer {
  /** log BF of the subset with k columns and coefficient of determination r2 against the empty subset. */
  logBayesFactor(r2: number, k: number): number;
  /** Writes E[g/(1+g) | y] and E[(g/(1+g))² | y] of the subset to out[0] and out[1]. */
  shrinkage(r2: number, k: number, out: Float64Array): void;
  /**
   * Values of g/(1+g) of equal posterior weight that stand for its posterior (one for a fixed g; the
   * posterior quantiles at (j + ½)/count for a mixture): the nodes of the subset's predictive.
   */
  shrinkageNodes(r2: number, k: number): Float64Array;
}

/** The unit-information g-prior, g = n: a closed form, and a shrinkage factor n/(n + 1) for every model. */
export function unitInformationScorer(n: number): GPriorScorer {
  const s = n / (n + 1);
  return {
    logBayesFactor: (r2, k) =>
      k === 0 ? 0 : 0.5 * (n - 1 - k) * Math.log1p(n) - 0.5 * (n - 1) * Math.log1p(n * (1 - r2)),
    shrinkage(_r2, _k, out) {
      out[0] = s;
      out[1] = s * s;
    },
    shrinkageNodes: () => Float64Array.of(s),
  };
}

/**
 * The family of g-prior regressions over subsets of a design's terms: an intercept with a flat prior in
 * every model, each subset scored by its R² through `scorer` (Liang et al. 2008), so the result is the
 * same whatever the units of any column. The posterior of a subset's coefficients given g is centred at
 * s β̂ (s = g/(1+g), β̂ least squares) with variance s σ² (XcᵀXc)⁻¹ and E[σ² | g, y] = TSS (1 − s R²)/(n − 3);
 * over g, E[β | y] = E[s] β̂ and Var β_j = (E[s] − R² E[s²]) TSS/(n − 3) · (XcᵀXc)⁻¹_jj + Var(s) β̂_j².
 */
export function gPriorsFamily(
  design: LinearDesign,
  stats: CentredStatistics,
  scorer: GPriorScorer,
): SubsetFamily {
  const { n, columns: P } = design;
  if (n < 4) {
    throw new OccamError(
      "invalid-data",
      `a g-prior comparison needs at least 4 rows (the intercept, a coefficient, the noise and its spread), got ${n}.`,
    );
  }
  const system = centredSystem(design, stats);
  const tss = stats.tss;
  const where = "g-prior";
  const r2Of = (view: SubsetView): number => {
    const r2 = Math.max(0, view.quad / tss);
    if (!(r2 < 1 - 1e-12)) {
      const names = Array.from(view.columns.subarray(0, view.dim), (c) => `"${design.columnNames[c]}"`);
      throw new OccamError(
        "invalid-data",
        `the columns ${names.join(", ")} fit the target exactly (R² = ${r2}), so the Bayes factor is infinite; check for a column that copies the target.`,
      );
    }
    return r2;
  };
  const scoreView = (view: SubsetView): number => scorer.logBayesFactor(r2Of(view), view.dim);
  const beta = new Float64Array(P);
  const diagonal = new Float64Array(P);
  const s = new Float64Array(2);
  const moments = (view: SubsetView, mean: Float64Array, variance: Float64Array): void => {
    if (view.dim === 0) return;
    const r2 = r2Of(view);
    scorer.shrinkage(r2, view.dim, s);
    viewSolve(view, beta);
    view.inverseDiagonal(diagonal);
    const noise = (Math.max(0, s[0] - r2 * s[1]) * tss) / (n - 3);
    const spread = Math.max(0, s[1] - s[0] * s[0]);
    for (let i = 0; i < view.dim; i++) {
      const c = view.columns[i];
      mean[c] = s[0] * beta[i];
      variance[c] = noise * diagonal[i] + spread * beta[i] * beta[i];
    }
  };
  return {
    terms: design.terms,
    columnNames: design.columnNames,
    givesEvidence: false,
    exact: true,
    score: (members) => scoreView(subsetView(system, members, where)),
    enumerate: (maxSize, visit, steps) => enumerateFamily(system, maxSize, scoreView, moments, visit, steps),
    moments: (members, mean, variance) => moments(subsetView(system, members, where), mean, variance),
    rSquared: (members) => rSquaredOf(stats, P, subsetColumns(design, members), design.columnNames),
    predictive(members, Xnew, m, response = "observation") {
      checkNewRows(Xnew, m, P, where);
      const view = subsetView(system, members, where);
      const { factor: L, columns, dim: k, stride } = view;
      const r2 = k === 0 ? 0 : r2Of(view);
      const coefficients = new Float64Array(k);
      viewSolve(view, coefficients);
      // At each new row, x_cᵀβ̂ and the leverage x_cᵀ(X_cᵀX_c)⁻¹x_c = ‖L⁻¹x_c‖² (x_c centred as the design).
      const fit = new Float64Array(m);
      const leverage = new Float64Array(m);
      const x = new Float64Array(k);
      for (let r = 0; r < m; r++) {
        for (let i = 0; i < k; i++) x[i] = Xnew[r * P + columns[i]] - stats.means[columns[i]];
        for (let i = 0; i < k; i++) fit[r] += x[i] * coefficients[i];
        for (let i = 0; i < k; i++) {
          let t = x[i];
          for (let j = 0; j < i; j++) t -= L[i * stride + j] * x[j];
          x[i] = t / L[i * stride + i];
          leverage[r] += x[i] * x[i];
        }
      }
      // Given s = g/(1+g): y* ~ t_{n−1}(ȳ + s x_cᵀβ̂, TSS (1 − s R²)/(n − 1) · (1 + 1/n + s h)), without
      // the 1 for the mean response (σ² | g, y ~ IG((n − 1)/2, TSS (1 − s R²)/2), β | σ², g, y ~
      // N(s β̂, s σ² (X_cᵀX_c)⁻¹), the intercept N(ȳ, σ²/n) apart from β as the columns are centred).
      const noise = response === "observation" ? 1 : 0;
      const nodes = scorer.shrinkageNodes(r2, k);
      return Array.from(nodes, (shrink) => {
        const variance = (tss * Math.max(0, 1 - shrink * r2)) / (n - 1);
        const location = new Float64Array(m);
        const scale = new Float64Array(m);
        for (let r = 0; r < m; r++) {
          location[r] = stats.yMean + shrink * fit[r];
          scale[r] = Math.sqrt(variance * (noise + 1 / n + shrink * leverage[r]));
        }
        return { weight: 1 / nodes.length, predictive: { dof: n - 1, location, scale } };
      });
    },
  };
}
