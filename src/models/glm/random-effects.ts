/**
 * Generalised linear models with Gaussian random effects by group (`(1 | g)`, `(x | g)`) as a
 * {@link BayesModel}, for occam's sampled evidence estimators. Row i's linear predictor is
 * η_i = x_iᵀ(α, β) + Σ_r z_{r,i}ᵀ u_{r, g_r(i)}, where term r has d_r effects (an intercept and/or
 * slopes) per group and u_{r,j} ~ N(0, Σ_r).
 *
 * Σ_r = diag(σ) R diag(σ): each σ ~ half-Cauchy(0, 1) on the link scale, and the correlation matrix
 * R ~ LKJ(1), uniform over correlation matrices (Lewandowski, Kurowicka & Joe 2009; a single
 * correlation is uniform on (−1, 1)). The half-Cauchy is Gelman's (2006) prior for a group-level sd
 * (BayesFactor's random factors differ: InvGamma(½, r²/2) on the variance ratio, which makes one
 * group's effect Cauchy rather than its sd half-Cauchy). The link scale (log-odds, log-rate) carries no
 * unit of any input, so the prior is the same whatever units the inputs come in.
 *
 * The fixed coefficients keep the prior they have in the models without random terms: N(0, S²) each
 * (`normal`), or a mixture of g-priors on the slopes with J the slopes' information at the
 * fixed-effects fit (`g`). A g-prior's flat intercept is improper, so the model samples with a proper
 * stand-in N(0, 10²) on α, and {@link flatInterceptCorrection} turns its log evidence into the flat
 * prior's (shared by every model of a comparison).
 *
 * Parameters, on unbounded scales (non-centred: u = diag(σ) L z with L the Cholesky factor of R and
 * z ~ N(0, I), which NUTS follows where a group carries little information): α, β, then log(g − g_min)
 * (g-prior with slopes), then for each term log σ (d_r), R's canonical partial correlations as atanh
 * (d_r(d_r − 1)/2), and z (groups × d_r).
 */
import {
  correlationFactor,
  halfCauchyLogSdDensity,
  lkjLogNormalisers,
  lkjShapes,
} from "../../distributions/lkj.js";
import { OccamError } from "../../errors.js";
import { HALF_LOG_2PI, LOG_2PI } from "../../math/constants.js";
import { cholesky, logDetFromCholesky } from "../../math/linalg.js";
import type { Draws } from "../../model/draws.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import type { GlmDesign } from "./evidence.js";
import { type GlmOutcome, logLikelihoodSum, type ObservationTerms, observationTerms } from "./family.js";
import type { GMixture } from "./g-prior.js";

/** One random term's data: which group each row is in and the values its effects multiply. */
export interface RandomTermData {
  /** As written: `(1 | g)`, `(x | g)`. */
  readonly name: string;
  /** Number of groups. */
  readonly groups: number;
  /** Each row's group, 0 … groups − 1. */
  readonly codes: Int32Array;
  /** Effects per group (1 for the intercept, plus one per slope). */
  readonly effects: number;
  /** n × effects values, row-major (1 for the intercept, the standardised input for a slope). */
  readonly Z: Float64Array;
  /** The effects' names (`(intercept)`, the slopes' inputs). */
  readonly effectNames: readonly string[];
}

/** The fixed coefficients' prior (see the module header). */
export type FixedEffectsPrior =
  | { readonly name: "normal"; readonly scale: number }
  | { readonly name: "g"; readonly mixture: GMixture; readonly J: Float64Array };

/** The sd of the proper stand-in for a g-prior's flat intercept. */
const STAND_IN_SD = 10;

/** A term's place in the parameter vector and its work buffers. */
interface TermLayout {
  readonly data: RandomTermData;
  /** Index of its first log σ; its correlations follow, then z. */
  readonly start: number;
  readonly correlations: number;
  /** Each canonical partial correlation's Beta(b, b) parameter (LKJ(1)) and log normaliser. */
  readonly betaShape: Float64Array;
  readonly betaLogNorm: Float64Array;
  /** Work: σ, the correlation factor L (row-major d × d), u (groups × d), its gradient, L's gradient. */
  readonly sigma: Float64Array;
  readonly L: Float64Array;
  readonly u: Float64Array;
  readonly gradU: Float64Array;
  readonly gradL: Float64Array;
}

