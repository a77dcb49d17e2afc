/**
 * The Rosenbrock banana as an evidence problem: uniform prior on [−5, 5]², log L = −[(1 − θ1)² +
 * 100 (θ2 − θ1²)²]. The posterior is a thin curved ridge along θ2 = θ1² (width 0.07 across, length
 * about 3 along), which defeats Gaussian approximations and random-walk steps; and the box cuts the
 * ridge where it leaves through the top face at θ1 = ±√5, so the unbounded value log(π/1000) is 0.041
 * nats too high.
 */

import { checkPositive, OccamError } from "../../errors.js";
import { SQRT_2PI } from "../../math/constants.js";
import { erfc } from "../../math/stdlib.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import { compositeGaussLegendre, normalDensity } from "./numerics.js";
import { checkTheta, type EvidenceProblem, indexedNames, uniformBoxPrior } from "./problem.js";

const WHERE = "rosenbrockProblem";

/** Options of {@link rosenbrockProblem}. */
export interface RosenbrockOptions {
  /**
   * Half-width h of the prior box [−h, h]² (more than 1, so the ridge's peak (1, 1) is inside).
   * @defaultValue 5
   */
  halfWidth?: number;
  /**
   * Curvature b of the ridge term b (θ2 − θ1²)².
   * @defaultValue 100
   */
  curvature?: number;
}

/**
 * log Z and the information of the box-truncated Rosenbrock density by a 1-D quadrature.
 *
 * The θ2-integral is a Gaussian one: with m = x², s² = 1/2b, α = (−h − m)/s and β = (h − m)/s,
 * ∫_{−h}^{h} e^{−b(y − m)²} dy = s√(2π) [Φ(β) − Φ(α)] = √(π/b) · ½ [erfc(√b (m − h)) − erfc(√b (m + h))],
 * so Z = (2h)^{−2} ∫_{−h}^{h} e^{−(1−x)²} · that dx. Without the box the double integral is
 * √π · √(π/b) and Z = π/(10 · 100) for b = 100; the box removes the part of the ridge with
 * x² > h, which is why the reference differs from π/1000. The x-integrand has steps of width
 * ~1/(2√(bh)) at x = ±√h, so the composite Gauss–Legendre rule puts breakpoints there.
 *
 * For the information, b ∫ e^{−b(y−m)²}(y − m)² dy = ½ [inner + s√(2π)(αφ(α) − βφ(β))] (the truncated
 * normal's second moment), so E_post[log L] is the same 1-D quadrature.
 */
export function rosenbrockReference(
  halfWidth: number,
  curvature: number,
  panels = 16,
): { logZ: number; information: number } {
  const h = halfWidth;
  const b = curvature;
  const sb = Math.sqrt(b);
  const s = 1 / Math.sqrt(2 * b);
  const root = Math.sqrt(h);
  const step = Math.min(0.2, (h - root) / 2);
  const breaks = [-h, -root - step, -root, -root + step, root - step, root, root + step, h].filter(
    (x, i, all) => i === 0 || x > all[i - 1],
  );
  const rule = compositeGaussLegendre(breaks, panels, 20);
  let z = 0;
  let zLogL = 0;
  for (let i = 0; i < rule.nodes.length; i++) {
    const x = rule.nodes[i];
    const w = Math.exp(rule.logWeights[i]);
    const m = x * x;
    const inner = (Math.sqrt(Math.PI / b) * (erfc(sb * (m - h)) - erfc(sb * (m + h)))) / 2;
    const alpha = (-h - m) / s;
    const beta = (h - m) / s;
    const ridge = 0.5 * (inner + s * SQRT_2PI * (alpha * normalDensity(alpha) - beta * normalDensity(beta)));
    const e = Math.exp(-((1 - x) ** 2));
    z += w * e * inner;
    zLogL += w * e * (-((1 - x) ** 2) * inner - ridge);
  }
  const logZ = Math.log(z) - 2 * Math.log(2 * h);
  return { logZ, information: zLogL / z - logZ };
}

/**
 * The Rosenbrock problem with its quadrature reference (log Z = −5.80413…, against log(π/1000) =
 * −5.76303 without the box).
 *
 * @example
 * const { model, logZ } = rosenbrockProblem();
 */
export function rosenbrockProblem(options: RosenbrockOptions = {}): EvidenceProblem {
  const halfWidth = options.halfWidth ?? 5;
  const b = options.curvature ?? 100;
  checkPositive(halfWidth, `${WHERE}: halfWidth`);
  checkPositive(b, `${WHERE}: curvature`);
  if (!(halfWidth > 1)) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: halfWidth must exceed 1 so that the ridge's peak (1, 1) lies inside the box, got ${halfWidth}.`,
    );
  }
  const model: BayesModel = {
    dim: 2,
    names: indexedNames("theta", 2),
    ...uniformBoxPrior(2, -halfWidth, halfWidth, "rosenbrock"),
    logLikelihood(theta) {
      checkTheta(theta, 2, "rosenbrock.logLikelihood");
      return -((1 - theta[0]) ** 2) - b * (theta[1] - theta[0] * theta[0]) ** 2;
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, 2, "rosenbrock.gradLogLikelihood");
      const x = theta[0];
      const r = theta[1] - x * x;
      grad[0] = 2 * (1 - x) + 4 * b * x * r;
      grad[1] = -2 * b * r;
      return -((1 - x) ** 2) - b * r * r;
    },
  };
  const { logZ, information } = rosenbrockReference(halfWidth, b);
  return Object.freeze({
    name: "rosenbrock",
    description: `Uniform prior on [−${halfWidth}, ${halfWidth}]², log L = −[(1 − θ1)² + ${b}(θ2 − θ1²)²]: a thin curved ridge, cut by the box where it leaves through θ2 = ${halfWidth}.`,
    model: defineModel(model),
    logZ,
    logZError: 1e-11,
    reference:
      "The θ2-integral in erfc form, the θ1-integral by composite Gauss–Legendre with breakpoints at the box's cut ±√h, converged to rounding; scipy's quad and dblquad agree.",
    information,
  });
}
