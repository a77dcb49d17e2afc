import type { LinearDesign } from "../../data/design.js";
import { checkSubsetIndices } from "../../data/folds.js";
import { invalidArgument, OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { choleskyInPlace, choleskySolve, solveLower, solveLowerTranspose } from "../../math/linalg.js";
import { gammaln } from "../../math/stdlib.js";
import { type BayesModel, defineModel, tempered } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { logGammaVariate } from "../../random/variates.js";
import { buildGibbsKernel } from "../../samplers/gibbs.js";
import type { Kernel, PositionState, StepInfo } from "../../samplers/kernel.js";
import type { SubsetFamily } from "../family.js";
import { checkRegressionSize, finiteArray } from "./checks.js";
import { type CentredStatistics, rSquaredOf, subsetColumns, subsetDesignMatrix } from "./design.js";
import { residualAt, residualsAt, rssExpansion, scaled } from "./residuals.js";

const NAME = "independentPrecisionRegression";

/**
 * Options of {@link independentPrecisionRegression}. The Gamma priors follow the thesis's §6.2 and
 * App. B convention π(τ | α, β) = τ^(α−1) e^(−τ/β) / (Γ(α) β^α): β is a **scale** (mean αβ).
 *
 * The thesis's Figure 6.6 gives β = 1/200 and β_w = 1/1600 and calls these priors vague. Read as
 * scales they are not: the prior then adds 200 to the rate of τ's conditional (eq. B's b⁻¹ = β⁻¹ +
 * RSS/2), outweighing the residuals of any fit (RSS/2 ≈ 0.1 on the toy data), and the posterior noise
 * sd comes out near 6 instead of the true 0.1. Read as rates (scales 200 and 1600, prior mean noise
 * precision 100) they are vague and reproduce the thesis's fits, so the defaults are those scales.
 */
export interface IndependentPrecisionOptions {
  /** The design matrix X, n × p row-major (a column of ones for an intercept is the caller's business). */
  X: ArrayLike<number>;
  /** The responses y (length n). */
  y: ArrayLike<number>;
  /** Number of observations n (rows of X). */
  n: number;
  /** Number of weights p (columns of X). */
  p: number;
  /**
   * Shape α of the Gamma prior of the noise precision τ.
   * @defaultValue 1/2 (thesis, Figure 6.6)
   */
  alpha?: number;
  /**
   * Scale β of the Gamma prior of the noise precision τ (prior mean αβ).
   * @defaultValue 200 (the thesis's Figure 6.6 value 1/200, read as a rate; see above)
   */
  beta?: number;
  /**
   * Shape α_w of the Gamma prior of the weight precision τ_w.
   * @defaultValue 1/4 (thesis, Figure 6.6)
   */
  alphaW?: number;
  /**
   * Scale β_w of the Gamma prior of the weight precision τ_w (prior mean α_w β_w).
   * @defaultValue 1600 (the thesis's Figure 6.6 value 1/1600, read as a rate; see above)
   */
  betaW?: number;
  /**
   * Names of the p weights.
   * @defaultValue ["w[0]", …, "w[p−1]"]
   */
  names?: readonly string[];
}

/**
 * The thesis's linear model with independent noise and weight precisions (Fabricius §6.2.3, App. B):
 * y = Xw + ε, ε ~ N(0, τ⁻¹ I), w | τ_w ~ N(0, τ_w⁻¹ I) (one precision τ_w shared by all p weights, as
 * in the thesis), τ ~ Gamma(α, scale β), τ_w ~ Gamma(α_w, scale β_w).
 *
 * The parameter is θ = (w_1 … w_p, log τ, log τ_w), dim p + 2, unconstrained: `logPrior` is the
 * density of θ, i.e. the prior of (w, τ, τ_w) times the Jacobians τ and τ_w of the log transforms.
 */
export interface IndependentPrecisionModel extends BayesModel {
  /** The design matrix, n × p row-major. */
  readonly X: Float64Array;
  /** The responses. */
  readonly y: Float64Array;
  /** Number of observations. */
  readonly n: number;
  /** Number of weights (dim = p + 2). */
  readonly p: number;
  /** Number of observations (= n), for cross-validation. */
  readonly nObservations: number;
  /** Shape α and scale β of the Gamma prior of τ. */
  readonly alpha: number;
  readonly beta: number;
  /** Shape α_w and scale β_w of the Gamma prior of τ_w. */
  readonly alphaW: number;
  readonly betaW: number;
  gradLogPrior(theta: Float64Array, grad: Float64Array): number;
  gradLogLikelihood(theta: Float64Array, grad: Float64Array): number;
  logLikelihoodPointwise(theta: Float64Array, out: Float64Array): void;
  /**
   * Gibbs kernel for the power posterior p(θ) L(θ)^β, β in [0, 1]: the conditionals of App. B
   * tempered by β, drawn exactly (every step accepted).
   */
  powerPosteriorKernel(beta: number): Kernel<PositionState, StepInfo>;
  /** The same prior with the likelihood of only the listed observations (distinct indices in [0, n)). */
  subset(observations: Int32Array): IndependentPrecisionModel;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(typeof v === "number" && Number.isFinite(v) && v > 0)) {
    throw invalidArgument(NAME, `${name} must be a finite number > 0, got ${String(v)}.`);
  }
  return v;
}