/** A GLM with random effects (see the module header). */
export class RandomEffectsGlm implements BayesModel {
  readonly dim: number;
  readonly names: readonly string[];
  /** Index of log(g − g_min), or −1. */
  private readonly tauIndex: number;
  private readonly layouts: TermLayout[];
  private readonly eta: Float64Array;
  private readonly gradEta: Float64Array;
  private readonly Jbeta: Float64Array;
  private readonly halfLogDetJ: number;
  private readonly terms: ObservationTerms = { logLikelihood: 0, gradient: 0, curvature: 0 };

  constructor(
    private readonly design: GlmDesign,
    private readonly outcome: GlmOutcome,
    randomTerms: readonly RandomTermData[],
    private readonly prior: FixedEffectsPrior,
    fixedNames: readonly string[],
  ) {
    const { n, k } = design;
    const p = k - 1;
    const names = ["(intercept)", ...fixedNames];
    this.tauIndex = prior.name === "g" && p > 0 ? k : -1;
    if (this.tauIndex >= 0) names.push("log(g - g_min)");
    this.layouts = randomTerms.map((data) => {
      const d = data.effects;
      const start = names.length;
      for (const e of data.effectNames) names.push(`log sd ${e} ${data.name}`);
      const shapes = lkjShapes(d);
      for (let c = 0; c < shapes.length; c++) names.push(`atanh partial correlation ${c + 1} ${data.name}`);
      for (let j = 0; j < data.groups; j++)
        for (const e of data.effectNames) names.push(`z[${j + 1}] ${e} ${data.name}`);
      return {
        data,
        start,
        correlations: shapes.length,
        betaShape: shapes,
        // Beta(b, b) on (−1, 1): density ((1 − ρ²)/4)^(b−1) / (2 B(b, b)).
        betaLogNorm: lkjLogNormalisers(shapes),
        sigma: new Float64Array(d),
        L: new Float64Array(d * d),
        u: new Float64Array(data.groups * d),
        gradU: new Float64Array(data.groups * d),
        gradL: new Float64Array(d * d),
      };
    });
    this.dim = names.length;
    this.names = names;
    this.eta = new Float64Array(n);
    this.gradEta = new Float64Array(n);
    this.Jbeta = new Float64Array(Math.max(p, 1));
    this.halfLogDetJ = prior.name === "g" && p > 0 ? 0.5 * logDetFromCholesky(cholesky(prior.J, p), p) : 0;
  }

  /** Where each random term's parameters start in θ: its log σ, then its correlations, then z by group. */
  get termStarts(): number[] {
    return this.layouts.map((t) => t.start);
  }

  /** Each term's σ, L and u = diag(σ) L z from θ. */
  private effects(theta: Float64Array): void {
    for (const t of this.layouts) {
      const d = t.data.effects;
      const { sigma, L, u } = t;
      for (let e = 0; e < d; e++) sigma[e] = Math.exp(theta[t.start + e]);
      correlationFactor(theta, t.start + d, d, L);
      const z0 = t.start + d + t.correlations;
      for (let g = 0; g < t.data.groups; g++) {
        for (let e = 0; e < d; e++) {
          let s = 0;
          for (let j = 0; j <= e; j++) s += L[e * d + j] * theta[z0 + g * d + j];
          u[g * d + e] = sigma[e] * s;
        }
      }
    }
  }

  /** The linear predictors without the offset (which the outcome adds). */
  private linearPredictors(theta: Float64Array): Float64Array {
    const { X, n, k } = this.design;
    this.effects(theta);
    const eta = this.eta;
    for (let i = 0; i < n; i++) {
      let e = 0;
      for (let a = 0; a < k; a++) e += X[i * k + a] * theta[a];
      eta[i] = e;
    }
    for (const t of this.layouts) {
      const { Z, codes, effects: d } = t.data;
      for (let i = 0; i < n; i++) {
        const g = codes[i] * d;
        for (let e = 0; e < d; e++) eta[i] += Z[i * d + e] * t.u[g + e];
      }
    }
    return eta;
  }

