/**
 * Tables of the mixture-of-g-priors Bayes factor J(x) = J₀(x) of `g-mixture.ts` (x = R²) for one (π, n, k),
 * so that scoring one of 2^p subsets costs a look-up instead of a quadrature (and its shrinkage moments
 * two more, see {@link gMixtureScorer}).
 *
 * Panels are uniform in t = −log(1 − x), of width δ_t = min(Z/b, 0.1) (b = (n − 1)/2): since J′/J =
 * b E[g/(1+gc)] ≤ b/c (c = 1 − x), J grows by at most a factor of about e^Z across a panel. On a panel [x₀, x₁] of
 * width δ, J is its Taylor polynomial of degree Q about x₀: with H = g/(1 + g c₀) and s = (x − x₀)/δ,
 *   (1 + g c)^(−b) = (1 + g c₀)^(−b) (1 − H δ s)^(−b) = (1 + g c₀)^(−b) Σ_q (b)_q/q! (H δ s)^q,
 * so the coefficients A_q = (b)_q/q! δ^q ∫ (1+g)^a (1+gc₀)^(−b) H^q π(g) dg all come from one
 * pass of a vector quadrature whose integrands share everything but the power of H, and a value is a
 * Horner sum of positive terms (no cancellation).
 *
 * The error bound is proven, not estimated: J is absolutely monotone (each derivative is the integral of
 * a positive function), so Taylor's remainder is at most J^(Q+1)(x₁) δ^(Q+1)/(Q+1)!, which the same
 * quadrature computes as one more integrand, and J ≥ J(x₀) = A₀ on the panel; the relative error of J,
 * hence the absolute error of log J, is at most that remainder over A₀ plus the quadrature's own error
 * estimate of the coefficients (relative to A₀). A panel whose bound exceeds MAX_TABLE_ERROR (or ten times
 * the integrand's rounding error, when n is so large that this is more) is not used:
 * its points are integrated directly.
 *
 * Panels are built at their first request: a build costs one to two direct quadratures (one pass of the
 * vector quadrature for all coefficients), so even subsets spread thinly over many panels (very large n)
 * cost little more than direct quadrature, and dense ones (2^20 subsets) build each panel once.
 */

import { SQRT_2PI } from "../../math/constants.js";
import { softplus } from "../../math/logspace.js";
import { adaptiveGaussKronrodVector, peakPanelBreaks } from "../../math/quadrature.js";
import {
  type GMixingDensity,
  GMixtureIntegrand,
  gMixtureLogIntegral,
  gShrinkageQuantiles,
  locatePeak,
} from "./g-mixture.js";
import type { GPriorScorer } from "./g-prior.js";

/** Degree Q of the Taylor polynomial on each panel. */
const DEGREE = 35;
/** J changes by at most about e^PANEL_NATS across a panel. */
const PANEL_NATS = 5;
/**
 * The widest panel in t. The Taylor series in s is a negative-binomial series with ratio Hδ ≤ 1 − e^(−δ_t),
 * which converges slowly when b is small and δ_t = Z/b wide; this caps the ratio at about 0.1.
 */
const MAX_PANEL_WIDTH = 0.1;
/** Accuracy asked of the coefficients, relative to A₀. */
const COEFFICIENT_TOL = 1e-11;
/** A panel whose proven error bound is above this is integrated point by point instead. */
const MAX_TABLE_ERROR = 1e-10;
interface Panel {
  readonly x0: number;
  readonly width: number;
  /** log of the scale of the coefficients: J(x) = e^logScale Σ_q A_q s^q. */
  readonly logScale: number;
  /** A_q, or null: integrate directly. */
  readonly coefficients: Float64Array | null;
  /** The proven bound on the absolute error of log J on the panel. */
  readonly error: number;
}

/** What a family's tables have done; shared by the tables of one family. */
export interface GTableStats {
  /** Panels tabulated. */
  panels: number;
  /** Values integrated directly (a panel whose bound was too loose, or moments where k + 4 > n − 1). */
  directEvaluations: number;
  /** The largest error bound (tabulated) or quadrature error estimate (direct) of any value returned. */
  maxError: number;
  /**
   * The panels tabulated, each as k · 2^32 + j (table k, panel j), when kept: so that the tables of one
   * family built apart (on several threads) count each panel once.
   */
  readonly builtPanels?: Set<number>;
}

