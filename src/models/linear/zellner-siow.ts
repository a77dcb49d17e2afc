/**
 * The Zellner–Siow mixture of g-priors for linear regression (Liang et al. 2008, JASA 103, 410–423),
 * as R's BayesFactor computes it in `regressionBF`, `lmBF` and `linearReg.R2stat`: the model with k
 * inputs and an intercept, y = α1 + Xβ + ε, ε ~ N(0, σ²I), with p(α, σ²) ∝ 1/σ², β | g, σ² ~
 * N(0, g σ² (XcᵀXc)⁻¹) (Xc: the centred inputs) and g ~ InverseGamma(shape 1/2, scale r²n/2), is
 * compared with the intercept-only model by
 *
 *   BF = ∫₀^∞ (1 + g)^((n−1−k)/2) [1 + g(1 − R²)]^(−(n−1)/2) π(g) dg,
 *   π(g) = (r²n/2)^(1/2) / Γ(1/2) · g^(−3/2) · exp(−r²n / (2g)).
 *
 * BayesFactor's `integrand.regression` uses exactly this prior: `dinvgamma(g, shape = .5, scale =
 * rscaleSqr * N / 2)`; r = 1 is Liang et al.'s original Zellner–Siow prior and BayesFactor's default
 * `rscaleCont = "medium"` is r = √2/4.
 *
 * The integral is the m = q = 0 case of `g-mixture.ts`: adaptive Gauss–Kronrod quadrature in u = log g
 * on an interval chosen from bounds on the tails.
 */

import type { LinearDesign } from "../../data/design.js";
import { OccamError } from "../../errors.js";
import type { SubsetFamily } from "../family.js";
import { type CentredStatistics, rSquaredFromCrossProducts } from "./design.js";
import { gMixtureLogIntegral, zellnerSiowDensity } from "./g-mixture.js";
import { checkR2Statistics, gPriorsFamily } from "./g-prior.js";
import { type GTableStats, gMixtureScorer, newTableStats } from "./g-table.js";

/** BayesFactor's default prior scale for continuous covariates, `rscaleCont = "medium"`: √2/4. */
export const ZELLNER_SIOW_MEDIUM_SCALE = Math.SQRT2 / 4;

/** Options of {@link zellnerSiowBayesFactor} and {@link zellnerSiowLogBayesFactor}. */
export interface ZellnerSiowOptions {
  /**
   * The prior scale r: g ~ InverseGamma(1/2, r² n / 2). 1 is Liang et al.'s Zellner–Siow prior.
   * @defaultValue √2/4 ≈ 0.3536, BayesFactor's `rscaleCont = "medium"`
   */
  rScale?: number;
  /**
   * Relative accuracy requested of the integral (so roughly the absolute accuracy of log BF).
   * @defaultValue 1e-11
   */
  relTol?: number;
}

/** The result of {@link zellnerSiowBayesFactor}. */
export interface ZellnerSiowResult {
  /** log BF of the k-input model against the intercept-only model, in nats. */
  readonly logBF: number;
  /** Estimated absolute error of logBF (the quadrature's error estimate relative to the integral). */
  readonly error: number;
  /** log g at the integrand's peak (the posterior mode of log g). */
  readonly logGMode: number;
  /** Number of integrand evaluations. */
  readonly evaluations: number;
}

interface Filled {
  rScale: number;
  relTol: number;
}

function fillOptions(options: ZellnerSiowOptions): Filled {
  const rScale = options.rScale ?? ZELLNER_SIOW_MEDIUM_SCALE;
  const relTol = options.relTol ?? 1e-11;
  if (!(Number.isFinite(rScale) && rScale > 0)) {
    throw new OccamError(
      "invalid-argument",
      `zellnerSiowBayesFactor: rScale must be a finite number greater than 0, got ${rScale}; BayesFactor's defaults are √2/4 ("medium"), 1/2 ("wide") and √2/2 ("ultrawide").`,
    );
  }
  if (!(Number.isFinite(relTol) && relTol >= 1e-14 && relTol < 1)) {
    throw new OccamError(
      "invalid-argument",
      `zellnerSiowBayesFactor: relTol must be in [1e-14, 1), got ${relTol}.`,
    );
  }
  return { rScale, relTol };
}

