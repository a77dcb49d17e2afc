import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { logAddExp } from "../../math/logspace.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";

/** One Gaussian component in 2-D: mean and covariance [[s11, s12], [s12, s22]]. */
export interface Gaussian2d {
  readonly mean: readonly [number, number];
  /** Row-major [s11, s12, s21, s22], symmetric positive definite. */
  readonly covariance: readonly [number, number, number, number];
}

/** Options of {@link mixture2dModel}. */
export interface Mixture2dOptions {
  /**
   * The two components.
   * @defaultValue μ1 = (−1.5, 0), Σ1 = [[1, 0.6], [0.6, 0.5]]; μ2 = (1.5, 0.5), Σ2 = [[0.4, −0.2], [−0.2, 1]]
   */
  components?: readonly [Gaussian2d, Gaussian2d];
  /**
   * Weight w of the first component (the second has 1 − w).
   * @defaultValue 0.3
   */
  weight?: number;
  /**
   * log c, the log of the target's total mass (so the exact log evidence).
   * @defaultValue 3
   */
  logC?: number;
  /**
   * Standard deviation s of the prior N(0, s² I), the normalised reference density.
   * @defaultValue 3
   */
  priorSd?: number;
}

/**
 * Barber & Bishop's check of chaining: the unnormalised 2-D target f(θ) = c [w N(θ | μ1, Σ1) +
 * (1 − w) N(θ | μ2, Σ2)], written as a {@link BayesModel} with a normalised prior p(θ) = N(0, s² I) and
 * log L(θ) = log f(θ) − log p(θ).
 */
export interface Mixture2dModel extends BayesModel {
  gradLogPrior(theta: Float64Array, grad: Float64Array): number;
  gradLogLikelihood(theta: Float64Array, grad: Float64Array): number;
  /** log f(θ), the unnormalised target (= log p(θ) + log L(θ)). */
  logTarget(theta: Float64Array): number;
  /** log c. */
  exactLogEvidence(): number;
  /** `count` independent draws from the normalised target f/c (the posterior). */
  samplePosterior(rng: Rng, count: number): Float64Array[];
}

/** Per-component constants: mean, the 2 × 2 Cholesky factor [l11, 0; l21, l22], log weight + log normaliser. */
interface Component {
  m0: number;
  m1: number;
  l11: number;
  l21: number;
  l22: number;
  logConst: number;
}

function component(g: Gaussian2d, logWeight: number, index: number): Component {
  const where = `mixture2dModel: component ${index + 1}`;
  if (g === null || typeof g !== "object" || g.mean?.length !== 2 || g.covariance?.length !== 4) {
    throw new OccamError(
      "invalid-argument",
      `${where} must be { mean: [x, y], covariance: [s11, s12, s21, s22] }.`,
    );
  }
  const [m0, m1] = g.mean;
  const [s11, s12, s21, s22] = g.covariance;
  for (const v of [m0, m1, s11, s12, s21, s22]) {
    if (!Number.isFinite(v))
      throw new OccamError("invalid-argument", `${where} has a non-finite entry ${v}.`);
  }
  if (Math.abs(s12 - s21) > 1e-12 * (Math.abs(s12) + Math.abs(s21))) {
    throw new OccamError("invalid-argument", `${where}: the covariance is not symmetric (${s12} ≠ ${s21}).`);
  }
  // The 2 × 2 Cholesky factor written out: l11 = √s11, l21 = s12/l11, l22 = √(s22 − l21²).
  const l11 = Math.sqrt(s11);
  const l21 = s12 / l11;
  const d = s22 - l21 * l21;
  if (!(s11 > 0 && d > 0)) {
    throw new OccamError(
      "not-positive-definite",
      `${where}: the covariance [[${s11}, ${s12}], [${s21}, ${s22}]] is not positive definite.`,
    );
  }
  const l22 = Math.sqrt(d);
  return { m0, m1, l11, l21, l22, logConst: logWeight - LOG_2PI - Math.log(l11) - Math.log(l22) };
}

const DEFAULT_COMPONENTS: readonly [Gaussian2d, Gaussian2d] = [
  { mean: [-1.5, 0], covariance: [1, 0.6, 0.6, 0.5] },
  { mean: [1.5, 0.5], covariance: [0.4, -0.2, -0.2, 1] },
];

/**
 * Builds Barber & Bishop's mixture-of-two-non-isotropic-Gaussians check as a model with exact log
 * evidence log c and gradients.
 *
 * Why this is the same problem: Barber & Bishop estimate the normalising constant c of an
 * unnormalised density f by chaining from a normalised reference density (λ = 0) to f (λ = 1). With
 * the reference as the prior and L = f/p as the likelihood, every estimator here sees the same
 * integral, Z = ∫ p(θ) L(θ) dθ = ∫ f(θ) dθ = c, and the power posterior p L^λ = p^(1−λ) f^λ is exactly
 * their geometric path between the reference and the target. The prior must be broad enough that
 * f/p stays bounded in the tails (s² must exceed the largest eigenvalue of every Σ_k), which s = 3
 * gives for the default components (largest eigenvalue 1.40, of Σ1); a narrower prior still has
 * Z = c but an unbounded likelihood, which defeats estimators that average L over prior draws.
 *
 * @example
 * const model = mixture2dModel();
 * model.exactLogEvidence(); // 3
 */
