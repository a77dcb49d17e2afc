import { gammaLogDensityOfLog, gammaLogNormaliser } from "../../distributions/gamma.js";
import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import type { HmcOptions, HmcWarmupOptions } from "../../samplers/hmc.js";
import type { Adaptation } from "../../samplers/kernel.js";
import { checkMlpData, type MlpData } from "./data.js";
import {
  buildMlpKernel,
  type MlpKernel,
  type MlpKernelInfo,
  type MlpKernelState,
  mlpWarmup,
} from "./kernel.js";
import { createMlp, GROUP_COUNT, MLP_GROUPS, type Mlp, type MlpGroup } from "./network.js";
import { type SumOfSquares, sumOfSquares } from "./sum-of-squares.js";

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
  /** The warm-up that tunes the weights' HMC of {@link powerPosteriorKernel} (see `mlpWarmup`). */
  powerPosteriorWarmup(
    beta: number,
    hmc?: Omit<HmcWarmupOptions, "target">,
  ): Adaptation<MlpKernelState, MlpKernelInfo, MlpKernel>;
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
  const { H, noisePrior, groupPriors } = resolveBayesianMlpOptions(options, where);
  const network = createMlp({ inputs: data.inputs, hidden: H, outputs: data.outputs });
  const ss = sumOfSquares(network, data.X, data.Y, data.n);
  const W = network.size;
  const dim = W + 1 + GROUP_COUNT;
  const groups = network.groups;
  const nValues = data.n * data.outputs;
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

  const logPrior = mlpLogPrior(groups, W, noisePrior, groupPriors);

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
      for (let k = 0; k < GROUP_COUNT; k++) grad[W + 1 + k] = 0;
      return logLikelihoodAt(w, tau, s);
    },
    samplePrior(rng: Rng) {
      const x = new Float64Array(dim);
      x[W] = Math.log(rng.gamma(noisePrior.shape) / noisePrior.rate);
      for (let k = 0; k < GROUP_COUNT; k++) {
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
      for (let k = 0; k < GROUP_COUNT; k++) x[W + 1 + k] = Math.log(h.alpha[k]);
      return x;
    },
    weightModel(hyper) {
      return weightModel(network, ss, nValues, checkHyper(hyper, `${where}.weightModel`));
    },
    powerPosteriorKernel(beta, hmc) {
      return buildMlpKernel(model, beta, hmc ?? {});
    },
    powerPosteriorWarmup(beta, hmc) {
      return mlpWarmup(model, beta, hmc ?? {});
    },
  };
  return Object.freeze(model);
}

/** The options of {@link bayesianMlp} checked: the hidden units and the Gamma priors, with their defaults. */
function resolveBayesianMlpOptions(
  options: BayesianMlpOptions,
  where: string,
): { H: number; noisePrior: GammaPrior; groupPriors: readonly GammaPrior[] } {
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
  return { H, noisePrior, groupPriors };
}

/**
 * log p(w, log τ, log α) of the model (see the module header), with its gradient written into `grad`
 * when given: log τ and each group's log α_k under their Gamma priors, the weights N(0, 1/α_k).
 */
function mlpLogPrior(
  groups: readonly MlpGroup[],
  W: number,
  noisePrior: GammaPrior,
  groupPriors: readonly GammaPrior[],
): (x: Float64Array, grad?: Float64Array) => number {
  const noiseNorm = gammaLogNormaliser(noisePrior.shape, noisePrior.rate);
  const groupNorm = groupPriors.map((g) => gammaLogNormaliser(g.shape, g.rate));
  return (x, grad) => {
    let lp = gammaLogDensityOfLog(x[W], noisePrior.shape, noisePrior.rate, noiseNorm);
    if (grad !== undefined) grad[W] = noisePrior.shape - noisePrior.rate * Math.exp(x[W]);
    for (let k = 0; k < GROUP_COUNT; k++) {
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
}

export function checkHyper(hyper: MlpHyperparameters, where: string): { tau: number; alpha: Float64Array } {
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

export function weightModel(
  network: Mlp,
  ss: SumOfSquares,
  nValues: number,
  hyper: { tau: number; alpha: Float64Array },
): BayesModel {
  const W = network.size;
  const { tau, alpha } = hyper;
  const groups = network.groups;
  let priorNorm = 0;
  for (let k = 0; k < GROUP_COUNT; k++) priorNorm += 0.5 * groups[k].length * (Math.log(alpha[k]) - LOG_2PI);
  const likNorm = 0.5 * nValues * (Math.log(tau) - LOG_2PI);
  const prior = (w: Float64Array, grad?: Float64Array) => {
    let lp = priorNorm;
    for (let k = 0; k < GROUP_COUNT; k++) {
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
      for (let k = 0; k < GROUP_COUNT; k++) {
        const sd = 1 / Math.sqrt(alpha[k]);
        const { offset, length } = groups[k];
        for (let j = offset; j < offset + length; j++) w[j] = sd * rng.normal();
      }
      return w;
    },
  });
}

// --- the Gibbs + HMC kernel --------------------------------------------------------------------
