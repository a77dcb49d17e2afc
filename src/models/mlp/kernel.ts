import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import type { LogDensity } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import {
  buildHmcKernel,
  type HmcInfo,
  type HmcKernel,
  type HmcOptions,
  type HmcState,
  type HmcWarmupOptions,
  hmcWarmup,
  searchHmcStepSize,
} from "../../samplers/hmc.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "../../samplers/kernel.js";
import type { BayesianMlp } from "./bayesian.js";
import { GROUP_COUNT } from "./network.js";

/**
 * Default settings of the weights' HMC kernel. The posterior of a network's weights is narrow across
 * and long along its ridges (on the robot arm the adapted step size is ~1e-3 of the marginal scale,
 * as the thesis's ε = 0.00015 with 1000–8000 leapfrog steps), so a trajectory of integration time 2 is
 * capped at 256 leapfrog steps (±50 % jitter): long enough to move, short enough that the
 * hyperparameters are refreshed often. The acceptance falls steeply with the step size near the
 * stability limit, so the terminal warm-up window, where dual averaging settles ε after the last
 * mass-matrix update, is 150 sweeps instead of Stan's 50: with 50 the averaged ε̄ came out well below
 * the ε of the warm-up and the acceptance was ~0.96. Even so, the kept sweeps accept more often than
 * dual averaging aims for — near the stability limit the acceptance at the fixed averaged ε̄ exceeds
 * the mean acceptance of warm-up's fluctuating ε. On the robot arm, aiming at 0.8 realised 0.89
 * (H = 16) and 0.91 (H = 4, 60 cases); aiming at 0.65 realised 0.86 (H = 8), 0.88 (H = 4) and 0.93
 * (H = 16). The target is therefore 0.65, and a final calibration stage ({@link MLP_CALIBRATION})
 * sets the fixed step size from the acceptance it realises.
 */
export const MLP_HMC_DEFAULTS: Readonly<Omit<HmcWarmupOptions, "target">> = Object.freeze({
  trajectoryLength: 2,
  maxSteps: 256,
  stepsJitter: 0.5,
  targetAccept: 0.65,
  windows: Object.freeze({ initBuffer: 75, termBuffer: 150, baseWindow: 25 }),
});

/**
 * The final calibration stage of the weights' HMC warm-up. Dual averaging leaves a step size ε̄ whose
 * acceptance, once fixed, often exceeds 0.9 on network posteriors (near the stability limit the
 * acceptance at a fixed ε is above the mean acceptance of warm-up's fluctuating ε; see
 * {@link MLP_HMC_DEFAULTS}). So with a warm-up of at least `minWarmup` sweeps, its last
 * min(`maxLength`, ⌊`fraction` · warm-up⌋) sweeps are a calibration stage: the main adaptation (dual
 * averaging and Stan's mass-matrix windows) runs on the sweeps before it and ends; the step size is
 * then fixed for each `block` of sweeps, after which it is set to the ε whose acceptance, predicted
 * from every calibration sweep so far, is `centre`: a sweep with energy error ΔH at step ε_i would
 * have accepted with probability min(1, exp(−ΔH (ε/ε_i)²)) at ε, since leapfrog's energy error
 * scales like ε². Pooling the sweeps matters: the Gibbs updates change the weights' target every
 * sweep, so the acceptance at a fixed ε fluctuates (one block of 10 sweeps realised 0.46 at an ε where
 * the previous one realised 0.91). The kept sweeps use the final ε. Turned off with `adaptStepSize: false`.
 */
export const MLP_CALIBRATION = Object.freeze({
  minWarmup: 100,
  fraction: 0.2,
  maxLength: 150,
  block: 10,
  centre: 0.75,
});

/** The fraction of a divergent sweep's step size down to which it predicts a rejection. */
const DIVERGENCE_RATIO = 0.6;

