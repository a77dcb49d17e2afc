/**
 * The No-U-Turn Sampler (Hoffman & Gelman 2014) as Stan and blackjax run it: a trajectory doubled in
 * a random direction until it turns back on itself, a state drawn from it in proportion to its
 * weight exp(−H) (Betancourt's multinomial sampling: uniform within a subtree, biased towards the new
 * subtree at the top), the generalised no-U-turn criterion on velocities p♯ = M⁻¹p, checked on every
 * merged subtree and across the junction of each pair (Stan ≥ 2.21's extra checks), and Stan's
 * warm-up (see window-adaptation.ts). A trajectory whose energy error exceeds 1000 or is not finite
 * (the log density NaN or +∞, a non-finite gradient, zero density) is divergent: the doubling stops
 * and the draw comes from what was built before it, never an exception.
 */
import { invalidArgument } from "../errors.js";
import { logAddExp } from "../math/logspace.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { checkTarget, gradientStart, isUsableLogDensity } from "./accept.js";
import { type GradLogDensityFn, leapfrog } from "./integrators.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "./kernel.js";
import { type Metric, metricFromInverseMass } from "./metric.js";
import { searchStepSize } from "./step-size.js";
import {
  type HamiltonianTransition,
  type WindowAdaptationOptions,
  windowAdaptation,
} from "./window-adaptation.js";

const NAME = "NUTS";

/** Options of {@link buildNutsKernel}. */
export interface NutsOptions {
  /** The target density; it must have `gradLogDensity`. */
  target: LogDensity;
  /** The step size (where {@link nutsWarmup}'s step-size search starts). @defaultValue 1 */
  stepSize?: number;
  /**
   * The inverse mass matrix M⁻¹: d variances (a diagonal metric) or d × d covariances (dense, row-major).
   * @defaultValue all variances 1
   */
  inverseMassMatrix?: Float64Array;
  /** The most doublings of a trajectory (at most 2^maxTreeDepth − 1 leapfrog steps). @defaultValue 10 */
  maxTreeDepth?: number;
  /** An energy error above this makes a trajectory divergent. @defaultValue 1000 */
  divergenceThreshold?: number;
}

/** Options of {@link nutsWarmup}: the kernel's (its step size and metric are where warm-up starts) and the adaptation's. */
export interface NutsWarmupOptions extends NutsOptions, WindowAdaptationOptions {}

/** State of NUTS: position, log density and its gradient. */
export interface NutsState extends PositionState {
  readonly gradient: Float64Array;
}

/** What one NUTS transition did. */
export interface NutsInfo extends StepInfo {
  /** Doublings of the trajectory. */
  readonly treeDepth: number;
  /** True when the trajectory stopped at `maxTreeDepth` rather than by turning back. */
  readonly treeDepthLimited: boolean;
  /** The step size used. */
  readonly stepSize: number;
}

/** A NUTS kernel, built from its step size and metric; `dim` is the target's dimension. */
export interface NutsKernel extends Kernel<NutsState, NutsInfo> {
  readonly dim: number;
  /** The step size. */
  readonly stepSize: number;
  /** The metric. */
  readonly metric: Metric;
}

interface ResolvedNuts {
  stepSize: number;
  metric: Metric;
  maxTreeDepth: number;
  divergenceThreshold: number;
}

function resolve(options: NutsOptions, dim: number): ResolvedNuts {
  const stepSize = options.stepSize ?? 1;
  if (!(Number.isFinite(stepSize) && stepSize > 0))
    throw invalidArgument(NAME, `stepSize must be finite and > 0, got ${stepSize}.`);
  const maxTreeDepth = options.maxTreeDepth ?? 10;
  if (!(Number.isInteger(maxTreeDepth) && maxTreeDepth >= 1 && maxTreeDepth <= 30)) {
    throw invalidArgument(NAME, `maxTreeDepth must be an integer from 1 to 30, got ${maxTreeDepth}.`);
  }
  const divergenceThreshold = options.divergenceThreshold ?? 1000;
  if (!(Number.isFinite(divergenceThreshold) && divergenceThreshold > 0)) {
    throw invalidArgument(NAME, `divergenceThreshold must be finite and > 0, got ${divergenceThreshold}.`);
  }
  return {
    stepSize,
    metric: metricFromInverseMass(NAME, options.inverseMassMatrix, dim),
    maxTreeDepth,
    divergenceThreshold,
  };
}

