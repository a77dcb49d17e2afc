/**
 * The eggbox of Feroz, Hobson & Bridges (2009, MNRAS 398, 1601, §6.2): a uniform prior on
 * [0, 10π]² and log L = (2 + cos(θ1/2) cos(θ2/2))^5: 18 equally high, sharp peaks (8 inside the box, 8
 * cut in half by its edges, 2 quartered in its corners) separated by valleys 243 nats deep. A method
 * that loses a mode, or cannot move between them, misses a share of Z.
 */
import { checkInteger } from "../../errors.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import { checkTheta, type EvidenceProblem, indexedNames, uniformBoxPrior } from "./problem.js";

const WHERE = "eggboxProblem";
/** The published analytical value of Feroz et al. (2009), to the digits they give. */
export const EGGBOX_PUBLISHED_LOG_Z = 235.856;

/** Options of {@link eggboxProblem}. */
export interface EggboxOptions {
  /**
   * Trapezoid intervals per side of the reduced square [0, π]² of the reference quadrature. The
   * integrand is analytic and periodic, so the error falls faster than any power; 256 is converged
   * to rounding (128 already agrees to 1e-12).
   * @defaultValue 256
   */
  quadratureIntervals?: number;
}

/**
 * log Z and the information of the eggbox by the periodic trapezoidal rule.
 *
 * Why a 2-D integral over [0, π]² is enough: with u = θ1/2, v = θ2/2 the prior density 1/(10π)² and
 * the Jacobian 4 give Z = (1/25π²) ∫∫_{[0,5π]²} e^{(2 + cos u cos v)^5} du dv. On each interval
 * [kπ, (k+1)π] cos u runs over the values it takes on [0, π] (reflected for odd k, which the
 * other factor's symmetry absorbs), so the 25 cells have equal integrals and Z = (1/π²) ∫∫_{[0,π]²}.
 * The integrand is even and 2π-periodic in u and v, so the trapezoidal rule on [0, π] is the
 * periodic trapezoidal rule on [0, 2π], whose error for an entire function is set by the Fourier
 * coefficients beyond the grid: the peaks have width σ = 1/√405 ≈ 0.05, and at N = 256 the first
 * aliased coefficient is below e^{−300}.
 */
export function eggboxReference(intervals: number): { logZ: number; information: number } {
  checkInteger(intervals, `${WHERE}: quadratureIntervals`, 8);
  const n = intervals;
  const cosines = new Float64Array(n + 1);
  const weights = new Float64Array(n + 1);
  for (let i = 0; i <= n; i++) {
    cosines[i] = Math.cos((Math.PI * i) / n);
    weights[i] = i === 0 || i === n ? 0.5 : 1;
  }
  // Sums of w f and w f log L with f = exp(log L − 243): 243 = 3^5 is the peak of log L.
  const peak = 243;
  let sum = 0;
  let sumLogL = 0;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= n; j++) {
      const logL = (2 + cosines[i] * cosines[j]) ** 5;
      const wf = weights[i] * weights[j] * Math.exp(logL - peak);
      sum += wf;
      sumLogL += wf * logL;
    }
  }
  // (1/π²) ∫∫ ≈ (1/π²)(π/n)² Σ w f = Σ w f / n².
  const logZ = peak + Math.log(sum) - 2 * Math.log(n);
  return { logZ, information: sumLogL / sum - logZ };
}

/** The eggbox as a model: uniform prior on [0, 10π]², log L = (2 + cos(θ1/2) cos(θ2/2))^5. */
export function eggboxModel(): BayesModel {
  const prior = uniformBoxPrior(2, 0, 10 * Math.PI, "eggbox");
  const model: BayesModel = {
    dim: 2,
    names: indexedNames("theta", 2),
    ...prior,
    logLikelihood(theta) {
      checkTheta(theta, 2, "eggbox.logLikelihood");
      return (2 + Math.cos(0.5 * theta[0]) * Math.cos(0.5 * theta[1])) ** 5;
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, 2, "eggbox.gradLogLikelihood");
      const c0 = Math.cos(0.5 * theta[0]);
      const c1 = Math.cos(0.5 * theta[1]);
      const g = 2 + c0 * c1;
      const g4 = g * g * g * g;
      // d/dθ1 g^5 = 5 g^4 · (−½ sin(θ1/2) cos(θ2/2)), and the same with the roles swapped.
      grad[0] = -2.5 * g4 * Math.sin(0.5 * theta[0]) * c1;
      grad[1] = -2.5 * g4 * c0 * Math.sin(0.5 * theta[1]);
      return g4 * g;
    },
  };
  return defineModel(model);
}

/**
 * The eggbox problem with its quadrature reference (ln Z = 235.85594…, against the published
 * 235.856).
 *
 * @example
 * const { model, logZ } = eggboxProblem(); // logZ ≈ 235.856
 */
export function eggboxProblem(options: EggboxOptions = {}): EvidenceProblem {
  const intervals = options.quadratureIntervals ?? 256;
  const { logZ, information } = eggboxReference(intervals);
  return Object.freeze({
    name: "eggbox",
    description:
      "Uniform prior on [0, 10π]², log L = (2 + cos(θ1/2) cos(θ2/2))^5: 18 equal sharp peaks (8 interior, 8 halved by edges, 2 quartered in corners) between 243-nat valleys; every mode must be found and weighed.",
    model: eggboxModel(),
    logZ,
    logZError: 1e-10,
    reference:
      "2-D periodic trapezoidal rule on the reduced cell [0, π]² (the 25 period cells have equal integrals), converged to rounding; scipy's dblquad agrees to 1e-12.",
    information,
  });
}