/**
 * The step size whose predicted mean acceptance is `MLP_CALIBRATION.centre`, from the energy errors
 * ΔH_i of `n` sweeps run at step sizes ε_i: at ε the acceptance is predicted as
 * (1/n) Σ min(1, exp(−ΔH_i (ε/ε_i)²)) (leapfrog's energy error scales like ε²); a divergent sweep
 * counts as a rejection at ε ≥ 0.6 ε_i and an acceptance below (which keeps the prediction monotone). The prediction
 * decreases in ε; its root is found by bisection on log ε within a factor 2 of `current`, so that one
 * block's extrapolation cannot move the step far.
 */
function calibratedStep(errors: Float64Array, steps: Float64Array, n: number, current: number): number {
  const predicted = (eps: number): number => {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const dh = errors[i];
      const r = eps / steps[i];
      if (dh === Number.POSITIVE_INFINITY) {
        // A divergence is an instability, not an ε² energy error: a rejection down to 0.6 ε_i (the
        // trajectory may still be unstable a little below ε_i), an acceptance below.
        sum += r < DIVERGENCE_RATIO ? 1 : 0;
      } else {
        sum += dh <= 0 ? 1 : Math.exp(-dh * r * r);
      }
    }
    return sum / n;
  };
  let lo = Math.log(current) - Math.LN2;
  let hi = Math.log(current) + Math.LN2;
  for (let it = 0; it < 60; it++) {
    const mid = 0.5 * (lo + hi);
    if (predicted(Math.exp(mid)) > MLP_CALIBRATION.centre) lo = mid;
    else hi = mid;
  }
  return Math.exp(0.5 * (lo + hi));
}

/** Number of calibration sweeps at the end of a warm-up of `warmup` sweeps (0 below `minWarmup`). */
function calibrationLength(warmup: number): number {
  if (warmup < MLP_CALIBRATION.minWarmup) return 0;
  return Math.min(MLP_CALIBRATION.maxLength, Math.floor(MLP_CALIBRATION.fraction * warmup));
}

/**
 * The calibration stage of one warm-up (see {@link MLP_CALIBRATION}): every sweep's energy error and
 * step size, pooled, since the Gibbs updates make one block's acceptance too noisy to steer by.
 */
class StepCalibration {
  private readonly errors: Float64Array;
  private readonly steps: Float64Array;
  private readonly length: number;
  private stepSize: number;
  private count = 0;
  private blockCount = 0;

  /** A stage of `length` sweeps starting at the step size `stepSize` the main adaptation left. */
  constructor(stepSize: number, length: number) {
    this.errors = new Float64Array(length);
    this.steps = new Float64Array(length);
    this.length = length;
    this.stepSize = stepSize;
  }

  /**
   * Records a sweep; returns the next fixed step size when the sweep ends a block or the stage, else
   * undefined (the step stays fixed within a block).
   */
  record(info: MlpKernelInfo): number | undefined {
    const i = this.count++;
    this.errors[i] = info.divergent ? Number.POSITIVE_INFINITY : info.energyError;
    this.steps[i] = info.stepSize;
    this.blockCount++;
    if (this.blockCount < MLP_CALIBRATION.block && this.count < this.length) return undefined;
    this.blockCount = 0;
    this.stepSize = calibratedStep(this.errors, this.steps, this.count, this.stepSize);
    return this.stepSize;
  }
}

/** State of the {@link MlpKernel}: the position, the tempered log density there, and S(w). */
export interface MlpKernelState extends PositionState {
  /** S(w), the sum of squared errors of the position's weights. */
  readonly sumOfSquares: number;
  /** log L at the position (untempered). */
  readonly logLikelihood: number;
}

/** What one Gibbs + HMC sweep did (the HMC part's accept and trajectory). */
export interface MlpKernelInfo extends StepInfo {
  readonly divergent: boolean;
  /** The HMC trajectory's energy error. */
  readonly energyError: number;
  /** The HMC step size used. */
  readonly stepSize: number;
  /** Leapfrog steps taken. */
  readonly steps: number;
}

