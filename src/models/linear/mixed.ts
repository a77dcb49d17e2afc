/**
 * Linear models with Gaussian random effects by group (`(1 | g)`, `(x | g)`) under the g-priors of the
 * models without them:
 *
 *   y = α1 + Xc β + Σ_r Z_r u_r + ε,  ε ~ N(0, σ² I),  p(α, σ²) ∝ 1/σ²,
 *   β | g, σ² ~ N(0, g σ² (XcᵀXc)⁻¹),  u_{r,j} | σ² ~ N(0, σ² Σ_r) for each group j,
 *
 * Σ_r = diag(s) R diag(s) in units of the noise: each s ~ half-Cauchy(0, 1) (Gelman 2006) and R ~ LKJ(1),
 * as for the GLMs' random terms, so the prior carries no unit of the target or the inputs; as every s → 0
 * the model becomes the one without random terms. β keeps its prior from the models without random terms
 * (XcᵀXc, not a precision that would change with Σ), so that adding a random term compares like with like.
 *
 * Given θ = (log g under a mixture over g, then each term's log s and atanh partial correlations), α, β,
 * the effects u and σ² integrate out in closed form. With W = [1, Xc, Z] (Z every term's effects by
 * group), D the prior covariance of (β, u) over σ², K = blockdiag(0, D⁻¹) + WᵀW and yc the centred target,
 *
 *   log BF(θ) = −½ log |D| − ½ log(|K| / n) − (n − 1)/2 · log(Q / TSS),   Q = ycᵀyc − bᵀK⁻¹b, b = Wᵀyc,
 *
 * the Bayes factor against the intercept-only model (Liang et al.'s eq. 5 when there are no random
 * terms). The integral over θ is by importance sampling from a Student-t at the posterior mode of θ,
 * Laplace's approximation there as control variate (`importanceCorrection`): exact to its standard error.
 */
import {
  correlationFactor,
  halfCauchyLogSdDensity,
  lkjLogNormalisers,
  lkjShapes,
} from "../../distributions/lkj.js";
import { OccamError } from "../../errors.js";
import {
  cholesky,
  choleskyInPlace,
  choleskySolve,
  logDetFromCholesky,
  solveLower,
  solveLowerTranspose,
} from "../../math/linalg.js";
import { maximizeByNewton } from "../../math/newton.js";
import type { Rng } from "../../random/rng.js";
import {
  type GlmPosteriorDraws,
  importanceCorrection,
  laplaceProposal,
  weightedDraws,
} from "../glm/evidence.js";
import type { RandomTermData } from "../glm/random-effects.js";
import type { GMixingDensity } from "./g-mixture.js";

/** The prior on g of the fixed slopes: a mixture (θ holds log g) or one value. */
export type SlopeGPrior =
  | { readonly kind: "mixture"; readonly density: GMixingDensity }
  | { readonly kind: "fixed"; readonly g: number };

/** New rows to predict at: their fixed values and, per random term, their groups and effects' values. */
export interface MixedNewRows {
  readonly rows: number;
  /** rows × k values of the model's fixed columns, in the inputs' units. */
  readonly X: Float64Array;
  /**
   * Per random term, in the order the model has them: each row's group (−1 for a group the training
   * rows do not have) and rows × d values its effects multiply (1 for an intercept; a slope's input
   * standardised as in training).
   */
  readonly groups: readonly { readonly codes: Int32Array; readonly Z: Float64Array }[];
}

/** A random term's place in θ and in W, and its work buffers. */
interface TermLayout {
  readonly data: RandomTermData;
  /** θ index of its first log s; its atanh partial correlations follow. */
  readonly start: number;
  /** W's column of group 0's first effect. */
  readonly column: number;
  readonly shapes: Float64Array;
  readonly logNorms: Float64Array;
  /** Work: s, R's Cholesky factor, its inverse, and Σ⁻¹ (each d × d). */
  readonly sd: Float64Array;
  readonly L: Float64Array;
  readonly inverse: Float64Array;
  readonly precision: Float64Array;
}

