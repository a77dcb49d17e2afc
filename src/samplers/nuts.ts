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
import { OccamError } from "../errors.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { checkTarget, gradientStart, isUsableLogDensity } from "./accept.js";
import type { WindowOptions } from "./adaptation.js";
import { type GradLogDensityFn, leapfrog } from "./integrators.js";
import type { AdaptiveKernel, PositionState, StepInfo } from "./kernel.js";
import { diagonalMetric, type Metric } from "./metric.js";
import { searchStepSize } from "./step-size.js";
import { WindowAdaptation } from "./window-adaptation.js";

const NAME = "NUTS";

/** Options of {@link buildNutsKernel}. */
export interface NutsOptions {
  /** The target density; it must have `gradLogDensity`. */
  target: LogDensity;
  /** Where warm-up's step-size search starts (or the step size, without adaptation). @defaultValue 1 */
  stepSize?: number;
  /** The most doublings of a trajectory (at most 2^maxTreeDepth − 1 leapfrog steps). @defaultValue 10 */
  maxTreeDepth?: number;
  /** Adapt the step size and the metric during warm-up (Stan's windows). @defaultValue true */
  adapt?: boolean;
  /** The acceptance probability dual averaging aims for (Stan's `adapt_delta`). @defaultValue 0.8 */
  targetAccept?: number;
  /** Estimate a dense metric (the posterior covariance) instead of a diagonal one. @defaultValue false */
  dense?: boolean;
  /** The buffers of the warm-up's windows. @defaultValue `{ initBuffer: 75, termBuffer: 50, baseWindow: 25 }` */
  windows?: WindowOptions;
  /** An energy error above this makes a trajectory divergent. @defaultValue 1000 */
  divergenceThreshold?: number;
}

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

/** A NUTS kernel; `dim` is the target's dimension. */
export interface NutsKernel extends AdaptiveKernel<NutsState, NutsInfo> {
  readonly dim: number;
  /** The current step size. */
  readonly stepSize: number;
  /** The current metric. */
  readonly metric: Metric;
}

interface ResolvedNuts {
  stepSize: number;
  maxTreeDepth: number;
  adapt: boolean;
  targetAccept: number;
  dense: boolean;
  divergenceThreshold: number;
}

function invalid(message: string): OccamError {
  return new OccamError("invalid-argument", `${NAME}: ${message}`);
}

function resolve(options: NutsOptions): ResolvedNuts {
  const stepSize = options.stepSize ?? 1;
  if (!(Number.isFinite(stepSize) && stepSize > 0))
    throw invalid(`stepSize must be finite and > 0, got ${stepSize}.`);
  const maxTreeDepth = options.maxTreeDepth ?? 10;
  if (!(Number.isInteger(maxTreeDepth) && maxTreeDepth >= 1 && maxTreeDepth <= 30)) {
    throw invalid(`maxTreeDepth must be an integer from 1 to 30, got ${maxTreeDepth}.`);
  }
  const targetAccept = options.targetAccept ?? 0.8;
  if (!(targetAccept > 0 && targetAccept < 1))
    throw invalid(`targetAccept must lie in (0, 1), got ${targetAccept}.`);
  const divergenceThreshold = options.divergenceThreshold ?? 1000;
  if (!(divergenceThreshold > 0))
    throw invalid(`divergenceThreshold must be > 0, got ${divergenceThreshold}.`);
  return {
    stepSize,
    maxTreeDepth,
    adapt: options.adapt ?? true,
    targetAccept,
    dense: options.dense ?? false,
    divergenceThreshold,
  };
}