/**
 * One NUTS trajectory at a time, in buffers made once: the trajectory's two ends (each integrated in
 * place as the trajectory grows that way), the draw, and for each tree level the proposal and the
 * inner boundaries of its two halves. `run` makes one transition with the step size and metric given.
 */
class Trajectory {
  // The ends: position, momentum, gradient, velocity p♯ = M⁻¹p; the draw; the summed momentum.
  private readonly qF: Float64Array;
  private readonly pF: Float64Array;
  private readonly gF: Float64Array;
  private readonly psF: Float64Array;
  private readonly qB: Float64Array;
  private readonly pB: Float64Array;
  private readonly gB: Float64Array;
  private readonly psB: Float64Array;
  private readonly qS: Float64Array;
  private readonly gS: Float64Array;
  private readonly rho: Float64Array;
  // The subtree added at the top: its boundary momenta and velocities, its summed momentum, the junction.
  private readonly pBeg: Float64Array;
  private readonly psBeg: Float64Array;
  private readonly pEnd: Float64Array;
  private readonly psEnd: Float64Array;
  private readonly rhoSub: Float64Array;
  private readonly pJunction: Float64Array;
  private readonly psJunction: Float64Array;
  private readonly check: Float64Array;
  // Per level: a proposal (the top level's is the last), and the inner boundaries of the two halves.
  private readonly proposeQ: Float64Array[];
  private readonly proposeG: Float64Array[];
  private readonly proposeLogp: Float64Array;
  private readonly pInitEnd: Float64Array[];
  private readonly psInitEnd: Float64Array[];
  private readonly rhoInit: Float64Array[];
  private readonly pFinalBeg: Float64Array[];
  private readonly psFinalBeg: Float64Array[];
  private readonly rhoFinal: Float64Array[];
  // The transition under way.
  private rng!: Rng;
  private metric!: Metric;
  private stepSize = 1;
  private H0 = 0;
  private leapfrogs = 0;
  private metroSum = 0;
  private divergent = false;

  constructor(
    private readonly dim: number,
    private readonly grad: GradLogDensityFn,
    private readonly maxTreeDepth: number,
    private readonly divergenceThreshold: number,
  ) {
    const v = () => new Float64Array(dim);
    const perLevel = (n: number) => Array.from({ length: n }, v);
    [this.qF, this.pF, this.gF, this.psF] = [v(), v(), v(), v()];
    [this.qB, this.pB, this.gB, this.psB] = [v(), v(), v(), v()];
    [this.qS, this.gS, this.rho, this.check] = [v(), v(), v(), v()];
    [this.pBeg, this.psBeg, this.pEnd, this.psEnd] = [v(), v(), v(), v()];
    [this.rhoSub, this.pJunction, this.psJunction] = [v(), v(), v()];
    this.proposeQ = perLevel(maxTreeDepth + 1);
    this.proposeG = perLevel(maxTreeDepth + 1);
    this.proposeLogp = new Float64Array(maxTreeDepth + 1);
    [this.pInitEnd, this.psInitEnd, this.rhoInit] = [
      perLevel(maxTreeDepth),
      perLevel(maxTreeDepth),
      perLevel(maxTreeDepth),
    ];
    [this.pFinalBeg, this.psFinalBeg, this.rhoFinal] = [
      perLevel(maxTreeDepth),
      perLevel(maxTreeDepth),
      perLevel(maxTreeDepth),
    ];
  }