  logLikelihood(theta: Float64Array): number {
    return this.outcome.constant + logLikelihoodSum(this.outcome, this.linearPredictors(theta));
  }

  gradLogLikelihood(theta: Float64Array, grad: Float64Array): number {
    const { X, n, k } = this.design;
    const eta = this.linearPredictors(theta);
    const out = this.terms;
    let total = this.outcome.constant;
    grad.fill(0);
    for (let i = 0; i < n; i++) {
      observationTerms(this.outcome, i, eta[i], out);
      total += out.logLikelihood;
      this.gradEta[i] = out.gradient;
      for (let a = 0; a < k; a++) grad[a] += out.gradient * X[i * k + a];
    }
    for (const t of this.layouts) this.effectsGradient(t, theta, grad);
    return total;
  }

  /** Adds the gradient of log L through u = diag(σ) L z to log σ, the correlations and z. */
  private effectsGradient(t: TermLayout, theta: Float64Array, grad: Float64Array): void {
    const { Z, codes, effects: d, groups } = t.data;
    const { sigma, L, gradU, gradL } = t;
    gradU.fill(0);
    for (let i = 0; i < this.design.n; i++) {
      const g = codes[i] * d;
      for (let e = 0; e < d; e++) gradU[g + e] += this.gradEta[i] * Z[i * d + e];
    }
    gradL.fill(0);
    const z0 = t.start + d + t.correlations;
    for (let g = 0; g < groups; g++) {
      for (let e = 0; e < d; e++) {
        const gu = gradU[g * d + e];
        let lz = 0;
        for (let j = 0; j <= e; j++) {
          const z = theta[z0 + g * d + j];
          lz += L[e * d + j] * z;
          grad[z0 + g * d + j] += gu * sigma[e] * L[e * d + j];
          gradL[e * d + j] += gu * sigma[e] * z;
        }
        grad[t.start + e] += gu * sigma[e] * lz;
      }
    }
    // Back through L's rows: forward, left ← 1; L_ij = tanh(y_ij) √left; left ← left − L_ij²; L_ii = √left.
    let c = t.start + d;
    for (let i = 1; i < d; i++) {
      const first = c;
      c += i;
      let left = L[i * d + i] * L[i * d + i];
      let gradLeft = L[i * d + i] > 0 ? gradL[i * d + i] / (2 * L[i * d + i]) : 0;
      for (let j = i - 1; j >= 0; j--) {
        const v = L[i * d + j];
        const before = left + v * v;
        const gv = gradL[i * d + j] - 2 * v * gradLeft;
        const r = Math.tanh(theta[first + j]);
        const root = Math.sqrt(before);
        grad[first + j] += gv * root * (1 - r * r);
        gradLeft += root > 0 ? (gv * r) / (2 * root) : 0;
        left = before;
      }
    }
  }

  logPrior(theta: Float64Array): number {
    return this.priorTerms(theta, undefined);
  }

  gradLogPrior(theta: Float64Array, grad: Float64Array): number {
    grad.fill(0);
    return this.priorTerms(theta, grad);
  }