/**
 * The Zellner–Siow Bayes factor of a linear model with k inputs (plus an intercept) against the
 * intercept-only model, from the coefficient of determination R² of the k-input model and n
 * observations, with g ~ InverseGamma(1/2, r² n/2) as in R's BayesFactor (`regressionBF`, `lmBF`,
 * `linearReg.R2stat`). Throws an `invalid-argument` OccamError for R² outside [0, 1), k > n − 2 or a
 * bad option, and an `internal` one if the quadrature does not reach the requested accuracy.
 *
 * @example
 * zellnerSiowBayesFactor(0.6813, 30, 1).logBF; // ≈ 12.9425, as BayesFactor::linearReg.R2stat(30, 1, 0.6813)$bf
 */
export function zellnerSiowBayesFactor(
  r2: number,
  n: number,
  k: number,
  options: ZellnerSiowOptions = {},
): ZellnerSiowResult {
  checkR2Statistics(r2, n, k, "zellnerSiowBayesFactor");
  const { rScale, relTol } = fillOptions(options);
  const r = gMixtureLogIntegral(zellnerSiowDensity(n, rScale), r2, n, k, 0, 0, relTol);
  return Object.freeze({
    logBF: r.logValue,
    error: r.error,
    logGMode: r.logGMode,
    evaluations: r.evaluations,
  });
}

/** log BF of {@link zellnerSiowBayesFactor}: the Zellner–Siow Bayes factor against the intercept-only model. */
export function zellnerSiowLogBayesFactor(
  r2: number,
  n: number,
  k: number,
  options: ZellnerSiowOptions = {},
): number {
  return zellnerSiowBayesFactor(r2, n, k, options).logBF;
}

/**
 * The coefficient of determination R² of the least-squares regression of y on the columns `columns`
 * of the n × p row-major X plus an intercept: R² = b̃ᵀ(X̃ᵀX̃)⁻¹b̃ / ỹᵀỹ with X̃, ỹ centred and b̃ = X̃ᵀỹ,
 * via the Cholesky factor of the centred cross-product matrix. An empty `columns` gives 0.
 * Throws `invalid-argument` for bad indices, `invalid-data` for a constant y, and
 * `not-positive-definite` (naming the columns) when the chosen columns are collinear.
 */
export function rSquared(
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
  columns: ArrayLike<number>,
): number {
  if (!(Number.isInteger(n) && n >= 2 && Number.isInteger(p) && p >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `rSquared: need integers n ≥ 2 and p ≥ 0, got n = ${n}, p = ${p}.`,
    );
  }
  if (X.length !== n * p || y.length !== n) {
    throw new OccamError(
      "dimension-mismatch",
      `rSquared: X has length ${X.length} and y length ${y.length}; expected n·p = ${n * p} and n = ${n}.`,
    );
  }
  const k = columns.length;
  for (let j = 0; j < k; j++) {
    const c = columns[j];
    if (!(Number.isInteger(c) && c >= 0 && c < p)) {
      throw new OccamError(
        "invalid-argument",
        `rSquared: column index ${c} is not an integer in [0, ${p - 1}].`,
      );
    }
    for (let l = 0; l < j; l++) {
      if (columns[l] === c) {
        throw new OccamError(
          "invalid-argument",
          `rSquared: column index ${c} is listed twice; list each column once.`,
        );
      }
    }
  }
  if (k > n - 2) {
    throw new OccamError(
      "invalid-argument",
      `rSquared: ${k} columns need at least ${k + 2} observations, got n = ${n}.`,
    );
  }
  let yMean = 0;
  for (let i = 0; i < n; i++) yMean += y[i];
  yMean /= n;
  let tss = 0;
  for (let i = 0; i < n; i++) tss += (y[i] - yMean) ** 2;
  if (!(tss > 0)) {
    throw new OccamError(
      "invalid-data",
      "rSquared: y is constant, so R² is undefined; check the target column.",
    );
  }
  if (k === 0) return 0;
  const means = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    let m = 0;
    for (let i = 0; i < n; i++) m += X[i * p + columns[j]];
    means[j] = m / n;
  }
  // Centred cross-products (two-pass: centring before multiplying keeps the precision that
  // Σxy − n x̄ȳ would lose for inputs with large means).
  const A = new Float64Array(k * k);
  const bvec = new Float64Array(k);
  const row = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < k; j++) row[j] = X[i * p + columns[j]] - means[j];
    const dy = y[i] - yMean;
    for (let j = 0; j < k; j++) {
      bvec[j] += row[j] * dy;
      for (let l = 0; l <= j; l++) A[j * k + l] += row[j] * row[l];
    }
  }
  return rSquaredFromCrossProducts(
    A,
    bvec,
    k,
    tss,
    `rSquared: the columns [${Array.from(columns).join(", ")}] are collinear (with each other or the intercept), so their cross-product matrix is singular; drop one of them.`,
  );
}