/**
 * The posterior of θ for one model (see the module header): `logDensity(θ)` is log p(θ) + log BF(θ), and
 * after each call `conditionalMoments` gives the fixed slopes' posterior mean and variance given that θ.
 */
export class LinearMixedPosterior {
  /** The dimension of θ. */
  readonly dim: number;
  /** θ's coordinates by name. */
  readonly names: readonly string[];
  /** Evaluations of log BF(θ) so far. */
  evaluations = 0;
  private readonly k: number;
  private readonly n: number;
  /** W's columns: f = 1 + k fixed ones, then the random effects. */
  private readonly m: number;
  private readonly f: number;
  private readonly gram: Float64Array;
  private readonly b: Float64Array;
  private readonly tss: number;
  private readonly logDetA: number;
  private readonly layouts: TermLayout[];
  /** The random block's diagonal blocks: one per group with a single random term, else one in all. */
  private readonly blockSize: number;
  /** Work: a diagonal block of K and its factor, L⁻¹ times its rows of K's fixed columns, its part of b. */
  private readonly R: Float64Array;
  private readonly M: Float64Array;
  private readonly w: Float64Array;
  /** The fixed block's Schur complement S = F − B R⁻¹ Bᵀ (its factor after each evaluation) and L_S⁻¹ b_S. */
  private readonly S: Float64Array;
  private readonly zS: Float64Array;
  private readonly xMean: Float64Array;
  private readonly yMean: number;
  private Q = 0;

  /**
   * `X` holds the model's k fixed columns (n × k, row-major, in the inputs' units), `y` the target,
   * `terms` the random terms (at least one), `gPrior` the slopes' prior on g.
   */
  constructor(
    X: Float64Array,
    y: Float64Array,
    n: number,
    k: number,
    terms: readonly RandomTermData[],
    private readonly gPrior: SlopeGPrior,
  ) {
    this.k = k;
    this.n = n;
    this.f = 1 + k;
    const names: string[] = [];
    if (k > 0 && gPrior.kind === "mixture") names.push("log g");
    let column = this.f;
    this.layouts = terms.map((data) => {
      const d = data.effects;
      const start = names.length;
      for (const e of data.effectNames) names.push(`log sd ${e} ${data.name}`);
      const shapes = lkjShapes(d);
      for (let c = 0; c < shapes.length; c++) names.push(`atanh partial correlation ${c + 1} ${data.name}`);
      const layout = {
        data,
        start,
        column,
        shapes,
        logNorms: lkjLogNormalisers(shapes),
        sd: new Float64Array(d),
        L: new Float64Array(d * d),
        inverse: new Float64Array(d * d),
        precision: new Float64Array(d * d),
      };
      column += data.groups * d;
      return layout;
    });
    this.dim = names.length;
    this.names = names;
    this.m = column;
    const { gram, b, tss, xMean, yMean } = crossProducts(X, y, n, k, this.layouts, column);
    this.xMean = xMean;
    this.yMean = yMean;
    this.gram = gram;
    this.b = b;
    this.tss = tss;
    const A = new Float64Array(k * k);
    for (let a = 0; a < k; a++) for (let c = 0; c < k; c++) A[a * k + c] = gram[(1 + a) * column + 1 + c];
    this.logDetA = k > 0 ? logDetFromCholesky(cholesky(A, k), k) : 0;
    // Rows of one group under a single term share no random column with another group's: ZᵀZ + Σ⁻¹ is
    // block diagonal, so K costs groups × d³ rather than (groups × d)³.
    this.blockSize = this.layouts.length === 1 ? this.layouts[0].data.effects : column - this.f;
    this.R = new Float64Array(this.blockSize * this.blockSize);
    this.M = new Float64Array(this.blockSize * this.f);
    this.w = new Float64Array(this.blockSize);
    this.S = new Float64Array(this.f * this.f);
    this.zS = new Float64Array(this.f);
  }

  /** The number of fixed slopes. */
  get slopes(): number {
    return this.k;
  }

  /** Where the search for θ's mode starts: g = n, every s = 1, no correlation. */
  startingPoint(): Float64Array {
    const start = new Float64Array(this.dim);
    if (this.k > 0 && this.gPrior.kind === "mixture") start[0] = Math.log(this.n);
    return start;
  }