/** Fresh {@link GTableStats}: nothing done yet. */
export function newTableStats(): GTableStats {
  return { panels: 0, directEvaluations: 0, maxError: 0, builtPanels: new Set() };
}

/** log J₀(x) for one (π, n, k), tabulated on demand (see the module comment). */
class GMixtureTable {
  /** Panels by index j (a sparse array: with n in the millions only the panels requested exist). */
  private readonly panels: (Panel | undefined)[] = [];
  private readonly width: number;

  constructor(
    private readonly mix: GMixingDensity,
    private readonly n: number,
    private readonly k: number,
    private readonly stats: GTableStats,
  ) {
    this.width = Math.min(PANEL_NATS / (0.5 * (n - 1)), MAX_PANEL_WIDTH);
  }

  /** log J₀(x) for x = R² in [0, 1). */
  logValue(x: number): number {
    const j = Math.floor(-Math.log1p(-x) / this.width);
    let panel = this.panels[j];
    if (panel === undefined) {
      panel = this.build(j);
      this.panels[j] = panel;
    }
    return this.evaluate(panel, x);
  }

  private direct(x: number): number {
    const r = gMixtureLogIntegral(this.mix, x, this.n, this.k, 0, 0, 1e-12);
    this.stats.directEvaluations++;
    if (r.error > this.stats.maxError) this.stats.maxError = r.error;
    return r.logValue;
  }

  private evaluate(panel: Panel, x: number): number {
    const c = panel.coefficients;
    if (c === null) return this.direct(x);
    if (panel.error > this.stats.maxError) this.stats.maxError = panel.error;
    const s = (x - panel.x0) / panel.width;
    let sum = c[DEGREE];
    for (let q = DEGREE - 1; q >= 0; q--) sum = sum * s + c[q];
    return panel.logScale + Math.log(sum);
  }

  private build(j: number): Panel {
    const { mix, n, k } = this;
    this.stats.panels++;
    this.stats.builtPanels?.add(k * 2 ** 32 + j);
    const x0 = -Math.expm1(-j * this.width);
    const x1 = -Math.expm1(-(j + 1) * this.width);
    const delta = x1 - x0;
    const left = new GMixtureIntegrand(mix, x0, n, k, 0, 0);
    const right = new GMixtureIntegrand(mix, x1, n, k, 0, DEGREE + 1);
    const a = locatePeak(left);
    const b = locatePeak(right);
    const shift = a.peak;
    const half = 0.5 * (n - 1);
    const lc1 = right.lc;
    const logDelta = Math.log(delta);
    // ratio[q] = (b + q − 1)/q, so (b)_q/q! = Π ratio; the remainder's constant (b)_(Q+1)/(Q+1)! likewise.
    const ratio = new Float64Array(DEGREE + 2);
    let logRemainderConstant = 0;
    for (let q = 1; q <= DEGREE + 1; q++) {
      ratio[q] = (half + q - 1) / q;
      logRemainderConstant += Math.log(ratio[q]);
    }
    const dim = DEGREE + 2;
    const h = (u: number, out: Float64Array): void => {
      const base = left.value(u) - shift;
      const s0 = left.lastSoftplus; // sp(u + log c₀), which value() has just computed
      const w = Math.exp(base);
      const hd = Math.exp(u - s0 + logDelta);
      let t = w;
      out[0] = t;
      for (let q = 1; q <= DEGREE; q++) {
        t *= ratio[q] * hd;
        out[q] = t;
      }
      // The remainder integrand at x₁: (b)_(Q+1)/(Q+1)! (H₁δ)^(Q+1) times the integrand of J at x₁.
      const s1 = softplus(u + lc1);
      out[DEGREE + 1] = Math.exp(
        base - half * (s1 - s0) + logRemainderConstant + (DEGREE + 1) * (u - s1 + logDelta),
      );
    };
    // Weights: the coefficients' errors relative to A₀ (each enters a value with s^q ≤ 1), the
    // remainder's relative to itself at 1e-9 (it only needs a few digits). Initial sizes from the peaks.
    const sizeA = SQRT_2PI / Math.sqrt(Math.max(-left.curvature(a.mode), 1e-300));
    const sizeB =
      Math.exp(b.peak - shift) * (SQRT_2PI / Math.sqrt(Math.max(-right.curvature(b.mode), 1e-300)));
    const weights = new Float64Array(dim).fill(1 / sizeA);
    weights[DEGREE + 1] = 1e-9 / sizeB;
    const lo = Math.min(a.left, b.left);
    const hi = Math.max(a.right, b.right);
    // One set of panel ends about the two peaks (the integrands at x₀ and x₁ peak close together): the
    // union of a set about each made twice the panels the quadrature needed, and the panels' cost is
    // most of a build. Bisection refines wherever the integrands need it.
    const widthA = 1 / Math.sqrt(Math.max(-left.curvature(a.mode), 1e-300));
    const widthB = 1 / Math.sqrt(Math.max(-right.curvature(b.mode), 1e-300));
    const breaks = peakPanelBreaks(lo, hi, 0.5 * (a.mode + b.mode), 2 * Math.min(widthA, widthB));
    const integral = new Float64Array(dim);
    // With n in the hundreds of thousands the integrand's own rounding exceeds COEFFICIENT_TOL: ask for
    // no more than that (as a direct quadrature does), or the quadrature bisects to its panel limit.
    const floor = left.roundingFloor(a.peak);
    const tol = Math.max(COEFFICIENT_TOL, floor);
    const weightedError = adaptiveGaussKronrodVector(h, dim, breaks, weights, tol, integral);
    const a0 = integral[0];
    const remainder = integral[DEGREE + 1] * (1 + 3e-3);
    const relative = remainder / a0 + (weightedError * sizeA) / a0;
    const error = relative >= 0 && relative < 0.5 ? -Math.log1p(-relative) : Number.POSITIVE_INFINITY;
    const coefficients =
      error <= Math.max(MAX_TABLE_ERROR, 10 * floor) ? integral.slice(0, DEGREE + 1) : null;
    return { x0, width: delta, logScale: shift, coefficients, error };
  }
}