export function mixture2dModel(options: Mixture2dOptions = {}): Mixture2dModel {
  const components = options.components ?? DEFAULT_COMPONENTS;
  const w = options.weight ?? 0.3;
  const logC = options.logC ?? 3;
  const priorSd = options.priorSd ?? 3;
  if (!Array.isArray(components) || components.length !== 2) {
    throw new OccamError("invalid-argument", "mixture2dModel: components must be an array of two Gaussians.");
  }
  if (!(w > 0 && w < 1)) {
    throw new OccamError("invalid-argument", `mixture2dModel: weight must lie in (0, 1), got ${w}.`);
  }
  if (!Number.isFinite(logC)) {
    throw new OccamError("invalid-argument", `mixture2dModel: logC must be finite, got ${logC}.`);
  }
  if (!(Number.isFinite(priorSd) && priorSd > 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture2dModel: priorSd must be finite and > 0, got ${priorSd}.`,
    );
  }
  const c1 = component(components[0], Math.log(w), 0);
  const c2 = component(components[1], Math.log1p(-w), 1);
  const s2 = priorSd * priorSd;
  const logPriorConst = -LOG_2PI - 2 * Math.log(priorSd);

  const checkTheta = (theta: Float64Array, where: string): void => {
    if (theta.length !== 2) {
      throw new OccamError(
        "dimension-mismatch",
        `mixture2dModel.${where}: θ has length ${theta.length}, expected 2.`,
      );
    }
  };
  // Whitened coordinates z_k = L_k⁻¹(θ − μ_k) of each component's last evaluation, for the gradient.
  const zs = [new Float64Array(2), new Float64Array(2)];
  /** log w_k + log N(θ | μ_k, Σ_k), leaving z_k = L_k⁻¹(θ − μ_k) in zs[k]. */
  const logComponent = (c: Component, k: number, theta: Float64Array): number => {
    const z = zs[k];
    z[0] = (theta[0] - c.m0) / c.l11;
    z[1] = (theta[1] - c.m1 - c.l21 * z[0]) / c.l22;
    return c.logConst - 0.5 * (z[0] * z[0] + z[1] * z[1]);
  };
  /** Adds weight · ∇ log N_k = −weight · L_k⁻ᵀ z_k to grad. */
  const addComponentGrad = (c: Component, k: number, weight: number, grad: Float64Array): void => {
    const z = zs[k];
    const u1 = z[1] / c.l22;
    const u0 = (z[0] - c.l21 * u1) / c.l11;
    grad[0] -= weight * u0;
    grad[1] -= weight * u1;
  };
  const logF = (theta: Float64Array): number =>
    logC + logAddExp(logComponent(c1, 0, theta), logComponent(c2, 1, theta));
  const logP = (theta: Float64Array): number =>
    logPriorConst - (theta[0] * theta[0] + theta[1] * theta[1]) / (2 * s2);

  const model: Mixture2dModel = {
    dim: 2,
    names: ["x", "y"],
    logPrior(theta) {
      checkTheta(theta, "logPrior");
      return logP(theta);
    },
    gradLogPrior(theta, grad) {
      checkTheta(theta, "gradLogPrior");
      grad[0] = -theta[0] / s2;
      grad[1] = -theta[1] / s2;
      return logP(theta);
    },
    logLikelihood(theta) {
      checkTheta(theta, "logLikelihood");
      return logF(theta) - logP(theta);
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, "gradLogLikelihood");
      // ∇ log f = Σ_k r_k ∇ log N_k with responsibilities r_k = w_k N_k / Σ_j w_j N_j.
      const a1 = logComponent(c1, 0, theta);
      const a2 = logComponent(c2, 1, theta);
      const total = logAddExp(a1, a2);
      grad[0] = 0;
      grad[1] = 0;
      addComponentGrad(c1, 0, Math.exp(a1 - total), grad);
      addComponentGrad(c2, 1, Math.exp(a2 - total), grad);
      // ∇ log L = ∇ log f − ∇ log p, and ∇ log p = −θ/s².
      grad[0] += theta[0] / s2;
      grad[1] += theta[1] / s2;
      return logC + total - logP(theta);
    },
    logTarget(theta) {
      checkTheta(theta, "logTarget");
      return logF(theta);
    },
    samplePrior(rng) {
      return new Float64Array([priorSd * rng.normal(), priorSd * rng.normal()]);
    },
    exactLogEvidence() {
      return logC;
    },
    samplePosterior(rng, count) {
      if (!(Number.isInteger(count) && count >= 0)) {
        throw new OccamError(
          "invalid-argument",
          `mixture2dModel.samplePosterior: count must be an integer ≥ 0, got ${count}.`,
        );
      }
      const out: Float64Array[] = [];
      for (let t = 0; t < count; t++) {
        const c = rng.uniform() < w ? c1 : c2;
        const e0 = rng.normal();
        const e1 = rng.normal();
        out.push(new Float64Array([c.m0 + c.l11 * e0, c.m1 + c.l21 * e0 + c.l22 * e1]));
      }
      return out;
    },
  };
  return defineModel(model) as Mixture2dModel;
}