/** The buffers of one trajectory: its two ends, the draw, and per tree level the subtrees' boundaries. */
class TreeBuffers {
  // The trajectory's ends (integrated in place when it grows that way) and the draw.
  readonly qF: Float64Array;
  readonly pF: Float64Array;
  readonly gF: Float64Array;
  readonly qB: Float64Array;
  readonly pB: Float64Array;
  readonly gB: Float64Array;
  readonly psF: Float64Array;
  readonly psB: Float64Array;
  readonly qS: Float64Array;
  readonly gS: Float64Array;
  readonly rho: Float64Array;
  // The subtree added at the top level: its boundary momenta, velocities and summed momentum.
  readonly pBeg: Float64Array;
  readonly pEnd: Float64Array;
  readonly psBeg: Float64Array;
  readonly psEnd: Float64Array;
  readonly rhoSub: Float64Array;
  readonly pJunction: Float64Array;
  readonly psJunction: Float64Array;
  readonly check: Float64Array;
  // Per level: a proposal (the top level's is the last), and the inner boundaries of the two halves.
  readonly proposeQ: Float64Array[];
  readonly proposeG: Float64Array[];
  readonly proposeLogp: Float64Array;
  readonly pInitEnd: Float64Array[];
  readonly psInitEnd: Float64Array[];
  readonly rhoInit: Float64Array[];
  readonly pFinalBeg: Float64Array[];
  readonly psFinalBeg: Float64Array[];
  readonly rhoFinal: Float64Array[];

