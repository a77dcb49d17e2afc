/**
 * A strongly correlated Gaussian likelihood in 20 or 50 dimensions: L(θ) = N(θ; μ, Σ) with the AR(1)
 * correlation Σ_ij = ρ^{|i−j|}, ρ = 0.9, under a uniform box prior or a normal prior. The posterior is
 * a narrow ridge (the eigenvalues of Σ run from (1 − ρ)/(1 + ρ) ≈ 0.05 to (1 + ρ)/(1 − ρ) = 19), so a
 * sampler with isotropic steps mixes slowly and a method that assumes independent coordinates is badly
 * off; with the box prior the posterior fills e^{−120} of the prior volume (d = 50).
 */

import { checkInteger, checkPositive, OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import {
  cholesky,
  choleskySolve,
  invertFromCholesky,
  logDetFromCholesky,
  solveLower,
} from "../../math/linalg.js";
import { erfc } from "../../math/stdlib.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import {
  checkTheta,
  type EvidenceProblem,
  indexedNames,
  isotropicNormalPrior,
  uniformBoxPrior,
} from "./problem.js";

const WHERE = "correlatedGaussianProblem";

/** Options of {@link correlatedGaussianProblem}. */
export interface CorrelatedGaussianOptions {
  /**
   * Dimension d (at least 2).
   * @defaultValue 20
   */
  dim?: number;
  /**
   * The prior: "box" is uniform on [−halfWidth, halfWidth]^d, "normal" is N(0, priorSd² I).
   * @defaultValue "box"
   */
  prior?: "box" | "normal";
  /**
   * Correlation ρ of neighbouring coordinates, in (−1, 1): Σ_ij = ρ^{|i−j|}.
   * @defaultValue 0.9
   */
  correlation?: number;
  /**
   * Amplitude a of the likelihood's mean μ_j = a · sin(j), j = 1 … d: an offset that is neither
   * symmetric nor aligned with Σ's eigenvectors, so a method cannot gain from the mean being 0.
   * @defaultValue 0.5
   */
  meanAmplitude?: number;
  /**
   * Half-width of the "box" prior.
   * @defaultValue 10
   */
  halfWidth?: number;
  /**
   * Standard deviation of the "normal" prior.
   * @defaultValue 3
   */
  priorSd?: number;
}

interface CorrelatedSettings {
  dim: number;
  prior: "box" | "normal";
  rho: number;
  amplitude: number;
  halfWidth: number;
  priorSd: number;
}

