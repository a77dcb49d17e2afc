/**
 * The log evidence of one generalised linear model under a mixture of g-priors (Li & Clyde 2018, as
 * BAS's `bas.glm` offers them): a flat prior on the intercept α and, given g, β ~ N(0, g J⁻¹), where J
 * is the Fisher information of the slopes at the maximum-likelihood fit with the intercept profiled
 * out (Xcᵀ W Xc, the columns centred in the information's weights). J carries the inputs' units, so the
 * prior does not depend on them: an input given in other units leaves every model's evidence as it was.
 * g has the robust prior of Bayarri et al. (2012), p(g) = ½ √c (1 + g)^(−3/2) on g > c − 1 with
 * c = (n + 1)/(p + 1), or the hyper-g/n prior of Liang et al. (2008), p(g) = (a − 2)/(2n) (1 + g/n)^(−a/2)
 * with a = 3.
 *
 * BAS integrates over (α, β) by Laplace's approximation and over g in closed form ({@link gPriorLaplace}
 * is its approximation, for screening). occam integrates over (α, β, τ) together, τ = log(g − g_min):
 * on a grid in τ, the likelihood's quadratic expansion at the maximum-likelihood fit gives the mode in
 * (α, β) and Laplace's approximation there; importance sampling then draws τ from that marginal
 * interpolated between the grid's points and (α, β) from a Student-t at the interpolated mode, with the
 * interpolated approximation as a control variate (`importanceCorrection`), so that each evidence is
 * exact to its standard error whatever the expansion misses.
 *
 * The flat intercept prior makes each evidence defined up to one constant shared by every model (all
 * hold α): Bayes factors and posterior model probabilities are exact, a log evidence alone is not a
 * probability of the data.
 */
import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import {
  cholesky,
  logDetFromCholesky,
  lowerTimesTranspose,
  solveLower,
  solveLowerTranspose,
} from "../../math/linalg.js";
import { logSumExp } from "../../math/logspace.js";
import type { Rng } from "../../random/rng.js";
import {
  type ConcaveDensity,
  type ControlledProposal,
  type GlmDesign,
  type GlmEvidence,
  type GlmEvidenceOptions,
  GlmLikelihood,
  type GlmPosteriorDraws,
  importanceCorrection,
  laplaceProposal,
  posteriorMode,
  SCREEN_TOLERANCE,
  studentTLogNormaliser,
  studentTOffset,
  weightedDraws,
} from "./evidence.js";
import type { GlmOutcome } from "./family.js";

/** The priors on g. */
export type GMixtureName = "robust" | "hyper-g-n";

/** A prior on g: log p(g), its first two derivatives in g, the lower end of its support, and a draw. */
export interface GMixture {
  readonly gMin: number;
  logDensity(g: number): number;
  d1(g: number): number;
  d2(g: number): number;
  sample(rng: Rng): number;
}

/** The prior on g of a model with p slopes on n rows (see the module header). */
export function gMixture(name: GMixtureName, n: number, p: number, where: string): GMixture {
  if (name === "robust") {
    const c = (n + 1) / (p + 1);
    if (!(c > 1)) {
      throw new OccamError(
        "invalid-data",
        `${where}: the robust g-prior needs more rows than slopes (${n} rows, ${p} slopes).`,
      );
    }
    const logNorm = Math.log(0.5) + 0.5 * Math.log(c);
    return {
      gMin: c - 1,
      logDensity: (g) => logNorm - 1.5 * Math.log1p(g),
      d1: (g) => -1.5 / (1 + g),
      d2: (g) => 1.5 / ((1 + g) * (1 + g)),
      // P(G > g) = √c (1 + g)^(−1/2).
      sample: (rng) => c / (1 - rng.uniform()) ** 2 - 1,
    };
  }
  if (name === "hyper-g-n") {
    const a = 3;
    const logNorm = Math.log((a - 2) / (2 * n));
    return {
      gMin: 0,
      logDensity: (g) => logNorm - 0.5 * a * Math.log1p(g / n),
      d1: (g) => (-0.5 * a) / (n + g),
      d2: (g) => (0.5 * a) / ((n + g) * (n + g)),
      // P(G > g) = (1 + g/n)^(−1/2) for a = 3.
      sample: (rng) => n * (1 / (1 - rng.uniform()) ** 2 - 1),
    };
  }
  throw new OccamError(
    "invalid-argument",
    `${where}: unknown prior on g "${String(name)}"; choose robust or hyper-g-n.`,
  );
}