  /** Buffers a step-size search may use between transitions. */
  get scratch(): { q: Float64Array; p: Float64Array; g: Float64Array } {
    return { q: this.qF, p: this.pF, g: this.gF };
  }

  /** One transition from `state` with the step size and metric given. */
  run(rng: Rng, state: NutsState, stepSize: number, metric: Metric): { state: NutsState; info: NutsInfo } {
    this.rng = rng;
    this.stepSize = stepSize;
    this.metric = metric;
    this.leapfrogs = 0;
    this.metroSum = 0;
    this.divergent = false;
    const top = this.maxTreeDepth;
    metric.sampleMomentum(rng, this.pF);
    this.pB.set(this.pF);
    this.qF.set(state.position);
    this.qB.set(state.position);
    this.gF.set(state.gradient);
    this.gB.set(state.gradient);
    metric.velocity(this.pF, this.psF);
    this.psB.set(this.psF);
    this.rho.set(this.pF);
    this.H0 = -state.logDensity + metric.kinetic(this.pF);
    let logWeight = 0;
    let sampledLogp: number | undefined;
    let depth = 0;
    while (depth < this.maxTreeDepth) {
      const forward = rng.uniform() > 0.5;
      // The junction: the trajectory's end that the new subtree grows from.
      this.pJunction.set(forward ? this.pF : this.pB);
      this.psJunction.set(forward ? this.psF : this.psB);
      this.rhoSub.fill(0);
      const [q, p, g] = forward ? [this.qF, this.pF, this.gF] : [this.qB, this.pB, this.gB];
      const ends = [this.pBeg, this.psBeg, this.pEnd, this.psEnd] as const;
      const subtree = this.build(depth, forward ? 1 : -1, q, p, g, top, ...ends, this.rhoSub);
      if (Number.isNaN(subtree)) break;
      depth++;
      // Biased progressive sampling: the new subtree's draw replaces the current one with
      // probability min(1, its weight / the old trajectory's).
      if (subtree > logWeight || rng.uniform() < Math.exp(subtree - logWeight)) {
        this.qS.set(this.proposeQ[top]);
        this.gS.set(this.proposeG[top]);
        sampledLogp = this.proposeLogp[top];
      }
      logWeight = logAddExp(logWeight, subtree);
      const persist = this.topCriterion(forward);
      (forward ? this.psF : this.psB).set(this.psEnd);
      if (!persist) break;
    }
    const next: NutsState =
      sampledLogp === undefined
        ? state
        : {
            position: Float64Array.from(this.qS),
            logDensity: sampledLogp,
            gradient: Float64Array.from(this.gS),
          };
    return {
      state: next,
      info: {
        accepted: sampledLogp !== undefined,
        acceptProbability: this.metroSum / this.leapfrogs,
        evaluations: this.leapfrogs,
        divergent: this.divergent,
        treeDepth: depth,
        treeDepthLimited: depth === this.maxTreeDepth,
        stepSize,
      },
    };
  }

  /**
   * The no-U-turn criterion after a subtree joined the trajectory: on the whole trajectory, on the old
   * part with the subtree's first point, and on the subtree with the old part's last (Stan's checks
   * across the junction). Adds the subtree's summed momentum to the trajectory's.
   */
  private topCriterion(forward: boolean): boolean {
    const { check, rho, dim } = this;
    const outer = forward ? this.psB : this.psF;
    for (let i = 0; i < dim; i++) check[i] = rho[i] + this.pBeg[i];
    let persist = noUTurn(outer, this.psBeg, check);
    for (let i = 0; i < dim; i++) check[i] = this.rhoSub[i] + this.pJunction[i];
    persist &&= noUTurn(this.psJunction, this.psEnd, check);
    for (let i = 0; i < dim; i++) rho[i] += this.rhoSub[i];
    return persist && noUTurn(outer, this.psEnd, rho);
  }