/**
 * Nodes of the posterior of g in a mixture of g-priors' predictive: 16 equal-weight quantiles of the
 * shrinkage factor put the predictive's 90 % interval within a thousandth of its width of the integral
 * over g (checked against quadrature in the tests).
 */
export const PREDICTIVE_SHRINKAGE_NODES = 16;

/**
 * A {@link GPriorScorer} for a mixture of g-priors over tables of J₀, one per number of columns k (made
 * on first use): log BF = log J₀(x; k). The shrinkage moments need no tables of their own: with
 * a = (n − 1 − k)/2, J₀(x; k + 2) has (1 + g)^(a − 1), so s = g/(1 + g) = 1 − 1/(1 + g) gives
 *   E[s | y] = 1 − J₀(x; k + 2)/J₀(x; k),   E[s² | y] = 1 − 2 J₀(x; k + 2)/J₀(x; k) + J₀(x; k + 4)/J₀(x; k),
 * from the tables the enumeration of larger subsets builds anyway. Where k + 4 > n − 1 the tail bounds of
 * J₀(x; k + 4) do not hold, and J₁, J₂ are integrated directly.
 */
export function gMixtureScorer(mix: GMixingDensity, n: number, stats: GTableStats): GPriorScorer {
  const tables: GMixtureTable[] = [];
  const table = (k: number): GMixtureTable => {
    let t = tables[k];
    if (t === undefined) {
      t = new GMixtureTable(mix, n, k, stats);
      tables[k] = t;
    }
    return t;
  };
  return {
    logBayesFactor: (r2, k) => (k === 0 ? 0 : table(k).logValue(r2)),
    // Without columns the shrinkage multiplies nothing.
    shrinkageNodes: (r2, k) =>
      k === 0 ? Float64Array.of(0) : gShrinkageQuantiles(mix, r2, n, k, PREDICTIVE_SHRINKAGE_NODES),
    shrinkage(r2, k, out) {
      const log0 = table(k).logValue(r2);
      if (n - 1 - (k + 4) >= 0) {
        const inverse = Math.exp(table(k + 2).logValue(r2) - log0); // E[1/(1 + g) | y]
        const inverseSquare = Math.exp(table(k + 4).logValue(r2) - log0); // E[1/(1 + g)² | y]
        out[0] = 1 - inverse;
        out[1] = 1 - 2 * inverse + inverseSquare;
        return;
      }
      for (const m of [1, 2]) {
        const r = gMixtureLogIntegral(mix, r2, n, k, m, 0, 1e-12);
        stats.directEvaluations++;
        if (r.error > stats.maxError) stats.maxError = r.error;
        out[m - 1] = Math.exp(r.logValue - log0);
      }
    },
  };
}