/** log L(θ) + `constant` under a flat prior, for Newton's method. */
function flatDensity(likelihood: GlmLikelihood, constant: number): ConcaveDensity {
  return {
    k: likelihood.design.k,
    logDensity: (theta) => constant + likelihood.sum(theta),
    value(theta, gradient, negHessian) {
      gradient?.fill(0);
      negHessian?.fill(0);
      return likelihood.addTerms(constant, theta, gradient, negHessian);
    },
  };
}

/** The largest |coefficient| (on standardised inputs) a maximum-likelihood fit may have before it counts as infinite. */
const MAX_MLE = 30;

/** The error of a model whose maximum-likelihood fit does not exist. */
function separatedError(where: string): OccamError {
  return new OccamError(
    "invalid-data",
    `${where}: the maximum-likelihood fit does not exist (the inputs separate the outcome perfectly, or a count is 0 wherever an input is set), and the g-prior's scale rests on it; where classes are separated completely, no g-prior with a flat intercept has a finite evidence at all. Compare under --prior normal --scale S, whose proper prior keeps the evidence finite.`,
  );
}

/** The maximum-likelihood fit of a model: θ̂, log L there (its constant included), −∇² log L there (k × k), and J. */
interface MaximumLikelihoodFit {
  readonly mle: Float64Array;
  readonly value: number;
  readonly H: Float64Array;
  /** The slopes' Fisher information with the intercept profiled out ((k − 1) × (k − 1)): H's Schur complement. */
  readonly J: Float64Array;
}

/**
 * The maximum-likelihood fit of `likelihood`'s model, Newton's method started at `start` (or 0) and
 * stopped at `tolerance` when given (see `posteriorMode`).
 */
function maximumLikelihoodFit(
  likelihood: GlmLikelihood,
  where: string,
  start?: Float64Array,
  tolerance?: number,
): MaximumLikelihoodFit {
  const { k } = likelihood.design;
  const flat = flatDensity(likelihood, likelihood.outcome.constant);
  let fit: ReturnType<typeof posteriorMode>;
  try {
    fit = posteriorMode(flat, where, start, tolerance);
  } catch (error) {
    if (error instanceof OccamError) throw separatedError(where);
    throw error;
  }
  const { mode: mle, value } = fit;
  if (mle.some((v) => !(Math.abs(v) < MAX_MLE))) throw separatedError(where);
  const H = lowerTimesTranspose(fit.L, k);
  const p = k - 1;
  const J = new Float64Array(p * p);
  for (let a = 0; a < p; a++) {
    for (let b = 0; b < p; b++) J[a * p + b] = H[(a + 1) * k + b + 1] - (H[(a + 1) * k] * H[b + 1]) / H[0];
  }
  return { mle, value, H, J };
}

/**
 * J, the slopes' Fisher information at the maximum-likelihood fit with the intercept profiled out
 * ((k − 1) × (k − 1)): the Schur complement of the intercept in the negative Hessian of log L there.
 */
export function slopeInformation(likelihood: GlmLikelihood, where: string): Float64Array {
  return maximumLikelihoodFit(likelihood, where).J;
}

/** The joint log density f(α, β, τ) of the module header, and its terms at a fixed τ. */
class GPriorPosterior {
  readonly k: number;
  private readonly p: number;
  private readonly halfLogDetJ: number;
  private g = 1;
  private base = 0;
  constructor(
    readonly likelihood: GlmLikelihood,
    private readonly J: Float64Array,
    private readonly mixture: GMixture,
  ) {
    this.k = likelihood.design.k;
    this.p = this.k - 1;
    this.halfLogDetJ = 0.5 * logDetFromCholesky(cholesky(J, this.p), this.p);
  }

  /** g = g_min + e^τ at the τ last fixed. */
  get gValue(): number {
    return this.g;
  }

  /** The terms of f that depend on τ alone (log p(τ), the normaliser of β | g), the rows' constant with them. */
  get tauTerms(): number {
    return this.base;
  }