/**
 * Builds the thesis's Bayesian linear regression with independent Gamma priors on the noise
 * precision τ and the weight precision τ_w (Fabricius §6.2.3, eqs. 6.26–6.34, App. B), a
 * {@link BayesModel} over θ = (w_1 … w_p, log τ, log τ_w) with gradients, a pointwise likelihood,
 * `subset`, and an exact Gibbs kernel for each power posterior p(θ) L(θ)^β (the thesis's path-sampling
 * sampler). Its evidence has no closed form.
 *
 * Densities (Gamma with a scale, as the thesis's §6.2 and App. B):
 *   log p(θ) = (p/2)(log τ_w − log 2π) − τ_w wᵀw/2
 *            + α log τ − τ/β − α log β − log Γ(α)
 *            + α_w log τ_w − τ_w/β_w − α_w log β_w − log Γ(α_w)   (Jacobians τ, τ_w included),
 *   log L(θ) = (n/2)(log τ − log 2π) − τ ‖y − Xw‖²/2.
 * The residual sum of squares is computed from XᵀX about a reference point (the near-least-squares
 * solution), O(p²) per evaluation and without the cancellation of yᵀy − 2wᵀXᵀy + wᵀXᵀXw.
 *
 * Throws an `OccamError` for inputs of the wrong length, non-finite data, hyperparameters not > 0,
 * and names of the wrong length.
 *
 * @example
 * const model = independentPrecisionRegression({ X, y, n: 20, p: 3 });
 * const result = pathSampling(model, { scheme: "random", k: 0.9, seed: 1 });
 */
