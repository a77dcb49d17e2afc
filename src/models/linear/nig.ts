import { checkSubsetIndices } from "../../data/folds.js";
import { invalidArgument, OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import {
  cholesky,
  logDetFromCholesky,
  lowerTriMatVec,
  lowerTriTransposeMatVec,
  solveLower,
  solveLowerTranspose,
} from "../../math/linalg.js";
import { logGammaRatio } from "../../math/special.js";
import { gammaln } from "../../math/stdlib.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { logGammaVariate } from "../../random/variates.js";
import type { Kernel, PositionState, StepInfo } from "../../samplers/kernel.js";
import { checkRegressionSize, finiteArray } from "./checks.js";
import { residualAt, residualsAt, rssExpansion, scaled } from "./residuals.js";

/** Options of {@link nigRegression}. */
export interface NigRegressionOptions {
  /** The design matrix X, n × p row-major (include a column of ones for an intercept). */
  X: ArrayLike<number>;
  /** The responses y (length n). */
  y: ArrayLike<number>;
  /** Number of observations n (rows of X). */
  n: number;
  /** Number of regression weights p (columns of X). */
  p: number;
  /**
   * Prior mean m of the weights (length p).
   * @defaultValue zeros
   */
  m?: ArrayLike<number>;
  /**
   * Prior scale matrix V of the weights, p × p row-major symmetric positive definite: w | σ² ~ N(m, σ²V).
   * Give V or v, not both.
   * @defaultValue the identity (v = 1)
   */
  V?: ArrayLike<number>;
  /** V = v I, a scalar v > 0 (Everson et al. use v = 10⁴). Give V or v, not both. */
  v?: number;
  /** Shape a > 0 of the inverse-gamma prior of σ². */
  a: number;
  /** Scale b > 0 of the inverse-gamma prior of σ²: density b^a/Γ(a) σ^(−2(a+1)) e^(−b/σ²). */
  b: number;
  /**
   * Names of the p weights.
   * @defaultValue ["w[0]", …, "w[p−1]"]
   */
  names?: readonly string[];
}

/** The Normal–Inverse-Gamma posterior: w | σ² ~ N(mean, σ² V*), σ² ~ IG(shape, scale). */
export interface NigPosterior {
  /** m*, the posterior mean of w. */
  readonly mean: Float64Array;
  /** a* = a + n/2. */
  readonly shape: number;
  /** β* = b + [yᵀy + mᵀV⁻¹m − m*ᵀ(V*)⁻¹m*]/2. */
  readonly scale: number;
}

/**
 * Bayesian linear regression y = Xw + ε, ε ~ N(0, σ² I), with the conjugate Normal–Inverse-Gamma prior
 * w | σ² ~ N(m, σ²V), σ² ~ IG(a, b) (Everson et al., eqs. 10–12). The sampled parameter is
 * θ = (w_1 … w_p, log σ²) (dim p + 1), unconstrained; `logPrior` is the density of θ, i.e. the NIG
 * density times the Jacobian σ² of σ² = e^s.
 */
export interface NigRegressionModel extends BayesModel {
  /** The design matrix, n × p row-major. */
  readonly X: Float64Array;
  /** The responses. */
  readonly y: Float64Array;
  /** Number of observations. */
  readonly n: number;
  /** Number of observations (= n), for cross-validation. */
  readonly nObservations: number;
  /** Number of weights (dim = p + 1). */
  readonly p: number;
  /** Prior mean of the weights. */
  readonly m: Float64Array;
  /** Prior shape a and scale b of σ². */
  readonly a: number;
  readonly b: number;
  gradLogPrior(theta: Float64Array, grad: Float64Array): number;
  gradLogLikelihood(theta: Float64Array, grad: Float64Array): number;
  logLikelihoodPointwise(theta: Float64Array, out: Float64Array): void;
  /** log p(y | X) in closed form (Everson eq. 17 with the corrected β*). */
  exactLogEvidence(): number;
  /** The exact NIG posterior. */
  posterior(): NigPosterior;
  /** `count` independent draws θ = (w, log σ²) from the exact posterior. */
  samplePosterior(rng: Rng, count: number): Float64Array[];
  /**
   * An exact kernel for the power posterior p(θ) L(θ)^β, which is NIG again (the data scaled by √β,
   * a* = a + βn/2): every step is an independent draw (accepted, acceptance probability 1).
   */
  powerPosteriorKernel(beta: number): Kernel<PositionState, StepInfo>;
  /** The same prior with the likelihood of only the listed observations (distinct indices in [0, n)). */
  subset(observations: Int32Array): NigRegressionModel;
}

/** The power posterior p(θ)L(θ)^β in whitened form, with what a draw and the evidence need. */
interface NigUpdate {
  /** m*. */
  mean: Float64Array;
  shape: number;
  scale: number;
  /** Cholesky factor K of A = I + β LᵀXᵀXL (L the factor of V): V* = L A⁻¹ Lᵀ. */
  K: Float64Array;
  /** log |A| = log |V| − log |V*|. */
  logDetA: number;
  /** β(y − Xm)ᵀ(I + βXVXᵀ)⁻¹(y − Xm) = 2(scale − b). */
  bracket: number;
}

/**
 * Builds the Normal–Inverse-Gamma linear regression model (Everson et al. eqs. 10–17) as a
 * {@link BayesModel} over θ = (w, log σ²), with gradients, a pointwise likelihood, the exact log
 * evidence, an exact posterior sampler, an exact power-posterior kernel and `subset`.
 *
 * Everything goes through Cholesky factors, never explicit inverses: with V = LLᵀ, u = L⁻¹(w − m) has
 * prior N(0, σ²I) and design X̃ = XL, so the posterior precision of u is A/σ², A = I + X̃ᵀX̃ = KKᵀ, and
 * with r = y − Xm and t = X̃ᵀr,
 *   m* = m + L A⁻¹ t,   |V*|/|V| = 1/|A|,
 *   yᵀy + mᵀV⁻¹m − m*ᵀ(V*)⁻¹m* = rᵀr − tᵀA⁻¹t = rᵀr − ‖K⁻¹t‖².
 * The last line is the corrected eq. 16: Everson's β* = β + [yᵀy − m*ᵀ(V*)⁻¹m*]/2 (with m* = V*Xᵀy)
 * holds only for m = 0; in general β* = b + [yᵀy + mᵀV⁻¹m − m*ᵀ(V*)⁻¹m*]/2. Then eq. 17,
 *   log p(y) = −(n/2) log 2π − ½ log|A| + a log b − a* log β* + log Γ(a*) − log Γ(a),
 * equals the multivariate Student-t marginal y ~ t_{2a}(Xm, (b/a)(I + XVXᵀ)).
 *
 * Throws an `OccamError` for inputs of the wrong length, non-finite data, a, b or v not > 0, and a V
 * that is not symmetric positive definite.
 *
 * @example
 * const model = nigRegression({ X, y, n: 100, p: 3, v: 1e4, a: 1, b: 1 });
 * model.exactLogEvidence();
 */
export function nigRegression(options: NigRegressionOptions): NigRegressionModel {
  const settings = resolveNigOptions(options);
  const { X, y, n, p, m, V, LV, a, b, names } = settings;
  const statistics = nigStatistics(settings);
  const update = (beta: number): NigUpdate => nigUpdate(settings, statistics, beta);
  const post = update(1);
  const exact = nigLogEvidence(n, a, b, post.logDetA, post.bracket);
  const densities = nigDensities(settings, statistics, post.mean);
  const { checkTheta } = densities;

  const model: NigRegressionModel = {
    dim: p + 1,
    names: [...(names ?? Array.from({ length: p }, (_, j) => `w[${j}]`)), "log_sigma2"],
    X,
    y,
    n,
    nObservations: n,
    p,
    m,
    a,
    b,
    // log p(θ) = log N(w | m, e^s V) + log IG(e^s | a, b) + s (the Jacobian of σ² = e^s)
    //          = const − (p/2) s − Q e^{−s}/2 − a s − b e^{−s}.
    logPrior: densities.logPrior,
    gradLogPrior: densities.gradLogPrior,
    // log L(θ) = −(n/2)(log 2π + s) − RSS(w) e^{−s}/2.
    logLikelihood: densities.logLikelihood,
    gradLogLikelihood: densities.gradLogLikelihood,
    logLikelihoodPointwise: densities.logLikelihoodPointwise,
    samplePrior(rng) {
      return draw(rng, m, a, b, LV, null);
    },
    exactLogEvidence() {
      return exact;
    },
    posterior() {
      return Object.freeze({ mean: Float64Array.from(post.mean), shape: post.shape, scale: post.scale });
    },
    samplePosterior(rng, count) {
      if (!(Number.isInteger(count) && count >= 0)) {
        throw invalidArgument(
          "nigRegression",
          `samplePosterior: count must be an integer ≥ 0, got ${count}.`,
        );
      }
      const out: Float64Array[] = [];
      for (let k = 0; k < count; k++) out.push(draw(rng, post.mean, post.shape, post.scale, LV, post.K));
      return out;
    },
    powerPosteriorKernel(beta) {
      if (!(beta >= 0 && beta <= 1)) {
        throw invalidArgument("nigRegression", `powerPosteriorKernel: beta must lie in [0, 1], got ${beta}.`);
      }
      const u = update(beta);
      const logDensity = (x: Float64Array): number =>
        beta === 0 ? model.logPrior(x) : model.logPrior(x) + beta * model.logLikelihood(x);
      return {
        init(position: Float64Array): PositionState {
          checkTheta(position, "powerPosteriorKernel.init");
          return { position, logDensity: logDensity(position) };
        },
        step(rng: Rng): { state: PositionState; info: StepInfo } {
          const x = draw(rng, u.mean, u.shape, u.scale, LV, u.K);
          return {
            state: { position: x, logDensity: logDensity(x) },
            info: { accepted: true, acceptProbability: 1, evaluations: 1 },
          };
        },
      };
    },
    subset(observations) {
      const rows = checkSubsetIndices(observations, n, "nigRegression.subset");
      const Xs = new Float64Array(rows.length * p);
      const ys = new Float64Array(rows.length);
      for (let k = 0; k < rows.length; k++) {
        Xs.set(X.subarray(rows[k] * p, (rows[k] + 1) * p), k * p);
        ys[k] = y[rows[k]];
      }
      return nigRegression({ X: Xs, y: ys, n: rows.length, p, m, V, a, b, names });
    },
  };
  return defineModel(model) as NigRegressionModel;
}

/** The checked options of {@link nigRegression}, with the Cholesky factor LV of V. */
interface NigSettings {
  readonly X: Float64Array;
  readonly y: Float64Array;
  readonly n: number;
  readonly p: number;
  readonly m: Float64Array;
  readonly V: Float64Array;
  readonly LV: Float64Array;
  readonly a: number;
  readonly b: number;
  readonly names: readonly string[] | undefined;
}

/** Checks the options of {@link nigRegression} and factors V; throws an `OccamError` at the first fault. */
function resolveNigOptions(options: NigRegressionOptions): NigSettings {
  if (options === null || typeof options !== "object") {
    throw invalidArgument("nigRegression", "options { X, y, n, p, a, b } are required.");
  }
  const { n, p, a, b } = options;
  checkRegressionSize("nigRegression", n, p);
  if (!(Number.isFinite(a) && a > 0))
    throw invalidArgument("nigRegression", `the prior shape a must be finite and > 0, got ${a}.`);
  if (!(Number.isFinite(b) && b > 0))
    throw invalidArgument("nigRegression", `the prior scale b must be finite and > 0, got ${b}.`);
  const X = finiteArray("nigRegression", options.X, n * p, "X (n × p row-major)");
  const y = finiteArray("nigRegression", options.y, n, "y");
  const m =
    options.m === undefined
      ? new Float64Array(p)
      : finiteArray("nigRegression", options.m, p, "m", "invalid-argument");
  if (options.V !== undefined && options.v !== undefined)
    throw invalidArgument("nigRegression", "give V or v, not both.");
  let V: Float64Array;
  if (options.V !== undefined) {
    V = finiteArray("nigRegression", options.V, p * p, "V (p × p row-major)", "invalid-argument");
    for (let i = 0; i < p; i++) {
      for (let j = 0; j < i; j++) {
        const x = V[i * p + j];
        const z = V[j * p + i];
        if (Math.abs(x - z) > 1e-12 * (Math.abs(x) + Math.abs(z)) + 1e-300) {
          throw invalidArgument(
            "nigRegression",
            `V is not symmetric: V[${i}][${j}] = ${x} but V[${j}][${i}] = ${z}.`,
          );
        }
      }
    }
  } else {
    const v = options.v ?? 1;
    if (!(Number.isFinite(v) && v > 0))
      throw invalidArgument("nigRegression", `the prior scale v must be finite and > 0, got ${v}.`);
    V = new Float64Array(p * p);
    for (let i = 0; i < p; i++) V[i * p + i] = v;
  }
  let LV: Float64Array;
  try {
    LV = cholesky(V, p);
  } catch (error) {
    if (error instanceof OccamError) {
      throw new OccamError(error.code, `nigRegression: the prior scale matrix V: ${error.message}`);
    }
    throw error;
  }
  const names = options.names;
  if (names !== undefined && names.length !== p) {
    throw new OccamError(
      "dimension-mismatch",
      `nigRegression: names has ${names.length} entries, expected p = ${p} (one per weight).`,
    );
  }
  return { X, y, n, p, m, V, LV, a, b, names };
}

/**
 * The data's sufficient statistics, computed once (O(np²)): XᵀX, the whitened G = LᵀXᵀXL and
 * t1 = LᵀXᵀr, and rᵀr, with r = y − Xm.
 */
interface NigStatistics {
  readonly XtX: Float64Array;
  readonly G: Float64Array;
  readonly t1: Float64Array;
  readonly rtr: number;
}

function nigStatistics({ X, y, n, p, m, LV }: NigSettings): NigStatistics {
  // Sufficient statistics: XᵀX (p × p), and with r = y − Xm, rᵀr and Xᵀr, each computed once (O(np²)).
  const XtX = new Float64Array(p * p);
  const Xtr = new Float64Array(p);
  let rtr = 0;
  for (let i = 0; i < n; i++) {
    const row = i * p;
    const ri = residualAt(X, y, p, i, m);
    rtr += ri * ri;
    for (let j = 0; j < p; j++) {
      const xij = X[row + j];
      Xtr[j] += xij * ri;
      for (let k = 0; k <= j; k++) XtX[j * p + k] += xij * X[row + k];
    }
  }
  for (let j = 0; j < p; j++) for (let k = 0; k < j; k++) XtX[k * p + j] = XtX[j * p + k];
  // LᵀXᵀXL and Lᵀ(Xᵀr), the whitened statistics.
  const G = new Float64Array(p * p);
  {
    const col = new Float64Array(p);
    const tmp = new Float64Array(p);
    for (let k = 0; k < p; k++) {
      for (let j = 0; j < p; j++) col[j] = LV[j * p + k]; // column k of L
      // tmp = XᵀX L e_k, then G[:, k] = Lᵀ tmp.
      for (let j = 0; j < p; j++) {
        let s = 0;
        for (let l = 0; l < p; l++) s += XtX[j * p + l] * col[l];
        tmp[j] = s;
      }
      lowerTriTransposeMatVec(LV, p, tmp, tmp);
      for (let j = 0; j < p; j++) G[j * p + k] = tmp[j];
    }
    for (let j = 0; j < p; j++) {
      for (let k = 0; k < j; k++) {
        const s = 0.5 * (G[j * p + k] + G[k * p + j]);
        G[j * p + k] = s;
        G[k * p + j] = s;
      }
    }
  }
  const t1 = lowerTriTransposeMatVec(LV, p, Xtr);
  return { XtX, G, t1, rtr };
}

/** The power posterior at β: A = I + βG, t = β t1, bracket β rᵀr − ‖K⁻¹t‖². */
function nigUpdate(
  { n, p, m, LV, a, b }: NigSettings,
  { G, t1, rtr }: NigStatistics,
  beta: number,
): NigUpdate {
  const A = new Float64Array(p * p);
  for (let i = 0; i < p * p; i++) A[i] = beta * G[i];
  for (let i = 0; i < p; i++) A[i * p + i] += 1;
  const K = cholesky(A, p, A);
  const t = new Float64Array(p);
  for (let j = 0; j < p; j++) t[j] = beta * t1[j];
  const u = solveLower(K, p, t);
  let uu = 0;
  for (let j = 0; j < p; j++) uu += u[j] * u[j];
  // (y − Xm)ᵀ(I + βXVXᵀ)⁻¹(y − Xm)·β ≥ 0 in exact arithmetic; a negative value is rounding.
  const bracket = Math.max(0, beta * rtr - uu);
  solveLowerTranspose(K, p, u, u); // u = A⁻¹ t
  const mean = lowerTriMatVec(LV, p, u);
  for (let j = 0; j < p; j++) mean[j] += m[j];
  return {
    mean,
    shape: a + 0.5 * beta * n,
    scale: b + 0.5 * bracket,
    bracket,
    K,
    logDetA: logDetFromCholesky(K, p),
  };
}

/** The densities of {@link NigRegressionModel} and the check of θ they share. */
type NigDensities = Pick<
  NigRegressionModel,
  "logPrior" | "gradLogPrior" | "logLikelihood" | "gradLogLikelihood" | "logLikelihoodPointwise"
> & {
  /** Throws an `OccamError` unless θ is a Float64Array of length p + 1. */
  checkTheta(theta: Float64Array, where: string): void;
};

/**
 * The prior and likelihood of θ = (w, log σ²) with their gradients and the pointwise likelihood, the
 * residual sum of squares expanded about the posterior mean `w0`; scratch buffers made once.
 */
function nigDensities(
  { X, y, n, p, m, LV, a, b }: NigSettings,
  { XtX }: NigStatistics,
  w0: Float64Array,
): NigDensities {
  // Residual sum of squares about the posterior mean w0 = m*: RSS(w) = RSS0 − 2dᵀg0 + dᵀXᵀXd with
  // d = w − w0 and g0 = Xᵀ(y − Xw0). O(p²) per evaluation instead of O(np), and, unlike
  // yᵀy − 2wᵀXᵀy + wᵀXᵀXw, no cancellation near the posterior, where the terms in d are small.
  const g0 = new Float64Array(p);
  const expansion = rssExpansion(XtX, p, w0, g0, residualsAt(X, y, n, p, w0, g0));
  const rss = (theta: Float64Array): number => expansion.rss(theta);

  const logPriorConst = -0.5 * p * LOG_2PI - 0.5 * logDetFromCholesky(LV, p) + a * Math.log(b) - gammaln(a);
  const d = p + 1;
  // Scratch buffers of the density evaluations (no allocation per call).
  const z = new Float64Array(p);
  const dw = new Float64Array(p);

  const checkTheta = (theta: Float64Array, where: string): void => {
    if (!(theta instanceof Float64Array) || theta.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `nigRegression.${where}: θ must be a Float64Array of length ${d} (p weights and log σ²), got length ${theta?.length}.`,
      );
    }
  };

  /** Q = ‖L⁻¹(w − m)‖², leaving z = L⁻¹(w − m). */
  const priorQuad = (theta: Float64Array): number => {
    for (let j = 0; j < p; j++) dw[j] = theta[j] - m[j];
    solveLower(LV, p, dw, z);
    let q = 0;
    for (let j = 0; j < p; j++) q += z[j] * z[j];
    return q;
  };

  return {
    checkTheta,
    // log p(θ) = log N(w | m, e^s V) + log IG(e^s | a, b) + s (the Jacobian of σ² = e^s)
    //          = const − (p/2) s − Q e^{−s}/2 − a s − b e^{−s}.
    logPrior(theta) {
      checkTheta(theta, "logPrior");
      const s = theta[p];
      const e = Math.exp(-s);
      return logPriorConst - (0.5 * p + a) * s - scaled(0.5 * priorQuad(theta) + b, e);
    },
    gradLogPrior(theta, grad) {
      checkTheta(theta, "gradLogPrior");
      const s = theta[p];
      const e = Math.exp(-s);
      const q = priorQuad(theta);
      // ∂/∂w = −e^{−s} V⁻¹(w − m) = −e^{−s} L⁻ᵀ z.
      solveLowerTranspose(LV, p, z, dw);
      for (let j = 0; j < p; j++) grad[j] = -scaled(dw[j], e);
      grad[p] = -(0.5 * p + a) + scaled(0.5 * q + b, e);
      return logPriorConst - (0.5 * p + a) * s - scaled(0.5 * q + b, e);
    },
    // log L(θ) = −(n/2)(log 2π + s) − RSS(w) e^{−s}/2.
    logLikelihood(theta) {
      checkTheta(theta, "logLikelihood");
      const s = theta[p];
      return -0.5 * n * (LOG_2PI + s) - 0.5 * scaled(rss(theta), Math.exp(-s));
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, "gradLogLikelihood");
      const s = theta[p];
      const e = Math.exp(-s);
      const r = rss(theta);
      // ∂/∂w = e^{−s} Xᵀ(y − Xw) = e^{−s} (g0 − XᵀX d); ∂/∂s = −n/2 + RSS e^{−s}/2.
      for (let j = 0; j < p; j++) grad[j] = scaled(expansion.xtResidual(j), e);
      grad[p] = -0.5 * n + 0.5 * scaled(r, e);
      return -0.5 * n * (LOG_2PI + s) - 0.5 * scaled(r, e);
    },
    logLikelihoodPointwise(theta, out) {
      checkTheta(theta, "logLikelihoodPointwise");
      if (out.length !== n) {
        throw new OccamError(
          "dimension-mismatch",
          `nigRegression.logLikelihoodPointwise: out has length ${out.length}, expected n = ${n}.`,
        );
      }
      const s = theta[p];
      const e = Math.exp(-s);
      const c = -0.5 * (LOG_2PI + s);
      for (let i = 0; i < n; i++) {
        const r = residualAt(X, y, p, i, theta);
        out[i] = c - 0.5 * scaled(r * r, e);
      }
    },
  };
}

