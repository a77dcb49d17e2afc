/**
 * The Gaussian shells of Feroz & Hobson (2008, MNRAS 384, 449, §6.2): a uniform prior on [−6, 6]^d
 * and a likelihood made of two thin spherical shells, L(θ) = circ(θ; c1) + circ(θ; c2) with
 * circ(θ; c) = (2πw²)^{−½} exp(−(|θ − c| − r)² / 2w²), r = 2, w = 0.1, c1,2 = (∓3.5, 0, …, 0). The
 * posterior is two curved, degenerate surfaces of thickness w: no ellipsoid or Gaussian fits them,
 * and their volume shrinks like w/r relative to the box in every dimension.
 */

import { checkInteger, checkPositive, OccamError } from "../../errors.js";
import { LOG_2PI, LOG_PI } from "../../math/constants.js";
import { logAddExp } from "../../math/logspace.js";
import { gammaln } from "../../math/stdlib.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import { compositeGaussLegendre, gaussLegendre } from "./numerics.js";
import { checkTheta, type EvidenceProblem, indexedNames, uniformBoxPrior } from "./problem.js";

const WHERE = "gaussianShellsProblem";

/** The published log evidences (Feroz & Hobson 2008, Table 1, "analytical"), by dimension. */
export const SHELLS_PUBLISHED_LOG_Z: Readonly<Record<number, number>> = Object.freeze({
  2: -1.75,
  5: -5.67,
  10: -14.59,
});

/** Options of {@link gaussianShellsProblem}. */
export interface GaussianShellsOptions {
  /**
   * Dimension d (at least 2).
   * @defaultValue 2
   */
  dim?: number;
  /**
   * Shell radius r.
   * @defaultValue 2
   */
  radius?: number;
  /**
   * Shell width w (at most r/10, so that the shell does not reach its centre).
   * @defaultValue 0.1
   */
  width?: number;
  /**
   * Distance of each shell's centre from the origin along θ1: c1,2 = (∓offset, 0, …, 0).
   * @defaultValue 3.5
   */
  offset?: number;
  /**
   * Half-width of the prior box [−halfWidth, halfWidth]^d.
   * @defaultValue 6
   */
  halfWidth?: number;
}

interface ShellSettings {
  dim: number;
  radius: number;
  width: number;
  offset: number;
  halfWidth: number;
}

