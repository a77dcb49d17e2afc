import { invalidArgument } from "../errors.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { checkTarget, gradientStart, isUsableLogDensity, metropolisHastings } from "./accept.js";
import { type GradLogDensityFn, type Integrator, leapfrog } from "./integrators.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "./kernel.js";
import { type Metric, metricFromInverseMass } from "./metric.js";
import { searchStepSize } from "./step-size.js";
import {
  type HamiltonianTransition,
  type WindowAdaptationOptions,
  windowAdaptation,
} from "./window-adaptation.js";

const NAME = "HMC";

/** Options of {@link buildHmcKernel}. */
export interface HmcOptions {
  /** The target density; it must have `gradLogDensity`. */
  target: LogDensity;
  /**
   * Integrator step size ε (where {@link hmcWarmup} starts: Stan's search doubles or halves it at its
   * first step).
   * @defaultValue 1
   */
  stepSize?: number;
  /**
   * Integrator steps per trajectory. Give `steps` or `trajectoryLength`, not both.
   * @defaultValue 10
   */
  steps?: number;
  /**
   * Integration time T: each trajectory takes max(1, round(T / ε)) steps of the current nominal ε,
   * so the steps follow the adapted step size (Stan's static HMC). For a Gaussian target with largest
   * standard deviation σ (in the metric's units), T ≈ (π/2) σ is a good choice.
   */
  trajectoryLength?: number;
  /**
   * Upper bound on the steps `trajectoryLength` may ask for.
   * @defaultValue 1024
   */
  maxSteps?: number;
  /**
   * Fraction j: each trajectory draws its number of steps uniformly from round(L(1 ± j)) (at least 1),
   * which breaks the periodicity of a fixed trajectory length: without it, a trajectory that happens
   * to last about one period of the target's oscillation returns near its start and the ESS collapses
   * (on a 1-D Gaussian, 8 fixed steps gave ESS 223 of 4000 draws; jitter 0.5 gave 4634).
   * @defaultValue 0.5
   */
  stepsJitter?: number;
  /**
   * Fraction j: each trajectory draws its step size uniformly from ε(1 ± j).
   * @defaultValue 0
   */
  stepSizeJitter?: number;
  /**
   * The inverse mass matrix M⁻¹: d variances (a diagonal metric) or d × d covariances (dense, row-major).
   * @defaultValue all variances 1
   */
  inverseMassMatrix?: Float64Array;
  /**
   * The symplectic integrator.
   * @defaultValue leapfrog
   */
  integrator?: Integrator;
  /**
   * A trajectory whose energy error H(end) − H(start) exceeds this, or is not finite, is divergent:
   * rejected and counted in `info.divergent`, never thrown.
   * @defaultValue 1000
   */
  divergenceThreshold?: number;
}

/** Options of {@link hmcWarmup}: the kernel's (its step size and metric are where warm-up starts) and the adaptation's. */
export interface HmcWarmupOptions extends HmcOptions, WindowAdaptationOptions {}

/** State of HMC: position, log density and its gradient (so a step costs only its trajectory). */
export interface HmcState extends PositionState {
  readonly gradient: Float64Array;
}

/** What one HMC transition did. */
export interface HmcInfo extends StepInfo {
  readonly divergent: boolean;
  /** H(end) − H(start), NaN or ±∞ when the trajectory blew up. */
  readonly energyError: number;
  /** The step size of this trajectory (after jitter). */
  readonly stepSize: number;
  /** Integrator steps taken (fewer than planned when the trajectory blew up). */
  readonly steps: number;
}

/** An HMC kernel, built from its step size and metric; `dim` is the target's dimension. */
export interface HmcKernel extends Kernel<HmcState, HmcInfo> {
  readonly dim: number;
  /** The nominal step size. */
  readonly stepSize: number;
  /** A copy of the inverse mass matrix (d variances, or d × d covariances). */
  readonly inverseMassMatrix: Float64Array;
}

interface ResolvedHmc {
  stepSize: number;
  metric: Metric;
  steps: number;
  trajectoryLength: number | undefined;
  maxSteps: number;
  stepsJitter: number;
  stepSizeJitter: number;
  integrator: Integrator;
  divergenceThreshold: number;
}

