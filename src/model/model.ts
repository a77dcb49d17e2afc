import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { createRng } from "../random/rng.js";
import type { Kernel } from "../samplers/kernel.js";

/**
 * An unnormalised log density over R^dim, the target a sampler sees.
 * `gradLogDensity` writes ∇ log π(θ) into `grad` and returns log π(θ).
 */
export interface LogDensity {
  readonly dim: number;
  logDensity(theta: Float64Array): number;
  gradLogDensity?(theta: Float64Array, grad: Float64Array): number;
}

/**
 * Box bounds of the parameters, lower[j] < θ_j < upper[j] (±Infinity for an unbounded side): the
 * prior is zero outside the box and positive inside. Samplers cannot see a hard wall from the
 * density alone; with the bounds declared, occam's estimators sample on an unbounded scale (each
 * bounded coordinate mapped by a logit or log transform, as Stan and bridgesampling do), which leaves
 * log Z unchanged.
 */
export interface ParameterBounds {
  readonly lower: ArrayLike<number>;
  readonly upper: ArrayLike<number>;
}

/**
 * A Bayesian model: a normalised prior and a likelihood that keeps every normalising constant.
 * Evidence estimators compute log Z = log ∫ p(θ) L(θ) dθ from these two, so a likelihood that drops
 * a constant gives a log Z that is wrong by that constant.
 */
export interface BayesModel {
  readonly dim: number;
  readonly names?: readonly string[];
  /** Where the prior has hard bounds (a uniform prior on a box, a positive scale): see {@link ParameterBounds}. */
  readonly bounds?: ParameterBounds;
  /** log p(θ), normalised: the prior integrates to 1. */
  logPrior(theta: Float64Array): number;
  /** log L(θ) = log p(D | θ), with every normalising constant. */
  logLikelihood(theta: Float64Array): number;
  /** A draw from the prior. */
  samplePrior(rng: Rng): Float64Array;
  /**
   * The prior as a map from the unit cube (dynesty's and UltraNest's prior transform): writes into
   * `out` the point θ = F⁻¹(u) for u in the open cube (0, 1)^dim, so that θ is distributed as the
   * prior when u is uniform, and returns `out`. For independent coordinates F⁻¹ is each marginal's
   * quantile function. Nested sampling uses it to draw from the prior restricted to L(θ) > L* by
   * drawing u inside bounds fitted in the cube, where the prior is flat.
   */
  priorTransform?(u: Float64Array, out: Float64Array): Float64Array;
  /** Writes ∇ log p(θ) into `grad` and returns log p(θ). */
  gradLogPrior?(theta: Float64Array, grad: Float64Array): number;
  /** Writes ∇ log L(θ) into `grad` and returns log L(θ). */
  gradLogLikelihood?(theta: Float64Array, grad: Float64Array): number;
  /** Writes the log likelihood of each observation into `out` (for cross-validated evidence). */
  logLikelihoodPointwise?(theta: Float64Array, out: Float64Array): void;
  /** An exact Gibbs kernel for the power posterior p(θ) L(θ)^β, where the model has one. */
  powerPosteriorKernel?(beta: number): Kernel<unknown, unknown>;
  /** The exact log evidence, for conjugate families. */
  exactLogEvidence?(): number;
  /**
   * The acceptance rate HMC's step size should be adapted to when sampling this model's posterior, by
   * chains or by the tempering engine's moves (default 0.8): higher for a posterior with regions of
   * much higher curvature than its bulk (the neck of a non-centred hierarchy), where a step size
   * adapted to the bulk makes trajectories diverge.
   */
  readonly hmcTargetAccept?: number;
  /**
   * HMC's trajectory length in the adapted metric (default π/2, a quarter period of a unit Gaussian):
   * longer for a posterior whose slowest direction a diagonal metric cannot rescale (a curved ridge).
   */
  readonly hmcTrajectoryLength?: number;
  /**
   * The most integrator steps an HMC trajectory of this model's posterior chains may take (default
   * 1024): a bound on what an iteration costs where the adapted step size is small next to the
   * posterior's spread (stiff directions a diagonal metric cannot rescale), the trajectory then being
   * shorter than `hmcTrajectoryLength`.
   */
  readonly hmcMaxSteps?: number;
}

/** Options of {@link defineModel}. */
export interface DefineModelOptions {
  /**
   * How many prior draws to check the log densities (and gradients) at.
   * @defaultValue 5
   */
  checkDraws?: number;
  /**
   * Seed of the prior draws used for the checks.
   * @defaultValue 0
   */
  checkSeed?: number;
}

