import { invalidArgument, OccamError } from "../errors.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { checkTarget, gradientStart, isUsableLogDensity, metropolisHastings } from "./accept.js";
import {
  DualAveraging,
  type DualAveragingOptions,
  WindowedVarianceAdaptation,
  type WindowOptions,
} from "./adaptation.js";
import { type GradLogDensityFn, type Integrator, leapfrog } from "./integrators.js";
import type { AdaptiveKernel, PositionState, StepInfo } from "./kernel.js";
import { diagonalMetric } from "./metric.js";
import { searchStepSize } from "./step-size.js";

const NAME = "HMC";

/** Options of {@link buildHmcKernel}. */
export interface HmcOptions {
  /** The target density; it must have `gradLogDensity`. */
  target: LogDensity;
  /**
   * Integrator step size ε: the fixed one when `adaptStepSize` is false, else where warm-up starts
   * (Stan's heuristic doubles or halves it at the start of the first step). When `endWarmup` comes
   * before any step (a run without warm-up), this ε is used as given.
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
   * Adapt ε during warm-up by dual averaging, then keep the averaged ε̄.
   * @defaultValue true
   */
  adaptStepSize?: boolean;
  /**
   * Acceptance probability dual averaging aims for.
   * @defaultValue 0.8
   */
  targetAccept?: number;
  /**
   * γ, t₀, κ of dual averaging.
   * @defaultValue `{ gamma: 0.05, t0: 10, kappa: 0.75 }`
   */
  dualAveraging?: Omit<DualAveragingOptions, "targetAccept">;
  /**
   * Estimate a diagonal inverse mass matrix (the posterior variances) in Stan's warm-up windows.
   * @defaultValue true
   */
  adaptMassMatrix?: boolean;
  /**
   * Diagonal inverse mass matrix M⁻¹ to start from (or to keep, without mass-matrix adaptation).
   * @defaultValue all ones
   */
  inverseMassMatrix?: Float64Array;
  /**
   * Buffers of Stan's windowed warm-up.
   * @defaultValue `{ initBuffer: 75, termBuffer: 50, baseWindow: 25 }`
   */
  windows?: WindowOptions;
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

/** An HMC kernel; `dim` is the target's dimension. */
export interface HmcKernel extends AdaptiveKernel<HmcState, HmcInfo> {
  readonly dim: number;
  /** The current nominal step size. */
  readonly stepSize: number;
  /** A copy of the current diagonal inverse mass matrix. */
  readonly inverseMassMatrix: Float64Array;
}

interface ResolvedHmc {
  stepSize: number;
  steps: number;
  trajectoryLength: number | undefined;
  maxSteps: number;
  stepsJitter: number;
  stepSizeJitter: number;
  adaptStepSize: boolean;
  targetAccept: number;
  adaptMassMatrix: boolean;
  inverseMass: Float64Array;
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
  const targetAccept = options.targetAccept ?? 0.8;
  if (!(targetAccept > 0 && targetAccept < 1))
    throw invalidArgument(NAME, `targetAccept must lie in (0, 1), got ${targetAccept}.`);
  const inverseMass = new Float64Array(dim).fill(1);
  if (options.inverseMassMatrix !== undefined) {
    const m = options.inverseMassMatrix;
    if (!(m instanceof Float64Array) || m.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `${NAME}: inverseMassMatrix must be a Float64Array of length ${dim} (its diagonal), got ${m instanceof Float64Array ? `length ${m.length}` : String(m)}.`,
      );
    }
    for (let i = 0; i < dim; i++) {
      if (!(Number.isFinite(m[i]) && m[i] > 0))
        throw invalidArgument(NAME, `inverseMassMatrix[${i}] must be finite and > 0, got ${m[i]}.`);
    }
    inverseMass.set(m);
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
    steps,
    trajectoryLength,
    maxSteps,
    stepsJitter,
    stepSizeJitter,
    adaptStepSize: options.adaptStepSize ?? true,
    targetAccept,
    adaptMassMatrix: options.adaptMassMatrix ?? true,
    inverseMass,
    integrator,
    divergenceThreshold,
  };
}

/**
 * Hybrid (Hamiltonian) Monte Carlo with a fixed number of integrator steps (or a fixed integration
 * time), a diagonal mass matrix and Stan's warm-up: Stan's step-size heuristic, dual averaging of the
 * step size towards `targetAccept`, and the diagonal inverse mass matrix estimated in windows (after
 * each window the heuristic runs again and dual averaging restarts). After `endWarmup` the kernel
 * keeps ε̄ and the last mass matrix.
 *
 * Each transition costs `steps · integrator.gradientsPerStep` gradient evaluations (the state keeps
 * its gradient). A trajectory is divergent, rejected and reported in `info.divergent` when its energy
 * error exceeds `divergenceThreshold` or is not finite: it reached a point of zero density, or one where
 * the log density is NaN or +∞ or the gradient has a non-finite entry (Stan's rule: the model may
 * overflow far from its mass, and the trajectory, not the run, ends there). Trajectories run in scratch buffers made
 * when the kernel is built; a step allocates only an accepted state's position and gradient.
 *
 * @example
 * const kernel = buildHmcKernel({ target: tempered(model, 1), trajectoryLength: 2, stepsJitter: 0.2 });
 */