  /** log p(θ): the prior on log g, on each log s and on each atanh partial correlation (Jacobians included). */
  logPrior(theta: Float64Array): number {
    let total = this.k > 0 && this.gPrior.kind === "mixture" ? this.gPrior.density.logDensity(theta[0]) : 0;
    for (const t of this.layouts) {
      const d = t.data.effects;
      for (let e = 0; e < d; e++) total += halfCauchyLogSdDensity(theta[t.start + e]);
      for (let c = 0; c < t.shapes.length; c++) {
        const r = Math.tanh(theta[t.start + d + c]);
        total += t.logNorms[c] + t.shapes[c] * Math.log1p(-r * r);
      }
    }
    return total;
  }

  /**
   * log BF(θ) against the intercept-only model; −∞ where K is not numerically positive definite. K is
   * factored by blocks, K = [F B; Bᵀ R]: log |K| = log |R| + log |S| and bᵀK⁻¹b = b_Rᵀ R⁻¹ b_R + b_Sᵀ S⁻¹ b_S,
   * with S = F − B R⁻¹ Bᵀ and b_S = b_F − B R⁻¹ b_R.
   */
  logBayesFactor(theta: Float64Array): number {
    this.evaluations++;
    const { k, f, m, gram, S, zS, layouts } = this;
    for (let a = 0; a < f; a++) for (let c = 0; c < f; c++) S[a * f + c] = gram[a * m + c];
    for (let a = 0; a < f; a++) zS[a] = this.b[a];
    let logDetD = 0;
    if (k > 0) {
      const g = this.gPrior.kind === "fixed" ? this.gPrior.g : Math.exp(theta[0]);
      for (let a = 1; a < f; a++) for (let c = 1; c < f; c++) S[a * f + c] += gram[a * m + c] / g;
      logDetD += k * Math.log(g) - this.logDetA;
    }
    for (const t of layouts) logDetD += t.data.groups * termPrecision(t, theta);
    let explained = 0;
    let logDetK = 0;
    for (let start = f; start < m; start += this.blockSize) {
      const part = this.eliminateBlock(start);
      if (Number.isNaN(part)) return Number.NEGATIVE_INFINITY;
      explained += part;
      logDetK += logDetFromCholesky(this.R, this.blockSize);
    }
    try {
      choleskyInPlace(S, f);
    } catch (error) {
      if (error instanceof OccamError) return Number.NEGATIVE_INFINITY;
      throw error;
    }
    solveLower(S, f, zS, zS);
    for (let a = 0; a < f; a++) explained += zS[a] * zS[a];
    logDetK += logDetFromCholesky(S, f);
    this.Q = this.tss - explained;
    if (!(this.Q > 0)) return Number.NEGATIVE_INFINITY;
    const { n } = this;
    return -0.5 * logDetD - 0.5 * (logDetK - Math.log(n)) - 0.5 * (n - 1) * Math.log(this.Q / this.tss);
  }

  /**
   * Factors the diagonal block R of K at columns `start …` (WᵀW's block plus each group's Σ⁻¹ there) and
   * takes it out of S and b_S, leaving R's factor in `R`; returns b_Rᵀ R⁻¹ b_R, or NaN where R is not
   * positive definite. Allocates nothing: it runs once per block in every evaluation.
   */
  private eliminateBlock(start: number): number {
    const { f, m, gram, R, M, w, S, zS, blockSize: size } = this;
    if (!this.factorBlock(start)) return Number.NaN;
    // M = L_R⁻¹ Bᵀ (size × f) and w = L_R⁻¹ b_R, by forward substitution.
    let explained = 0;
    for (let i = 0; i < size; i++) {
      const diagonal = R[i * size + i];
      for (let c = 0; c < f; c++) {
        let v = gram[(start + i) * m + c];
        for (let j = 0; j < i; j++) v -= R[i * size + j] * M[j * f + c];
        M[i * f + c] = v / diagonal;
      }
      let v = this.b[start + i];
      for (let j = 0; j < i; j++) v -= R[i * size + j] * w[j];
      w[i] = v / diagonal;
      explained += w[i] * w[i];
    }
    for (let a = 0; a < f; a++) {
      for (let c = 0; c < f; c++) {
        let v = 0;
        for (let i = 0; i < size; i++) v += M[i * f + a] * M[i * f + c];
        S[a * f + c] -= v;
      }
      let v = 0;
      for (let i = 0; i < size; i++) v += M[i * f + a] * w[i];
      zS[a] -= v;
    }
    return explained;
  }