  /** log p(θ) on the unbounded scale (Jacobians included), and its gradient when `grad` is given. */
  private priorTerms(theta: Float64Array, grad: Float64Array | undefined): number {
    const { prior } = this;
    const k = this.design.k;
    const p = k - 1;
    let total = 0;
    if (prior.name === "normal") {
      const v = 1 / (prior.scale * prior.scale);
      total -= k * (HALF_LOG_2PI + Math.log(prior.scale));
      for (let a = 0; a < k; a++) {
        total -= 0.5 * v * theta[a] * theta[a];
        if (grad !== undefined) grad[a] = -v * theta[a];
      }
    } else {
      const v = 1 / (STAND_IN_SD * STAND_IN_SD);
      total -= HALF_LOG_2PI + Math.log(STAND_IN_SD) + 0.5 * v * theta[0] * theta[0];
      if (grad !== undefined) grad[0] = -v * theta[0];
      if (p > 0) total += this.gPriorTerms(theta, grad);
    }
    for (const t of this.layouts) {
      const d = t.data.effects;
      for (let e = 0; e < d; e++) {
        // σ ~ half-Cauchy(0, 1) on s = log σ: 2/π · σ / (1 + σ²).
        const s = theta[t.start + e];
        const s2 = Math.exp(2 * s);
        total += halfCauchyLogSdDensity(s);
        if (grad !== undefined) grad[t.start + e] += 1 - (2 * s2) / (1 + s2);
      }
      for (let c = 0; c < t.correlations; c++) {
        // ρ = tanh(y) ~ Beta(b, b) on (−1, 1): b log(1 − ρ²) + constant, the Jacobian included.
        const y = theta[t.start + d + c];
        const b = t.betaShape[c];
        const r = Math.tanh(y);
        total += t.betaLogNorm[c] + b * Math.log1p(-r * r);
        if (grad !== undefined) grad[t.start + d + c] += -2 * b * r;
      }
      const z0 = t.start + d + t.correlations;
      const count = t.data.groups * d;
      total -= count * HALF_LOG_2PI;
      for (let m = 0; m < count; m++) {
        const z = theta[z0 + m];
        total -= 0.5 * z * z;
        if (grad !== undefined) grad[z0 + m] -= z;
      }
    }
    return total;
  }

  /** log p(β | g) + log p(τ), τ = log(g − g_min), and their gradients. */
  private gPriorTerms(theta: Float64Array, grad: Float64Array | undefined): number {
    const { mixture, J } = this.prior as Extract<FixedEffectsPrior, { name: "g" }>;
    const p = this.design.k - 1;
    const tau = theta[this.tauIndex];
    const g = mixture.gMin + Math.exp(tau);
    let q = 0;
    for (let a = 0; a < p; a++) {
      let s = 0;
      for (let b = 0; b < p; b++) s += J[a * p + b] * theta[b + 1];
      this.Jbeta[a] = s;
      q += theta[a + 1] * s;
    }
    if (grad !== undefined) {
      for (let a = 0; a < p; a++) grad[a + 1] = -this.Jbeta[a] / g;
      grad[this.tauIndex] = Math.exp(tau) * (mixture.d1(g) - p / (2 * g) + q / (2 * g * g)) + 1;
    }
    return -0.5 * p * (LOG_2PI + Math.log(g)) + this.halfLogDetJ - q / (2 * g) + mixture.logDensity(g) + tau;
  }

  samplePrior(rng: Rng): Float64Array {
    const { prior } = this;
    const k = this.design.k;
    const p = k - 1;
    const theta = new Float64Array(this.dim);
    if (prior.name === "normal") {
      for (let a = 0; a < k; a++) theta[a] = prior.scale * rng.normal();
    } else {
      theta[0] = STAND_IN_SD * rng.normal();
      if (p > 0) {
        const g = prior.mixture.sample(rng);
        theta[this.tauIndex] = Math.log(g - prior.mixture.gMin);
        // β ~ N(0, g J⁻¹): √g L⁻ᵀ z with J = L Lᵀ.
        const L = cholesky(prior.J, p);
        const z = Array.from({ length: p }, () => rng.normal());
        for (let a = p - 1; a >= 0; a--) {
          let s = z[a];
          for (let b = a + 1; b < p; b++) s -= L[b * p + a] * theta[b + 1];
          theta[a + 1] = s / L[a * p + a];
        }
        for (let a = 0; a < p; a++) theta[a + 1] *= Math.sqrt(g);
      }
    }
    for (const t of this.layouts) {
      const d = t.data.effects;
      // |Cauchy| = |tan(π(U − ½))|.
      for (let e = 0; e < d; e++)
        theta[t.start + e] = Math.log(Math.abs(Math.tan(Math.PI * (rng.uniform() - 0.5))));
      for (let c = 0; c < t.correlations; c++) {
        const b = t.betaShape[c];
        theta[t.start + d + c] = Math.atanh(2 * rng.beta(b, b) - 1);
      }
      const z0 = t.start + d + t.correlations;
      for (let m = 0; m < t.data.groups * d; m++) theta[z0 + m] = rng.normal();
    }
    return theta;
  }
}