export function buildHmcKernel(options: HmcOptions): HmcKernel {
  if (options === null || typeof options !== "object") {
    throw invalidArgument(NAME, "options must be an object with a target.");
  }
  const { target } = options;
  checkTarget(NAME, target, true);
  const dim = target.dim;
  const opts = resolve(options, dim);
  const grad = target.gradLogDensity as GradLogDensityFn;
  const { integrator, divergenceThreshold } = opts;
  const invMass = opts.inverseMass;
  // Held by the metric, and updated in place by the warm-up's windows.
  const metric = diagonalMetric(invMass);
  const sqrtMass = new Float64Array(dim);
  const refreshMass = () => {
    for (let i = 0; i < dim; i++) sqrtMass[i] = 1 / Math.sqrt(invMass[i]);
  };
  refreshMass();

  let stepSize = opts.stepSize;
  let adapting = opts.adaptStepSize || opts.adaptMassMatrix;
  const dual = new DualAveraging(stepSize, { ...options.dualAveraging, targetAccept: opts.targetAccept });
  let windows: WindowedVarianceAdaptation | undefined;
  // Stan runs its step-size heuristic before the first warm-up step and after each mass-matrix update;
  // it needs random momenta, so it runs at the start of the next `step`.
  let pendingStepSizeSearch = opts.adaptStepSize;

  const q = new Float64Array(dim);
  const p = new Float64Array(dim);
  const g = new Float64Array(dim);

  const kinetic = () => {
    let k = 0;
    for (let i = 0; i < dim; i++) k += invMass[i] * p[i] * p[i];
    return 0.5 * k;
  };
  const startTrajectory = (rng: Rng, state: HmcState) => {
    q.set(state.position);
    g.set(state.gradient);
    for (let i = 0; i < dim; i++) p[i] = sqrtMass[i] * rng.normal();
    return -state.logDensity + kinetic();
  };

  return {
    dim,
    get stepSize() {
      return stepSize;
    },
    get inverseMassMatrix() {
      return Float64Array.from(invMass);
    },
    init(position: Float64Array): HmcState {
      return gradientStart(NAME, grad, position, dim);
    },
    step(rng: Rng, state: HmcState) {
      let evaluations = 0;
      if (pendingStepSizeSearch) {
        pendingStepSizeSearch = false;
        const found = searchStepSize(NAME, grad, integrator, metric, state, stepSize, rng, { q, p, g });
        stepSize = found.stepSize;
        evaluations += found.evaluations;
        dual.restart(stepSize);
      }
      const eps =
        opts.stepSizeJitter === 0 ? stepSize : stepSize * (1 + opts.stepSizeJitter * (2 * rng.uniform() - 1));
      const planned = plannedSteps(opts, stepSize, rng);
      const h0 = startTrajectory(rng, state);
      let logp = state.logDensity;
      let taken = 0;
      while (taken < planned) {
        logp = integrator.step(grad, q, p, g, metric, eps);
        taken++;
        evaluations += integrator.gradientsPerStep;
        if (!(logp > Number.NEGATIVE_INFINITY && logp < Number.POSITIVE_INFINITY)) break;
      }
      // A NaN or +∞ log density, or a non-finite gradient (the integrator then returns NaN), ends the
      // trajectory as a divergence, as Stan does: the model may overflow far out on an early trajectory.
      const energyError = isUsableLogDensity(logp) ? -logp + kinetic() - h0 : Number.NaN;
      const divergent = !(energyError <= divergenceThreshold);
      const { accepted, acceptProbability } = metropolisHastings(
        rng,
        divergent ? Number.NEGATIVE_INFINITY : -energyError,
      );
      const next = accepted
        ? { position: Float64Array.from(q), logDensity: logp, gradient: Float64Array.from(g) }
        : state;
      return {
        state: next,
        info: {
          accepted,
          acceptProbability,
          evaluations,
          divergent,
          energyError,
          stepSize: eps,
          steps: taken,
        },
      };
    },
    adapt(state: HmcState, info: HmcInfo, iteration: number, warmup: number) {
      if (!adapting) return;
      if (opts.adaptStepSize) stepSize = dual.update(info.acceptProbability);
      if (opts.adaptMassMatrix) {
        if (windows === undefined || windows.schedule.warmup !== warmup) {
          windows = new WindowedVarianceAdaptation(dim, warmup, options.windows);
        }
        if (windows.update(iteration, state.position, invMass)) {
          refreshMass();
          if (opts.adaptStepSize) pendingStepSizeSearch = true;
        }
      }
    },
    endWarmup() {
      if (!adapting) return;
      adapting = false;
      pendingStepSizeSearch = false;
      if (opts.adaptStepSize && dual.iterations > 0) stepSize = dual.finalStepSize;
    },
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