  /** Writes into R the diagonal block of K at columns `start …` (WᵀW's block plus each group's Σ⁻¹ there) and factors it; false where it is not positive definite. */
  private factorBlock(start: number): boolean {
    const { m, gram, R, blockSize: size } = this;
    for (let i = 0; i < size; i++) {
      for (let j = 0; j < size; j++) R[i * size + j] = gram[(start + i) * m + start + j];
    }
    for (const t of this.layouts) {
      const d = t.data.effects;
      for (
        let first = Math.max(start, t.column);
        first < start + size && first < t.column + t.data.groups * d;
        first += d
      ) {
        const at = first - start;
        for (let i = 0; i < d; i++) {
          for (let j = 0; j < d; j++) R[(at + i) * size + at + j] += t.precision[i * d + j];
        }
      }
    }
    try {
      choleskyInPlace(R, size);
      return true;
    } catch (error) {
      if (error instanceof OccamError) return false;
      throw error;
    }
  }

  /**
   * The Student-t predictive (n − 1 degrees of freedom) at new rows given the θ of the last
   * `logBayesFactor`: location ȳ + wᵀγ̂ and scale² Q/(n − 1) · (`noise` + wᵀK⁻¹w + Σ zᵀΣz over the terms
   * where the row's group is new), w the row's column of W (1, its centred fixed values, its effects'
   * values at its groups' columns) and γ̂ = K⁻¹b the coefficients' and effects' posterior mean; `noise` 1
   * for a new observation, 0 for the mean response. A new group's effect is unknown: its variance σ²Σ
   * is added, and its mean 0.
   */
  predictiveAt(rows: MixedNewRows, noise: number, location: Float64Array, scale: Float64Array): void {
    const { k, f, m, S, gram, layouts, blockSize: size, R } = this;
    const gammaF = solveLowerTranspose(S, f, this.zS);
    const v = new Float64Array(f);
    const vR = new Float64Array(size);
    const rhs = new Float64Array(size);
    const spread = new Float64Array(size);
    for (let r = 0; r < rows.rows; r++) {
      v[0] = 1;
      for (let a = 0; a < k; a++) v[1 + a] = rows.X[r * k + a] - this.xMean[a];
      let mean = this.yMean;
      for (let c = 0; c < f; c++) mean += v[c] * gammaF[c];
      let variance = noise;
      // The block holding the row's known groups: its group's under a single term, all effects else.
      let start = -1;
      layouts.forEach((t, j) => {
        const code = rows.groups[j].codes[r];
        const d = t.data.effects;
        const z = rows.groups[j].Z.subarray(r * d, (r + 1) * d);
        if (code >= 0) start = layouts.length === 1 ? t.column + code * d : f;
        else variance += newGroupVariance(t, z);
      });
      if (start >= 0) {
        this.factorBlock(start);
        vR.fill(0);
        layouts.forEach((t, j) => {
          const code = rows.groups[j].codes[r];
          const d = t.data.effects;
          for (let e = 0; e < d && code >= 0; e++)
            vR[t.column + code * d + e - start] = rows.groups[j].Z[r * d + e];
        });
        // The block's effects' posterior mean R⁻¹(b_R − Bᵀγ̂_F), and R⁻¹v_R for the quadratic form.
        for (let i = 0; i < size; i++) {
          let value = this.b[start + i];
          for (let c = 0; c < f; c++) value -= gram[(start + i) * m + c] * gammaF[c];
          rhs[i] = value;
        }
        choleskySolve(R, size, rhs, rhs);
        choleskySolve(R, size, vR, spread);
        for (let i = 0; i < size; i++) {
          mean += vR[i] * rhs[i];
          variance += vR[i] * spread[i];
        }
        for (let c = 0; c < f; c++) {
          for (let i = 0; i < size; i++) v[c] -= gram[(start + i) * m + c] * spread[i];
        }
      }
      solveLower(S, f, v, v);
      for (let c = 0; c < f; c++) variance += v[c] * v[c];
      location[r] = mean;
      scale[r] = Math.sqrt((this.Q / (this.n - 1)) * variance);
    }
  }