/** One model of {@link zellnerSiowAllSubsets}. */
export interface SubsetBayesFactor {
  /** The input column indices of the model, increasing. */
  readonly columns: readonly number[];
  /** R² of the model. */
  readonly r2: number;
  /** log BF against the intercept-only model. */
  readonly logBF: number;
}

/**
 * Zellner–Siow log Bayes factors against the intercept-only model for every non-empty subset of the
 * p inputs (as BayesFactor's `regressionBF(..., whichModels = "all")`), ordered by the subset's
 * bit mask (bit j set ⇔ column j included). Throws `invalid-argument` for p > 20.
 */
export function zellnerSiowAllSubsets(
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
  options: ZellnerSiowOptions = {},
): SubsetBayesFactor[] {
  if (!(Number.isInteger(p) && p >= 1 && p <= 20)) {
    throw new OccamError(
      "invalid-argument",
      `zellnerSiowAllSubsets: p must be an integer in [1, 20] (2^p − 1 models), got ${p}.`,
    );
  }
  const results: SubsetBayesFactor[] = [];
  for (let mask = 1; mask < 1 << p; mask++) {
    const columns: number[] = [];
    for (let j = 0; j < p; j++) if (mask & (1 << j)) columns.push(j);
    const r2 = rSquared(X, y, n, p, columns);
    const logBF = zellnerSiowLogBayesFactor(r2, n, columns.length, options);
    results.push(Object.freeze({ columns: Object.freeze(columns), r2, logBF }));
  }
  return results;
}

/** Options of {@link zellnerSiowFamily}. */
export interface ZellnerSiowFamilyOptions {
  /** The prior scale r: g ~ InverseGamma(½, r²n/2). @defaultValue √2/4 (BayesFactor's "medium") */
  r?: number;
  /** Counts of the tables' panels and direct integrals and their largest error, updated as subsets are scored. */
  tables?: GTableStats;
}

/** The Zellner–Siow family over subsets of a design's terms: g ~ InverseGamma(½, r²n/2). */
export function zellnerSiowFamily(
  design: LinearDesign,
  stats: CentredStatistics,
  options: ZellnerSiowFamilyOptions = {},
): SubsetFamily {
  const r = options.r ?? ZELLNER_SIOW_MEDIUM_SCALE;
  if (!(Number.isFinite(r) && r > 0)) {
    throw new OccamError("invalid-argument", `the Zellner–Siow scale r must be a number > 0, got ${r}.`);
  }
  return gPriorsFamily(
    design,
    stats,
    gMixtureScorer(zellnerSiowDensity(design.n, r), design.n, options.tables ?? newTableStats()),
  );
}
