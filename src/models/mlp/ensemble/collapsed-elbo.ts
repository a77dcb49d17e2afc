/**
 * The ensemble's ELBO collapsed over q(τ) and q(α_k) (each at its optimal Gamma form given q(w)), and
 * the choice of the scale of q(w) that the refinement starts from.
 */

import { gammaLogNormaliser } from "../../../distributions/gamma.js";
import { OccamError } from "../../../errors.js";
import { LOG_2PI } from "../../../math/constants.js";
import { lowerTriMatVec } from "../../../math/linalg.js";
import { gammaln } from "../../../math/stdlib.js";
import type { Rng } from "../../../random/rng.js";
import type { BayesianMlp } from "../bayesian.js";
import { mlpSymmetryLogFactor } from "../evidence-framework.js";
import { GROUP_COUNT } from "../network.js";
import { nValuesOf } from "./appendix-c.js";

/** Antithetic pairs used to choose the starting scale c, and the grid c = 2^(−j/2), j = 0…24. */
const SCALE_PAIRS = 32;
const SCALE_GRID = 25;

/**
 * The ELBO of q(w) with q(τ) and q(α_k) at their optimal Gamma forms given q(w):
 * const − a_τ log(r + ½ E_q[S]) − Σ_k a_k log(r_k + ½ E_q‖w_k‖²) + Σ_i log C_ii (the symmetry term
 * log(H! 2^H) included in the constant), with the shapes and rates it needs.
 */
export interface CollapsedElbo {
  /** a_τ = s + N·O/2, the shape of q(τ). */
  readonly aTau: number;
  /** a_k = s_k + W_k/2, the shapes of q(α_k) in layout order. */
  readonly aK: readonly number[];
  /** r_k, the prior rates of the α_k. */
  readonly rK: readonly number[];
  /** The group of each weight (index into the groups, length W). */
  readonly groupOf: Int32Array;
  /** The collapsed ELBO given E_q[S], the groups' E_q‖w_k‖² and Σ log C_ii. */
  value(expectedS: number, sq: Float64Array, logDetC: number): number;
}

/** The collapsed ELBO of `model` (see {@link CollapsedElbo}), its constant computed once. */
export function collapsedElbo(model: BayesianMlp): CollapsedElbo {
  const { network, weightCount: W, noisePrior, groupPriors } = model;
  const groups = network.groups;
  const nValues = nValuesOf(model);
  const aTau = noisePrior.shape + 0.5 * nValues;
  const aK = groupPriors.map((g, k) => g.shape + 0.5 * groups[k].length);
  const rK = groupPriors.map((g) => g.rate);
  const groupOf = new Int32Array(W);
  for (let k = 0; k < GROUP_COUNT; k++)
    groupOf.fill(k, groups[k].offset, groups[k].offset + groups[k].length);
  let elboConst =
    -0.5 * nValues * LOG_2PI +
    noisePrior.shape * Math.log(noisePrior.rate) -
    gammaln(noisePrior.shape) +
    gammaln(aTau) +
    0.5 * W +
    mlpSymmetryLogFactor(network.hidden);
  for (let k = 0; k < GROUP_COUNT; k++) {
    const g = groupPriors[k];
    elboConst += gammaLogNormaliser(g.shape, g.rate) + gammaln(aK[k]);
  }
  const value = (expectedS: number, sq: Float64Array, logDetC: number): number => {
    let e = elboConst - aTau * Math.log(noisePrior.rate + 0.5 * expectedS) + logDetC;
    for (let k = 0; k < GROUP_COUNT; k++) e -= aK[k] * Math.log(rK[k] + 0.5 * sq[k]);
    return e;
  };
  return { aTau, aK, rK, groupOf, value };
}

/**
 * The starting scale of the refinement: C = c · C0 with c on a geometric grid c = 2^(−j/2), each
 * scored by the collapsed ELBO with E_q[S] from the same antithetic pairs (common random numbers
 * across c). Returns the best c and E_q[S] estimated at it; draws 32·W normals from `rng`. Throws an
 * `OccamError` when the ELBO is not finite at any scale.
 */
export function chooseInitialScale(
  model: BayesianMlp,
  elbo: CollapsedElbo,
  m: Float64Array,
  C0: Float64Array,
  rng: Rng,
  where: string,
): { initialScale: number; expectedS: number } {
  const { sumOfSquares: ss, weightCount: W } = model;
  const { groupOf } = elbo;
  const eps = new Float64Array(W);
  const d = new Float64Array(W);
  const wPlus = new Float64Array(W);
  const wMinus = new Float64Array(W);
  const sq = new Float64Array(GROUP_COUNT);
  const meanSq = new Float64Array(GROUP_COUNT);
  const c0Sq = new Float64Array(GROUP_COUNT);
  let logDetC0 = 0;
  for (let i = 0; i < W; i++) {
    const k = groupOf[i];
    meanSq[k] += m[i] * m[i];
    for (let j = 0; j <= i; j++) c0Sq[k] += C0[i * W + j] * C0[i * W + j];
    logDetC0 += Math.log(C0[i * W + i]);
  }
  const sAtScale = new Float64Array(SCALE_GRID);
  for (let p = 0; p < SCALE_PAIRS; p++) {
    for (let j = 0; j < W; j++) eps[j] = rng.normal();
    lowerTriMatVec(C0, W, eps, d);
    for (let g = 0; g < SCALE_GRID; g++) {
      const c = 2 ** (-g / 2);
      for (let j = 0; j < W; j++) {
        wPlus[j] = m[j] + c * d[j];
        wMinus[j] = m[j] - c * d[j];
      }
      sAtScale[g] += (ss.value(wPlus) + ss.value(wMinus)) / (2 * SCALE_PAIRS);
    }
  }
  let initialScale = 1;
  let best = Number.NEGATIVE_INFINITY;
  for (let g = 0; g < SCALE_GRID; g++) {
    const c = 2 ** (-g / 2);
    for (let k = 0; k < GROUP_COUNT; k++) sq[k] = meanSq[k] + c * c * c0Sq[k];
    const e = elbo.value(sAtScale[g], sq, logDetC0 + W * Math.log(c));
    if (e > best) {
      best = e;
      initialScale = c;
    }
  }
  if (!Number.isFinite(best)) {
    throw new OccamError(
      "non-finite",
      `${where}: the ELBO at the App. C fit is not finite at any scale; check the data (standardise them).`,
    );
  }
  return { initialScale, expectedS: sAtScale[Math.round(-2 * Math.log2(initialScale))] };
}