  /** log p(θ) + log BF(θ). */
  logDensity(theta: Float64Array): number {
    const prior = this.logPrior(theta);
    return Number.isFinite(prior) ? prior + this.logBayesFactor(theta) : Number.NEGATIVE_INFINITY;
  }

  /**
   * The fixed slopes' posterior mean and variance given the θ of the last `logBayesFactor`: with the
   * random effects integrated out, mean S⁻¹ b_S and variance Q/(n − 3) · diag(S⁻¹) (σ² | θ, y ~
   * InvGamma((n − 1)/2, Q/2)), written to `mean` and `variance`.
   */
  conditionalMoments(mean: Float64Array, variance: Float64Array): void {
    const { k, f, S, zS, n } = this;
    const x = solveLowerTranspose(S, f, zS);
    const column = new Float64Array(f);
    for (let a = 0; a < k; a++) {
      // diag(S⁻¹)_c = ‖L_S⁻¹ e_c‖², by forward substitution from row c.
      const c = 1 + a;
      column.fill(0);
      let norm = 0;
      for (let i = c; i < f; i++) {
        let v = i === c ? 1 : 0;
        for (let j = c; j < i; j++) v -= S[i * f + j] * column[j];
        column[i] = v / S[i * f + i];
        norm += column[i] * column[i];
      }
      mean[a] = x[c];
      variance[a] = (this.Q / (n - 3)) * norm;
    }
  }
}

/** WᵀW, Wᵀyc and TSS from the rows, W's nonzeros row by row (1, the centred X, one group's effects per term). */
function crossProducts(
  X: Float64Array,
  y: Float64Array,
  n: number,
  k: number,
  layouts: readonly TermLayout[],
  m: number,
): { gram: Float64Array; b: Float64Array; tss: number; xMean: Float64Array; yMean: number } {
  const xMean = new Float64Array(k);
  let yMean = 0;
  for (let i = 0; i < n; i++) {
    yMean += y[i] / n;
    for (let a = 0; a < k; a++) xMean[a] += X[i * k + a] / n;
  }
  let nonzeros = 1 + k;
  for (const t of layouts) nonzeros += t.data.effects;
  const at = new Int32Array(nonzeros);
  const value = new Float64Array(nonzeros);
  const gram = new Float64Array(m * m);
  const b = new Float64Array(m);
  let tss = 0;
  for (let i = 0; i < n; i++) {
    at[0] = 0;
    value[0] = 1;
    for (let a = 0; a < k; a++) {
      at[1 + a] = 1 + a;
      value[1 + a] = X[i * k + a] - xMean[a];
    }
    let e = 1 + k;
    for (const t of layouts) {
      const d = t.data.effects;
      for (let f = 0; f < d; f++, e++) {
        at[e] = t.column + t.data.codes[i] * d + f;
        value[e] = t.data.Z[i * d + f];
      }
    }
    const yc = y[i] - yMean;
    tss += yc * yc;
    for (let u = 0; u < nonzeros; u++) {
      b[at[u]] += value[u] * yc;
      for (let v = 0; v < nonzeros; v++) gram[at[u] * m + at[v]] += value[u] * value[v];
    }
  }
  return { gram, b, tss, xMean, yMean };
}

/** zᵀΣz for term t's Σ = diag(s) R diag(s) at the θ of the last evaluation: ‖Lᵀ diag(s) z‖², R = L Lᵀ. */
function newGroupVariance(t: TermLayout, z: Float64Array): number {
  const d = t.data.effects;
  let total = 0;
  for (let j = 0; j < d; j++) {
    let value = 0;
    for (let i = j; i < d; i++) value += t.L[i * d + j] * t.sd[i] * z[i];
    total += value * value;
  }
  return total;
}

