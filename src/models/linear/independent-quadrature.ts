/**
 * The exact log evidence of the independent-precision linear regression (`independentPrecisionRegression`,
 * thesis §6.2.3) by quadrature over its two precisions: the reference its sampled evidences are
 * checked against.
 */

import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { symmetricEigen } from "../../math/linalg.js";
import { gammaln } from "../../math/stdlib.js";

/** The hyperparameters of the independent-precision model (Gamma shapes and scales). */
export interface IndependentPrior {
  readonly alpha: number;
  readonly beta: number;
  readonly alphaW: number;
  readonly betaW: number;
}

/**
 * The log evidence of the independent-precision model (thesis §6.2.3) by trapezoid quadrature over
 * (s, s_w) = (log τ, log τ_w) on [−30, 20] × [−100, 20], the weights integrated out in closed form:
 * ∫ N(w | 0, τ_w⁻¹I) N(y | Xw, τ⁻¹I) dw = N(y | 0, τ⁻¹I + τ_w⁻¹XXᵀ), through XᵀX = QΛQᵀ and u = QᵀXᵀy:
 *   log|I + (τ/τ_w)XXᵀ| = Σ log(1 + λ_j/r),  yᵀΣ⁻¹y = τ(yᵀy − Σ u_j²/(λ_j + r)),  r = τ_w/τ,
 * times the Gamma(shape, scale) priors of τ and τ_w with the Jacobians of the log transforms. The
 * integrand is smooth and decays on every side of the grid (checked: an `internal` OccamError
 * otherwise), so the rule converges geometrically; `error` is |estimate(h) − estimate(2h)|.
 */
export function independentPrecisionQuadrature(
  X: Float64Array,
  y: Float64Array,
  n: number,
  p: number,
  prior: IndependentPrior,
  step = 0.1,
): { logZ: number; error: number } {
  const XtX = new Float64Array(p * p);
  const Xty = new Float64Array(p);
  let yty = 0;
  for (let i = 0; i < n; i++) {
    yty += y[i] * y[i];
    for (let j = 0; j < p; j++) {
      Xty[j] += X[i * p + j] * y[i];
      for (let k = 0; k <= j; k++) XtX[j * p + k] += X[i * p + j] * X[i * p + k];
    }
  }
  for (let j = 0; j < p; j++) for (let k = 0; k < j; k++) XtX[k * p + j] = XtX[j * p + k];
  const { values: lam, vectors: Q } = symmetricEigen(XtX, p);
  const u2 = new Float64Array(p);
  for (let k = 0; k < p; k++) {
    let s = 0;
    for (let j = 0; j < p; j++) s += Q[j * p + k] * Xty[j];
    u2[k] = s * s;
  }
  const constant =
    -0.5 * n * LOG_2PI -
    prior.alpha * Math.log(prior.beta) -
    gammaln(prior.alpha) -
    prior.alphaW * Math.log(prior.betaW) -
    gammaln(prior.alphaW);
  const run = (h: number): number => {
    const ns = Math.round(50 / h);
    const nw = Math.round(120 / h);
    const values = new Float64Array((ns + 1) * (nw + 1));
    let max = Number.NEGATIVE_INFINITY;
    let edge = Number.NEGATIVE_INFINITY;
    for (let a = 0; a <= ns; a++) {
      const s = -30 + a * h;
      const tau = Math.exp(s);
      for (let b = 0; b <= nw; b++) {
        const sw = -100 + b * h;
        const tauW = Math.exp(sw);
        const r = tauW / tau;
        let logDet = 0;
        let q = 0;
        for (let k = 0; k < p; k++) {
          logDet += Math.log1p(lam[k] / r);
          q += u2[k] / (lam[k] + r);
        }
        const v =
          constant +
          0.5 * n * s -
          0.5 * logDet -
          0.5 * tau * Math.max(0, yty - q) +
          prior.alpha * s -
          tau / prior.beta +
          prior.alphaW * sw -
          tauW / prior.betaW;
        values[a * (nw + 1) + b] = v;
        if (v > max) max = v;
        if (a === 0 || b === 0 || a === ns || b === nw) edge = Math.max(edge, v);
      }
    }
    if (!(edge - max < -30)) {
      throw new OccamError(
        "internal",
        `independentPrecisionQuadrature: the integrand is not negligible at the grid's edge (${edge - max} nats below its maximum).`,
      );
    }
    let z = 0;
    for (let i = 0; i < values.length; i++) z += Math.exp(values[i] - max);
    return max + Math.log(z * h * h);
  };
  const fine = run(step);
  return { logZ: fine, error: Math.abs(fine - run(2 * step)) };
}