/**
 * The g-prior's flat-intercept log evidence from the stand-in's: log Z_flat = log Z + log E[1/N(α; 0, 10²)]
 * over the posterior under the stand-in, with the expectation's standard error from `ess` effective
 * draws, and the draws' self-normalised weights (the flat prior's posterior from the stand-in's).
 */
export function flatInterceptCorrection(
  draws: Draws,
  ess: number,
): { logShift: number; stdErr: number; weights: Float64Array } {
  const count = draws.size;
  const logW = new Float64Array(count);
  let max = Number.NEGATIVE_INFINITY;
  for (let s = 0; s < count; s++) {
    const alpha = draws.values[s * draws.dim];
    logW[s] = HALF_LOG_2PI + Math.log(STAND_IN_SD) + (0.5 * alpha * alpha) / (STAND_IN_SD * STAND_IN_SD);
    max = Math.max(max, logW[s]);
  }
  const weights = new Float64Array(count);
  let sum = 0;
  let squares = 0;
  for (let s = 0; s < count; s++) {
    weights[s] = Math.exp(logW[s] - max);
    sum += weights[s];
    squares += weights[s] * weights[s];
  }
  const mean = sum / count;
  const variance = Math.max(squares / count - mean * mean, 0);
  for (let s = 0; s < count; s++) weights[s] /= sum;
  if (!(ess > 0)) throw new OccamError("internal", "flatInterceptCorrection: no effective draws.");
  return { logShift: max + Math.log(mean), stdErr: Math.sqrt(variance / ess) / mean, weights };
}

/** New rows' place in each random term of a model: their groups (−1: a new group) and their effects' values (rows × d). */
export interface RandomTermRows {
  readonly codes: Int32Array;
  readonly Z: Float64Array;
}

/**
 * The random terms' part of the linear predictor at m new rows, for each of `count` posterior draws of
 * a {@link RandomEffectsGlm} (`values`, count × dim; `termStarts` its `termStarts`): z_rowᵀ u_g with
 * u_g = diag(σ) L z_g for a group in the data, and for a new group an effect drawn from N(0, Σ) with
 * `rng` (one per draw and row, so that the draws average over the unknown effect). Returns count × m values.
 */
export function randomPartAtRows(
  values: Float64Array,
  dim: number,
  termStarts: readonly number[],
  terms: readonly RandomTermData[],
  rows: readonly RandomTermRows[],
  m: number,
  rng: Rng,
): Float64Array {
  const count = values.length / dim;
  const out = new Float64Array(count * m);
  terms.forEach((term, j) => {
    const d = term.effects;
    const sigma = new Float64Array(d);
    const L = new Float64Array(d * d);
    const z = new Float64Array(d);
    const { codes, Z } = rows[j];
    const start = termStarts[j];
    const zStart = start + d + (d * (d - 1)) / 2;
    for (let s = 0; s < count; s++) {
      const theta = values.subarray(s * dim, (s + 1) * dim);
      for (let e = 0; e < d; e++) sigma[e] = Math.exp(theta[start + e]);
      correlationFactor(theta, start + d, d, L);
      for (let r = 0; r < m; r++) {
        for (let e = 0; e < d; e++) z[e] = codes[r] >= 0 ? theta[zStart + codes[r] * d + e] : rng.normal();
        let part = 0;
        for (let e = 0; e < d; e++) {
          let lz = 0;
          for (let i = 0; i <= e; i++) lz += L[e * d + i] * z[i];
          part += Z[r * d + e] * sigma[e] * lz;
        }
        out[s * m + r] += part;
      }
    }
  });
  return out;
}