/**
 * The one home of the NIG log evidence (Everson et al. eq. 17 with the corrected β*):
 *   log p(y) = −(n/2) log 2π − ½ log|A| + a log b − a* log β* + log Γ(a*) − log Γ(a),
 * a* = a + n/2, β* = b + bracket/2, where |A| = |V|/|V*| = |I + LᵀXᵀXL| and
 * bracket = yᵀy + mᵀV⁻¹m − m*ᵀ(V*)⁻¹m* ≥ 0.
 */
export function nigLogEvidence(n: number, a: number, b: number, logDetA: number, bracket: number): number {
  return (
    -0.5 * n * LOG_2PI -
    0.5 * logDetA +
    a * Math.log(b) -
    (a + 0.5 * n) * Math.log(b + 0.5 * bracket) +
    logGammaRatio(a, 0.5 * n)
  );
}

/**
 * A draw θ = (w, log σ²) from NIG(mean, shape, scale) with w | σ² ~ N(mean, σ² L A⁻¹ Lᵀ), A = KKᵀ
 * (K = null for A = I, the prior): log σ² = log scale − log G, G ~ Gamma(shape), and
 * w = mean + σ L K⁻ᵀ z, z ~ N(0, I), since Cov(L K⁻ᵀ z) = L A⁻¹ Lᵀ.
 */
function draw(
  rng: Rng,
  mean: Float64Array,
  shape: number,
  scale: number,
  L: Float64Array,
  K: Float64Array | null,
): Float64Array {
  const p = mean.length;
  const theta = new Float64Array(p + 1);
  const s = Math.log(scale) - logGammaVariate(rng, shape);
  const sigma = Math.exp(0.5 * s);
  const z = new Float64Array(p);
  for (let j = 0; j < p; j++) z[j] = rng.normal();
  if (K !== null) solveLowerTranspose(K, p, z, z);
  lowerTriMatVec(L, p, z, z);
  for (let j = 0; j < p; j++) theta[j] = mean[j] + sigma * z[j];
  theta[p] = s;
  return theta;
}