/** The Gibbs + HMC kernel of a {@link BayesianMlp} at one inverse temperature. */
export interface MlpKernel extends Kernel<MlpKernelState, MlpKernelInfo> {
  readonly dim: number;
  /** The inverse temperature β. */
  readonly beta: number;
  /** The weights' HMC step size. */
  readonly stepSize: number;
  /** A copy of the weights' inverse mass matrix. */
  readonly inverseMassMatrix: Float64Array;
}

/** The weights' HMC step, as a kernel or a warm-up run makes it. */
type WeightStep = (rng: Rng, state: HmcState) => { state: HmcState; info: HmcInfo };

/**
 * The sweeps of a {@link BayesianMlp} at inverse temperature β, whatever makes their HMC step: (1)
 * hybrid Monte Carlo on the weights given τ and α (target log p(w | α) + β log L(w, τ), constants
 * dropped), (2) τ from its conditional Gamma(s + β N·O/2, r + β S(w)/2) (thesis eqs. 6.68–6.69 in rate
 * form), (3) each α_k from Gamma(s_k + N_k/2, r_k + ‖w_k‖²/2) — the shape is s_k **+** N_k/2 (the
 * thesis's eq. 6.67 prints a minus sign, an erratum). The HMC step starts afresh each sweep because its
 * target changed with τ and α; that costs one gradient per sweep.
 */
function mlpSweeps(model: BayesianMlp, beta: number) {
  if (!(beta >= 0 && beta <= 1)) {
    throw new OccamError("invalid-argument", `bayesianMlp kernel: beta must lie in [0, 1], got ${beta}.`);
  }
  const W = model.weightCount;
  const dim = W + 1 + GROUP_COUNT;
  const ss = model.sumOfSquares;
  const target = weightTarget(model, beta);
  const init = (position: Float64Array): MlpKernelState => {
    if (!(position instanceof Float64Array) || position.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `bayesianMlp kernel: the start must be a Float64Array of length ${dim}, got ${position instanceof Float64Array ? position.length : String(position)}.`,
      );
    }
    const x = Float64Array.from(position);
    return sweepState(model, beta, x, ss.value(x.subarray(0, W)));
  };
  const sweep = (
    rng: Rng,
    state: MlpKernelState,
    hmcInit: (w: Float64Array) => HmcState,
    hmcStep: WeightStep,
  ) => {
    const x = state.position;
    target.setHyperparameters(x);
    const { state: weights, info: h } = hmcStep(rng, hmcInit(x.subarray(0, W)));
    const next = new Float64Array(dim);
    next.set(weights.position);
    let evaluations = 1 + h.evaluations;
    let s = state.sumOfSquares;
    if (h.accepted) {
      s = ss.value(weights.position);
      evaluations++;
    }
    drawHyperparameters(model, beta, rng, next, s);
    const info: MlpKernelInfo = {
      accepted: h.accepted,
      acceptProbability: h.acceptProbability,
      evaluations,
      divergent: h.divergent,
      energyError: h.energyError,
      stepSize: h.stepSize,
      steps: h.steps,
    };
    return { state: sweepState(model, beta, next, s), info };
  };
  /** The kernel whose sweeps move the weights with `hmc`. */
  const kernel = (hmc: HmcKernel): MlpKernel => ({
    dim,
    beta,
    stepSize: hmc.stepSize,
    get inverseMassMatrix() {
      return hmc.inverseMassMatrix;
    },
    init,
    step: (rng, state) => sweep(rng, state, hmc.init, hmc.step),
  });
  return { target, init, sweep, kernel };
}

/**
 * The Gibbs + HMC kernel of a {@link BayesianMlp} at inverse temperature β (see {@link mlpSweeps}), its
 * weights' HMC at the step size and inverse mass matrix of `hmcOptions`; {@link mlpWarmup} tunes them.
 * Without a step size, Stan's step-size search finds one at the first sweep, which the kernel keeps:
 * so a tempered run, which never warms the model's kernel up, moves the weights.
 */