  /** Fixes τ, so g = g_min + e^τ, and the terms of f that depend on τ alone. */
  setTau(tau: number): void {
    const { mixture, p } = this;
    this.g = mixture.gMin + Math.exp(tau);
    this.base =
      this.likelihood.outcome.constant -
      0.5 * p * (LOG_2PI + Math.log(this.g)) +
      this.halfLogDetJ +
      mixture.logDensity(this.g) +
      tau;
  }

  /** Q = βᵀ J β. */
  private quadratic(theta: Float64Array): number {
    const { J, p } = this;
    let q = 0;
    for (let a = 0; a < p; a++) {
      let s = 0;
      for (let b = 0; b < p; b++) s += J[a * p + b] * theta[b + 1];
      q += theta[a + 1] * s;
    }
    return q;
  }

  logDensity(theta: Float64Array): number {
    return this.base - this.quadratic(theta) / (2 * this.g) + this.likelihood.sum(theta);
  }

  /** f at x = (α, β, τ): the importance sampler's log density. */
  joint(x: Float64Array): number {
    this.setTau(x[this.k]);
    return this.logDensity(x);
  }
}

/** Degrees of freedom of the Student-t proposals in (α, β). */
const DEFAULT_DOF = 5;
/** Spacing of the proposal's grid in τ. */
const TAU_STEP = 0.5;
/** The grid spans the τ where Laplace's marginal is within this many nats of its largest value. */
const TAU_SPAN = 16;
/** The most grid points (a marginal in τ flatter than this is an error of the model, not the data). */
const MAX_NODES = 4000;

/** A point of the grid in τ: the conditional mode in (α, β) there, its precision's factor and Laplace's marginal. */
interface TauNode {
  readonly tau: number;
  readonly mode: Float64Array;
  readonly L: Float64Array;
  readonly logNorm: number;
  readonly laplace: number;
}

/**
 * The grid in τ, from τ = log n upwards and downwards until Laplace's marginal falls `TAU_SPAN` below
 * its largest value, each point from `at` (given its neighbour's mode).
 */
function tauGrid(at: (tau: number, warm?: Float64Array) => TauNode, n: number, where: string): TauNode[] {
  const start = at(Math.log(n));
  let best = start.laplace;
  const walk = (direction: number): TauNode[] => {
    const out: TauNode[] = [];
    let last = start;
    while (last.laplace >= best - TAU_SPAN) {
      if (out.length > MAX_NODES) {
        throw new OccamError(
          "non-finite",
          `${where}: the posterior of g does not fall off within ${MAX_NODES} grid points; check the data.`,
        );
      }
      last = at(last.tau + direction * TAU_STEP, last.mode);
      best = Math.max(best, last.laplace);
      out.push(last);
    }
    return out;
  };
  const up = walk(1);
  const down = walk(-1);
  return [...down.reverse(), start, ...up];
}

/**
 * A point of the grid in τ from the likelihood's quadratic expansion at the maximum-likelihood fit,
 * log L(θ) ≈ log L(θ̂) − ½ (θ − θ̂)ᵀ H (θ − θ̂): the conditional mode solves (H + J/g) m = H θ̂ (J on the
 * slopes), and Laplace's marginal is exact for the expansion. No pass over the data: the importance
 * weights correct what the expansion misses.
 */
function quadraticNode(fit: MaximumLikelihoodFit, post: GPriorPosterior, tau: number, dof: number): TauNode {
  const { k } = post;
  const { mle, value, H, J } = fit;
  const p = k - 1;
  post.setTau(tau);
  const g = post.gValue;
  const P = Float64Array.from(H);
  for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) P[(a + 1) * k + b + 1] += J[a * p + b] / g;
  const L = cholesky(P, k);
  const target = new Float64Array(k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) target[a] += H[a * k + b] * mle[b];
  const mode = solveLowerTranspose(L, k, solveLower(L, k, target));
  let quadratic = 0;
  for (let a = 0; a < k; a++) {
    for (let b = 0; b < k; b++) quadratic += (mode[a] - mle[a]) * H[a * k + b] * (mode[b] - mle[b]);
  }
  let prior = 0;
  for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) prior += mode[a + 1] * J[a * p + b] * mode[b + 1];
  const logDensity =
    value - 0.5 * quadratic + post.tauTerms - post.likelihood.outcome.constant - prior / (2 * g);
  return {
    tau,
    mode,
    L,
    logNorm: studentTLogNormaliser(dof, L, k),
    laplace: logDensity + 0.5 * k * LOG_2PI - 0.5 * logDetFromCholesky(L, k),
  };
}