/** Fills the defaults of {@link HmcOptions} and checks every field. */
function resolve(options: HmcOptions, dim: number): ResolvedHmc {
  const stepSize = options.stepSize ?? 1;
  if (!(Number.isFinite(stepSize) && stepSize > 0))
    throw invalidArgument(NAME, `stepSize must be finite and > 0, got ${stepSize}.`);
  if (options.steps !== undefined && options.trajectoryLength !== undefined) {
    throw invalidArgument(NAME, "give steps or trajectoryLength, not both.");
  }
  const steps = options.steps ?? 10;
  if (!(Number.isInteger(steps) && steps >= 1))
    throw invalidArgument(NAME, `steps must be an integer ≥ 1, got ${steps}.`);
  const { trajectoryLength } = options;
  if (trajectoryLength !== undefined && !(Number.isFinite(trajectoryLength) && trajectoryLength > 0)) {
    throw invalidArgument(NAME, `trajectoryLength must be finite and > 0, got ${trajectoryLength}.`);
  }
  const maxSteps = options.maxSteps ?? 1024;
  if (!(Number.isInteger(maxSteps) && maxSteps >= 1))
    throw invalidArgument(NAME, `maxSteps must be an integer ≥ 1, got ${maxSteps}.`);
  const stepsJitter = options.stepsJitter ?? 0.5;
  const stepSizeJitter = options.stepSizeJitter ?? 0;
  for (const [value, name] of [
    [stepsJitter, "stepsJitter"],
    [stepSizeJitter, "stepSizeJitter"],
  ] as const) {
    if (!(value >= 0 && value < 1)) throw invalidArgument(NAME, `${name} must lie in [0, 1), got ${value}.`);
  }
  const integrator = options.integrator ?? leapfrog;
  if (integrator === null || typeof integrator !== "object" || typeof integrator.step !== "function") {
    throw invalidArgument(NAME, "integrator must be an Integrator such as leapfrog or mclachlan.");
  }
  const divergenceThreshold = options.divergenceThreshold ?? 1000;
  if (!(divergenceThreshold > 0))
    throw invalidArgument(NAME, `divergenceThreshold must be > 0, got ${divergenceThreshold}.`);
  return {
    stepSize,
    metric: metricFromInverseMass(NAME, options.inverseMassMatrix, dim),
    steps,
    trajectoryLength,
    maxSteps,
    stepsJitter,
    stepSizeJitter,
    integrator,
    divergenceThreshold,
  };
}

/** The target of `options`, checked, with the resolved options. */
function setUp(options: HmcOptions): { target: LogDensity; opts: ResolvedHmc } {
  if (options === null || typeof options !== "object") {
    throw invalidArgument(NAME, "options must be an object with a target.");
  }
  const { target } = options;
  checkTarget(NAME, target, true);
  return { target, opts: resolve(options, target.dim) };
}

/**
 * Hybrid (Hamiltonian) Monte Carlo with a fixed number of integrator steps (or a fixed integration
 * time), at the step size and metric given; {@link hmcWarmup} tunes them. Each transition costs
 * `steps · integrator.gradientsPerStep` gradient evaluations (the state keeps its gradient). A
 * trajectory is divergent, rejected and reported in `info.divergent` when its energy error exceeds
 * `divergenceThreshold` or is not finite: it reached a point of zero density, or one where the log
 * density is NaN or +∞ or the gradient has a non-finite entry (Stan's rule: the model may overflow far
 * from its mass, and the trajectory, not the run, ends there). Trajectories run in scratch buffers made
 * when the kernel is built; a step allocates only an accepted state's position and gradient.
 *
 * @example
 * const kernel = buildHmcKernel({ target: tempered(model, 1), stepSize: 0.1, steps: 20 });
 */
export function buildHmcKernel(options: HmcOptions): HmcKernel {
  const { target, opts } = setUp(options);
  return hmcTransition(target, opts).build(opts.stepSize, opts.metric);
}

/**
 * Stan's warm-up of HMC (see window-adaptation.ts): its step-size search, dual averaging of the step
 * size towards `targetAccept`, and the inverse mass matrix estimated in windows (after each window the
 * search runs again and dual averaging restarts). `runChain` runs it for each chain, then samples with
 * the HMC kernel of the averaged ε̄ and the last metric.
 *
 * @example
 * const draws = runChain(hmcWarmup({ target: tempered(model, 1), trajectoryLength: 2 }), {
 *   draws: 1000, warmup: 500, chains: 4, seed: 1, initial: (rng) => model.samplePrior(rng),
 * });
 */