/**
 * Validates a user's model and returns it frozen: `dim` a positive integer, the required functions
 * present, prior draws of length `dim`, and finite log densities (and gradients) at a few prior draws.
 * Throws an `OccamError` that says which part failed and how to fix it.
 */
export function defineModel<M extends BayesModel>(model: M, options: DefineModelOptions = {}): Readonly<M> {
  const checkDraws = options.checkDraws ?? 5;
  const checkSeed = options.checkSeed ?? 0;
  if (model === null || typeof model !== "object") {
    throw new OccamError(
      "invalid-argument",
      "defineModel expects an object with dim, logPrior, logLikelihood and samplePrior.",
    );
  }
  if (!(Number.isInteger(model.dim) && model.dim >= 1)) {
    throw new OccamError("invalid-argument", `model.dim must be a positive integer, got ${model.dim}.`);
  }
  for (const name of ["logPrior", "logLikelihood", "samplePrior"] as const) {
    if (typeof model[name] !== "function") {
      throw new OccamError("invalid-argument", `model.${name} must be a function.`);
    }
  }
  if (model.names !== undefined && model.names.length !== model.dim) {
    throw new OccamError(
      "dimension-mismatch",
      `model.names has ${model.names.length} entries but model.dim is ${model.dim}; give one name per parameter.`,
    );
  }
  checkBounds(model, "model.bounds");
  const rng = createRng(checkSeed);
  const grad = new Float64Array(model.dim);
  for (let i = 0; i < checkDraws; i++) {
    const theta = model.samplePrior(rng);
    if (!(theta instanceof Float64Array) || theta.length !== model.dim) {
      throw new OccamError(
        "dimension-mismatch",
        `model.samplePrior must return a Float64Array of length ${model.dim} (model.dim), got ${describe(theta)}.`,
      );
    }
    const where = `at prior draw ${i} [${Array.from(theta.slice(0, 4), (v) => v.toPrecision(4)).join(", ")}${model.dim > 4 ? ", …" : ""}]`;
    for (const v of theta) {
      if (!Number.isFinite(v))
        throw new OccamError("non-finite", `model.samplePrior returned a non-finite value ${where}.`);
    }
    if (model.bounds !== undefined && !insideBounds(model.bounds, theta)) {
      throw new OccamError(
        "invalid-argument",
        `model.samplePrior returned a point outside model.bounds ${where}; the bounds must contain the prior's support.`,
      );
    }
    const lp = model.logPrior(theta);
    if (!(lp < Number.POSITIVE_INFINITY && lp > Number.NEGATIVE_INFINITY)) {
      throw new OccamError(
        "non-finite",
        `model.logPrior is ${lp} ${where}; a prior draw must have a finite log prior.`,
      );
    }
    const ll = model.logLikelihood(theta);
    if (Number.isNaN(ll) || ll === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `model.logLikelihood is ${ll} ${where}; it must be finite or −Infinity.`,
      );
    }
    checkGradient(model.gradLogPrior, theta, grad, lp, "gradLogPrior", "logPrior", where);
    checkGradient(model.gradLogLikelihood, theta, grad, ll, "gradLogLikelihood", "logLikelihood", where);
  }
  checkPriorTransform(model, rng, checkDraws);
  return Object.freeze(model);
}

/**
 * Checks `model.priorTransform`, when present, at `count` uniform points of the cube: it must return
 * a Float64Array of length `dim` with finite entries inside the prior's support (a finite log prior).
 * A transform that maps part of the cube outside the support would make nested sampling propose
 * points the prior does not have.
 */
function checkPriorTransform(model: BayesModel, rng: Rng, count: number): void {
  const transform = model.priorTransform;
  if (transform === undefined) return;
  if (typeof transform !== "function") {
    throw new OccamError("invalid-argument", "model.priorTransform must be a function (u, out) => out.");
  }
  const u = new Float64Array(model.dim);
  for (let i = 0; i < Math.max(count, 1); i++) {
    // The cube's centre first, then uniform points (0 excluded: the cube is open).
    for (let j = 0; j < model.dim; j++) u[j] = i === 0 ? 0.5 : 1 - rng.uniform();
    const theta = transform.call(model, u, new Float64Array(model.dim));
    const where = `at u = ${showVector(u)}`;
    if (!(theta instanceof Float64Array) || theta.length !== model.dim) {
      throw new OccamError(
        "dimension-mismatch",
        `model.priorTransform must write θ into out and return a Float64Array of length ${model.dim} (model.dim), got ${describe(theta)} ${where}.`,
      );
    }
    for (const v of theta) {
      if (!Number.isFinite(v)) {
        throw new OccamError("non-finite", `model.priorTransform returned a non-finite value ${where}.`);
      }
    }
    const lp = model.logPrior(theta);
    if (!(lp > Number.NEGATIVE_INFINITY && lp < Number.POSITIVE_INFINITY)) {
      throw new OccamError(
        "invalid-argument",
        `model.priorTransform maps u = ${showVector(u)} to θ = ${showVector(theta)}, where model.logPrior is ${lp}: ` +
          "the transform must map the open unit cube onto the prior's support (θ = F⁻¹(u), the prior's quantile function).",
      );
    }
  }
}