  constructor(d: number, levels: number) {
    const v = () => new Float64Array(d);
    const perLevel = (n: number) => Array.from({ length: n }, v);
    this.qF = v();
    this.pF = v();
    this.gF = v();
    this.qB = v();
    this.pB = v();
    this.gB = v();
    this.psF = v();
    this.psB = v();
    this.qS = v();
    this.gS = v();
    this.rho = v();
    this.pBeg = v();
    this.pEnd = v();
    this.psBeg = v();
    this.psEnd = v();
    this.rhoSub = v();
    this.pJunction = v();
    this.psJunction = v();
    this.check = v();
    this.proposeQ = perLevel(levels + 1);
    this.proposeG = perLevel(levels + 1);
    this.proposeLogp = new Float64Array(levels + 1);
    this.pInitEnd = perLevel(levels);
    this.psInitEnd = perLevel(levels);
    this.rhoInit = perLevel(levels);
    this.pFinalBeg = perLevel(levels);
    this.psFinalBeg = perLevel(levels);
    this.rhoFinal = perLevel(levels);
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

/** log(e^a + e^b), with −∞ handled. */
function logAddExp(a: number, b: number): number {
  if (a === Number.NEGATIVE_INFINITY) return b;
  if (b === Number.NEGATIVE_INFINITY) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/**
 * The No-U-Turn Sampler with a diagonal (or, with `dense`, a dense) metric and Stan's warm-up:
 * a step-size search at the start and after each metric window, dual averaging towards
 * `targetAccept`, the metric from Stan's windows (see window-adaptation.ts). Each transition costs
 * `info.evaluations` gradient evaluations (one per leapfrog step); `info.treeDepthLimited` says that
 * the trajectory was cut at `maxTreeDepth` (Stan's warning: the step size is small for the posterior's
 * scale, or the posterior is long and narrow). Trajectories run in buffers made when the kernel is
 * built: a transition allocates only the new state.
 *
 * @example
 * const draws = runChain(() => buildNutsKernel({ target: tempered(model, 1) }), { chains: 4, draws: 1000, seed: 1, initial });
 */
export function buildNutsKernel(options: NutsOptions): NutsKernel {
  if (options === null || typeof options !== "object")
    throw invalid("options must be an object with a target.");
  const { target } = options;
  checkTarget(NAME, target, true);
  const dim = target.dim;
  const opts = resolve(options);
  const grad = target.gradLogDensity as GradLogDensityFn;
  const buffers = new TreeBuffers(dim, opts.maxTreeDepth);
  const TOP = opts.maxTreeDepth;
  let adaptation: WindowAdaptation | undefined;
  let adapting = opts.adapt;
  let stepSize = opts.stepSize;
  let metric = diagonalMetric(new Float64Array(dim).fill(1));
  let pendingSearch = opts.adapt;

  // Per transition: the Hamiltonian at the start, counters, and the random stream.
  let H0 = 0;
  let leapfrogs = 0;
  let metroSum = 0;
  let divergent = false;
  let rng: Rng;

  /**
   * Builds a subtree of 2^depth leapfrog steps from the end (q, p, g) in direction `sign`, integrating
   * those buffers in place. Writes its draw into proposal slot `slot`, its boundary momenta and
   * velocities into pBeg/psBeg (the end next to the trajectory) and pEnd/psEnd (the far end), and adds
   * its summed momentum to `rho`. Returns its log weight, or NaN when it is invalid (divergent or
   * turning back), which stops the doubling.
   */
  const build = (
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
  ): number => {
    if (depth === 0) {
      const logp = leapfrog.step(grad, q, p, g, metric, sign * stepSize);
      leapfrogs++;
      let h = isUsableLogDensity(logp) ? -logp + metric.kinetic(p) : Number.POSITIVE_INFINITY;
      if (Number.isNaN(h)) h = Number.POSITIVE_INFINITY;
      if (h - H0 > opts.divergenceThreshold) divergent = true;
      metroSum += H0 - h > 0 ? 1 : Math.exp(H0 - h);
      buffers.proposeQ[slot].set(q);
      buffers.proposeG[slot].set(g);
      buffers.proposeLogp[slot] = logp;
      for (let i = 0; i < dim; i++) rho[i] += p[i];
      pBeg.set(p);
      pEnd.set(p);
      metric.velocity(p, psBeg);
      psEnd.set(psBeg);
      return divergent ? Number.NaN : H0 - h;
    }
    const level = depth - 1;
    const rhoInit = buffers.rhoInit[level].fill(0);
    const initWeight = build(
      depth - 1,
      sign,
      q,
      p,
      g,
      slot,
      pBeg,
      psBeg,
      buffers.pInitEnd[level],
      buffers.psInitEnd[level],
      rhoInit,
    );
    if (Number.isNaN(initWeight)) return Number.NaN;
    const rhoFinal = buffers.rhoFinal[level].fill(0);
    const finalWeight = build(
      depth - 1,
      sign,
      q,
      p,
      g,
      level,
      buffers.pFinalBeg[level],
      buffers.psFinalBeg[level],
      pEnd,
      psEnd,
      rhoFinal,
    );
    if (Number.isNaN(finalWeight)) return Number.NaN;
    // Uniform progressive sampling within the subtree: the second half's draw with its share of weight.
    const weight = logAddExp(initWeight, finalWeight);
    if (finalWeight > weight || rng.uniform() < Math.exp(finalWeight - weight)) {
      buffers.proposeQ[slot].set(buffers.proposeQ[level]);
      buffers.proposeG[slot].set(buffers.proposeG[level]);
      buffers.proposeLogp[slot] = buffers.proposeLogp[level];
    }
    const check = buffers.check;
    for (let i = 0; i < dim; i++) rho[i] += rhoInit[i] + rhoFinal[i];
    // The criterion on the merged subtree, and across its junction from either side.
    for (let i = 0; i < dim; i++) check[i] = rhoInit[i] + rhoFinal[i];
    let persist = noUTurn(psBeg, psEnd, check);
    for (let i = 0; i < dim; i++) check[i] = rhoInit[i] + buffers.pFinalBeg[level][i];
    persist &&= noUTurn(psBeg, buffers.psFinalBeg[level], check);
    for (let i = 0; i < dim; i++) check[i] = rhoFinal[i] + buffers.pInitEnd[level][i];
    persist &&= noUTurn(buffers.psInitEnd[level], psEnd, check);
    return persist ? weight : Number.NaN;
  };

  /** One transition from `state`. */
  const transition = (stream: Rng, state: NutsState): { state: NutsState; info: NutsInfo } => {
    rng = stream;
    const b = buffers;
    metric.sampleMomentum(rng, b.pF);
    b.pB.set(b.pF);
    b.qF.set(state.position);
    b.qB.set(state.position);
    b.gF.set(state.gradient);
    b.gB.set(state.gradient);
    metric.velocity(b.pF, b.psF);
    b.psB.set(b.psF);
    b.rho.set(b.pF);
    H0 = -state.logDensity + metric.kinetic(b.pF);
    leapfrogs = 0;
    metroSum = 0;
    divergent = false;
    let logWeight = 0;
    let sampled = false;
    let sampledLogp = state.logDensity;
    let depth = 0;
    while (depth < opts.maxTreeDepth) {
      const forward = rng.uniform() > 0.5;
      // The junction: the trajectory's end that the new subtree grows from.
      b.pJunction.set(forward ? b.pF : b.pB);
      b.psJunction.set(forward ? b.psF : b.psB);
      b.rhoSub.fill(0);
      const subtree = forward
        ? build(depth, 1, b.qF, b.pF, b.gF, TOP, b.pBeg, b.psBeg, b.pEnd, b.psEnd, b.rhoSub)
        : build(depth, -1, b.qB, b.pB, b.gB, TOP, b.pBeg, b.psBeg, b.pEnd, b.psEnd, b.rhoSub);
      if (Number.isNaN(subtree)) break;
      depth++;
      // Biased progressive sampling: the new subtree's draw replaces the current one with
      // probability min(1, its weight / the old trajectory's).
      if (subtree > logWeight || rng.uniform() < Math.exp(subtree - logWeight)) {
        b.qS.set(b.proposeQ[TOP]);
        b.gS.set(b.proposeG[TOP]);
        sampledLogp = b.proposeLogp[TOP];
        sampled = true;
      }
      logWeight = logAddExp(logWeight, subtree);
      const outer = forward ? b.psB : b.psF;
      // The whole trajectory, the old part with the subtree's first point, the subtree with the old part's last.
      for (let i = 0; i < dim; i++) b.check[i] = b.rho[i] + b.pBeg[i];
      let persist = noUTurn(outer, b.psBeg, b.check);
      for (let i = 0; i < dim; i++) b.check[i] = b.rhoSub[i] + b.pJunction[i];
      persist &&= noUTurn(b.psJunction, b.psEnd, b.check);
      for (let i = 0; i < dim; i++) b.rho[i] += b.rhoSub[i];
      persist &&= noUTurn(outer, b.psEnd, b.rho);
      (forward ? b.psF : b.psB).set(b.psEnd);
      if (!persist) break;
    }
    const next: NutsState = sampled
      ? { position: Float64Array.from(b.qS), logDensity: sampledLogp, gradient: Float64Array.from(b.gS) }
      : state;
    return {
      state: next,
      info: {
        accepted: sampled,
        acceptProbability: leapfrogs > 0 ? metroSum / leapfrogs : 0,
        evaluations: leapfrogs,
        divergent,
        treeDepth: depth,
        treeDepthLimited: depth === opts.maxTreeDepth,
        stepSize,
      },
    };
  };

  return {
    dim,
    get stepSize() {
      return stepSize;
    },
    get metric() {
      return metric;
    },
    init(position: Float64Array): NutsState {
      return gradientStart(NAME, grad, position, dim);
    },
    step(stream: Rng, state: NutsState) {
      let searched = 0;
      if (pendingSearch) {
        pendingSearch = false;
        const b = buffers;
        const found = searchStepSize(NAME, grad, leapfrog, metric, state, stepSize, stream, {
          q: b.qF,
          p: b.pF,
          g: b.gF,
        });
        stepSize = found.stepSize;
        searched = found.evaluations;
        adaptation?.restart(stepSize);
      }
      const result = transition(stream, state);
      if (searched === 0) return result;
      return {
        state: result.state,
        info: { ...result.info, evaluations: result.info.evaluations + searched },
      };
    },
    adapt(state: NutsState, info: NutsInfo, iteration: number, warmup: number) {
      if (!adapting) return;
      if (adaptation === undefined) {
        adaptation = new WindowAdaptation(dim, warmup, stepSize, {
          targetAccept: opts.targetAccept,
          dense: opts.dense,
          windows: options.windows,
        });
        metric = adaptation.metric;
      }
      const newMetric = adaptation.update(state.position, info.acceptProbability, iteration);
      stepSize = adaptation.stepSize;
      metric = adaptation.metric;
      if (newMetric) pendingSearch = true;
    },
    endWarmup() {
      if (!adapting) return;
      adapting = false;
      pendingSearch = false;
      if (adaptation !== undefined) {
        adaptation.finish();
        stepSize = adaptation.stepSize;
        metric = adaptation.metric;
      }
    },
  };
}