  /**
   * Builds a subtree of 2^depth leapfrog steps from the end (q, p, g) in direction `sign`, integrating
   * those buffers in place. Writes its draw into proposal slot `slot`, its boundary momenta and
   * velocities into pBeg/psBeg (the end next to the trajectory) and pEnd/psEnd (the far end), and adds
   * its summed momentum to `rho`. Returns its log weight, or NaN when it is invalid (divergent or
   * turning back), which stops the doubling.
   */
  private build(
    depth: number,
    sign: number,
    q: Float64Array,
    p: Float64Array,
    g: Float64Array,
    slot: number,
    pBeg: Float64Array,
    psBeg: Float64Array,
    pEnd: Float64Array,
    psEnd: Float64Array,
    rho: Float64Array,
  ): number {
    if (depth === 0) return this.leaf(sign, q, p, g, slot, pBeg, psBeg, pEnd, psEnd, rho);
    const level = depth - 1;
    const rhoInit = this.rhoInit[level].fill(0);
    const initWeight = this.build(
      level,
      sign,
      q,
      p,
      g,
      slot,
      pBeg,
      psBeg,
      this.pInitEnd[level],
      this.psInitEnd[level],
      rhoInit,
    );
    if (Number.isNaN(initWeight)) return Number.NaN;
    const rhoFinal = this.rhoFinal[level].fill(0);
    const finalWeight = this.build(
      level,
      sign,
      q,
      p,
      g,
      level,
      this.pFinalBeg[level],
      this.psFinalBeg[level],
      pEnd,
      psEnd,
      rhoFinal,
    );
    if (Number.isNaN(finalWeight)) return Number.NaN;
    // Uniform progressive sampling within the subtree: the second half's draw with its share of weight.
    const weight = logAddExp(initWeight, finalWeight);
    if (this.rng.uniform() < Math.exp(finalWeight - weight)) {
      this.proposeQ[slot].set(this.proposeQ[level]);
      this.proposeG[slot].set(this.proposeG[level]);
      this.proposeLogp[slot] = this.proposeLogp[level];
    }
    const { check, dim } = this;
    for (let i = 0; i < dim; i++) rho[i] += rhoInit[i] + rhoFinal[i];
    // The criterion on the merged subtree, and across its junction from either side.
    for (let i = 0; i < dim; i++) check[i] = rhoInit[i] + rhoFinal[i];
    let persist = noUTurn(psBeg, psEnd, check);
    for (let i = 0; i < dim; i++) check[i] = rhoInit[i] + this.pFinalBeg[level][i];
    persist &&= noUTurn(psBeg, this.psFinalBeg[level], check);
    for (let i = 0; i < dim; i++) check[i] = rhoFinal[i] + this.pInitEnd[level][i];
    persist &&= noUTurn(this.psInitEnd[level], psEnd, check);
    return persist ? weight : Number.NaN;
  }

  /** One leapfrog step: a subtree of depth 0 (see {@link build}). */
  private leaf(
    sign: number,
    q: Float64Array,
    p: Float64Array,
    g: Float64Array,
    slot: number,
    pBeg: Float64Array,
    psBeg: Float64Array,
    pEnd: Float64Array,
    psEnd: Float64Array,
    rho: Float64Array,
  ): number {
    const logp = leapfrog.step(this.grad, q, p, g, this.metric, sign * this.stepSize);
    this.leapfrogs++;
    // A NaN or +∞ log density, a non-finite gradient (the integrator then returns NaN) or zero
    // density is an infinite energy: a divergence, as in Stan.
    const h = isUsableLogDensity(logp) ? -logp + this.metric.kinetic(p) : Number.POSITIVE_INFINITY;
    const deltaH = Number.isNaN(h) ? Number.NEGATIVE_INFINITY : this.H0 - h;
    if (!(-deltaH <= this.divergenceThreshold)) this.divergent = true;
    this.metroSum += deltaH > 0 ? 1 : Math.exp(deltaH);
    this.proposeQ[slot].set(q);
    this.proposeG[slot].set(g);
    this.proposeLogp[slot] = logp;
    for (let i = 0; i < this.dim; i++) rho[i] += p[i];
    pBeg.set(p);
    pEnd.set(p);
    this.metric.velocity(p, psBeg);
    psEnd.set(psBeg);
    return this.divergent ? Number.NaN : deltaH;
  }
}