function showVector(x: Float64Array): string {
  return `[${Array.from(x.subarray(0, 4), (v) => v.toPrecision(4)).join(", ")}${x.length > 4 ? ", …" : ""}]`;
}

/**
 * Checks `model.bounds` when present: one lower and one upper bound per parameter, each a number
 * (±Infinity allowed, never NaN), lower < upper. Throws an `OccamError` naming the coordinate.
 */
export function checkBounds(model: BayesModel, where: string): void {
  const bounds = model.bounds;
  if (bounds === undefined) return;
  if (bounds === null || typeof bounds !== "object") {
    throw new OccamError("invalid-argument", `${where} must be { lower, upper }, one entry per parameter.`);
  }
  const { lower, upper } = bounds;
  if (lower?.length !== model.dim || upper?.length !== model.dim) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: lower and upper must each have ${model.dim} entries (model.dim), got ${lower?.length} and ${upper?.length}.`,
    );
  }
  for (let j = 0; j < model.dim; j++) {
    if (!(lower[j] < upper[j])) {
      throw new OccamError(
        "invalid-argument",
        `${where}: parameter ${j} has lower bound ${lower[j]} and upper bound ${upper[j]}; need lower < upper (±Infinity for an open side).`,
      );
    }
  }
}

/** True when every coordinate of θ lies strictly inside the bounds. */
export function insideBounds(bounds: ParameterBounds, theta: Float64Array): boolean {
  for (let j = 0; j < theta.length; j++) {
    if (!(theta[j] > bounds.lower[j] && theta[j] < bounds.upper[j])) return false;
  }
  return true;
}

function checkGradient(
  fn: ((theta: Float64Array, grad: Float64Array) => number) | undefined,
  theta: Float64Array,
  grad: Float64Array,
  expected: number,
  name: string,
  valueName: string,
  where: string,
): void {
  if (fn === undefined || !Number.isFinite(expected)) return;
  const value = fn(theta, grad);
  if (Math.abs(value - expected) > 1e-8 * (1 + Math.abs(expected))) {
    throw new OccamError(
      "invalid-argument",
      `model.${name} returned ${value} but model.${valueName} is ${expected} ${where}; it must write the gradient and return the same value.`,
    );
  }
  for (const g of grad) {
    if (!Number.isFinite(g))
      throw new OccamError("non-finite", `model.${name} wrote a non-finite gradient ${where}.`);
  }
}

function describe(value: unknown): string {
  if (value instanceof Float64Array) return `a Float64Array of length ${value.length}`;
  if (Array.isArray(value)) return `a plain array of length ${value.length} (use Float64Array)`;
  return String(value);
}

/**
 * The power posterior as a log density: log p(θ) + β log L(θ), for β in [0, 1].
 * β = 0 is the prior and β = 1 the unnormalised posterior. At β = 0 the likelihood is not evaluated,
 * so a −Infinity likelihood cannot make 0 · (−∞) = NaN.
 */
export function tempered(model: BayesModel, beta: number): LogDensity {
  if (!(beta >= 0 && beta <= 1)) {
    throw new OccamError("invalid-argument", `inverse temperature beta must lie in [0, 1], got ${beta}.`);
  }
  const { gradLogPrior, gradLogLikelihood } = model;
  const density: LogDensity = {
    dim: model.dim,
    logDensity:
      beta === 0
        ? (theta) => model.logPrior(theta)
        : (theta) => {
            const lp = model.logPrior(theta);
            return lp === Number.NEGATIVE_INFINITY ? lp : lp + beta * model.logLikelihood(theta);
          },
  };
  if (gradLogPrior !== undefined && (beta === 0 || gradLogLikelihood !== undefined)) {
    const scratch = new Float64Array(model.dim);
    density.gradLogDensity =
      beta === 0 || gradLogLikelihood === undefined
        ? (theta, grad) => gradLogPrior.call(model, theta, grad)
        : (theta, grad) => {
            const lp = gradLogPrior.call(model, theta, grad);
            if (lp === Number.NEGATIVE_INFINITY) return lp;
            const ll = gradLogLikelihood.call(model, theta, scratch);
            for (let i = 0; i < grad.length; i++) grad[i] += beta * scratch[i];
            return lp + beta * ll;
          };
  }
  return density;
}