export function hmcWarmup(options: HmcWarmupOptions): Adaptation<HmcState, HmcInfo, HmcKernel> {
  const { target, opts } = setUp(options);
  return windowAdaptation(NAME, hmcTransition(target, opts), opts.stepSize, opts.metric, options);
}

/**
 * Stan's step-size search (its `init_stepsize`) for the HMC kernel of `options` at `state`, from
 * `options.stepSize`: the step size found, and the gradient evaluations it spent. For a kernel that
 * is never warmed up, as a tempered run's model kernel.
 */
export function searchHmcStepSize(
  options: HmcOptions,
  rng: Rng,
  state: HmcState,
): { stepSize: number; evaluations: number } {
  const { target, opts } = setUp(options);
  return hmcTransition(target, opts).searchStepSize(rng, state, opts.stepSize, opts.metric);
}

/** HMC's step with its step size and metric as arguments, in scratch buffers made once. */
function hmcTransition(
  target: LogDensity,
  opts: ResolvedHmc,
): HamiltonianTransition<HmcState, HmcInfo, HmcKernel> {
  const dim = target.dim;
  const grad = target.gradLogDensity as GradLogDensityFn;
  const { integrator, divergenceThreshold } = opts;
  const q = new Float64Array(dim);
  const p = new Float64Array(dim);
  const g = new Float64Array(dim);
  const init = (position: Float64Array): HmcState => gradientStart(NAME, grad, position, dim);
  const step = (rng: Rng, state: HmcState, stepSize: number, metric: Metric) => {
    const eps =
      opts.stepSizeJitter === 0 ? stepSize : stepSize * (1 + opts.stepSizeJitter * (2 * rng.uniform() - 1));
    const planned = plannedSteps(opts, stepSize, rng);
    q.set(state.position);
    g.set(state.gradient);
    metric.sampleMomentum(rng, p);
    const h0 = -state.logDensity + metric.kinetic(p);
    let logp = state.logDensity;
    let taken = 0;
    while (taken < planned) {
      logp = integrator.step(grad, q, p, g, metric, eps);
      taken++;
      if (!(logp > Number.NEGATIVE_INFINITY && logp < Number.POSITIVE_INFINITY)) break;
    }
    // A NaN or +∞ log density, or a non-finite gradient (the integrator then returns NaN), ends the
    // trajectory as a divergence, as Stan does: the model may overflow far out on an early trajectory.
    const energyError = isUsableLogDensity(logp) ? -logp + metric.kinetic(p) - h0 : Number.NaN;
    const divergent = !(energyError <= divergenceThreshold);
    const { accepted, acceptProbability } = metropolisHastings(
      rng,
      divergent ? Number.NEGATIVE_INFINITY : -energyError,
    );
    const next = accepted
      ? { position: Float64Array.from(q), logDensity: logp, gradient: Float64Array.from(g) }
      : state;
    const info: HmcInfo = {
      accepted,
      acceptProbability,
      evaluations: taken * integrator.gradientsPerStep,
      divergent,
      energyError,
      stepSize: eps,
      steps: taken,
    };
    return { state: next, info };
  };
  return {
    dim,
    init,
    step,
    searchStepSize: (rng, state, stepSize, metric) =>
      searchStepSize(NAME, grad, integrator, metric, state, stepSize, rng, { q, p, g }),
    build: (stepSize, metric) => ({
      dim,
      stepSize,
      get inverseMassMatrix() {
        return Float64Array.from(metric.inverseMass);
      },
      init,
      step: (rng, state) => step(rng, state, stepSize, metric),
    }),
  };
}

/** A trajectory's integrator steps at the nominal step size: fixed, or the trajectory length's, jittered. */
function plannedSteps(opts: ResolvedHmc, stepSize: number, rng: Rng): number {
  const nominal =
    opts.trajectoryLength === undefined
      ? opts.steps
      : Math.min(opts.maxSteps, Math.max(1, Math.round(opts.trajectoryLength / stepSize)));
  if (opts.stepsJitter === 0) return nominal;
  const lo = Math.max(1, Math.round(nominal * (1 - opts.stepsJitter)));
  const hi = Math.max(lo, Math.round(nominal * (1 + opts.stepsJitter)));
  return lo + rng.integer(hi - lo + 1);
}
