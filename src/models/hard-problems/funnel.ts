/**
 * Neal's funnel (Neal 2003, Annals of Statistics 31(3), §8) as an evidence problem: θ = (v, x_1 … x_k),
 * L(θ) = N(v; 0, 3²) ∏_i N(x_i; 0, e^v), prior N(0, 10² I) on all d = k + 1 coordinates. The posterior's
 * scale in x changes by e^{v/2} along v: a step size that suits the neck (v ≈ −5, sd e^{−2.5}) is
 * hopeless in the mouth (v ≈ 5, sd 12), and the neck holds a share of Z that samplers miss.
 */
import { checkInteger, checkPositive } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { logAddExp } from "../../math/logspace.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import { logIntegrate, trapezoid } from "./numerics.js";
import { checkTheta, type EvidenceProblem, indexedNames, isotropicNormalPrior } from "./problem.js";

const WHERE = "funnelProblem";

/** Options of {@link funnelProblem}. */
export interface FunnelOptions {
  /**
   * Dimension d = 1 + the number of x coordinates (at least 2).
   * @defaultValue 10
   */
  dim?: number;
  /**
   * Standard deviation of v in the likelihood, N(v; 0, vSd²).
   * @defaultValue 3
   */
  vSd?: number;
  /**
   * Standard deviation of the prior N(0, priorSd² I) on every coordinate.
   * @defaultValue 10
   */
  priorSd?: number;
}

/**
 * log Z and the information of the funnel by a 1-D integral over v.
 *
 * Given v, each x_i integral is a Gaussian convolution, ∫ N(x; 0, e^v) N(x; 0, s²) dx = N(0; 0, e^v + s²),
 * so Z = ∫ N(v; 0, s²) N(v; 0, τ²) [2π(e^v + s²)]^{−k/2} dv: a Gaussian in v (variance
 * 1/(1/s² + 1/τ²) = 8.26, sd 2.9, for the defaults) times a bounded smooth factor. That factor is
 * analytic in the strip |Im v| < π (its nearest singularity is e^v = −s²), so the trapezoidal rule
 * with step h converges like e^{−2π²/h}: h = 0.05 on ±40 sd is exact to rounding.
 *
 * For the information, given v each x_i is a posteriori N(0, e^v s²/(e^v + s²)), so
 * E[log N(x_i; 0, e^v) | v] = −½ log 2π − v/2 − ½ s²/(e^v + s²), and
 * KL = ∫ p(v | D) E[log L | v] dv − log Z.
 */
export function funnelReference(
  dim: number,
  vSd: number,
  priorSd: number,
): { logZ: number; information: number } {
  const k = dim - 1;
  const s2 = priorSd * priorSd;
  const tau2 = vSd * vSd;
  const logS2 = Math.log(s2);
  const sd = Math.sqrt(1 / (1 / s2 + 1 / tau2));
  const h = 0.05;
  const n = Math.ceil((80 * sd) / h);
  const rule = trapezoid(-40 * sd, (80 * sd) / n, n);
  const logF = (v: number): number =>
    -LOG_2PI -
    0.5 * Math.log(s2 * tau2) -
    0.5 * v * v * (1 / s2 + 1 / tau2) -
    0.5 * k * (LOG_2PI + logAddExp(v, logS2));
  const conditionalLogL = (v: number): number => {
    // s²/(e^v + s²) as a logistic function of v − log s², which neither overflows nor cancels.
    const shrink =
      v > logS2 ? Math.exp(logS2 - v) / (1 + Math.exp(logS2 - v)) : 1 / (1 + Math.exp(v - logS2));
    return (
      -0.5 * (LOG_2PI + Math.log(tau2)) - (0.5 * v * v) / tau2 + k * (-0.5 * LOG_2PI - 0.5 * v - 0.5 * shrink)
    );
  };
  const { logIntegral, mean } = logIntegrate(rule, logF, conditionalLogL);
  return { logZ: logIntegral, information: mean - logIntegral };
}

/**
 * The funnel problem with its quadrature reference (d = 10: log Z = −32.4834…).
 *
 * @example
 * const { model, logZ } = funnelProblem(); // d = 10
 */
export function funnelProblem(options: FunnelOptions = {}): EvidenceProblem {
  const dim = options.dim ?? 10;
  const vSd = options.vSd ?? 3;
  const priorSd = options.priorSd ?? 10;
  checkInteger(dim, `${WHERE}: dim`, 2);
  checkPositive(vSd, `${WHERE}: vSd`);
  checkPositive(priorSd, `${WHERE}: priorSd`);
  const k = dim - 1;
  const tau2 = vSd * vSd;
  const logConst = -0.5 * (LOG_2PI + Math.log(tau2)) - 0.5 * k * LOG_2PI;
  /** Σ x_i² e^{−v}, taken as 0 when every x_i is 0 (so e^{−v} = Infinity cannot make 0 · ∞ = NaN). */
  const scaled = (sumSq: number, v: number): number => (sumSq === 0 ? 0 : sumSq * Math.exp(-v));
  const model: BayesModel = {
    dim,
    names: Object.freeze(["v", ...indexedNames("x", k)]),
    ...isotropicNormalPrior(dim, priorSd, "funnel"),
    logLikelihood(theta) {
      checkTheta(theta, dim, "funnel.logLikelihood");
      const v = theta[0];
      let sumSq = 0;
      for (let i = 1; i < dim; i++) sumSq += theta[i] * theta[i];
      return logConst - (0.5 * v * v) / tau2 - 0.5 * k * v - 0.5 * scaled(sumSq, v);
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, dim, "funnel.gradLogLikelihood");
      const v = theta[0];
      const inv = Math.exp(-v);
      let sumSq = 0;
      for (let i = 1; i < dim; i++) {
        sumSq += theta[i] * theta[i];
        grad[i] = theta[i] === 0 ? 0 : -theta[i] * inv;
      }
      const q = scaled(sumSq, v);
      grad[0] = -v / tau2 - 0.5 * k + 0.5 * q;
      return logConst - (0.5 * v * v) / tau2 - 0.5 * k * v - 0.5 * q;
    },
  };
  const { logZ, information } = funnelReference(dim, vSd, priorSd);
  return Object.freeze({
    name: `funnel-d${dim}`,
    description: `Prior N(0, ${priorSd}² I_${dim}), L = N(v; 0, ${vSd}²) ∏ N(x_i; 0, e^v) for θ = (v, x_1…x_${k}): Neal's funnel, whose x-scale changes by orders of magnitude along v, so no single step size fits.`,
    model: defineModel(model),
    logZ,
    logZError: 1e-11,
    reference:
      "The x-integrals are Gaussian convolutions; the remaining 1-D integral over v by the trapezoidal rule (step 0.05 over ±40 sd, exponentially convergent), confirmed by scipy's quad.",
    information,
  });
}