export function independentPrecisionRegression(
  options: IndependentPrecisionOptions,
): IndependentPrecisionModel {
  const settings = resolveIndependentOptions(options);
  const { X, y, n, p, alpha, beta, alphaW, betaW, names } = settings;
  const statistics = independentStatistics(settings);
  const densities = independentDensities(settings, statistics);
  const d = p + 2;
  const iTau = p;
  const iTauW = p + 1;

  const model: IndependentPrecisionModel = {
    dim: d,
    names: [...(names ?? Array.from({ length: p }, (_, j) => `w[${j}]`)), "log_tau", "log_tau_w"],
    X,
    y,
    n,
    p,
    nObservations: n,
    alpha,
    beta,
    alphaW,
    betaW,
    logPrior: densities.logPrior,
    gradLogPrior: densities.gradLogPrior,
    logLikelihood: densities.logLikelihood,
    gradLogLikelihood: densities.gradLogLikelihood,
    logLikelihoodPointwise: densities.logLikelihoodPointwise,
    samplePrior(rng) {
      const theta = new Float64Array(d);
      // Precisions drawn on the log scale: Gamma(1/4) draws can underflow a Float64 otherwise.
      theta[iTau] = Math.log(beta) + logGammaVariate(rng, alpha);
      const sw = Math.log(betaW) + logGammaVariate(rng, alphaW);
      theta[iTauW] = sw;
      const sd = Math.exp(-0.5 * sw);
      for (let j = 0; j < p; j++) theta[j] = sd * rng.normal();
      return theta;
    },
    powerPosteriorKernel(temperature) {
      if (!(typeof temperature === "number" && temperature >= 0 && temperature <= 1)) {
        throw invalidArgument(
          NAME,
          `powerPosteriorKernel: beta must be a number in [0, 1], got ${String(temperature)}.`,
        );
      }
      return independentGibbsKernel(settings, statistics, densities, model, temperature);
    },
    subset(observations) {
      const rows = checkSubsetIndices(observations, n, `${NAME}.subset`);
      const Xs = new Float64Array(rows.length * p);
      const ys = new Float64Array(rows.length);
      for (let k = 0; k < rows.length; k++) {
        Xs.set(X.subarray(rows[k] * p, (rows[k] + 1) * p), k * p);
        ys[k] = y[rows[k]];
      }
      return independentPrecisionRegression({
        X: Xs,
        y: ys,
        n: rows.length,
        p,
        alpha,
        beta,
        alphaW,
        betaW,
        names,
      });
    },
  };

  return defineModel(model) as IndependentPrecisionModel;
}

/** The checked options of {@link independentPrecisionRegression}, defaults filled in. */
interface IndependentSettings {
  readonly X: Float64Array;
  readonly y: Float64Array;
  readonly n: number;
  readonly p: number;
  readonly alpha: number;
  readonly beta: number;
  readonly alphaW: number;
  readonly betaW: number;
  readonly names: readonly string[] | undefined;
}

/** Fills the defaults of {@link IndependentPrecisionOptions} and checks them; throws an `OccamError`. */
function resolveIndependentOptions(options: IndependentPrecisionOptions): IndependentSettings {
  if (options === null || typeof options !== "object") {
    throw invalidArgument(NAME, "options { X, y, n, p } are required.");
  }
  const { n, p } = options;
  checkRegressionSize(NAME, n, p);
  const alpha = positive(options.alpha, 1 / 2, "the noise-precision shape alpha");
  const beta = positive(options.beta, 200, "the noise-precision scale beta");
  const alphaW = positive(options.alphaW, 1 / 4, "the weight-precision shape alphaW");
  const betaW = positive(options.betaW, 1600, "the weight-precision scale betaW");
  const X = finiteArray(NAME, options.X, n * p, "X (n × p row-major)");
  const y = finiteArray(NAME, options.y, n, "y");
  const names = options.names;
  if (names !== undefined && names.length !== p) {
    throw new OccamError(
      "dimension-mismatch",
      `${NAME}: names has ${names.length} entries, expected p = ${p} (one per weight).`,
    );
  }
  return { X, y, n, p, alpha, beta, alphaW, betaW, names };
}

/**
 * The sufficient statistics XᵀX and Xᵀy, and the reference point of the residual sum of squares:
 * w_ref, g_ref = Xᵀ(y − X w_ref) and rss_ref.
 */
interface IndependentStatistics {
  readonly XtX: Float64Array;
  readonly Xty: Float64Array;
  readonly wRef: Float64Array;
  readonly gRef: Float64Array;
  readonly rssRef: number;
}