/** The generalised no-U-turn criterion: the summed momentum still points along both ends' velocities. */
function noUTurn(psA: Float64Array, psB: Float64Array, rho: Float64Array): boolean {
  let a = 0;
  let b = 0;
  for (let i = 0; i < rho.length; i++) {
    a += psA[i] * rho[i];
    b += psB[i] * rho[i];
  }
  return a > 0 && b > 0;
}

/** The target of `options`, checked, and NUTS's step with its parameters as arguments. */
function setUp(options: NutsOptions): {
  opts: ResolvedNuts;
  transition: HamiltonianTransition<NutsState, NutsInfo, NutsKernel>;
} {
  if (options === null || typeof options !== "object")
    throw invalidArgument(NAME, "options must be an object with a target.");
  const { target } = options;
  checkTarget(NAME, target, true);
  const dim = target.dim;
  const opts = resolve(options, dim);
  const grad = target.gradLogDensity as GradLogDensityFn;
  const trajectory = new Trajectory(dim, grad, opts.maxTreeDepth, opts.divergenceThreshold);
  const init = (position: Float64Array): NutsState => gradientStart(NAME, grad, position, dim);
  const transition: HamiltonianTransition<NutsState, NutsInfo, NutsKernel> = {
    dim,
    init,
    step: (rng, state, stepSize, metric) => trajectory.run(rng, state, stepSize, metric),
    searchStepSize: (rng, state, stepSize, metric) =>
      searchStepSize(NAME, grad, leapfrog, metric, state, stepSize, rng, trajectory.scratch),
    build: (stepSize, metric) => ({
      dim,
      stepSize,
      metric,
      init,
      step: (rng, state) => trajectory.run(rng, state, stepSize, metric),
    }),
  };
  return { opts, transition };
}

/**
 * The No-U-Turn Sampler at the step size and metric given (diagonal or dense); {@link nutsWarmup}
 * tunes them. Each transition costs `info.evaluations` gradient evaluations (one per leapfrog step);
 * `info.treeDepthLimited` says that the trajectory was cut at `maxTreeDepth` (Stan's warning: the step
 * size is small for the posterior's scale, or the posterior is long and narrow). Trajectories run in
 * buffers made when the kernel is built: a transition allocates only the new state.
 *
 * @example
 * const kernel = buildNutsKernel({ target: tempered(model, 1), stepSize: 0.3 });
 */
export function buildNutsKernel(options: NutsOptions): NutsKernel {
  const { opts, transition } = setUp(options);
  return transition.build(opts.stepSize, opts.metric);
}

/**
 * Stan's warm-up of NUTS (see window-adaptation.ts): a step-size search at the start and after each
 * metric window, dual averaging towards `targetAccept`, the metric (diagonal, or with `dense` the
 * covariance) from Stan's windows. `runChain` runs it for each chain, then samples with the NUTS
 * kernel of the averaged ε̄ and the last metric.
 *
 * @example
 * const draws = runChain(nutsWarmup({ target: tempered(model, 1) }), { chains: 4, draws: 1000, seed: 1, initial });
 */
export function nutsWarmup(options: NutsWarmupOptions): Adaptation<NutsState, NutsInfo, NutsKernel> {
  const { opts, transition } = setUp(options);
  return windowAdaptation(NAME, transition, opts.stepSize, opts.metric, options);
}