export function buildMlpKernel(
  model: BayesianMlp,
  beta: number,
  hmcOptions: Omit<HmcOptions, "target">,
): MlpKernel {
  const sweeps = mlpSweeps(model, beta);
  const settings: HmcOptions = { ...weightSettings(hmcOptions), target: sweeps.target };
  const givenHmc = buildHmcKernel(settings);
  const given = sweeps.kernel(givenHmc);
  if (hmcOptions.stepSize !== undefined) return given;
  let searched: MlpKernel | undefined;
  const firstStep: WeightStep = (rng, state) => {
    const found = searchHmcStepSize(settings, rng, state);
    const hmc = buildHmcKernel({ ...settings, stepSize: found.stepSize });
    searched = sweeps.kernel(hmc);
    const { state: next, info } = hmc.step(rng, state);
    return { state: next, info: { ...info, evaluations: info.evaluations + found.evaluations } };
  };
  return {
    ...given,
    get stepSize() {
      return (searched ?? given).stepSize;
    },
    step: (rng, state) =>
      searched === undefined ? sweeps.sweep(rng, state, givenHmc.init, firstStep) : searched.step(rng, state),
  };
}

/**
 * The warm-up of the {@link MlpKernel}: the main adaptation of the weights' HMC (dual averaging and
 * Stan's mass-matrix windows) on the sweeps before the calibration stage, then a fixed step size that
 * the stage moves block by block (see {@link MLP_CALIBRATION}).
 */
export function mlpWarmup(
  model: BayesianMlp,
  beta: number,
  hmcOptions: Omit<HmcWarmupOptions, "target">,
): Adaptation<MlpKernelState, MlpKernelInfo, MlpKernel> {
  const sweeps = mlpSweeps(model, beta);
  const settings: HmcWarmupOptions = { ...weightSettings(hmcOptions), target: sweeps.target };
  const adaptation = hmcWarmup(settings);
  const calibrate = settings.adaptStepSize !== false;
  return {
    init: sweeps.init,
    start(warmup) {
      const length = calibrate ? calibrationLength(warmup) : 0;
      const main = warmup - length;
      const run = adaptation.start(main);
      // Set when the main adaptation ends and a calibration stage follows.
      let calibration: { stage: StepCalibration; kernel: HmcKernel } | undefined;
      let iteration = 0;
      return {
        step(rng, state) {
          if (calibration === undefined) {
            const result = sweeps.sweep(rng, state, adaptation.init, run.step);
            if (++iteration === main && length > 0) {
              // The main adaptation is over: keep its ε̄ and mass matrix in a kernel with a fixed step.
              const tuned = run.finish();
              calibration = { stage: new StepCalibration(tuned.stepSize, length), kernel: tuned };
            }
            return result;
          }
          const { kernel } = calibration;
          const result = sweeps.sweep(rng, state, kernel.init, kernel.step);
          const stepSize = calibration.stage.record(result.info);
          if (stepSize !== undefined) {
            calibration.kernel = buildHmcKernel({
              ...settings,
              stepSize,
              inverseMassMatrix: kernel.inverseMassMatrix,
            });
          }
          return result;
        },
        finish: () => sweeps.kernel(calibration === undefined ? run.finish() : calibration.kernel),
      };
    },
  };
}

/** The weights' HMC settings: the defaults, with `steps` given in place of the default trajectory length. */
function weightSettings<T extends Omit<HmcOptions, "target">>(hmcOptions: T): T {
  return {
    ...MLP_HMC_DEFAULTS,
    ...(hmcOptions.steps === undefined ? {} : { trajectoryLength: undefined }),
    ...hmcOptions,
  };
}

/** The weights' HMC target, whose hyperparameters each sweep sets before its trajectory. */
interface WeightTarget extends LogDensity {
  gradLogDensity(w: Float64Array, grad: Float64Array): number;
  /** Takes τ and each α_k from a sweep's position (log τ and the log α_k follow the weights). */
  setHyperparameters(position: Float64Array): void;
}