/** Term t's Σ⁻¹ from θ, into `t.precision`; returns log |Σ|. */
function termPrecision(t: TermLayout, theta: Float64Array): number {
  const d = t.data.effects;
  const { sd, L, inverse, precision } = t;
  for (let e = 0; e < d; e++) sd[e] = Math.exp(theta[t.start + e]);
  correlationFactor(theta, t.start + d, d, L);
  // L⁻¹ (lower triangular), then Σ⁻¹ = diag(1/s) L⁻ᵀ L⁻¹ diag(1/s).
  let logDet = 0;
  for (let i = 0; i < d; i++) {
    logDet += 2 * (Math.log(sd[i]) + Math.log(L[i * d + i]));
    for (let j = 0; j <= i; j++) {
      let s = i === j ? 1 : 0;
      for (let c = j; c < i; c++) s -= L[i * d + c] * inverse[c * d + j];
      inverse[i * d + j] = s / L[i * d + i];
    }
  }
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let c = Math.max(i, j); c < d; c++) s += inverse[c * d + i] * inverse[c * d + j];
      precision[i * d + j] = s / (sd[i] * sd[j]);
    }
  }
  return logDet;
}

/** One model's evidence: its log Bayes factor against the intercept-only model ± s.e., and its fixed slopes' moments. */
export interface LinearMixedEvidence {
  readonly logBayesFactor: number;
  readonly stdErr: number;
  readonly paretoK: number;
  readonly reliable: boolean;
  readonly warnings: readonly string[];
  /** The fixed slopes' posterior means and variances (k each). */
  readonly mean: Float64Array;
  readonly variance: Float64Array;
  /** Evaluations of log BF(θ). */
  readonly evaluations: number;
  /** Weighted posterior draws of θ (count × dim), behind the moments and the predictive. */
  readonly draws: GlmPosteriorDraws;
}

/** Options of {@link linearMixedEvidence}. */
export interface LinearMixedEvidenceOptions {
  readonly rng: Rng;
  /** Importance draws to start with (see `importanceCorrection`). @defaultValue 200 */
  readonly draws?: number;
  /** The standard error (nats) draws are added for. @defaultValue 0.005 */
  readonly targetStdErr?: number;
}

/** Degrees of freedom of the Student-t proposal over θ. */
const PROPOSAL_DOF = 3;
/** Weighted draws of θ behind the slopes' moments (antithetic pairs). */
const MOMENT_PAIRS = 100;

/** The log Bayes factor of one model with random terms against the intercept-only model (see the module header). */
export function linearMixedEvidence(
  post: LinearMixedPosterior,
  options: LinearMixedEvidenceOptions,
  where: string,
): LinearMixedEvidence {
  const density = (theta: Float64Array) => post.logDensity(theta);
  const { mode, L, value } = maximizeByNewton(density, post.startingPoint(), where);
  const proposal = laplaceProposal(mode, L, value, PROPOSAL_DOF);
  const corrected = importanceCorrection(proposal, density, options, where);
  const draws = weightedDraws(proposal, density, post.dim, MOMENT_PAIRS, options.rng);
  const k = post.slopes;
  const mean = new Float64Array(k);
  const variance = new Float64Array(k);
  const m = new Float64Array(k);
  const v = new Float64Array(k);
  for (let s = 0; s < draws.count; s++) {
    const w = draws.weights[s];
    if (!(w > 0)) continue;
    post.logBayesFactor(draws.theta.subarray(s * post.dim, (s + 1) * post.dim));
    post.conditionalMoments(m, v);
    for (let a = 0; a < k; a++) {
      mean[a] += w * m[a];
      variance[a] += w * (v[a] + m[a] * m[a]);
    }
  }
  for (let a = 0; a < k; a++) variance[a] = Math.max(0, variance[a] - mean[a] * mean[a]);
  return {
    logBayesFactor: corrected.logZ,
    stdErr: corrected.stdErr,
    paretoK: corrected.paretoK,
    reliable: corrected.reliable,
    warnings: corrected.warnings,
    mean,
    variance,
    evaluations: post.evaluations,
    draws,
  };
}
