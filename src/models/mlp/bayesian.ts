/**
 * The Bayesian one-hidden-layer tanh network of Barber & Bishop (§3) and the Fabricius thesis
 * (§6.3.3, §6.3.5–6.3.6), after Neal (1996):
 *
 * - likelihood: y_n ~ N(f(x_n; w), τ⁻¹ I) for every case and output (thesis eqs. 6.38–6.40, where the
 *   exponent is N·O/2 and the norm is squared — the thesis's "N θ N" is a typo);
 * - prior: w_k ~ N(0, α_k⁻¹ I) for each of the four weight groups k (input→hidden, hidden biases,
 *   hidden→output, output biases; eq. 6.45), α_k ~ Gamma(shape s_k, rate r_k) and τ ~ Gamma(s, r)
 *   (eq. 6.77, p(τ) ∝ τ^(s−1) e^(−rτ): the rate convention of §6.3.6, where "mean precision 100" is
 *   s/r). Defaults are §6.3.6's: noise s = 0.1, r = 0.1/100; weight groups s = 0.25, r = 0.25/64,
 *   except hidden→output, whose rate is 0.25/H, so that its prior precision grows with the number of
 *   hidden units H and the network tends to a Gaussian process as H → ∞ (Neal 1996).
 *
 * Parameter vector ("position") of the {@link BayesianMlp} model: the network's weights (layout of
 * `createMlp`), then log τ, then log α_k for the four groups in layout order. The hyperparameters are
 * on the log scale so that every coordinate is unconstrained; the prior includes the Jacobian, so
 * the model's evidence is exactly p(D | M) with the hyperparameters integrated out.
 *
 * Sampling (thesis §6.3.5): at inverse temperature β, Gibbs draws of τ and of each α_k from their
 * Gamma conditionals alternate with hybrid Monte Carlo on the weights given the hyperparameters,
 * using the library's HMC kernel (step size adapted by dual averaging and a diagonal mass matrix in
 * Stan's warm-up windows, per temperature).
 */
import erfc from "@stdlib/math-base-special-erfc";
import { gammaLogDensityOfLog, gammaLogNormaliser } from "../../distributions/gamma.js";
import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { minimize } from "../../math/optimize.js";
import type { BayesModel } from "../../model/model.js";
import { createRng, type Rng } from "../../random/rng.js";
import {
  buildHmcKernel,
  type HmcInfo,
  type HmcKernel,
  type HmcOptions,
  type HmcState,
} from "../../samplers/hmc.js";
import type { AdaptiveKernel, PositionState, StepInfo } from "../../samplers/kernel.js";
import { type Progress, runChain } from "../../samplers/run.js";
import {
  checkMlpData,
  createMlp,
  MLP_GROUPS,
  type Mlp,
  type MlpData,
  randomWeights,
  type SumOfSquares,
  sumOfSquares,
} from "./network.js";

/** A Gamma distribution by shape and rate: density ∝ x^(shape − 1) e^(−rate·x), mean shape/rate. */
export interface GammaPrior {
  readonly shape: number;
  readonly rate: number;
}

/** The hyperpriors of a {@link BayesianMlp}. */
export interface BayesianMlpPriors {
  /**
   * Prior of the noise precision τ.
   * @defaultValue `{ shape: 0.1, rate: 0.001 }` (thesis §6.3.6: mean precision 100, σ ≈ 0.1)
   */
  noise?: GammaPrior;
  /**
   * Prior of the precision of the input→hidden weights.
   * @defaultValue `{ shape: 0.25, rate: 0.25 / 64 }`
   */
  inputHidden?: GammaPrior;
  /**
   * Prior of the precision of the hidden biases.
   * @defaultValue `{ shape: 0.25, rate: 0.25 / 64 }`
   */
  hiddenBias?: GammaPrior;
  /**
   * Prior of the precision of the hidden→output weights, per hidden unit: with
   * `scaleHiddenOutput` the rate used is `rate / H` (mean precision grows like H).
   * @defaultValue `{ shape: 0.25, rate: 0.25 }` (so rate 0.25/H, thesis §6.3.6)
   */
  hiddenOutput?: GammaPrior;
  /**
   * Prior of the precision of the output biases.
   * @defaultValue `{ shape: 0.25, rate: 0.25 / 64 }`
   */
  outputBias?: GammaPrior;
}

/** Options of {@link bayesianMlp}. */
export interface BayesianMlpOptions {
  /** Number of hidden units H ≥ 1. */
  hidden: number;
  /** The hyperpriors; each field falls back to its own default. */
  priors?: BayesianMlpPriors;
  /**
   * Divide the hidden→output rate by H (Neal's scaling; thesis §6.3.6).
   * @defaultValue true
   */
  scaleHiddenOutput?: boolean;
}

/** Values of the hyperparameters. */
export interface MlpHyperparameters {
  /** The noise precision τ > 0. */
  readonly noisePrecision: number;
  /** The precisions α_k > 0 of the four weight groups, in layout order. */
  readonly groupPrecisions: ArrayLike<number>;
}

/**
 * The Bayesian network as a {@link BayesModel} over (weights, log τ, log α_1..4), with gradients, an
 * exact-conditional Gibbs + HMC `powerPosteriorKernel(β)`, and helpers to read a position.
 */
