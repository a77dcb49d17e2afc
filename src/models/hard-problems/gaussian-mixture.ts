/**
 * Well-separated Gaussian modes of unequal weight under a uniform box prior:
 * L(θ) = Σ_k w_k N(θ; a_k 1, σ_k² I), by default 0.7 N(−4·1, I) + 0.3 N(+4·1, I) on [−10, 10]^d.
 * At β = 1 the modes are 8√d apart (18 or 25 sds for d = 5, 10), far beyond any MCMC move; a method
 * that finds one mode is off by log 0.7 = −0.36 or log 0.3 = −1.20 nats, and chains started in one
 * mode never learn of the other.
 *
 * Modes of unequal width are a harder problem of another kind: a mode's share of p L^β is ∝
 * w^β σ^{d(1−β)}, so with σ = ½ the narrow mode holds 0.3 % of the tempered mass at β = 0.2 in ten
 * dimensions and 30 % at β = 1, a phase transition that tempering from the prior does not survive
 * (`components` can set such a problem up).
 */
import { checkInteger, checkPositive, OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { logSumExp } from "../../math/logspace.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import { logNormalInterval, truncatedNormalSecondMoment } from "./numerics.js";
import { checkTheta, type EvidenceProblem, indexedNames, uniformBoxPrior } from "./problem.js";

const WHERE = "gaussianMixtureProblem";

/** One isotropic component w N(θ; location · 1, sd² I). */
export interface MixtureComponent {
  readonly weight: number;
  /** Every coordinate of the component's mean. */
  readonly location: number;
  readonly sd: number;
}

/** Options of {@link gaussianMixtureProblem}. */
export interface GaussianMixtureOptions {
  /**
   * Dimension d.
   * @defaultValue 5
   */
  dim?: number;
  /**
   * The components; weights positive, summing to 1.
   * @defaultValue [{ weight: 0.7, location: −4, sd: 1 }, { weight: 0.3, location: 4, sd: 1 }]
   */
  components?: readonly MixtureComponent[];
  /**
   * Half-width h of the prior box [−h, h]^d.
   * @defaultValue 10
   */
  halfWidth?: number;
}

const DEFAULT_COMPONENTS: readonly MixtureComponent[] = Object.freeze([
  Object.freeze({ weight: 0.7, location: -4, sd: 1 }),
  Object.freeze({ weight: 0.3, location: 4, sd: 1 }),
]);

function resolveMixtureOptions(options: GaussianMixtureOptions): {
  dim: number;
  components: readonly MixtureComponent[];
  halfWidth: number;
} {
  const dim = options.dim ?? 5;
  const components = options.components ?? DEFAULT_COMPONENTS;
  const halfWidth = options.halfWidth ?? 10;
  checkInteger(dim, `${WHERE}: dim`, 1);
  checkPositive(halfWidth, `${WHERE}: halfWidth`);
  if (!Array.isArray(components) || components.length === 0) {
    throw new OccamError("invalid-argument", `${WHERE}: components must be a non-empty array.`);
  }
  let total = 0;
  components.forEach((c, k) => {
    checkPositive(c.weight, `${WHERE}: components[${k}].weight`);
    checkPositive(c.sd, `${WHERE}: components[${k}].sd`);
    if (!(Math.abs(c.location) < halfWidth)) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: components[${k}].location ${c.location} lies outside the box [−${halfWidth}, ${halfWidth}].`,
      );
    }
    total += c.weight;
  });
  if (Math.abs(total - 1) > 1e-12) {
    throw new OccamError("invalid-argument", `${WHERE}: the component weights sum to ${total}, not 1.`);
  }
  return { dim, components, halfWidth };
}

/** log of a component's mass in the box, per coordinate: log(Φ((h − a)/σ) − Φ((−h − a)/σ)). */
function logBoxMass1(c: MixtureComponent, halfWidth: number): number {
  return logNormalInterval((-halfWidth - c.location) / c.sd, (halfWidth - c.location) / c.sd);
}

/**
 * Each component's share of the tempered posterior p(θ) L(θ)^β, ignoring the box and the overlap:
 * ∫ (w N(θ; μ, σ² I))^β dθ = w^β (2πσ²)^{d(1−β)/2} β^{−d/2}, so the share is ∝ w^β σ^{d(1−β)}.
 */
export function temperedShares(components: readonly MixtureComponent[], dim: number, beta: number): number[] {
  const logs = components.map((c) => beta * Math.log(c.weight) + dim * (1 - beta) * Math.log(c.sd));
  const total = logSumExp(logs);
  return logs.map((l) => Math.exp(l - total));
}

/**
 * The mixture problem with log Z and the information in closed form.
 *
 * The box integral of each component factorises over coordinates, so
 * Z = (2h)^{−d} Σ_k w_k ∏_j [Φ((h − a_k)/σ_k) − Φ((−h − a_k)/σ_k)], exactly, whatever the overlap
 * (erfc forms, no cancellation). The information E_post[log L] − log Z uses log L ≈ log(w_k N_k) in
 * mode k, which holds to about e^{−20} when the modes are at least 5 (σ_k + σ_l) apart (it is not
 * given otherwise), and the second moment of the box-truncated normal in each coordinate.
 *
 * @example
 * const { logZ } = gaussianMixtureProblem({ dim: 10 }); // ≈ −10 log 20
 */
export function gaussianMixtureProblem(options: GaussianMixtureOptions = {}): EvidenceProblem {
  const { dim: d, components, halfWidth: h } = resolveMixtureOptions(options);
  const K = components.length;
  const logConst = components.map((c) => Math.log(c.weight) - d * Math.log(c.sd) - 0.5 * d * LOG_2PI);
  const terms = new Float64Array(K);
  /** log w_k N(θ; a_k 1, σ_k² I) into `terms`. */
  const fillTerms = (theta: Float64Array): void => {
    for (let k = 0; k < K; k++) {
      const a = components[k].location;
      let s = 0;
      for (let j = 0; j < d; j++) s += (theta[j] - a) ** 2;
      terms[k] = logConst[k] - (0.5 * s) / (components[k].sd * components[k].sd);
    }
  };
  const model: BayesModel = {
    dim: d,
    names: indexedNames("theta", d),
    ...uniformBoxPrior(d, -h, h, "gaussianMixture"),
    logLikelihood(theta) {
      checkTheta(theta, d, "gaussianMixture.logLikelihood");
      fillTerms(theta);
      return logSumExp(terms);
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, d, "gaussianMixture.gradLogLikelihood");
      fillTerms(theta);
      const total = logSumExp(terms);
      grad.fill(0);
      // ∇ log L = Σ_k r_k (a_k 1 − θ)/σ_k², r_k the responsibilities.
      for (let k = 0; k < K; k++) {
        const r = Math.exp(terms[k] - total);
        if (r === 0) continue;
        const a = components[k].location;
        const f = r / (components[k].sd * components[k].sd);
        for (let j = 0; j < d; j++) grad[j] += f * (a - theta[j]);
      }
      return total;
    },
  };

  const logMass = components.map((c) => Math.log(c.weight) + d * logBoxMass1(c, h));
  const logZBox = logSumExp(logMass);
  const logZ = logZBox - d * Math.log(2 * h);
  const shares = logMass.map((l) => Math.exp(l - logZBox));
  let separated = true;
  for (let k = 0; k < K; k++) {
    for (let l = k + 1; l < K; l++) {
      const gap = Math.abs(components[k].location - components[l].location) * Math.sqrt(d);
      if (gap < 5 * (components[k].sd + components[l].sd)) separated = false;
    }
  }
  let information: number | undefined;
  if (separated) {
    let meanLogL = 0;
    components.forEach((c, k) => {
      const z2 = truncatedNormalSecondMoment((-h - c.location) / c.sd, (h - c.location) / c.sd);
      meanLogL += shares[k] * (logConst[k] - 0.5 * d * z2);
    });
    information = meanLogL - logZ;
  }
  const loss = shares.map((p) => (-Math.log(p)).toFixed(2)).join(" / ");
  const halfway = temperedShares(components, d, 0.5).map((p) => `${(100 * p).toFixed(0)}%`);
  return Object.freeze({
    name: `mixture-d${d}`,
    description: `Uniform prior on [−${h}, ${h}]^${d}, L = ${components.map((c) => `${c.weight} N(${c.location}·1, ${c.sd}² I)`).join(" + ")}: separated modes of unequal weight; finding only one mode makes log Z too low by ${loss} nats, and at β = ½ the modes hold ${halfway.join(" / ")} of the tempered mass.`,
    model: defineModel(model),
    logZ,
    logZError: 1e-12,
    reference:
      "log Z = log Σ_k w_k × (box mass of component k) − d log 2h, each box mass a product of normal-CDF differences in erfc form (exact).",
    ...(information === undefined ? {} : { information }),
  });
}