function resolveShellOptions(options: GaussianShellsOptions): ShellSettings {
  const s = {
    dim: options.dim ?? 2,
    radius: options.radius ?? 2,
    width: options.width ?? 0.1,
    offset: options.offset ?? 3.5,
    halfWidth: options.halfWidth ?? 6,
  };
  checkInteger(s.dim, `${WHERE}: dim`, 2);
  checkPositive(s.radius, `${WHERE}: radius`);
  checkPositive(s.width, `${WHERE}: width`);
  checkPositive(s.offset, `${WHERE}: offset`);
  checkPositive(s.halfWidth, `${WHERE}: halfWidth`);
  if (s.width > s.radius / 10) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: width ${s.width} is more than radius/10 = ${s.radius / 10}; a shell that thick reaches its own centre and is no longer a shell.`,
    );
  }
  return s;
}

/** E[Z^k] for Z standard normal: (k − 1)!! for even k, 0 for odd k. */
function normalMoment(k: number): number {
  if (k % 2 === 1) return 0;
  let m = 1;
  for (let j = k - 1; j > 1; j -= 2) m *= j;
  return m;
}

/** E[(wZ)^extra (r + wZ)^m] by the binomial expansion, with Z standard normal. */
function shiftedMoment(r: number, w: number, m: number, extra: number): number {
  let s = 0;
  let binom = 1;
  for (let k = 0; k <= m; k++) {
    s += binom * r ** (m - k) * w ** (k + extra) * normalMoment(k + extra);
    binom = (binom * (m - k)) / (k + 1);
  }
  return s;
}

/**
 * The fraction of one shell's mass beyond a hyperplane at distance h from its centre, P(ρ u1 > h)
 * with ρ the radial variable (density ∝ ρ^{d−1} e^{−(ρ−r)²/2w²}) and u uniform on the sphere:
 * ∫_h^∞ p(ρ) P(u1 > h/ρ) dρ, where P(u1 > t) = ∫_0^{arccos t} sin^{d−2}φ dφ / ∫_0^π sin^{d−2}φ dφ.
 * The substitution ρ = h + u² removes the square-root onset of the cap at ρ = h.
 */
export function shellMassBeyond(h: number, s: ShellSettings): number {
  const { dim: d, radius: r, width: w } = s;
  const top = r + 40 * w; // e^{−800} of the mass lies beyond
  if (h >= top) return 0;
  const logCapNorm = 0.5 * LOG_PI + gammaln((d - 1) / 2) - gammaln(d / 2);
  const phi = gaussLegendre(40);
  const cap = (t: number): number => {
    const end = Math.acos(Math.min(1, t));
    let sum = 0;
    for (let i = 0; i < phi.nodes.length; i++) {
      sum += phi.weights[i] * Math.sin(0.5 * end * (phi.nodes[i] + 1)) ** (d - 2);
    }
    return Math.exp(Math.log(0.5 * end * sum) - logCapNorm);
  };
  const rule = compositeGaussLegendre([0, Math.sqrt(top - h)], 40, 20);
  let beyond = 0;
  for (let i = 0; i < rule.nodes.length; i++) {
    const u = rule.nodes[i];
    const rho = h + u * u;
    const density = (rho ** (d - 1) * Math.exp(-((rho - r) ** 2) / (2 * w * w) - 0.5 * LOG_2PI)) / w;
    beyond += Math.exp(rule.logWeights[i]) * 2 * u * density * cap(h / rho);
  }
  return beyond / shiftedMoment(r, w, d - 1, 0);
}

/**
 * log Z, its error bound and the information of the shells.
 *
 * One shell's integral over R^d, in polar coordinates about its centre, is
 * I = S_{d−1} ∫_0^∞ (2πw²)^{−½} e^{−(ρ−r)²/2w²} ρ^{d−1} dρ with S_{d−1} = 2π^{d/2}/Γ(d/2); extending
 * the radial integral to ρ < 0 adds less than e^{−r²/2w²} = e^{−200} relative, and then it is the
 * Gaussian moment E[(r + wZ)^{d−1}], a finite binomial sum. The box cuts off the mass beyond its
 * faces: the near face is h = 6 − 3.5 = 2.5 = r + 5w from the centre, the side faces 6 = r + 40w and
 * the far face 9.5; {@link shellMassBeyond} gives each (1.2e-8 of a shell for d = 2, 6e-11 for d = 5,
 * 7e-14 for d = 10, by the cap's shrinking solid angle), and log Z = log(2I) − d log 12 +
 * log(1 − cut), with the union of the faces' cuts exact to second order.
 */
function shellsReference(s: ShellSettings): { logZ: number; cut: number; information?: number } {
  const { dim: d, radius: r, width: w, offset, halfWidth } = s;
  const logSphere = Math.log(2) + (d / 2) * LOG_PI - gammaln(d / 2);
  const moment = shiftedMoment(r, w, d - 1, 0);
  const logI = logSphere + Math.log(moment);
  const cut =
    shellMassBeyond(halfWidth - offset, s) +
    shellMassBeyond(halfWidth + offset, s) +
    2 * (d - 1) * shellMassBeyond(halfWidth, s);
  if (!(cut < 1e-6)) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: the box [−${halfWidth}, ${halfWidth}]^${d} cuts ${cut.toExponential(2)} of each shell; the reference needs the shells inside the box (cut < 1e-6): widen halfWidth or reduce offset + radius.`,
    );
  }
  const logZ = Math.log(2) + logI - d * Math.log(2 * halfWidth) + Math.log1p(-cut);
  // Near shell k, log L = log circ_k up to the other shell's share, at most e^{−(gap)²/2w²}: the
  // default shells are 3 = 30w apart (e^{−450}); with a gap of 20w (e^{−200}) or more,
  // E_post[log L] = −½ log 2πw² − E[(ρ − r)²]/2w², the truncation changing it by about the cut.
  if (2 * offset - 2 * r < 20 * w) return { logZ, cut };
  const meanSq = shiftedMoment(r, w, d - 1, 2) / moment;
  const meanLogL = -0.5 * (LOG_2PI + 2 * Math.log(w)) - meanSq / (2 * w * w);
  return { logZ, cut, information: meanLogL - logZ };
}