function independentStatistics({ X, y, n, p }: IndependentSettings): IndependentStatistics {
  // Sufficient statistics XᵀX (full symmetric) and Xᵀy, O(np²) once.
  const XtX = new Float64Array(p * p);
  const Xty = new Float64Array(p);
  for (let i = 0; i < n; i++) {
    const row = i * p;
    for (let j = 0; j < p; j++) {
      const xij = X[row + j];
      Xty[j] += xij * y[i];
      for (let k = 0; k <= j; k++) XtX[j * p + k] += xij * X[row + k];
    }
  }
  for (let j = 0; j < p; j++) for (let k = 0; k < j; k++) XtX[k * p + j] = XtX[j * p + k];

  // Reference point w_ref = (XᵀX + λI)⁻¹Xᵀy with a tiny ridge λ (so that it exists when XᵀX is
  // singular), g_ref = Xᵀ(y − X w_ref) and rss_ref. Then for d = w − w_ref,
  //   RSS(w) = rss_ref − 2 dᵀg_ref + dᵀXᵀXd,
  // an identity for any w_ref, accurate where the posterior puts w (near w_ref, g_ref ≈ 0).
  let maxDiag = 0;
  for (let j = 0; j < p; j++) maxDiag = Math.max(maxDiag, XtX[j * p + j]);
  const ridge = Float64Array.from(XtX);
  for (let j = 0; j < p; j++) ridge[j * p + j] += 1e-8 * (maxDiag > 0 ? maxDiag : 1);
  choleskyInPlace(ridge, p);
  const wRef = choleskySolve(ridge, p, Xty);
  const gRef = new Float64Array(p);
  const rssRef = residualsAt(X, y, n, p, wRef, gRef);
  return { XtX, Xty, wRef, gRef, rssRef };
}

/**
 * The densities of {@link IndependentPrecisionModel}, with what the Gibbs kernel shares with them: the
 * residual sum of squares (its scratch buffers made once) and wᵀw.
 */
type IndependentDensities = Pick<
  IndependentPrecisionModel,
  "logPrior" | "gradLogPrior" | "logLikelihood" | "gradLogLikelihood" | "logLikelihoodPointwise"
> & {
  /** RSS(w) for the first p entries of `w`. */
  rss(w: Float64Array): number;
  /** wᵀw for the first p entries of `w`. */
  sumSquares(w: Float64Array): number;
};