export interface BayesianMlp extends BayesModel {
  /** The network. */
  readonly network: Mlp;
  /** The training data. */
  readonly data: MlpData;
  /** Number of weights W (the position's first W coordinates). */
  readonly weightCount: number;
  /** Index of log τ in the position (= W); log α_k is at W + 1 + k. */
  readonly hyperOffset: number;
  /** The resolved noise prior. */
  readonly noisePrior: GammaPrior;
  /** The resolved priors of the four group precisions in layout order (hidden→output rate already scaled). */
  readonly groupPriors: readonly GammaPrior[];
  /** The sum of squared errors on the training data, with its gradient. */
  readonly sumOfSquares: SumOfSquares;
  readonly names: readonly string[];
  /** log L = (N·O/2) log(τ/2π) − τ/2 · S(w), for weights `w` (length W) and noise precision τ. */
  logLikelihoodAt(w: Float64Array, noisePrecision: number): number;
  /** A position from weights and hyperparameters. */
  position(weights: Float64Array, hyper: MlpHyperparameters): Float64Array;
  /**
   * The weights alone as a {@link BayesModel} at fixed hyperparameters: prior ∏_k N(0, α_k⁻¹ I) and
   * the Gaussian likelihood at τ, both normalised, with gradients (for HMC or evidence estimators
   * over the weights only).
   */
  weightModel(hyper: MlpHyperparameters): BayesModel;
  /**
   * The Gibbs + HMC kernel for the power posterior p(w, τ, α) L^β. `hmc` configures the weights'
   * HMC kernel (its target is set by the model).
   */
  powerPosteriorKernel(beta: number, hmc?: Omit<HmcOptions, "target">): MlpKernel;
}

function checkGammaPrior(prior: GammaPrior, name: string): GammaPrior {
  if (
    prior === null ||
    typeof prior !== "object" ||
    !(Number.isFinite(prior.shape) && prior.shape > 0 && Number.isFinite(prior.rate) && prior.rate > 0)
  ) {
    throw new OccamError(
      "invalid-argument",
      `bayesianMlp: priors.${name} must be { shape, rate } with finite shape > 0 and rate > 0, got ${JSON.stringify(prior)}.`,
    );
  }
  return Object.freeze({ shape: prior.shape, rate: prior.rate });
}

/**
 * Builds the Bayesian network model on a training set (see the module header for the model).
 * Throws an `OccamError` for bad data, hidden < 1 or bad priors.
 *
 * @example
 * const model = bayesianMlp(robotArmData({ seed: 1 }), { hidden: 16 });
 * const draws = sampleBayesianMlp(model, { draws: 200, seed: 1 });
 */
export function bayesianMlp(data: MlpData, options: BayesianMlpOptions): BayesianMlp {
  const where = "bayesianMlp";
  checkMlpData(data, where);
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${where}: options { hidden } are required.`);
  }
  const H = options.hidden;
  if (!(Number.isInteger(H) && H >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: hidden must be an integer ≥ 1 (the number of hidden units), got ${H}.`,
    );
  }
  const p = options.priors ?? {};
  const scaleHo = options.scaleHiddenOutput ?? true;
  const noisePrior = checkGammaPrior(p.noise ?? { shape: 0.1, rate: 0.001 }, "noise");
  const ho = checkGammaPrior(p.hiddenOutput ?? { shape: 0.25, rate: 0.25 }, "hiddenOutput");
  const groupPriors: readonly GammaPrior[] = Object.freeze([
    checkGammaPrior(p.inputHidden ?? { shape: 0.25, rate: 0.25 / 64 }, "inputHidden"),
    checkGammaPrior(p.hiddenBias ?? { shape: 0.25, rate: 0.25 / 64 }, "hiddenBias"),
    Object.freeze({ shape: ho.shape, rate: scaleHo ? ho.rate / H : ho.rate }),
    checkGammaPrior(p.outputBias ?? { shape: 0.25, rate: 0.25 / 64 }, "outputBias"),
  ]);
  const network = createMlp({ inputs: data.inputs, hidden: H, outputs: data.outputs });
  const ss = sumOfSquares(network, data.X, data.Y, data.n);
  const W = network.size;
  const dim = W + 5;
  const groups = network.groups;
  const nValues = data.n * data.outputs;
  const noiseNorm = gammaLogNormaliser(noisePrior.shape, noisePrior.rate);
  const groupNorm = groupPriors.map((g) => gammaLogNormaliser(g.shape, g.rate));
  const scratch = new Float64Array(W);
  const names = Object.freeze([
    ...network.names,
    "log_noise_precision",
    ...MLP_GROUPS.map((g) => `log_precision_${g}`),
  ]);

  const logLikelihoodAt = (w: Float64Array, tau: number, s = ss.value(w)): number =>
    0.5 * nValues * (Math.log(tau) - LOG_2PI) - 0.5 * tau * s;

  const checkPosition = (x: Float64Array, what: string) => {
    if (!(x instanceof Float64Array) || x.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}.${what}: the position must be a Float64Array of length ${dim} (${W} weights, log τ, 4 log precisions).`,
      );
    }
  };

  const logPrior = (x: Float64Array, grad?: Float64Array): number => {
    let lp = gammaLogDensityOfLog(x[W], noisePrior.shape, noisePrior.rate, noiseNorm);
    if (grad !== undefined) grad[W] = noisePrior.shape - noisePrior.rate * Math.exp(x[W]);
    for (let k = 0; k < 4; k++) {
      const { offset, length } = groups[k];
      const u = x[W + 1 + k];
      const alpha = Math.exp(u);
      let sq = 0;
      for (let j = offset; j < offset + length; j++) {
        sq += x[j] * x[j];
        if (grad !== undefined) grad[j] = -alpha * x[j];
      }
      lp +=
        0.5 * length * (u - LOG_2PI) -
        0.5 * alpha * sq +
        gammaLogDensityOfLog(u, groupPriors[k].shape, groupPriors[k].rate, groupNorm[k]);
      if (grad !== undefined) {
        grad[W + 1 + k] =
          0.5 * length - 0.5 * alpha * sq + groupPriors[k].shape - groupPriors[k].rate * alpha;
      }
    }
    return lp;
  };

  const model: BayesianMlp = {
    dim,
    names,
    network,
    data,
    weightCount: W,
    hyperOffset: W,
    noisePrior,
    groupPriors,
    sumOfSquares: ss,
    logPrior(x) {
      checkPosition(x, "logPrior");
      return logPrior(x);
    },
    gradLogPrior(x, grad) {
      checkPosition(x, "gradLogPrior");
      return logPrior(x, grad);
    },
    logLikelihood(x) {
      checkPosition(x, "logLikelihood");
      return logLikelihoodAt(x.subarray(0, W), Math.exp(x[W]));
    },
    gradLogLikelihood(x, grad) {
      checkPosition(x, "gradLogLikelihood");
      const w = x.subarray(0, W);
      const tau = Math.exp(x[W]);
      const s = ss.gradient(w, scratch);
      for (let j = 0; j < W; j++) grad[j] = -0.5 * tau * scratch[j];
      grad[W] = 0.5 * nValues - 0.5 * tau * s;
      for (let k = 0; k < 4; k++) grad[W + 1 + k] = 0;
      return logLikelihoodAt(w, tau, s);
    },
    samplePrior(rng: Rng) {
      const x = new Float64Array(dim);
      x[W] = Math.log(rng.gamma(noisePrior.shape) / noisePrior.rate);
      for (let k = 0; k < 4; k++) {
        const alpha = rng.gamma(groupPriors[k].shape) / groupPriors[k].rate;
        x[W + 1 + k] = Math.log(alpha);
        const sd = 1 / Math.sqrt(alpha);
        const { offset, length } = groups[k];
        for (let j = offset; j < offset + length; j++) x[j] = sd * rng.normal();
      }
      return x;
    },
    logLikelihoodAt(w, tau) {
      if (!(w instanceof Float64Array) || w.length !== W) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}.logLikelihoodAt: w must be a Float64Array of length ${W}.`,
        );
      }
      return logLikelihoodAt(w, tau);
    },
    position(weights, hyper) {
      const x = new Float64Array(dim);
      if (!(weights instanceof Float64Array) || weights.length !== W) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}.position: weights must be a Float64Array of length ${W}.`,
        );
      }
      const h = checkHyper(hyper, `${where}.position`);
      x.set(weights);
      x[W] = Math.log(h.tau);
      for (let k = 0; k < 4; k++) x[W + 1 + k] = Math.log(h.alpha[k]);
      return x;
    },
    weightModel(hyper) {
      return weightModel(network, ss, nValues, checkHyper(hyper, `${where}.weightModel`));
    },
    powerPosteriorKernel(beta, hmc) {
      return buildMlpKernel(model, beta, hmc ?? {});
    },
  };
  return Object.freeze(model);
}

function checkHyper(hyper: MlpHyperparameters, where: string): { tau: number; alpha: Float64Array } {
  const tau = hyper?.noisePrecision;
  const g = hyper?.groupPrecisions;
  if (!(Number.isFinite(tau) && tau > 0) || g === undefined || g.length !== 4) {
    throw new OccamError(
      "invalid-argument",
      `${where}: give { noisePrecision > 0, groupPrecisions: 4 values > 0 }.`,
    );
  }
  const alpha = Float64Array.from(g);
  for (const a of alpha) {
    if (!(Number.isFinite(a) && a > 0)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: every group precision must be finite and > 0, got ${a}.`,
      );
    }
  }
  return { tau, alpha };
}

