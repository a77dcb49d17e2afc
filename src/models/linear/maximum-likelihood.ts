/**
 * Maximum-likelihood baselines of the linear model y = Xw + ε, ε ~ N(0, τ⁻¹ I), and the selection of
 * inputs by penalised likelihoods (Fabricius thesis §6.2.1 and Table 6.1, seed 004).
 *
 * For the columns S of X (k = |S| weights) and a ridge ρ ≥ 0 added to the inverse covariance
 * ("regularised inverse covariance", thesis §6.2.1):
 *   w_ρ = (X_SᵀX_S + ρI)⁻¹ X_Sᵀy                                   (eq. 6.10 for ρ = 0)
 *   RSS = ‖y − X_S w_ρ‖²
 *   γ_eff = Σ_j λ_j / (λ_j + ρ) = k − ρ tr((X_SᵀX_S + ρI)⁻¹)        (eq. 6.14; k for ρ = 0)
 *   τ̂ = (N − γ_eff) / RSS                                            (eqs. 6.13, 6.17: the unbiased guess)
 *   ℓ = (N/2) log(τ̂/2π) − τ̂ RSS/2 = (N/2) log((N − γ_eff)/(2π RSS)) − (N − γ_eff)/2.
 *
 * ℓ, with the unbiased τ̂ rather than the maximising N/RSS, is the thesis's "log like." of Table 6.1:
 * E[ℓ] for the 10-input model with N = 20, σ = 0.1 is 10 log(10/2π) − 10 E[log RSS] − 5 = 23.71
 * (RSS ~ σ²χ²₁₀), the table's 23.73. The criteria (all "higher is better"):
 *
 * | criterion                 | score of subset S                                               | thesis        |
 * | ------------------------- | --------------------------------------------------------------- | ------------- |
 * | `ml`                      | ℓ at ρ = 0                                                      | "ML"          |
 * | `regularised`             | max over the ρ grid of ℓ(ρ) ("the maximum log regularized value")| "Reg. ML"     |
 * | `penalised`               | ℓ − (k + 1), k weights and τ (AIC/2 with the unbiased τ̂)        | "Pen. ML"     |
 * | `penalised-regularised`   | max over ρ of ℓ(ρ) − (k + 1)                                     | "P., r. ML"   |
 * | `bic`                     | ℓ_max − ((k + 1)/2) log N, ℓ_max = −(N/2)(log(2π RSS/N) + 1)     | (Schwarz)     |
 * | `fpe`                     | −(N + k)/(N − k) · RSS/N (Akaike's final prediction error, eq. 6.44, negated) | "FPE" (§6.3.2) |
 *
 * The penalty k + 1 is the thesis's: Table 6.1's "p. log like." is "log like." minus 11 for 10 inputs
 * and minus 4 for 3 (the caption's "number of weights" counts τ too). The penalty does not depend on
 * ρ, so `regularised` and `penalised-regularised` pick the same ρ for a subset.
 *
 * A subset with k ≥ N at ρ = 0 (or with RSS = 0, or numerically collinear columns) cannot be fitted:
 * its ρ = 0 scores are −Infinity (N − γ_eff ≤ 0 leaves τ̂ undefined), and the regularised scores use
 * only ρ > 0. The empty subset (k = 0) is the model y = ε.
 */