function independentDensities(
  { X, y, n, p, alpha, beta, alphaW, betaW }: IndependentSettings,
  { XtX, wRef, gRef, rssRef }: IndependentStatistics,
): IndependentDensities {
  const logPriorConst =
    -0.5 * p * LOG_2PI - alpha * Math.log(beta) - gammaln(alpha) - alphaW * Math.log(betaW) - gammaln(alphaW);
  const d = p + 2;
  const iTau = p;
  const iTauW = p + 1;
  const expansion = rssExpansion(XtX, p, wRef, gRef, rssRef);
  const rss = (w: Float64Array): number => expansion.rss(w);

  const checkTheta = (theta: Float64Array, where: string): void => {
    if (!(theta instanceof Float64Array) || theta.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${NAME}.${where}: θ must be a Float64Array of length ${d} (p = ${p} weights, log τ, log τ_w), got length ${theta?.length}.`,
      );
    }
  };

  const sumSquares = (w: Float64Array): number => {
    let s = 0;
    for (let j = 0; j < p; j++) s += w[j] * w[j];
    return s;
  };
  const priorValue = (theta: Float64Array, ww: number): number => {
    const s = theta[iTau];
    const sw = theta[iTauW];
    const tauW = Math.exp(sw);
    return (
      logPriorConst +
      (0.5 * p + alphaW) * sw -
      scaled(0.5 * ww + 1 / betaW, tauW) +
      alpha * s -
      Math.exp(s) / beta
    );
  };
  const likelihoodValue = (s: number, r: number): number =>
    0.5 * n * (s - LOG_2PI) - 0.5 * scaled(r, Math.exp(s));

  return {
    rss,
    sumSquares,
    logPrior(theta) {
      checkTheta(theta, "logPrior");
      return priorValue(theta, sumSquares(theta));
    },
    gradLogPrior(theta, grad) {
      checkTheta(theta, "gradLogPrior");
      const tauW = Math.exp(theta[iTauW]);
      const ww = sumSquares(theta);
      // ∂/∂w = −τ_w w; ∂/∂log τ = α − τ/β; ∂/∂log τ_w = p/2 + α_w − τ_w (wᵀw/2 + 1/β_w).
      for (let j = 0; j < p; j++) grad[j] = -scaled(theta[j], tauW);
      grad[iTau] = alpha - Math.exp(theta[iTau]) / beta;
      grad[iTauW] = 0.5 * p + alphaW - scaled(0.5 * ww + 1 / betaW, tauW);
      return priorValue(theta, ww);
    },
    logLikelihood(theta) {
      checkTheta(theta, "logLikelihood");
      return likelihoodValue(theta[iTau], rss(theta));
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, "gradLogLikelihood");
      const s = theta[iTau];
      const tau = Math.exp(s);
      const r = rss(theta);
      // ∂/∂w = τ Xᵀ(y − Xw) = τ (g_ref − XᵀX d); ∂/∂log τ = n/2 − τ RSS/2; ∂/∂log τ_w = 0.
      for (let j = 0; j < p; j++) grad[j] = scaled(expansion.xtResidual(j), tau);
      grad[iTau] = 0.5 * n - 0.5 * scaled(r, tau);
      grad[iTauW] = 0;
      return likelihoodValue(s, r);
    },
    logLikelihoodPointwise(theta, out) {
      checkTheta(theta, "logLikelihoodPointwise");
      if (!(out instanceof Float64Array) || out.length !== n) {
        throw new OccamError(
          "dimension-mismatch",
          `${NAME}.logLikelihoodPointwise: out must be a Float64Array of length n = ${n}, got length ${out?.length}.`,
        );
      }
      const s = theta[iTau];
      const tau = Math.exp(s);
      const c = 0.5 * (s - LOG_2PI);
      for (let i = 0; i < n; i++) {
        const r = residualAt(X, y, p, i, theta);
        out[i] = c - 0.5 * scaled(r * r, tau);
      }
    },
  };
}

/**
 * The thesis's Gibbs sweep (App. B) for p(θ) L(θ)^t, with t the inverse temperature (the thesis's θ):
 *   w | τ, τ_w ~ N(m, P⁻¹),  P = tτ XᵀX + τ_w I,  m = P⁻¹ tτ Xᵀy            (B.6)
 *   τ | w ~ Gamma(α + tn/2, rate 1/β + t‖y − Xw‖²/2)                           (B.8)
 *   τ_w | w ~ Gamma(α_w + p/2, rate 1/β_w + wᵀw/2)                              (B.10)
 * B.10 (and 6.67) print the shape as α_w − N_i/2; the product π(τ_w) p(w | τ_w) of B.9 gives
 * α_w + N_i/2, which is what is used here (see SEEDS.md). τ_w does not see the likelihood, so t
 * does not enter its conditional. The precisions are drawn on the log scale and stored as logs.
 */
function independentGibbsKernel(
  { n, p, alpha, beta, alphaW, betaW }: IndependentSettings,
  { XtX, Xty }: IndependentStatistics,
  { rss, sumSquares }: IndependentDensities,
  model: IndependentPrecisionModel,
  t: number,
): Kernel<PositionState, StepInfo> {
  const d = p + 2;
  const iTau = p;
  const iTauW = p + 1;
  // Scratch of the weight update, made once per kernel (no allocation per step).
  const L = new Float64Array(p * p);
  const v = new Float64Array(p);
  const noiseShape = alpha + 0.5 * t * n;
  const weightShape = alphaW + 0.5 * p; // corrected sign: + N_i/2, not − N_i/2
  const updateWeights = (rng: Rng, x: Float64Array): void => {
    const c = t * Math.exp(x[iTau]);
    const tauW = Math.exp(x[iTauW]);
    for (let j = 0; j < p; j++) {
      const row = j * p;
      for (let k = 0; k <= j; k++) L[row + k] = c === 0 ? 0 : c * XtX[row + k];
      L[row + j] += tauW;
    }
    try {
      choleskyInPlace(L, p);
    } catch (error) {
      if (error instanceof OccamError) {
        throw new OccamError(
          error.code,
          `${NAME}: the conditional precision tτXᵀX + τ_w I of the weights at τ = ${Math.exp(x[iTau])}, τ_w = ${tauW} (β = ${t}) failed its Cholesky factorisation: ${error.message}`,
        );
      }
      throw error;
    }
    // With P = LLᵀ: w = L⁻ᵀ(L⁻¹ tτ Xᵀy + z), z ~ N(0, I), has mean P⁻¹tτXᵀy and covariance
    // L⁻ᵀL⁻¹ = P⁻¹: one forward and one back substitution, in place in v.
    for (let j = 0; j < p; j++) v[j] = c * Xty[j];
    solveLower(L, p, v, v);
    for (let j = 0; j < p; j++) v[j] += rng.normal();
    solveLowerTranspose(L, p, v, v);
    for (let j = 0; j < p; j++) x[j] = v[j];
  };
  const updateNoise = (rng: Rng, x: Float64Array): void => {
    const rate = t === 0 ? 1 / beta : 1 / beta + 0.5 * t * rss(x);
    x[iTau] = logGammaVariate(rng, noiseShape) - Math.log(rate);
  };
  const updateWeightPrecision = (rng: Rng, x: Float64Array): void => {
    const rate = 1 / betaW + 0.5 * sumSquares(x);
    x[iTauW] = logGammaVariate(rng, weightShape) - Math.log(rate);
  };
  const target = tempered(model, t);
  return buildGibbsKernel({
    dim: d,
    updates: [updateWeights, updateNoise, updateWeightPrecision],
    logDensity: (theta) => target.logDensity(theta),
  });
}

/** Options of {@link independentFamily}: the hyperparameters as {@link IndependentPrecisionOptions} names them. */
export interface IndependentFamilyOptions {
  alpha: number;
  beta: number;
  alphaW: number;
  betaW: number;
  /** An intercept in every model. @defaultValue true */
  intercept?: boolean;
  /** Standardise the candidate columns before the prior applies. @defaultValue true */
  standardize?: boolean;
}

/**
 * The independent-precision regressions over subsets of a design's terms: no closed-form evidence
 * (`exact` is false; only `model` serves, for sampled estimators) and no closed-form posterior moments
 * (NaN). Columns are standardised when asked, since one τ_w for all coefficients is not invariant to
 * their units.
 */
export function independentFamily(
  design: LinearDesign,
  stats: CentredStatistics,
  options: IndependentFamilyOptions,
): SubsetFamily {
  const { intercept = true, standardize = true, ...hyper } = options;
  const noClosedForm = (): never => {
    throw new OccamError(
      "invalid-argument",
      "the independent-precision prior has no closed-form evidence; choose a sampled estimator.",
    );
  };
  return {
    terms: design.terms,
    columnNames: design.columnNames,
    givesEvidence: true,
    exact: false,
    score: noClosedForm,
    enumerate: noClosedForm,
    moments(members, mean, variance) {
      for (const c of subsetColumns(design, members)) {
        mean[c] = Number.NaN;
        variance[c] = Number.NaN;
      }
    },
    rSquared: (members) =>
      rSquaredOf(stats, design.columns, subsetColumns(design, members), design.columnNames),
    model(members) {
      const { Z, k, names } = subsetDesignMatrix(design, stats, members, intercept, standardize);
      if (k === 0) return null;
      return independentPrecisionRegression({ X: Z, y: design.y, n: design.n, p: k, ...hyper, names });
    },
  };
}