/** The two-shell model: uniform prior on the box, L = circ(θ; c1) + circ(θ; c2). */
function shellsModel(s: ShellSettings): BayesModel {
  const { dim: d, radius: r, width: w, offset, halfWidth } = s;
  const prior = uniformBoxPrior(d, -halfWidth, halfWidth, "gaussianShells");
  const logNorm = -0.5 * (LOG_2PI + 2 * Math.log(w));
  const w2 = w * w;
  /** |θ − c_k| for c_k = (∓offset, 0, …, 0), sharing the sum over the coordinates the centres agree on. */
  const radii = (theta: Float64Array): [number, number] => {
    let rest = 0;
    for (let j = 1; j < d; j++) rest += theta[j] * theta[j];
    return [Math.sqrt((theta[0] + offset) ** 2 + rest), Math.sqrt((theta[0] - offset) ** 2 + rest)];
  };
  const logCirc = (rho: number): number => logNorm - (rho - r) ** 2 / (2 * w2);
  const model: BayesModel = {
    dim: d,
    names: indexedNames("theta", d),
    ...prior,
    logLikelihood(theta) {
      checkTheta(theta, d, "gaussianShells.logLikelihood");
      const [rho1, rho2] = radii(theta);
      return logAddExp(logCirc(rho1), logCirc(rho2));
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, d, "gaussianShells.gradLogLikelihood");
      const [rho1, rho2] = radii(theta);
      const a1 = logCirc(rho1);
      const a2 = logCirc(rho2);
      const total = logAddExp(a1, a2);
      // ∇ log circ_k = −(ρ_k − r)/w² · (θ − c_k)/ρ_k. At θ = c_k (ρ_k = 0) log circ_k has the tip of a
      // cone (it grows like rρ/w² in every direction), with no gradient; 0, the mean of its
      // directional slopes, stands in, so the gradient stays finite there.
      const f1 = rho1 > 0 ? (Math.exp(a1 - total) * -(rho1 - r)) / (w2 * rho1) : 0;
      const f2 = rho2 > 0 ? (Math.exp(a2 - total) * -(rho2 - r)) / (w2 * rho2) : 0;
      grad[0] = f1 * (theta[0] + offset) + f2 * (theta[0] - offset);
      for (let j = 1; j < d; j++) grad[j] = (f1 + f2) * theta[j];
      return total;
    },
  };
  return defineModel(model);
}

/**
 * The Gaussian-shells problem in d dimensions with its semi-analytic reference (d = 2, 5, 10 give
 * −1.7456, −5.6736, −14.5905 against the published −1.75, −5.67, −14.59).
 *
 * @example
 * const { model, logZ } = gaussianShellsProblem({ dim: 5 }); // logZ ≈ −5.6736
 */
export function gaussianShellsProblem(options: GaussianShellsOptions = {}): EvidenceProblem {
  const s = resolveShellOptions(options);
  const { logZ, cut, information } = shellsReference(s);
  return Object.freeze({
    name: `shells-d${s.dim}`,
    description: `Uniform prior on [−${s.halfWidth}, ${s.halfWidth}]^${s.dim}, L = two Gaussian shells (radius ${s.radius}, width ${s.width}, centres ±${s.offset} on θ1): two thin curved shells, no ellipsoid or Gaussian fits them.`,
    model: shellsModel(s),
    logZ,
    logZError: 1e-10 + cut * cut,
    reference: `Each shell's integral over R^d is a Gaussian moment of the radial density (closed form), minus the ${cut.toExponential(1)} the box cuts off (1-D quadrature of the cap beyond each face); scipy's quad agrees.`,
    ...(information === undefined ? {} : { information }),
  });
}