/**
 * The proposal over (α, β, τ): τ from Laplace's marginal interpolated log-linearly between the grid's
 * points, and (α, β) given τ a Student-t at the conditional mode interpolated linearly there, with the
 * nearer point's scale. The surrogate is the same with a Gaussian in place of the Student-t: its
 * integral is the interpolated marginal's, known exactly.
 */
function gridProposal(nodes: readonly TauNode[], k: number, dof: number): ControlledProposal {
  let max = Number.NEGATIVE_INFINITY;
  for (const node of nodes) max = Math.max(max, node.laplace);
  const segments = nodes.length - 1;
  const cumulative = new Float64Array(segments);
  let total = 0;
  for (let s = 0; s < segments; s++) {
    const left = nodes[s].laplace - max;
    const d = nodes[s + 1].laplace - nodes[s].laplace;
    // ∫ over the segment of e^{left + d x / h} dx, h = TAU_STEP.
    total += TAU_STEP * Math.exp(left) * (Math.abs(d) < 1e-8 ? 1 + d / 2 : Math.expm1(d) / d);
    cumulative[s] = total;
  }
  const logTotal = max + Math.log(total);
  const z = new Float64Array(k);
  const offset = new Float64Array(k);
  return {
    dim: k + 1,
    logSurrogate: logTotal,
    drawPair(rng, first, second) {
      const u = rng.uniform() * total;
      let s = 0;
      while (s < segments - 1 && cumulative[s] < u) s++;
      const [left, right] = [nodes[s], nodes[s + 1]];
      const d = right.laplace - left.laplace;
      const v = rng.uniform();
      // The fraction w of the segment by inverting the exponential's distribution function there.
      const w = Math.abs(d) < 1e-8 ? v : Math.log1p(v * Math.expm1(d)) / d;
      const near = w < 0.5 ? left : right;
      const q = studentTOffset(rng, dof, near.L, k, z, offset);
      for (let a = 0; a < k; a++) {
        const mode = (1 - w) * left.mode[a] + w * right.mode[a];
        first[a] = mode + offset[a];
        second[a] = mode - offset[a];
      }
      first[k] = left.tau + w * TAU_STEP;
      second[k] = first[k];
      const logTau = left.laplace + d * w - logTotal;
      const logQ = logTau + near.logNorm - 0.5 * (dof + k) * Math.log1p(q / dof);
      // The surrogate over q: e^{logTotal} q(τ) N(θ; mode(τ), P⁻¹) / q(τ) t(θ; mode(τ), P⁻¹).
      const logGaussian = -0.5 * k * LOG_2PI + 0.5 * logDetFromCholesky(near.L, k) - 0.5 * q;
      return { logQ, logSurrogateRatio: logTotal + logTau + logGaussian - logQ };
    },
  };
}

/** The grid in τ = log(g − g_min) of {@link gPriorLaplace}'s integral over g: trapezoids of 0.05 from −25 to 35. */
const SCREEN_TAU = { from: -25, to: 35, step: 0.05 };

/**
 * BAS's approximation of a model's log evidence under a mixture of g-priors: Laplace's at the
 * maximum-likelihood fit θ̂ = (α̂, β̂), which with the slopes' information J there leaves
 * log L(θ̂) + ½ log(2π / H_αα) + log ∫ p(g) (1 + g)^(−p/2) e^(−β̂ᵀJβ̂ / 2(1 + g)) dg, the last integral
 * by the trapezoid rule in τ. Newton's method starts at `start` (a smaller model's fit, padded with
 * zeros). A cheap score for screening many models; off by up to a few tenths of a nat.
 */