function weightModel(
  network: Mlp,
  ss: SumOfSquares,
  nValues: number,
  hyper: { tau: number; alpha: Float64Array },
): BayesModel {
  const W = network.size;
  const { tau, alpha } = hyper;
  const groups = network.groups;
  let priorNorm = 0;
  for (let k = 0; k < 4; k++) priorNorm += 0.5 * groups[k].length * (Math.log(alpha[k]) - LOG_2PI);
  const likNorm = 0.5 * nValues * (Math.log(tau) - LOG_2PI);
  const prior = (w: Float64Array, grad?: Float64Array) => {
    let lp = priorNorm;
    for (let k = 0; k < 4; k++) {
      const { offset, length } = groups[k];
      let sq = 0;
      for (let j = offset; j < offset + length; j++) {
        sq += w[j] * w[j];
        if (grad !== undefined) grad[j] = -alpha[k] * w[j];
      }
      lp -= 0.5 * alpha[k] * sq;
    }
    return lp;
  };
  return Object.freeze({
    dim: W,
    names: network.names,
    logPrior: (w: Float64Array) => prior(w),
    gradLogPrior: (w: Float64Array, grad: Float64Array) => prior(w, grad),
    logLikelihood: (w: Float64Array) => likNorm - 0.5 * tau * ss.value(w),
    gradLogLikelihood(w: Float64Array, grad: Float64Array) {
      const s = ss.gradient(w, grad);
      for (let j = 0; j < W; j++) grad[j] *= -0.5 * tau;
      return likNorm - 0.5 * tau * s;
    },
    samplePrior(rng: Rng) {
      const w = new Float64Array(W);
      for (let k = 0; k < 4; k++) {
        const sd = 1 / Math.sqrt(alpha[k]);
        const { offset, length } = groups[k];
        for (let j = offset; j < offset + length; j++) w[j] = sd * rng.normal();
      }
      return w;
    },
  });
}