/**
 * The weights' conditional at inverse temperature β, log p(w | α) + β log L(w, τ) with the constants
 * dropped. Its functions read τ and α from the closure, never `this`: the HMC kernel calls
 * `gradLogDensity` unbound.
 */
function weightTarget(model: BayesianMlp, beta: number): WeightTarget {
  const { network, weightCount: W } = model;
  const ss = model.sumOfSquares;
  const groups = network.groups;
  const alpha = new Float64Array(GROUP_COUNT);
  let tau = 1;
  const halfBeta = 0.5 * beta;
  return {
    dim: W,
    setHyperparameters(position: Float64Array): void {
      tau = Math.exp(position[W]);
      for (let k = 0; k < GROUP_COUNT; k++) alpha[k] = Math.exp(position[W + 1 + k]);
    },
    logDensity(w: Float64Array): number {
      let lp = beta === 0 ? 0 : -halfBeta * tau * ss.value(w);
      for (let k = 0; k < GROUP_COUNT; k++) {
        const { offset, length } = groups[k];
        let sq = 0;
        for (let j = offset; j < offset + length; j++) sq += w[j] * w[j];
        lp -= 0.5 * alpha[k] * sq;
      }
      return lp;
    },
    gradLogDensity(w: Float64Array, grad: Float64Array): number {
      let lp = 0;
      if (beta === 0) grad.fill(0);
      else {
        lp = -halfBeta * tau * ss.gradient(w, grad);
        const c = -halfBeta * tau;
        for (let j = 0; j < W; j++) grad[j] *= c;
      }
      for (let k = 0; k < GROUP_COUNT; k++) {
        const { offset, length } = groups[k];
        const a = alpha[k];
        let sq = 0;
        for (let j = offset; j < offset + length; j++) {
          const wj = w[j];
          sq += wj * wj;
          grad[j] -= a * wj;
        }
        lp -= 0.5 * a * sq;
      }
      return lp;
    },
  };
}

/**
 * The Gibbs updates of a sweep, written as log τ and log α_k after the weights in `next` (whose S(w)
 * is `s`): τ from its conditional at inverse temperature β, then each α_k from the prior's own
 * conditional, which the tempering leaves alone.
 */
function drawHyperparameters(
  model: BayesianMlp,
  beta: number,
  rng: Rng,
  next: Float64Array,
  s: number,
): void {
  const { network, weightCount: W, noisePrior, groupPriors, data } = model;
  const groups = network.groups;
  const nValues = data.n * data.outputs;
  const halfBeta = 0.5 * beta;
  const tau = rng.gamma(noisePrior.shape + halfBeta * nValues) / (noisePrior.rate + halfBeta * s);
  next[W] = Math.log(tau);
  for (let k = 0; k < GROUP_COUNT; k++) {
    const { offset, length } = groups[k];
    let sq = 0;
    for (let j = offset; j < offset + length; j++) sq += next[j] * next[j];
    const a = rng.gamma(groupPriors[k].shape + 0.5 * length) / (groupPriors[k].rate + 0.5 * sq);
    next[W + 1 + k] = Math.log(a);
  }
  for (let k = W; k < W + 1 + GROUP_COUNT; k++) {
    if (!Number.isFinite(next[k])) {
      throw new OccamError(
        "non-finite",
        `bayesianMlp kernel at β = ${beta}: a hyperparameter draw under- or overflowed (log value ${next[k]}); the data or priors are badly scaled — standardise the data.`,
      );
    }
  }
}

/** The kernel's state at `position`, whose weights have S(w) = `s`: log L and the tempered density. */
function sweepState(model: BayesianMlp, beta: number, position: Float64Array, s: number): MlpKernelState {
  const W = model.weightCount;
  const nValues = model.data.n * model.data.outputs;
  const logLikelihood = 0.5 * nValues * (position[W] - LOG_2PI) - 0.5 * Math.exp(position[W]) * s;
  const lp = model.logPrior(position);
  return {
    position,
    logDensity: beta === 0 ? lp : lp + beta * logLikelihood,
    sumOfSquares: s,
    logLikelihood,
  };
}