function resolveCorrelatedOptions(options: CorrelatedGaussianOptions): CorrelatedSettings {
  const s: CorrelatedSettings = {
    dim: options.dim ?? 20,
    prior: options.prior ?? "box",
    rho: options.correlation ?? 0.9,
    amplitude: options.meanAmplitude ?? 0.5,
    halfWidth: options.halfWidth ?? 10,
    priorSd: options.priorSd ?? 3,
  };
  checkInteger(s.dim, `${WHERE}: dim`, 2);
  if (s.prior !== "box" && s.prior !== "normal") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: prior must be "box" or "normal", got ${String(s.prior)}.`,
    );
  }
  if (!(s.rho > -1 && s.rho < 1)) {
    throw new OccamError("invalid-argument", `${WHERE}: correlation must lie in (−1, 1), got ${s.rho}.`);
  }
  if (!Number.isFinite(s.amplitude)) {
    throw new OccamError("invalid-argument", `${WHERE}: meanAmplitude must be finite, got ${s.amplitude}.`);
  }
  checkPositive(s.halfWidth, `${WHERE}: halfWidth`);
  checkPositive(s.priorSd, `${WHERE}: priorSd`);
  return s;
}

/** The likelihood's mean μ_j = a sin(j), j = 1 … d. */
export function correlatedMean(dim: number, amplitude = 0.5): Float64Array {
  return Float64Array.from({ length: dim }, (_, j) => amplitude * Math.sin(j + 1));
}

/** The dense AR(1) correlation matrix Σ_ij = ρ^{|i−j|}, row-major. */
export function ar1Covariance(dim: number, rho: number): Float64Array {
  const a = new Float64Array(dim * dim);
  for (let i = 0; i < dim; i++) for (let j = 0; j < dim; j++) a[i * dim + j] = rho ** Math.abs(i - j);
  return a;
}

/**
 * The AR(1) Gaussian N(θ; μ, Σ) as a log density with its gradient, in O(d). Σ is the covariance of
 * e_1 ~ N(0, 1), e_j = ρ e_{j−1} + √(1 − ρ²) η_j, so its precision is tridiagonal,
 * (θ − μ)ᵀ Σ⁻¹ (θ − μ) = e_1² + Σ_{j≥2} (e_j − ρ e_{j−1})² / (1 − ρ²) with e = θ − μ, and
 * log det Σ = (d − 1) log(1 − ρ²) (the innovations' variances multiply).
 */
function ar1LogDensity(mean: Float64Array, rho: number) {
  const d = mean.length;
  const oneMinus = 1 - rho * rho;
  const logConst = -0.5 * d * LOG_2PI - 0.5 * (d - 1) * Math.log(oneMinus);
  const value = (theta: Float64Array): number => {
    let e = theta[0] - mean[0];
    const first = e * e;
    let inner = 0;
    for (let j = 1; j < d; j++) {
      const ej = theta[j] - mean[j];
      const u = ej - rho * e;
      inner += u * u;
      e = ej;
    }
    return logConst - 0.5 * (first + inner / oneMinus);
  };
  return {
    value,
    /** Writes −Σ⁻¹(θ − μ) (the tridiagonal precision times the residual) and returns the value. */
    gradient(theta: Float64Array, grad: Float64Array): number {
      const diagInner = (1 + rho * rho) / oneMinus;
      const diagEnd = 1 / oneMinus;
      const off = -rho / oneMinus;
      for (let j = 0; j < d; j++) {
        const ej = theta[j] - mean[j];
        let qe = (j === 0 || j === d - 1 ? diagEnd : diagInner) * ej;
        if (j > 0) qe += off * (theta[j - 1] - mean[j - 1]);
        if (j < d - 1) qe += off * (theta[j + 1] - mean[j + 1]);
        grad[j] = -qe;
      }
      return value(theta);
    },
  };
}

/** log N(μ; 0, Σ + s² I): the evidence under the normal prior, by a dense Cholesky factorisation. */
function normalPriorLogZ(mean: Float64Array, rho: number, priorSd: number): number {
  const d = mean.length;
  const a = ar1Covariance(d, rho);
  for (let j = 0; j < d; j++) a[j * d + j] += priorSd * priorSd;
  const L = cholesky(a, d);
  const z = solveLower(L, d, mean);
  let q = 0;
  for (let j = 0; j < d; j++) q += z[j] * z[j];
  return -0.5 * d * LOG_2PI - 0.5 * logDetFromCholesky(L, d) - 0.5 * q;
}

/**
 * KL(posterior ‖ prior) under the normal prior, as E_post[log L] − log Z. The posterior is
 * N(m, S) with S⁻¹ = P = Σ⁻¹ + I/s² and m = S Σ⁻¹ μ, and
 * E_post[log L] = log N(m; μ, Σ) − ½ tr(Σ⁻¹ S), where tr(Σ⁻¹ S) = tr((P − I/s²) S) = d − tr(S)/s².
 */
function normalPriorInformation(mean: Float64Array, rho: number, priorSd: number, logZ: number): number {
  const d = mean.length;
  const s2 = priorSd * priorSd;
  const oneMinus = 1 - rho * rho;
  // P, dense from its tridiagonal form.
  const P = new Float64Array(d * d);
  for (let j = 0; j < d; j++) {
    P[j * d + j] = (j === 0 || j === d - 1 ? 1 : 1 + rho * rho) / oneMinus + 1 / s2;
    if (j + 1 < d) {
      P[j * d + j + 1] = -rho / oneMinus;
      P[(j + 1) * d + j] = -rho / oneMinus;
    }
  }
  const L = cholesky(P, d);
  // P m = Σ⁻¹ μ = P μ − μ/s², so m = μ − S μ / s².
  const sMu = choleskySolve(L, d, mean);
  const m = Float64Array.from(mean, (v, j) => v - sMu[j] / s2);
  const S = invertFromCholesky(L, d);
  let traceS = 0;
  for (let j = 0; j < d; j++) traceS += S[j * d + j];
  const meanLogL = ar1LogDensity(mean, rho).value(m) - 0.5 * (d - traceS / s2);
  return meanLogL - logZ;
}

/**
 * The mass of N(μ, Σ) outside the box [−h, h]^d, bounded by the union over coordinates: each marginal
 * is N(μ_j, 1) (Σ_jj = 1), so P(outside) ≤ Σ_j [Φ(−h − μ_j) + Φ(−(h − μ_j))]. For h = 10 and |μ_j| ≤ ½
 * each term is below 2Φ(−9.5) ≈ 2e-21, so the box holds all but 1e-19 of the likelihood at d = 50.
 */
export function correlatedOutsideBound(mean: Float64Array, halfWidth: number): number {
  let outside = 0;
  for (let j = 0; j < mean.length; j++) {
    outside +=
      0.5 * erfc((halfWidth - mean[j]) / Math.SQRT2) + 0.5 * erfc((halfWidth + mean[j]) / Math.SQRT2);
  }
  return outside;
}

/**
 * The correlated-Gaussian problem: L(θ) = N(θ; μ, Σ_AR(1)) under a box or normal prior, with log Z
 * and the information in closed form.
 *
 * Box prior: Z = P_Σ(θ ∈ box) / (2h)^d, and P_Σ(box) = 1 to within {@link correlatedOutsideBound}
 * (1e-19 for the defaults), so log Z = −d log 2h. The information is then
 * KL = d log 2h − H[N(μ, Σ)] = d log 2h − (d/2) log 2πe − ½(d − 1) log(1 − ρ²) (119.53 nats at d = 50).
 * Normal prior: Z = ∫ N(θ; 0, s² I) N(θ; μ, Σ) dθ = N(μ; 0, Σ + s² I).
 *
 * @example
 * const { logZ } = correlatedGaussianProblem({ dim: 50, prior: "box" }); // −50 log 20
 */
export function correlatedGaussianProblem(options: CorrelatedGaussianOptions = {}): EvidenceProblem {
  const s = resolveCorrelatedOptions(options);
  const { dim: d, rho } = s;
  const mean = correlatedMean(d, s.amplitude);
  const likelihood = ar1LogDensity(mean, rho);
  const box = s.prior === "box";
  const prior = box
    ? uniformBoxPrior(d, -s.halfWidth, s.halfWidth, "correlatedGaussian")
    : isotropicNormalPrior(d, s.priorSd, "correlatedGaussian");
  const model: BayesModel = {
    dim: d,
    names: indexedNames("theta", d),
    ...prior,
    logLikelihood(theta) {
      checkTheta(theta, d, "correlatedGaussian.logLikelihood");
      return likelihood.value(theta);
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, d, "correlatedGaussian.gradLogLikelihood");
      return likelihood.gradient(theta, grad);
    },
  };
  const correlation = `AR(1) correlation ρ = ${rho}`;
  if (box) {
    const outside = correlatedOutsideBound(mean, s.halfWidth);
    if (!(outside < 1e-12)) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: the box [−${s.halfWidth}, ${s.halfWidth}]^${d} may leave ${outside.toExponential(2)} of the likelihood outside; the closed-form reference needs it below 1e-12: widen halfWidth.`,
      );
    }
    const logZ = -d * Math.log(2 * s.halfWidth);
    const information = -logZ - 0.5 * d * (LOG_2PI + 1) - 0.5 * (d - 1) * Math.log(1 - rho * rho);
    return Object.freeze({
      name: `correlated-box-d${d}`,
      description: `Uniform prior on [−${s.halfWidth}, ${s.halfWidth}]^${d}, L = N(θ; μ, Σ) with ${correlation}: a narrow correlated ridge (condition number up to ${(((1 + rho) / (1 - rho)) ** 2).toFixed(0)}) filling about e^{−${information.toFixed(0)}} of the box.`,
      model: defineModel(model),
      logZ,
      logZError: 1e-12 + outside,
      reference: `log Z = log P_Σ(box) − d log ${2 * s.halfWidth} with the box mass 1 to within the union tail bound ${outside.toExponential(1)}.`,
      information,
    });
  }
  const logZ = normalPriorLogZ(mean, rho, s.priorSd);
  return Object.freeze({
    name: `correlated-normal-d${d}`,
    description: `Prior N(0, ${s.priorSd}² I_${d}), L = N(θ; μ, Σ) with ${correlation}: a narrow correlated ridge, where tempering from the prior must shrink the scale in every direction.`,
    model: defineModel(model),
    logZ,
    logZError: 1e-12,
    reference: `log Z = log N(μ; 0, Σ + ${s.priorSd}² I) exactly, by a dense Cholesky factorisation.`,
    information: normalPriorInformation(mean, rho, s.priorSd, logZ),
  });
}