export function gPriorLaplace(
  design: GlmDesign,
  outcome: GlmOutcome,
  mixtureName: GMixtureName,
  start: Float64Array | undefined,
  where: string,
): { logZ: number; mle: Float64Array; nLikelihoodEvals: number } {
  const likelihood = new GlmLikelihood(design, outcome);
  const { k, n } = design;
  const { mle, value, H, J } = maximumLikelihoodFit(likelihood, where, start, SCREEN_TOLERANCE);
  // log |H| = log H_αα + log |J| (the Schur complement's determinant).
  let logZ = value + 0.5 * LOG_2PI - 0.5 * Math.log(H[0]);
  const p = k - 1;
  if (p > 0) {
    let q = 0;
    for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) q += mle[a + 1] * J[a * p + b] * mle[b + 1];
    const mixture = gMixture(mixtureName, n, p, where);
    const terms: number[] = [];
    for (let tau = SCREEN_TAU.from; tau <= SCREEN_TAU.to; tau += SCREEN_TAU.step) {
      const g = mixture.gMin + Math.exp(tau);
      terms.push(mixture.logDensity(g) + tau - 0.5 * p * Math.log1p(g) - q / (2 * (1 + g)));
    }
    logZ += logSumExp(terms) + Math.log(SCREEN_TAU.step);
  }
  return { logZ, mle, nLikelihoodEvals: likelihood.evaluations };
}

/** Options of {@link glmGPriorEvidence}. */
export interface GlmGPriorOptions extends Omit<GlmEvidenceOptions, "priorSd"> {
  /** The prior on g. @defaultValue "robust" */
  readonly mixture?: GMixtureName;
}

/** The target and the proposal of one model: flat in α alone without slopes, else over (α, β, τ). */
function gPriorSetup(
  design: GlmDesign,
  outcome: GlmOutcome,
  mixture: GMixtureName,
  dof: number,
  where: string,
): { likelihood: GlmLikelihood; proposal: ControlledProposal; logDensity: (x: Float64Array) => number } {
  const likelihood = new GlmLikelihood(design, outcome);
  const { k, n } = design;
  if (k === 1) {
    const flat = flatDensity(likelihood, outcome.constant);
    const { mode, L, value } = posteriorMode(flat, where);
    return {
      likelihood,
      proposal: laplaceProposal(mode, L, value, dof),
      logDensity: (x) => flat.logDensity(x),
    };
  }
  const fit = maximumLikelihoodFit(likelihood, where);
  const post = new GPriorPosterior(likelihood, fit.J, gMixture(mixture, n, k - 1, where));
  const nodes = tauGrid((tau) => quadraticNode(fit, post, tau, dof), n, where);
  return { likelihood, proposal: gridProposal(nodes, k, dof), logDensity: (x) => post.joint(x) };
}

/**
 * One model's log evidence under a mixture of g-priors (see the module header). `design` holds the
 * intercept column first; without other columns the evidence is ∫ L(α) dα. `laplaceLogZ` is Laplace's
 * approximation in (α, β) summed over the grid in τ.
 */
export function glmGPriorEvidence(
  design: GlmDesign,
  outcome: GlmOutcome,
  options: GlmGPriorOptions,
  where = "glmGPriorEvidence",
): Omit<GlmEvidence, "mode" | "precisionCholesky"> {
  const dof = options.dof ?? DEFAULT_DOF;
  const { likelihood, proposal, logDensity } = gPriorSetup(
    design,
    outcome,
    options.mixture ?? "robust",
    dof,
    where,
  );
  const corrected = importanceCorrection(proposal, logDensity, options, where);
  return { ...corrected, laplaceLogZ: proposal.logSurrogate, nLikelihoodEvals: likelihood.evaluations };
}

/** Weighted posterior draws of one model's coefficients under a mixture of g-priors, from the proposal of its evidence. */
export function gPriorPosteriorDraws(
  design: GlmDesign,
  outcome: GlmOutcome,
  options: { readonly mixture: GMixtureName; readonly pairs: number; readonly rng: Rng },
  where = "gPriorPosteriorDraws",
): GlmPosteriorDraws {
  const { proposal, logDensity } = gPriorSetup(design, outcome, options.mixture, DEFAULT_DOF, where);
  return weightedDraws(proposal, logDensity, design.k, options.pairs, options.rng);
}