import { invalidArgument, OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { cholesky, solveLower, solveLowerTranspose } from "../../math/linalg.js";
import { enumerateSubsets, type SubsetSystem, type SubsetView } from "./subsets.js";

/** The selection criteria of {@link scoreMlSubsets} (see the module comment for their formulas). */
export type MlCriterion = "ml" | "regularised" | "penalised" | "penalised-regularised" | "bic" | "fpe";

/** Every {@link MlCriterion}, in the thesis's order then the extra two. */
export const ML_CRITERIA: readonly MlCriterion[] = Object.freeze([
  "ml",
  "regularised",
  "penalised",
  "penalised-regularised",
  "bic",
  "fpe",
]);

/**
 * The default grid of ρ for the regularised criteria: 0, then 10⁻⁶ … 10² in quarter decades (the
 * thesis's ρ_ML = 1.92 × 10⁻⁴ lies inside; Figure 6.2 plots the criteria against ρ from 0).
 */
export function defaultRhoGrid(): Float64Array {
  const out = new Float64Array(34);
  for (let i = 1; i < 34; i++) out[i] = 10 ** (-6 + (i - 1) / 4);
  return out;
}

/**
 * The thesis's log likelihood ℓ = (N/2) log((N − γ)/(2π RSS)) − (N − γ)/2, at the unbiased noise
 * precision τ̂ = (N − γ)/RSS (eqs. 6.13, 6.17); −Infinity when N − γ ≤ 0 or RSS ≤ 0.
 */
export function unbiasedLogLikelihood(n: number, rss: number, gamma: number): number {
  const dof = n - gamma;
  if (!(dof > 0 && rss > 0)) return Number.NEGATIVE_INFINITY;
  return 0.5 * n * (Math.log(dof / rss) - LOG_2PI) - 0.5 * dof;
}

/** The maximised log likelihood ℓ_max = −(N/2)(log(2π RSS/N) + 1) (τ = N/RSS); −Infinity for RSS ≤ 0. */
export function maxLogLikelihood(n: number, rss: number): number {
  if (!(rss > 0)) return Number.NEGATIVE_INFINITY;
  return -0.5 * n * (LOG_2PI + Math.log(rss / n) + 1);
}

/** Schwarz's criterion as a score: ℓ_max − ((k + 1)/2) log N (k weights and the noise precision). */
export function bicScore(n: number, rss: number, k: number): number {
  return maxLogLikelihood(n, rss) - 0.5 * (k + 1) * Math.log(n);
}

/** Akaike's final prediction error, negated so that higher is better: −(N + k)/(N − k) · RSS/N. */
export function fpeScore(n: number, rss: number, k: number): number {
  if (!(n - k > 0 && rss >= 0)) return Number.NEGATIVE_INFINITY;
  return (-(n + k) / (n - k)) * (rss / n);
}

/** Options of {@link fitLinearMl}. */
export interface LinearMlOptions {
  /** The n × p design, row-major (no column of ones is added). */
  X: ArrayLike<number>;
  /** The n responses. */
  y: ArrayLike<number>;
  /** Number of observations N. */
  n: number;
  /** Number of columns of X. */
  p: number;
  /**
   * The columns to fit (distinct indices in [0, p)).
   * @defaultValue all p columns
   */
  columns?: ArrayLike<number>;
  /**
   * The amount ρ ≥ 0 added to the diagonal of X_SᵀX_S.
   * @defaultValue 0 (pure maximum likelihood)
   */
  rho?: number;
}

/** A fitted (regularised) maximum-likelihood linear model. */
export interface LinearMlFit {
  /** The columns fitted, as given. */
  readonly columns: Int32Array;
  /** The weights w_ρ, one per fitted column. */
  readonly weights: Float64Array;
  readonly rho: number;
  /** The residual sum of squares ‖y − X_S w_ρ‖². */
  readonly rss: number;
  /** γ_eff = Σ λ_j/(λ_j + ρ) (eq. 6.14). */
  readonly effectiveParameters: number;
  /** The unbiased noise variance RSS/(N − γ_eff) = 1/τ̂ (NaN when N − γ_eff ≤ 0). */
  readonly noiseVariance: number;
  /** ℓ at τ̂ (the thesis's "log like."). */
  readonly logLikelihood: number;
  /** ℓ_max at τ = N/RSS. */
  readonly maxLogLikelihood: number;
}

function checkData(
  where: string,
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
): { X: Float64Array; y: Float64Array } {
  if (!(Number.isInteger(n) && n >= 1))
    throw invalidArgument(where, `n must be a positive integer, got ${n}.`);
  if (!(Number.isInteger(p) && p >= 0))
    throw invalidArgument(where, `p must be a non-negative integer, got ${p}.`);
  if (X === null || typeof X !== "object" || X.length !== n * p) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: X must have n·p = ${n * p} entries (row-major), got ${X?.length}.`,
    );
  }
  if (y === null || typeof y !== "object" || y.length !== n) {
    throw new OccamError("dimension-mismatch", `${where}: y must have n = ${n} entries, got ${y?.length}.`);
  }
  const Xf = Float64Array.from(X);
  const yf = Float64Array.from(y);
  for (let i = 0; i < Xf.length; i++) {
    if (!Number.isFinite(Xf[i])) {
      throw new OccamError(
        "invalid-data",
        `${where}: X[${Math.floor(i / p)}][${i % p}] is ${Xf[i]}; every value must be finite.`,
      );
    }
  }
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(yf[i])) {
      throw new OccamError("invalid-data", `${where}: y[${i}] is ${yf[i]}; every value must be finite.`);
    }
  }
  return { X: Xf, y: yf };
}

function checkRho(where: string, rho: number): void {
  if (!(Number.isFinite(rho) && rho >= 0))
    throw invalidArgument(where, `rho must be finite and ≥ 0, got ${rho}.`);
}

/**
 * Fits w_ρ = (X_SᵀX_S + ρI)⁻¹X_Sᵀy by a Cholesky factorisation, with the residual sum of squares
 * computed from the residuals (no cancellation), γ_eff = k − ρ tr((X_SᵀX_S + ρI)⁻¹) and both log
 * likelihoods. Throws an `OccamError` for bad data or columns, and a `not-positive-definite` one when
 * X_SᵀX_S + ρI is singular (k > N or collinear columns at ρ = 0: give ρ > 0).
 *
 * @example
 * const fit = fitLinearMl({ X, y, n: 20, p: 10, columns: [0, 1, 2] });
 * fit.weights; fit.noiseVariance; fit.logLikelihood;
 */
export function fitLinearMl(options: LinearMlOptions): LinearMlFit {
  const where = "fitLinearMl";
  if (options === null || typeof options !== "object")
    throw invalidArgument(where, "options { X, y, n, p } are required.");
  const { n, p } = options;
  const { X, y } = checkData(where, options.X, options.y, n, p);
  const rho = options.rho ?? 0;
  checkRho(where, rho);
  const columns = Int32Array.from(options.columns ?? Array.from({ length: p }, (_, j) => j));
  const seen = new Set<number>();
  for (const j of columns) {
    if (!(Number.isInteger(j) && j >= 0 && j < p))
      throw invalidArgument(where, `column ${j} is not in [0, ${p}).`);
    if (seen.has(j)) throw invalidArgument(where, `column ${j} is listed twice.`);
    seen.add(j);
  }
  const k = columns.length;
  const weights = new Float64Array(k);
  let gamma = 0;
  if (k > 0) {
    const A = new Float64Array(k * k);
    const b = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      const row = i * p;
      for (let a = 0; a < k; a++) {
        const xa = X[row + columns[a]];
        b[a] += xa * y[i];
        for (let c = 0; c <= a; c++) A[a * k + c] += xa * X[row + columns[c]];
      }
    }
    for (let a = 0; a < k; a++) {
      A[a * k + a] += rho;
      for (let c = 0; c < a; c++) A[c * k + a] = A[a * k + c];
    }
    let L: Float64Array;
    try {
      L = cholesky(A, k);
    } catch (error) {
      if (error instanceof OccamError) {
        throw new OccamError(
          "not-positive-definite",
          `${where}: X_SᵀX_S + ρI is singular for columns [${Array.from(columns).join(", ")}] at ρ = ${rho} ` +
            `(${k} columns, ${n} observations, or collinear columns); give rho > 0 or fewer columns.`,
        );
      }
      throw error;
    }
    solveLower(L, k, b, weights);
    solveLowerTranspose(L, k, weights, weights);
    // tr(A⁻¹) = ‖L⁻¹‖²_F, column by column of L⁻¹ (e_j solved forward).
    if (rho > 0) {
      const e = new Float64Array(k);
      let trace = 0;
      for (let j = 0; j < k; j++) {
        e.fill(0);
        e[j] = 1;
        solveLower(L, k, e, e);
        for (let a = j; a < k; a++) trace += e[a] * e[a];
      }
      gamma = k - rho * trace;
    } else gamma = k;
  }
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let r = y[i];
    for (let a = 0; a < k; a++) r -= X[i * p + columns[a]] * weights[a];
    rss += r * r;
  }
  const dof = n - gamma;
  return Object.freeze({
    columns,
    weights,
    rho,
    rss,
    effectiveParameters: gamma,
    noiseVariance: dof > 0 ? rss / dof : Number.NaN,
    logLikelihood: unbiasedLogLikelihood(n, rss, gamma),
    maxLogLikelihood: maxLogLikelihood(n, rss),
  });
}

/** Options of {@link scoreMlSubsets}. */
export interface MlSubsetsOptions {
  /** The n × p candidate inputs, row-major (no column of ones is added). */
  X: ArrayLike<number>;
  /** The n responses. */
  y: ArrayLike<number>;
  /** Number of observations N. */
  n: number;
  /** Number of candidate inputs p (at most 25: all 2^p subsets are scored). */
  p: number;
  /**
   * The grid of ρ ≥ 0 over which the regularised criteria maximise ℓ (strictly increasing).
   * @defaultValue {@link defaultRhoGrid} (0 and 10⁻⁶ … 10² in quarter decades)
   */
  rhoGrid?: ArrayLike<number>;
}

/** Every subset's score by every criterion; arrays are indexed by the subset's bitmask (bit j: input j). */
export interface MlSubsetScores {
  readonly p: number;
  readonly n: number;
  /** 2^p. */
  readonly count: number;
  /** |S| of each subset. */
  readonly sizes: Uint8Array;
  /** RSS of the pure ML fit (NaN where it cannot be fitted). */
  readonly rss: Float64Array;
  /** The ρ grid used. */
  readonly rhoGrid: Float64Array;
  /** ℓ(ρ) of subset `mask` at grid point r: `logLikelihoodByRho[r][mask]`. */
  readonly logLikelihoodByRho: readonly Float64Array[];
  /** The ρ the regularised criteria chose for each subset (the grid point maximising ℓ). */
  readonly rho: Float64Array;
  /** Scores by criterion (higher is better; −Infinity where the subset cannot be fitted). */
  readonly scores: Readonly<Record<MlCriterion, Float64Array>>;
}

/**
 * Scores every subset of the p inputs by every {@link MlCriterion}, through the shared subset
 * enumerator ({@link enumerateSubsets}) over G = XᵀX + ρI, c = Xᵀy, one enumeration per grid ρ. With
 * the factor L of G_SS (in the view) and u = L⁻¹c_S: c_SᵀG_SS⁻¹c_S = ‖u‖², w = L⁻ᵀu, and
 *   RSS(ρ) = yᵀy − 2wᵀc_S + wᵀ(G_SS − ρI)w = yᵀy − ‖u‖² − ρ‖w‖²,
 *   γ_eff(ρ) = k − ρ tr(G_SS⁻¹) = k − ρ ‖L⁻¹‖²_F.
 * Each subset costs O(k²) at ρ = 0 and O(k³) at ρ > 0. RSS loses about log₁₀(yᵀy/RSS) digits to
 * cancellation (10⁻¹³ relative here); a result ≤ 0 is reported as unfittable (−Infinity scores).
 *
 * @example
 * const s = scoreMlSubsets({ X, y, n: 20, p: 10 });
 * selectMl(s, "penalised"); // the best subset by the thesis's penalised likelihood
 */
export function scoreMlSubsets(options: MlSubsetsOptions): MlSubsetScores {
  const where = "scoreMlSubsets";
  if (options === null || typeof options !== "object")
    throw invalidArgument(where, "options { X, y, n, p } are required.");
  const { n, p } = options;
  if (!(Number.isInteger(p) && p >= 1 && p <= 25)) {
    throw invalidArgument(where, `p must be an integer in [1, 25] (all 2^p subsets are scored), got ${p}.`);
  }
  const { X, y } = checkData(where, options.X, options.y, n, p);
  const rhoGrid = options.rhoGrid === undefined ? defaultRhoGrid() : Float64Array.from(options.rhoGrid);
  if (rhoGrid.length < 1) throw invalidArgument(where, "rhoGrid must hold at least one value.");
  for (let r = 0; r < rhoGrid.length; r++) {
    checkRho(where, rhoGrid[r]);
    if (r > 0 && !(rhoGrid[r] > rhoGrid[r - 1])) {
      throw invalidArgument(where, `rhoGrid must increase strictly; entry ${r} (${rhoGrid[r]}) does not.`);
    }
  }
  const { gram, rhs, yy } = sufficientStatistics(X, y, n, p);

  const count = 2 ** p;
  const sizes = new Uint8Array(count);
  const rss0 = new Float64Array(count);
  const bestLogLik = new Float64Array(count).fill(Number.NEGATIVE_INFINITY);
  const bestRho = new Float64Array(count).fill(Number.NaN);
  const logLikelihoodByRho: Float64Array[] = [];
  // Scratch of the visitor (no allocation per subset).
  const w = new Float64Array(p);
  const e = new Float64Array(p);
  const shifted = new Float64Array(p * p);
  for (let r = 0; r < rhoGrid.length; r++) {
    const rho = rhoGrid[r];
    shifted.set(gram);
    for (let a = 0; a < p; a++) shifted[a * p + a] += rho;
    const system: SubsetSystem = { p, fixed: 0, gram: shifted, rhs };
    const table = new Float64Array(count);
    const visit = (view: SubsetView): void => {
      const { mask, size: k, factor: L, solved: u, stride } = view;
      let rss: number;
      let gamma = k;
      if (Number.isNaN(view.quad)) rss = Number.NaN;
      else if (rho === 0) rss = yy - view.quad;
      else {
        rss = yy - view.quad - rho * weightNormSquared(L, u, k, stride, w);
        gamma = k - rho * inverseFactorTrace(L, k, stride, e);
      }
      const ell = rss > 0 ? unbiasedLogLikelihood(n, rss, gamma) : Number.NEGATIVE_INFINITY;
      table[mask] = ell;
      sizes[mask] = k;
      if (rho === 0) rss0[mask] = rss > 0 ? rss : Number.NaN;
      if (ell > bestLogLik[mask]) {
        bestLogLik[mask] = ell;
        bestRho[mask] = rho;
      }
    };
    enumerateSubsets(system, { singular: "nan" }, visit);
    logLikelihoodByRho.push(table);
  }
  if (rhoGrid[0] !== 0) {
    // Pure ML still needs RSS at ρ = 0.
    const system: SubsetSystem = { p, fixed: 0, gram, rhs };
    enumerateSubsets(system, { singular: "nan" }, (view) => {
      const rss = yy - view.quad;
      rss0[view.mask] = rss > 0 ? rss : Number.NaN;
    });
  }
  const ml = new Float64Array(count);
  const penalised = new Float64Array(count);
  const regularised = new Float64Array(count);
  const penalisedRegularised = new Float64Array(count);
  const bic = new Float64Array(count);
  const fpe = new Float64Array(count);
  for (let mask = 0; mask < count; mask++) {
    const k = sizes[mask];
    const rss = rss0[mask];
    const fittable = rss > 0; // NaN (singular) fails too
    ml[mask] = fittable ? unbiasedLogLikelihood(n, rss, k) : Number.NEGATIVE_INFINITY;
    penalised[mask] = ml[mask] - (k + 1);
    regularised[mask] = bestLogLik[mask];
    penalisedRegularised[mask] = bestLogLik[mask] - (k + 1);
    bic[mask] = fittable ? bicScore(n, rss, k) : Number.NEGATIVE_INFINITY;
    fpe[mask] = fittable ? fpeScore(n, rss, k) : Number.NEGATIVE_INFINITY;
  }
  return Object.freeze({
    p,
    n,
    count,
    sizes,
    rss: rss0,
    rhoGrid,
    logLikelihoodByRho,
    rho: bestRho,
    scores: Object.freeze({
      ml,
      regularised,
      penalised,
      "penalised-regularised": penalisedRegularised,
      bic,
      fpe,
    }),
  });
}

/** XᵀX, Xᵀy and yᵀy of n rows of p inputs (O(np²), once). */
function sufficientStatistics(X: Float64Array, y: Float64Array, n: number, p: number) {
  const gram = new Float64Array(p * p);
  const rhs = new Float64Array(p);
  let yy = 0;
  for (let i = 0; i < n; i++) {
    const row = i * p;
    yy += y[i] * y[i];
    for (let a = 0; a < p; a++) {
      const xa = X[row + a];
      rhs[a] += xa * y[i];
      for (let c = 0; c <= a; c++) gram[a * p + c] += xa * X[row + c];
    }
  }
  for (let a = 0; a < p; a++) for (let c = 0; c < a; c++) gram[c * p + a] = gram[a * p + c];
  return { gram, rhs, yy };
}

/** ‖w‖² for w = L⁻ᵀu (back substitution into `w`), L the k × k factor stored with row stride `stride`. */
function weightNormSquared(
  L: Float64Array,
  u: Float64Array,
  k: number,
  stride: number,
  w: Float64Array,
): number {
  let ww = 0;
  for (let i = k - 1; i >= 0; i--) {
    let s = u[i];
    for (let j = i + 1; j < k; j++) s -= L[j * stride + i] * w[j];
    w[i] = s / L[i * stride + i];
    ww += w[i] * w[i];
  }
  return ww;
}

/** tr(G⁻¹) = Σ_j ‖L⁻¹e_j‖² (forward substitutions into the scratch `e`), G = LLᵀ of size k. */
function inverseFactorTrace(L: Float64Array, k: number, stride: number, e: Float64Array): number {
  let trace = 0;
  for (let j = 0; j < k; j++) {
    for (let i = j; i < k; i++) {
      let s = i === j ? 1 : 0;
      for (let l = j; l < i; l++) s -= L[i * stride + l] * e[l];
      e[i] = s / L[i * stride + i];
      trace += e[i] * e[i];
    }
  }
  return trace;
}

/** The subset a criterion selects. */
export interface MlSelection {
  readonly criterion: MlCriterion;
  /** The subset's bitmask (bit j: input j). */
  readonly mask: number;
  /** Its members, ascending. */
  readonly members: Int32Array;
  readonly score: number;
  /** The ρ of the fit: the chosen grid point for the regularised criteria, else 0. */
  readonly rho: number;
}

/** The bitmasks of the nested models "the first k inputs", k = 1 … p (the thesis's family, §6.2.4). */
export function nestedMasks(p: number): Uint32Array {
  if (!(Number.isInteger(p) && p >= 1 && p <= 31)) {
    throw invalidArgument("nestedMasks", `p must be an integer in [1, 31], got ${p}.`);
  }
  const out = new Uint32Array(p);
  for (let k = 1; k <= p; k++) out[k - 1] = (2 ** k - 1) >>> 0;
  return out;
}

/** The members (ascending) of the subset with this bitmask. */
export function maskMembers(mask: number): Int32Array {
  const out: number[] = [];
  for (let j = 0; j < 31; j++) if (mask & (1 << j)) out.push(j);
  return Int32Array.from(out);
}

/**
 * The best subset by `criterion`, among `candidates` (bitmasks; e.g. {@link nestedMasks}) or among
 * all subsets. Ties go to the smaller mask. Throws an `OccamError` when no candidate can be fitted.
 */
export function selectMl(
  scores: MlSubsetScores,
  criterion: MlCriterion,
  candidates?: ArrayLike<number>,
): MlSelection {
  const where = "selectMl";
  const table = scores?.scores?.[criterion];
  if (table === undefined) {
    throw invalidArgument(
      where,
      `criterion must be one of ${ML_CRITERIA.join(", ")}, got ${String(criterion)}.`,
    );
  }
  let best = -1;
  let bestScore = Number.NEGATIVE_INFINITY;
  const consider = (mask: number): void => {
    if (!(Number.isInteger(mask) && mask >= 0 && mask < scores.count)) {
      throw invalidArgument(where, `candidate ${mask} is not a subset mask of ${scores.p} inputs.`);
    }
    if (table[mask] > bestScore) {
      bestScore = table[mask];
      best = mask;
    }
  };
  if (candidates === undefined) for (let m = 0; m < scores.count; m++) consider(m);
  else for (let i = 0; i < candidates.length; i++) consider(candidates[i]);
  if (best < 0) {
    throw new OccamError(
      "non-finite",
      `${where}: no candidate subset can be fitted by ${criterion} (each has k ≥ N or collinear inputs).`,
    );
  }
  const regular = criterion === "regularised" || criterion === "penalised-regularised";
  return Object.freeze({
    criterion,
    mask: best,
    members: maskMembers(best),
    score: bestScore,
    rho: regular ? scores.rho[best] : 0,
  });
}