// --- the Gibbs + HMC kernel --------------------------------------------------------------------

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
export const MLP_HMC_DEFAULTS: Readonly<Omit<HmcOptions, "target">> = Object.freeze({
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

/**
 * The step size whose predicted mean acceptance is `MLP_CALIBRATION.centre`, from the energy errors
 * ΔH_i of `n` sweeps run at step sizes ε_i: at ε the acceptance is predicted as
 * (1/n) Σ min(1, exp(−ΔH_i (ε/ε_i)²)) (leapfrog's energy error scales like ε²); a divergent sweep
 * counts as a rejection at ε ≥ 0.6 ε_i and an acceptance below (which keeps the prediction monotone). The prediction
 * decreases in ε; its root is found by bisection on log ε within a factor 2 of `current`, so that one
 * block's extrapolation cannot move the step far.
 */
const DIVERGENCE_RATIO = 0.6;

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
export function calibrationLength(warmup: number): number {
  if (warmup < MLP_CALIBRATION.minWarmup) return 0;
  return Math.min(MLP_CALIBRATION.maxLength, Math.floor(MLP_CALIBRATION.fraction * warmup));
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
export interface MlpKernel extends AdaptiveKernel<MlpKernelState, MlpKernelInfo> {
  readonly dim: number;
  /** The inverse temperature β. */
  readonly beta: number;
  /** The weights' HMC step size (current nominal). */
  readonly stepSize: number;
  /** A copy of the weights' diagonal inverse mass matrix. */
  readonly inverseMassMatrix: Float64Array;
}

/**
 * One sweep: (1) hybrid Monte Carlo on the weights given τ and α (target log p(w | α) + β log L(w, τ),
 * constants dropped), (2) τ from its conditional Gamma(s + β N·O/2, r + β S(w)/2) (thesis eqs.
 * 6.68–6.69 in rate form), (3) each α_k from Gamma(s_k + N_k/2, r_k + ‖w_k‖²/2) — the shape is
 * s_k **+** N_k/2 (the thesis's eq. 6.67 prints a minus sign, an erratum). The HMC kernel is the
 * library's (leapfrog by default), re-initialised after each hyperparameter update because its target
 * changed; that costs one gradient per sweep. Its step size and mass matrix adapt in warm-up.
 */
function buildMlpKernel(model: BayesianMlp, beta: number, hmcOptions: Omit<HmcOptions, "target">): MlpKernel {
  if (!(beta >= 0 && beta <= 1)) {
    throw new OccamError("invalid-argument", `bayesianMlp kernel: beta must lie in [0, 1], got ${beta}.`);
  }
  const { network, weightCount: W, noisePrior, groupPriors, data } = model;
  const ss = model.sumOfSquares;
  const groups = network.groups;
  const nValues = data.n * data.outputs;
  const alpha = new Float64Array(4);
  let tau = 1;
  const halfBeta = 0.5 * beta;

  const weightTarget = {
    dim: W,
    logDensity(w: Float64Array): number {
      let lp = beta === 0 ? 0 : -halfBeta * tau * ss.value(w);
      for (let k = 0; k < 4; k++) {
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
      for (let k = 0; k < 4; k++) {
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
  const hmcSettings: HmcOptions = {
    ...MLP_HMC_DEFAULTS,
    ...(hmcOptions.steps === undefined ? {} : { trajectoryLength: undefined }),
    ...hmcOptions,
    target: weightTarget,
  };
  let hmc: HmcKernel = buildHmcKernel(hmcSettings);
  let lastHmcState: HmcState | undefined;
  let lastHmcInfo: HmcInfo | undefined;
  // The final calibration stage of warm-up (see MLP_CALIBRATION): after the main adaptation ends, the
  // step size is fixed and moved block by block by the acceptance it realises.
  const calibrate = hmcSettings.adaptStepSize !== false;
  let calibrationStart = -1;
  let blockCount = 0;
  let calibratedStepSize = Number.NaN;
  const calibrationErrors = new Float64Array(MLP_CALIBRATION.maxLength);
  const calibrationSteps = new Float64Array(MLP_CALIBRATION.maxLength);
  const fixedKernel = (stepSize: number, inverseMassMatrix: Float64Array): HmcKernel =>
    buildHmcKernel({
      ...hmcSettings,
      stepSize,
      inverseMassMatrix,
      adaptStepSize: false,
      adaptMassMatrix: false,
    });

  const stateAt = (position: Float64Array, s: number): MlpKernelState => {
    const logLikelihood = 0.5 * nValues * (position[W] - LOG_2PI) - 0.5 * Math.exp(position[W]) * s;
    const lp = model.logPrior(position);
    return {
      position,
      logDensity: beta === 0 ? lp : lp + beta * logLikelihood,
      sumOfSquares: s,
      logLikelihood,
    };
  };

  return {
    dim: W + 5,
    beta,
    get stepSize() {
      return hmc.stepSize;
    },
    get inverseMassMatrix() {
      return hmc.inverseMassMatrix;
    },
    init(position: Float64Array): MlpKernelState {
      if (!(position instanceof Float64Array) || position.length !== W + 5) {
        throw new OccamError(
          "dimension-mismatch",
          `bayesianMlp kernel: the start must be a Float64Array of length ${W + 5}, got ${position instanceof Float64Array ? position.length : String(position)}.`,
        );
      }
      const x = Float64Array.from(position);
      return stateAt(x, ss.value(x.subarray(0, W)));
    },
    step(rng: Rng, state: MlpKernelState) {
      const x = state.position;
      tau = Math.exp(x[W]);
      for (let k = 0; k < 4; k++) alpha[k] = Math.exp(x[W + 1 + k]);
      // (1) HMC on the weights at the current hyperparameters.
      const start = hmc.init(x.subarray(0, W));
      const r = hmc.step(rng, start);
      lastHmcState = r.state;
      lastHmcInfo = r.info;
      const next = new Float64Array(W + 5);
      next.set(r.state.position);
      let evaluations = 1 + r.info.evaluations;
      let s = state.sumOfSquares;
      if (r.info.accepted) {
        s = ss.value(r.state.position);
        evaluations++;
      }
      // (2) τ | w, at inverse temperature β.
      tau = rng.gamma(noisePrior.shape + halfBeta * nValues) / (noisePrior.rate + halfBeta * s);
      next[W] = Math.log(tau);
      // (3) α_k | w_k (the prior's own conditional, not tempered).
      for (let k = 0; k < 4; k++) {
        const { offset, length } = groups[k];
        let sq = 0;
        for (let j = offset; j < offset + length; j++) sq += next[j] * next[j];
        const a = rng.gamma(groupPriors[k].shape + 0.5 * length) / (groupPriors[k].rate + 0.5 * sq);
        next[W + 1 + k] = Math.log(a);
      }
      for (let k = W; k < W + 5; k++) {
        if (!Number.isFinite(next[k])) {
          throw new OccamError(
            "non-finite",
            `bayesianMlp kernel at β = ${beta}: a hyperparameter draw under- or overflowed (log value ${next[k]}); the data or priors are badly scaled — standardise the data.`,
          );
        }
      }
      const info: MlpKernelInfo = {
        accepted: r.info.accepted,
        acceptProbability: r.info.acceptProbability,
        evaluations,
        divergent: r.info.divergent,
        energyError: r.info.energyError,
        stepSize: r.info.stepSize,
        steps: r.info.steps,
      };
      return { state: stateAt(next, s), info };
    },
    adapt(_state: MlpKernelState, info: MlpKernelInfo, iteration: number, warmup: number) {
      const length = calibrate ? calibrationLength(warmup) : 0;
      const main = warmup - length;
      if (iteration < main) {
        if (lastHmcState !== undefined && lastHmcInfo !== undefined) {
          hmc.adapt(lastHmcState, lastHmcInfo, iteration, main);
        }
        if (iteration === main - 1 && length > 0) {
          // The main adaptation is over: keep its ε̄ and mass matrix in a kernel with a fixed step.
          hmc.endWarmup();
          calibrationStart = iteration + 1;
          calibratedStepSize = hmc.stepSize;
          hmc = fixedKernel(calibratedStepSize, hmc.inverseMassMatrix);
        }
        return;
      }
      if (calibrationStart < 0) return;
      // Energy errors scale like ε² for leapfrog (at the trajectory's fixed integration time or
      // step cap), so every calibration sweep so far predicts its acceptance at another step size.
      const i = iteration - calibrationStart;
      calibrationErrors[i] = info.divergent ? Number.POSITIVE_INFINITY : info.energyError;
      calibrationSteps[i] = info.stepSize;
      blockCount++;
      if (blockCount === MLP_CALIBRATION.block || iteration === warmup - 1) {
        calibratedStepSize = calibratedStep(calibrationErrors, calibrationSteps, i + 1, calibratedStepSize);
        hmc = fixedKernel(calibratedStepSize, hmc.inverseMassMatrix);
        blockCount = 0;
      }
    },
    endWarmup() {
      // With a calibration stage the kernel already runs at the calibrated fixed step size.
      if (calibrationStart < 0) hmc.endWarmup();
    },
  };
}

// --- sampling ----------------------------------------------------------------------------------

/** Options of {@link sampleBayesianMlp}. */
export interface SampleBayesianMlpOptions {
  /**
   * Inverse temperature β in [0, 1]: the chain targets p(w, τ, α) L(w, τ)^β (β = 1 is the posterior).
   * @defaultValue 1
   */
  beta?: number;
  /**
   * Kept draws.
   * @defaultValue 200
   */
  draws?: number;
  /**
   * Warm-up sweeps, during which the HMC step size and the diagonal mass matrix adapt (the last 20 %,
   * up to 150, calibrate the fixed step size: {@link MLP_CALIBRATION}); discarded.
   * @defaultValue 500
   */
  warmup?: number;
  /**
   * Keep every thin-th sweep.
   * @defaultValue 1
   */
  thin?: number;
  /** Seed; give `seed` or `rng`. @defaultValue 0 */
  seed?: number;
  /** Generator (instead of `seed`). */
  rng?: Rng;
  /**
   * Where the chain starts: a position (length `model.dim`, e.g. the last position at the previous
   * temperature); `"optimize"`: weights from a short L-BFGS fit of the penalised sum of squares from
   * random weights, τ and α_k at their conditional means; `"prior"`: a draw from the prior.
   * @defaultValue "optimize" for β > 0, "prior" for β = 0
   */
  initial?: Float64Array | "optimize" | "prior";
  /**
   * Settings of the weights' HMC kernel, merged over {@link MLP_HMC_DEFAULTS}. Pass a `stepSize` and
   * `inverseMassMatrix` carried from a neighbouring temperature to start adaptation there.
   * @defaultValue {@link MLP_HMC_DEFAULTS}
   */
  hmc?: Omit<HmcOptions, "target">;
  /** Progress callback (see `runChain`). */
  onProgress?: (p: Progress) => void;
  /** Abort signal (see `runChain`). */
  signal?: AbortSignal;
}

/** Draws of a {@link BayesianMlp} at one inverse temperature. */
export interface BayesianMlpDraws {
  /** The inverse temperature β. */
  readonly beta: number;
  /** Number of kept draws S. */
  readonly nDraws: number;
  /** Number of weights W. */
  readonly weightCount: number;
  /** Weights, S × W row-major. */
  readonly weights: Float64Array;
  /** τ at each draw. */
  readonly noisePrecision: Float64Array;
  /** α_k at each draw, S × 4 row-major (groups in layout order). */
  readonly groupPrecisions: Float64Array;
  /** log L(w, τ) at each draw (untempered): the U of path sampling (thesis eq. 6.74). */
  readonly logLikelihood: Float64Array;
  /** The last position (a start for the next temperature). */
  readonly lastPosition: Float64Array;
  /** Mean HMC acceptance probability of the kept sweeps. */
  readonly acceptanceRate: number;
  /** Divergent HMC trajectories among the kept sweeps (rejected, never returned). */
  readonly divergences: number;
  /** Divergent trajectories during warm-up. */
  readonly warmupDivergences: number;
  /** The adapted HMC step size. */
  readonly stepSize: number;
  /** The adapted diagonal inverse mass matrix of the weights. */
  readonly inverseMassMatrix: Float64Array;
  /** Gradient and likelihood evaluations, warm-up included. */
  readonly evaluations: number;
  /** Wall-clock seconds. */
  readonly seconds: number;
}

/**
 * A starting position near a mode: L-BFGS on ½ S(w) + ½ λ‖w‖² (λ = 0.01) from random weights, then τ
 * and each α_k at their conditional means given those weights.
 */
export function optimizedStart(model: BayesianMlp, rng: Rng, maxIterations = 300): Float64Array {
  const { network, sumOfSquares: ss, weightCount: W } = model;
  const lambda = 0.01;
  const w0 = randomWeights(network, rng);
  const r = minimize(
    (w, g) => {
      const s = ss.gradient(w, g);
      let sq = 0;
      for (let j = 0; j < W; j++) {
        g[j] = 0.5 * g[j] + lambda * w[j];
        sq += w[j] * w[j];
      }
      return 0.5 * s + 0.5 * lambda * sq;
    },
    w0,
    { maxIterations },
  );
  const w = r.x;
  const nValues = model.data.n * model.data.outputs;
  const s = ss.value(w);
  const tau = (model.noisePrior.shape + 0.5 * nValues) / (model.noisePrior.rate + 0.5 * s);
  const alpha = new Float64Array(4);
  for (let k = 0; k < 4; k++) {
    const { offset, length } = network.groups[k];
    let sq = 0;
    for (let j = offset; j < offset + length; j++) sq += w[j] * w[j];
    alpha[k] = (model.groupPriors[k].shape + 0.5 * length) / (model.groupPriors[k].rate + 0.5 * sq);
  }
  return model.position(w, { noisePrecision: tau, groupPrecisions: alpha });
}

/**
 * Samples a {@link BayesianMlp} at inverse temperature β by Gibbs updates of τ and the group
 * precisions alternating with hybrid Monte Carlo on the weights (thesis §6.3.5). The HMC step size is
 * adapted in warm-up by dual averaging (aiming at 0.65) together with a diagonal mass matrix, then
 * fixed by a final calibration stage aiming at a realised acceptance of 0.75 ({@link MLP_CALIBRATION}),
 * so each temperature gets its own. Divergent trajectories are rejected and counted, never returned.
 * Returns the draws of weights, τ and precisions, the log likelihood of each draw, and diagnostics.
 *
 * @example
 * const model = bayesianMlp(train, { hidden: 8 });
 * const d = sampleBayesianMlp(model, { draws: 200, warmup: 500, seed: 3 });
 * const pred = predictBayesianMlp(model.network, d, test.X, test.n);
 */
export function sampleBayesianMlp(
  model: BayesianMlp,
  options: SampleBayesianMlpOptions = {},
): BayesianMlpDraws {
  const where = "sampleBayesianMlp";
  const beta = options.beta ?? 1;
  const draws = options.draws ?? 200;
  const warmup = options.warmup ?? 500;
  const thin = options.thin ?? 1;
  if (!(beta >= 0 && beta <= 1)) {
    throw new OccamError("invalid-argument", `${where}: beta must lie in [0, 1], got ${beta}.`);
  }
  for (const [value, name, min] of [
    [draws, "draws", 1],
    [warmup, "warmup", 0],
    [thin, "thin", 1],
  ] as const) {
    if (!(Number.isInteger(value) && value >= min)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: ${name} must be an integer ≥ ${min}, got ${value}.`,
      );
    }
  }
  if (options.seed !== undefined && options.rng !== undefined) {
    throw new OccamError("invalid-argument", `${where}: give seed or rng, not both.`);
  }
  const rng = options.rng ?? createRng(options.seed ?? 0);
  const [initRng, chainRng] = rng.split(2);
  const initial = options.initial ?? (beta > 0 ? "optimize" : "prior");
  let start: Float64Array;
  if (initial === "optimize") start = optimizedStart(model, initRng);
  else if (initial === "prior") start = model.samplePrior(initRng);
  else if (initial instanceof Float64Array && initial.length === model.dim) start = initial;
  else {
    throw new OccamError(
      "invalid-argument",
      `${where}: initial must be "optimize", "prior" or a Float64Array of length ${model.dim}.`,
    );
  }
  const started = performance.now();
  const kernel = model.powerPosteriorKernel(beta, options.hmc);
  let warmupDivergences = 0;
  let evaluations = 0;
  const counting: MlpKernel = {
    dim: kernel.dim,
    beta,
    get stepSize() {
      return kernel.stepSize;
    },
    get inverseMassMatrix() {
      return kernel.inverseMassMatrix;
    },
    init: (x) => kernel.init(x),
    step(r, state) {
      const out = kernel.step(r, state);
      evaluations += out.info.evaluations;
      return out;
    },
    adapt(state, info, iteration, total) {
      if (info.divergent) warmupDivergences++;
      kernel.adapt(state, info, iteration, total);
    },
    endWarmup: () => kernel.endWarmup(),
  };
  const result = runChain(counting, {
    draws,
    warmup,
    thin,
    rng: chainRng,
    initial: start,
    names: model.names,
    onProgress: options.onProgress,
    signal: options.signal,
  });
  const W = model.weightCount;
  const dim = model.dim;
  const weights = new Float64Array(draws * W);
  const noisePrecision = new Float64Array(draws);
  const groupPrecisions = new Float64Array(draws * 4);
  const logLikelihood = new Float64Array(draws);
  for (let t = 0; t < draws; t++) {
    const x = result.values.subarray(t * dim, (t + 1) * dim);
    weights.set(x.subarray(0, W), t * W);
    noisePrecision[t] = Math.exp(x[W]);
    for (let k = 0; k < 4; k++) groupPrecisions[t * 4 + k] = Math.exp(x[W + 1 + k]);
    logLikelihood[t] = model.logLikelihoodAt(x.subarray(0, W), noisePrecision[t]);
    evaluations++;
  }
  const stats = result.stats[0];
  return Object.freeze({
    beta,
    nDraws: draws,
    weightCount: W,
    weights,
    noisePrecision,
    groupPrecisions,
    logLikelihood,
    lastPosition: Float64Array.from(result.values.subarray((draws - 1) * dim, draws * dim)),
    acceptanceRate: stats.acceptanceRate,
    divergences: stats.divergences,
    warmupDivergences,
    stepSize: kernel.stepSize,
    inverseMassMatrix: kernel.inverseMassMatrix,
    evaluations,
    seconds: (performance.now() - started) / 1000,
  });
}

// --- prediction --------------------------------------------------------------------------------

/** Options of {@link predictBayesianMlp}. */
export interface PredictBayesianMlpOptions {
  /**
   * Probability content of the central predictive interval.
   * @defaultValue 0.9
   */
  level?: number;
}

/** Posterior predictive summaries at new inputs, each n × O row-major. */
export interface MlpPredictive {
  readonly n: number;
  readonly outputs: number;
  /** The interval's probability content. */
  readonly level: number;
  /** Predictive mean: the network output averaged over draws (thesis eq. 6.72). */
  readonly mean: Float64Array;
  /** Predictive standard deviation: √(mean of τ⁻¹ + variance of f over draws). */
  readonly sd: Float64Array;
  /** Lower end of the central interval of the predictive mixture (1/S) Σ_s N(f(x; w_s), τ_s⁻¹). */
  readonly lower: Float64Array;
  /** Upper end of the interval. */
  readonly upper: Float64Array;
}

/** The draws {@link predictBayesianMlp} needs (a {@link BayesianMlpDraws} has them). */
export interface MlpPredictiveDraws {
  readonly nDraws: number;
  /** S × W weights. */
  readonly weights: Float64Array;
  /** τ at each draw. */
  readonly noisePrecision: Float64Array;
}

/**
 * The posterior predictive distribution at the n × I inputs `X`: the mixture over draws s of
 * N(f(x; w_s), τ_s⁻¹) for each output, summarised by its mean, standard deviation and central
 * interval (quantiles of the mixture found by bisection on its CDF, so they are exact for the draws).
 */
export function predictBayesianMlp(
  network: Mlp,
  draws: MlpPredictiveDraws,
  X: Float64Array,
  n: number,
  options: PredictBayesianMlpOptions = {},
): MlpPredictive {
  const where = "predictBayesianMlp";
  const level = options.level ?? 0.9;
  if (!(level > 0 && level < 1)) {
    throw new OccamError("invalid-argument", `${where}: level must lie in (0, 1), got ${level}.`);
  }
  const I = network.inputs;
  const O = network.outputs;
  const W = network.size;
  const S = draws.nDraws;
  if (!(Number.isInteger(n) && n >= 1) || X.length !== n * I) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: X must hold n·I = ${n}·${I} values, got ${X.length}.`,
    );
  }
  if (draws.weights.length !== S * W || draws.noisePrecision.length !== S || S < 1) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: the draws do not match the network (need ${S} × ${W} weights and ${S} precisions).`,
    );
  }
  for (let k = 0; k < X.length; k++) {
    if (!Number.isFinite(X[k])) {
      throw new OccamError(
        "invalid-data",
        `${where}: input ${k % I} of case ${Math.floor(k / I)} is ${X[k]}.`,
      );
    }
  }
  const f = new Float64Array(S * n * O); // f[s][r][o]
  for (let s = 0; s < S; s++) {
    network.predict(draws.weights.subarray(s * W, (s + 1) * W), X, n, f.subarray(s * n * O, (s + 1) * n * O));
  }
  const noiseSd = new Float64Array(S);
  let meanNoiseVar = 0;
  for (let s = 0; s < S; s++) {
    noiseSd[s] = 1 / Math.sqrt(draws.noisePrecision[s]);
    meanNoiseVar += 1 / draws.noisePrecision[s] / S;
  }
  const mean = new Float64Array(n * O);
  const sd = new Float64Array(n * O);
  const lower = new Float64Array(n * O);
  const upper = new Float64Array(n * O);
  const mu = new Float64Array(S);
  const tail = (1 - level) / 2;
  for (let c = 0; c < n * O; c++) {
    let m = 0;
    for (let s = 0; s < S; s++) {
      mu[s] = f[s * n * O + c];
      m += mu[s];
    }
    m /= S;
    let v = 0;
    for (let s = 0; s < S; s++) v += (mu[s] - m) ** 2;
    mean[c] = m;
    sd[c] = Math.sqrt(meanNoiseVar + v / S);
    lower[c] = mixtureQuantile(mu, noiseSd, tail);
    upper[c] = mixtureQuantile(mu, noiseSd, 1 - tail);
  }
  return Object.freeze({ n, outputs: O, level, mean, sd, lower, upper });
}

/** The q-quantile of the equal-weight normal mixture (1/S) Σ N(mu_s, sd_s²), by bisection. */
function mixtureQuantile(mu: Float64Array, sd: Float64Array, q: number): number {
  const S = mu.length;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let s = 0; s < S; s++) {
    lo = Math.min(lo, mu[s] - 10 * sd[s]);
    hi = Math.max(hi, mu[s] + 10 * sd[s]);
  }
  const cdf = (x: number) => {
    let c = 0;
    for (let s = 0; s < S; s++) c += 0.5 * erfc((mu[s] - x) / (Math.SQRT2 * sd[s]));
    return c / S;
  };
  for (let it = 0; it < 100 && hi - lo > 1e-12 * (1 + Math.abs(lo) + Math.abs(hi)); it++) {
    const mid = 0.5 * (lo + hi);
    if (cdf(mid) < q) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// --- fitting on raw data -----------------------------------------------------------------------

/** Options of {@link fitBayesianMlp}: the model's and the sampler's, plus standardisation. */
export interface FitBayesianMlpOptions extends BayesianMlpOptions, SampleBayesianMlpOptions {
  /**
   * Fit on standardised data: each input centred and scaled to unit sample standard deviation, each
   * target centred and all targets divided by one common scale (the root mean of their variances, so
   * that one noise precision still serves every output). The priors are then on the standardised
   * scale; predictions and the noise standard deviation are reported in the data's own units.
   * @defaultValue true
   */
  standardize?: boolean;
}

/** A fitted Bayesian network that predicts in the data's own units. */
export interface BayesianMlpFit {
  /** The model (on the standardised data when `standardize` is on). */
  readonly model: BayesianMlp;
  /** The draws. */
  readonly draws: BayesianMlpDraws;
  /** Posterior mean of the noise standard deviation τ^(−1/2), in the targets' units. */
  readonly noiseStdDev: number;
  /** Input means and standard deviations, and target means and common scale, used to standardise. */
  readonly scaling: {
    readonly inputMean: Float64Array;
    readonly inputSd: Float64Array;
    readonly targetMean: Float64Array;
    readonly targetScale: number;
  };
  /** The posterior predictive at new raw inputs (n × I row-major), in the targets' units. */
  predict(X: Float64Array, n: number, options?: PredictBayesianMlpOptions): MlpPredictive;
}

/**
 * Standardises the data (option `standardize`), builds a {@link bayesianMlp} and samples it with
 * {@link sampleBayesianMlp}; the result predicts at raw inputs. Throws an `OccamError` for bad data
 * (including a constant input column when standardising) and bad options.
 *
 * @example
 * const fit = fitBayesianMlp(train, { hidden: 16, draws: 200, seed: 1 });
 * const p = fit.predict(test.X, test.n); // p.mean, p.lower, p.upper
 */
export function fitBayesianMlp(data: MlpData, options: FitBayesianMlpOptions): BayesianMlpFit {
  const where = "fitBayesianMlp";
  checkMlpData(data, where);
  const standardize = options?.standardize ?? true;
  const { n, inputs: I, outputs: O } = data;
  const inputMean = new Float64Array(I);
  const inputSd = new Float64Array(I).fill(1);
  const targetMean = new Float64Array(O);
  let targetScale = 1;
  if (standardize) {
    if (n < 2) {
      throw new OccamError("invalid-data", `${where}: standardising needs at least 2 cases, got ${n}.`);
    }
    for (let i = 0; i < I; i++) {
      let m = 0;
      for (let r = 0; r < n; r++) m += data.X[r * I + i];
      m /= n;
      let v = 0;
      for (let r = 0; r < n; r++) v += (data.X[r * I + i] - m) ** 2;
      const sd = Math.sqrt(v / (n - 1));
      if (!(sd > 0)) {
        throw new OccamError(
          "invalid-data",
          `${where}: input ${i} is constant (every case is ${data.X[i]}); it carries no information — leave it out.`,
        );
      }
      inputMean[i] = m;
      inputSd[i] = sd;
    }
    let meanVariance = 0;
    for (let o = 0; o < O; o++) {
      let m = 0;
      for (let r = 0; r < n; r++) m += data.Y[r * O + o];
      m /= n;
      let v = 0;
      for (let r = 0; r < n; r++) v += (data.Y[r * O + o] - m) ** 2;
      targetMean[o] = m;
      meanVariance += v / (n - 1) / O;
    }
    targetScale = Math.sqrt(meanVariance);
    if (!(targetScale > 0)) {
      throw new OccamError("invalid-data", `${where}: every target is constant; there is nothing to fit.`);
    }
  }
  const scaleX = (X: Float64Array, rows: number): Float64Array => {
    const out = new Float64Array(rows * I);
    for (let r = 0; r < rows; r++) {
      for (let i = 0; i < I; i++) out[r * I + i] = (X[r * I + i] - inputMean[i]) / inputSd[i];
    }
    return out;
  };
  const Ys = new Float64Array(n * O);
  for (let r = 0; r < n; r++) {
    for (let o = 0; o < O; o++) Ys[r * O + o] = (data.Y[r * O + o] - targetMean[o]) / targetScale;
  }
  const model = bayesianMlp({ X: scaleX(data.X, n), Y: Ys, n, inputs: I, outputs: O }, options);
  const draws = sampleBayesianMlp(model, options);
  let noiseSd = 0;
  for (let t = 0; t < draws.nDraws; t++) noiseSd += 1 / Math.sqrt(draws.noisePrecision[t]);
  noiseSd = (noiseSd / draws.nDraws) * targetScale;
  return Object.freeze({
    model,
    draws,
    noiseStdDev: noiseSd,
    scaling: Object.freeze({ inputMean, inputSd, targetMean, targetScale }),
    predict(X: Float64Array, rows: number, predictOptions?: PredictBayesianMlpOptions): MlpPredictive {
      if (!(X instanceof Float64Array) || !(Number.isInteger(rows) && rows >= 1) || X.length !== rows * I) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}.predict: X must be a Float64Array of n·I = ${rows}·${I} values.`,
        );
      }
      const p = predictBayesianMlp(model.network, draws, scaleX(X, rows), rows, predictOptions);
      const back = (v: Float64Array, shift: boolean) => {
        const out = new Float64Array(v.length);
        for (let k = 0; k < v.length; k++) out[k] = v[k] * targetScale + (shift ? targetMean[k % O] : 0);
        return out;
      };
      return Object.freeze({
        n: rows,
        outputs: O,
        level: p.level,
        mean: back(p.mean, true),
        sd: back(p.sd, false),
        lower: back(p.lower, true),
        upper: back(p.upper, true),
      });
    },
  });
}
