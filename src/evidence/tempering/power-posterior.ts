/**
 * The shared machinery of the ladder-based evidence estimators (chaining, stepping-stone, path
 * sampling): draws from every power posterior p_β(θ) ∝ p(θ) L(θ)^β of a sorted list of inverse
 * temperatures, with the log likelihood at each kept draw and the effective sample size of that trace.
 */
import { effectiveSampleSize } from "../../diagnostics/ess.js";
import { OccamError } from "../../errors.js";
import type { BayesModel } from "../../model/model.js";
import { tempered } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { isUsableLogDensity } from "../../samplers/accept.js";
import { buildHmcKernel, type HmcKernel, type HmcWarmupOptions, hmcWarmup } from "../../samplers/hmc.js";
import {
  type Adaptation,
  isKernelOrAdaptation,
  type Kernel,
  type PositionState,
  type StepInfo,
  watchWarmup,
} from "../../samplers/kernel.js";
import {
  buildRandomWalkKernel,
  type RandomWalkKernel,
  randomWalkWarmup,
} from "../../samplers/random-walk.js";
import { runChain } from "../../samplers/run.js";
import { checkCount, checkLogValue, checkModel, type RandomOptions, resolveRng } from "../checks.js";

/** A user's kernel (or warm-up) for the power posterior at inverse temperature β (its target must be `tempered(model, β)`). */
export type PowerPosteriorKernelFactory = (
  beta: number,
) => Kernel<PositionState, StepInfo> | Adaptation<PositionState, StepInfo>;

/**
 * Which MCMC kernel samples each power posterior:
 * - `"auto"`: the model's exact `powerPosteriorKernel(β)` when it has one, else HMC when the model has
 *   `gradLogPrior` and `gradLogLikelihood`, else adaptive random-walk Metropolis;
 * - `"model"`, `"hmc"`, `"random-walk"`: that one (an `OccamError` when the model lacks what it needs);
 * - a function β ↦ kernel: the user's own.
 */
export type PowerPosteriorKernelChoice =
  | "auto"
  | "model"
  | "hmc"
  | "random-walk"
  | PowerPosteriorKernelFactory;

/** Options of {@link samplePowerPosteriors}, shared by chaining, stepping-stone and path sampling. */
export interface PowerPosteriorOptions extends RandomOptions {
  /**
   * The kernel that samples each power posterior.
   * @defaultValue "auto"
   */
  kernel?: PowerPosteriorKernelChoice;
  /**
   * Kept draws at each temperature (after thinning).
   * @defaultValue 1000
   */
  drawsPerTemperature?: number;
  /**
   * Warm-up iterations at each temperature, discarded. With 50 or more, the kernel (HMC, random walk)
   * is tuned afresh in the warm-up of each temperature, starting from the previous temperature's
   * tuning (HMC adapts its diagonal mass matrix too from 150 on). With fewer, kernels are not adapted
   * within a temperature: the step size (or random-walk scale) is carried from temperature to
   * temperature and nudged after each by its acceptance rate (see {@link samplePowerPosteriors}).
   * @defaultValue 200
   */
  warmupPerTemperature?: number;
  /**
   * Keep every thin-th iteration.
   * @defaultValue 1
   */
  thin?: number;
  /**
   * Settings of the HMC kernel (its `target` is set per temperature). By default the integration
   * time is T = π/2 in the units of the adapted mass matrix (a quarter period of the dynamics of a
   * Gaussian, after which a position is uncorrelated with the start), with a ±20 % jitter of the step
   * size against periodic trajectories. Give `steps` to fix the number of leapfrog steps instead.
   * `stepSize` is where the first temperature starts; the step size and the diagonal inverse mass
   * matrix are then carried from temperature to temperature (the latter starts at the prior's
   * variances), and `adaptStepSize` / `adaptMetric` can only switch adaptation off.
   * @defaultValue `{ trajectoryLength: π/2, stepSizeJitter: 0.2 }`
   */
  hmc?: Omit<HmcWarmupOptions, "target">;
  /**
   * At β = 0 the power posterior is the prior: take independent draws from `model.samplePrior`
   * (exact, effective sample size = number of draws) instead of running a chain.
   * @defaultValue true
   */
  exactPrior?: boolean;
}

/** The draws of one temperature. */
export interface TemperatureDraws {
  /** The inverse temperature β. */
  readonly beta: number;
  /** log L(θ) at each kept draw, in chain order (may hold −Infinity at exact prior draws). */
  readonly logLikelihood: Float64Array;
  /**
   * Effective sample size of the log-likelihood trace: the number of draws for exact (independent)
   * draws, else Stan's split-chain estimate; NaN when it cannot be estimated (fewer than 8 draws).
   */
  readonly ess: number;
  /** Mean Metropolis–Hastings acceptance probability of the kept steps; NaN for exact draws. */
  readonly acceptanceRate: number;
  /** True when the draws are independent draws from the prior (β = 0). */
  readonly exact: boolean;
}

/** What {@link samplePowerPosteriors} returns. */
export interface PowerPosteriorSample {
  /** The inverse temperatures sampled, as given. */
  readonly betas: Float64Array;
  /** One entry per temperature, in the order of `betas`. */
  readonly temperatures: readonly TemperatureDraws[];
  /** The kernel used: "model", "hmc", "random-walk" or "user". */
  readonly kernel: "model" | "hmc" | "random-walk" | "user";
  /** Likelihood (or likelihood-gradient) evaluations made, warm-up included. */
  readonly nLikelihoodEvals: number;
  /** The final position of the last temperature's chain. */
  readonly lastPosition: Float64Array;
  /** Kept transitions of the chains that diverged (a trajectory that blew up, or NaN or +∞ from the model). */
  readonly divergences: number;
  /** Prior draws (β = 0) whose log likelihood was NaN or +∞, weighed as zero likelihood. */
  readonly nonFinite: number;
}

interface ResolvedPowerPosterior {
  kernel: PowerPosteriorKernelChoice;
  drawsPerTemperature: number;
  warmupPerTemperature: number;
  thin: number;
  hmc: Omit<HmcWarmupOptions, "target">;
  exactPrior: boolean;
}

/** Warm-up length from which kernels adapt within each temperature (below it, tuning is carried). */
const ADAPT_WARMUP = 50;
/** Warm-up length from which HMC also adapts its diagonal mass matrix (Stan's windows need ~150). */
const MASS_WARMUP = 150;
/** Gain of the carried (between-temperature) step-size adaptation: log ε += gain (ᾱ − α*). */
const CARRY_GAIN = 0.5;

/**
 * Fills the defaults of {@link PowerPosteriorOptions} (`defaults` overrides the library defaults, as
 * path sampling's random scheme does) and checks every field. Exported for the estimators.
 */
export function resolvePowerPosteriorOptions(
  options: PowerPosteriorOptions,
  where: string,
  defaults: { drawsPerTemperature?: number; warmupPerTemperature?: number; minDraws?: number } = {},
): ResolvedPowerPosterior {
  const kernel = options.kernel ?? "auto";
  if (
    typeof kernel !== "function" &&
    kernel !== "auto" &&
    kernel !== "model" &&
    kernel !== "hmc" &&
    kernel !== "random-walk"
  ) {
    throw new OccamError(
      "invalid-argument",
      `${where}: kernel must be "auto", "model", "hmc", "random-walk" or a function (beta) => Kernel, got ${String(kernel)}.`,
    );
  }
  const drawsPerTemperature = options.drawsPerTemperature ?? defaults.drawsPerTemperature ?? 1000;
  const warmupPerTemperature = options.warmupPerTemperature ?? defaults.warmupPerTemperature ?? 200;
  const thin = options.thin ?? 1;
  checkCount(drawsPerTemperature, "drawsPerTemperature", where, defaults.minDraws ?? 1);
  checkCount(warmupPerTemperature, "warmupPerTemperature", where, 0);
  checkCount(thin, "thin", where, 1);
  const hmc = options.hmc ?? {};
  if (hmc === null || typeof hmc !== "object") {
    throw new OccamError("invalid-argument", `${where}: hmc must be an object of HMC options.`);
  }
  if ("target" in hmc) {
    throw new OccamError("invalid-argument", `${where}: hmc.target is set per temperature; do not give it.`);
  }
  return {
    kernel,
    drawsPerTemperature,
    warmupPerTemperature,
    thin,
    hmc,
    exactPrior: options.exactPrior ?? true,
  };
}

function checkBetas(betas: ArrayLike<number>, where: string): Float64Array {
  const n = betas.length;
  if (!(n >= 1)) throw new OccamError("invalid-argument", `${where}: needs at least one temperature.`);
  for (let i = 0; i < n; i++) {
    const b = betas[i];
    if (!(b >= 0 && b <= 1)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: temperature ${i} is ${b}; every β must lie in [0, 1].`,
      );
    }
    if (i > 0 && b < betas[i - 1]) {
      throw new OccamError(
        "invalid-argument",
        `${where}: temperature ${i} (${b}) is below temperature ${i - 1} (${betas[i - 1]}); sort the temperatures in increasing order.`,
      );
    }
  }
  return Float64Array.from(betas);
}

function hasGradients(model: BayesModel): boolean {
  return typeof model.gradLogPrior === "function" && typeof model.gradLogLikelihood === "function";
}

/** Which kernel family "auto" (or the user's choice) resolves to, checking the model supports it. */
export function resolveKernelKind(
  model: BayesModel,
  choice: PowerPosteriorKernelChoice,
  where: string,
): "model" | "hmc" | "random-walk" | "user" {
  if (typeof choice === "function") return "user";
  if (choice === "auto") {
    if (typeof model.powerPosteriorKernel === "function") return "model";
    return hasGradients(model) ? "hmc" : "random-walk";
  }
  if (choice === "model" && typeof model.powerPosteriorKernel !== "function") {
    throw new OccamError(
      "invalid-argument",
      `${where}: kernel "model" needs model.powerPosteriorKernel(beta); this model has none (use "auto").`,
    );
  }
  if (choice === "hmc" && !hasGradients(model)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: kernel "hmc" needs model.gradLogPrior and model.gradLogLikelihood; give them or use "random-walk".`,
    );
  }
  return choice;
}

/** Per-coordinate standard deviations of `count` prior draws (1 where a coordinate does not vary). */
function priorScale(model: BayesModel, rng: Rng, count: number): Float64Array {
  const d = model.dim;
  const mean = new Float64Array(d);
  const m2 = new Float64Array(d);
  for (let t = 0; t < count; t++) {
    const x = model.samplePrior(rng);
    for (let j = 0; j < d; j++) {
      const delta = x[j] - mean[j];
      mean[j] += delta / (t + 1);
      m2[j] += delta * (x[j] - mean[j]);
    }
  }
  const sd = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    const s = Math.sqrt(m2[j] / (count - 1));
    sd[j] = Number.isFinite(s) && s > 0 ? s : 1;
  }
  return sd;
}

function checkPriorDraw(x: unknown, d: number, where: string): Float64Array {
  if (!(x instanceof Float64Array) || x.length !== d) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: model.samplePrior must return a Float64Array of length ${d} (model.dim).`,
    );
  }
  for (let j = 0; j < d; j++) {
    if (!Number.isFinite(x[j])) {
      throw new OccamError("non-finite", `${where}: a prior draw has coordinate ${j} = ${x[j]}.`);
    }
  }
  return x;
}

/** Standard deviation of each coordinate of a row-major n × d block of draws. */
function drawScale(values: Float64Array, n: number, d: number, out: Float64Array): void {
  for (let j = 0; j < d; j++) {
    let s = 0;
    for (let t = 0; t < n; t++) s += values[t * d + j];
    const m = s / n;
    let ss = 0;
    for (let t = 0; t < n; t++) ss += (values[t * d + j] - m) ** 2;
    const sd = Math.sqrt(ss / Math.max(1, n - 1));
    if (Number.isFinite(sd) && sd > 0) out[j] = sd;
  }
}

/** The label of temperature i for error messages. */
export function temperatureLabel(betas: ArrayLike<number>, i: number): string {
  return `β = ${betas[i]} (temperature ${i})`;
}

/**
 * Samples the power posteriors p_β(θ) ∝ p(θ) L(θ)^β at each β of `betas` (sorted increasing, in
 * [0, 1]; a ladder or the thesis's random temperatures), sequentially from the smallest β: each chain
 * starts at the last state of the previous temperature's chain, and the first at a prior draw. At β = 0
 * the draws are independent prior draws (option `exactPrior`).
 *
 * Kernels (option `kernel`): the model's exact `powerPosteriorKernel(β)` where it has one; else HMC on
 * `tempered(model, β)` (with gradients), else random-walk Metropolis with a per-coordinate proposal
 * scale 2.38/√d · sd, the sd taken from the previous temperature's draws (adaptive random walk). With
 * `warmupPerTemperature` ≥ 50 the kernel is tuned in the warm-up of each temperature,
 * starting from the previous temperature's tuning; with less (the thesis's one-draw-per-temperature
 * scheme) the tuning is carried across temperatures and its step size (or scale) moved after each by
 * log ε += 0.5 (ᾱ − α*), since a few steps cannot tune a kernel. A user factory may return a warm-up
 * (an `Adaptation`), which `runChain` runs in each temperature's warm-up.
 *
 * Throws an `OccamError` naming the temperature when the model returns NaN or +Infinity (a kernel's
 * own `non-finite` error is rethrown with the temperature prepended), and for bad options.
 */
export function samplePowerPosteriors(
  model: BayesModel,
  betas: ArrayLike<number>,
  options: PowerPosteriorOptions = {},
  where = "samplePowerPosteriors",
  resolved?: ResolvedPowerPosterior,
): PowerPosteriorSample {
  checkModel(model, where);
  if (typeof model.samplePrior !== "function") {
    throw new OccamError("invalid-argument", `${where}: model.samplePrior must be a function.`);
  }
  const opts = resolved ?? resolvePowerPosteriorOptions(options, where);
  const rng = resolveRng(options, where);
  const temps = checkBetas(betas, where);
  const kind = resolveKernelKind(model, opts.kernel, where);
  const d = model.dim;
  const { drawsPerTemperature: nDraws, warmupPerTemperature: warmup, thin } = opts;
  const adaptWithin = warmup >= ADAPT_WARMUP;

  // Tuning carried from temperature to temperature, initialised at the prior's scale.
  const scale = priorScale(model, rng, Math.max(20, 2 * d + 10));
  const inverseMass = new Float64Array(d);
  for (let j = 0; j < d; j++) inverseMass[j] = scale[j] * scale[j];
  let stepSize = options.hmc?.stepSize ?? 1;
  let rwFactor = 1;

  let position = checkPriorDraw(model.samplePrior(rng), d, where);
  let evaluations = 0;
  let divergences = 0;
  let nonFinite = 0;
  const temperatures: TemperatureDraws[] = [];

  for (let i = 0; i < temps.length; i++) {
    const beta = temps[i];
    const label = temperatureLabel(temps, i);
    const at = `${where} at ${label}`;
    const logLik = new Float64Array(nDraws);

    if (beta === 0 && opts.exactPrior) {
      const prior = priorDraws(model, rng, nDraws, logLik, at);
      nonFinite += prior.nonFinite;
      evaluations += nDraws;
      // The chain at the next temperature starts from a draw of positive likelihood.
      position = prior.lastPositive ?? position;
      const block = prior.block;
      if (nDraws >= 2) {
        drawScale(block, nDraws, d, scale);
        for (let j = 0; j < d; j++) inverseMass[j] = scale[j] * scale[j];
      }
      temperatures.push(
        Object.freeze({ beta, logLikelihood: logLik, ess: nDraws, acceptanceRate: Number.NaN, exact: true }),
      );
      continue;
    }

    const { kernel, tuned } = temperatureKernel(model, kind, opts, beta, at, {
      stepSize,
      inverseMass,
      scale,
      rwFactor,
    });

    let draws: ReturnType<typeof runChain>;
    try {
      draws = runChain(kernel, { draws: nDraws, warmup, thin, rng, initial: position });
    } catch (error) {
      if (error instanceof OccamError) throw new OccamError(error.code, `${at}: ${error.message}`);
      throw error;
    }
    const stats = draws.stats[0];
    // One evaluation at init, then what the steps reported (gradient evaluations for HMC).
    evaluations += 1 + stats.evaluations + stats.warmupEvaluations;
    divergences += stats.divergences;
    const values = draws.values;
    drawLogLikelihoods(model, values, nDraws, beta, logLik, at);
    evaluations += nDraws;
    position = Float64Array.from(values.subarray((nDraws - 1) * d, nDraws * d));

    // Carry the tuning to the next temperature.
    if (nDraws >= 2 && adaptWithin) drawScale(values, nDraws, d, scale);
    const accept = stats.acceptanceRate;
    const { hmc, rw } = tuned ?? {};
    if (hmc !== undefined) {
      stepSize = hmc.stepSize;
      if (!adaptWithin && Number.isFinite(accept)) stepSize *= Math.exp(CARRY_GAIN * (accept - 0.8));
      inverseMass.set(hmc.inverseMassMatrix);
    } else if (rw !== undefined) {
      if (adaptWithin) {
        // The proposal that worked here, rescaled by how the spread changed (sd of these draws over
        // the sd the base scale was built from): the next base is 2.38/√d · sd · rwFactor.
        rwFactor *= rw.scaleFactor;
      } else if (Number.isFinite(accept)) {
        rwFactor *= Math.exp(CARRY_GAIN * (accept - (d === 1 ? 0.44 : 0.234)));
      }
    }

    let ess = nDraws >= 8 ? effectiveSampleSize([logLik]) : Number.NaN;
    // A constant trace (the likelihood does not vary) has no autocorrelation to speak of.
    if (Number.isNaN(ess) && nDraws >= 8) ess = nDraws;
    temperatures.push(
      Object.freeze({ beta, logLikelihood: logLik, ess, acceptanceRate: accept, exact: false }),
    );
  }

  return Object.freeze({
    betas: temps,
    temperatures: Object.freeze(temperatures),
    kernel: kind,
    nLikelihoodEvals: evaluations,
    lastPosition: position,
    divergences,
    nonFinite,
  });
}

/**
 * `count` exact prior draws, their log likelihoods written into `logLik` (NaN or +∞, a model that
 * overflows in its prior's tail, weighed as zero and counted), and the last draw of positive likelihood.
 */
function priorDraws(
  model: BayesModel,
  rng: Rng,
  count: number,
  logLik: Float64Array,
  at: string,
): { block: Float64Array; nonFinite: number; lastPositive: Float64Array | undefined } {
  const d = model.dim;
  const block = new Float64Array(count * d);
  let nonFinite = 0;
  let lastPositive: Float64Array | undefined;
  for (let t = 0; t < count; t++) {
    const x = checkPriorDraw(model.samplePrior(rng), d, at);
    block.set(x, t * d);
    logLik[t] = model.logLikelihood(x);
    if (!isUsableLogDensity(logLik[t])) {
      logLik[t] = Number.NEGATIVE_INFINITY;
      nonFinite++;
    }
    if (logLik[t] > Number.NEGATIVE_INFINITY) lastPositive = x;
  }
  return { block, nonFinite, lastPositive };
}

/**
 * The log likelihood at each of the `count` draws in `values`, into `logLik`; −Infinity at a draw of a
 * power posterior with β > 0 (zero density there) is an OccamError.
 */
function drawLogLikelihoods(
  model: BayesModel,
  values: Float64Array,
  count: number,
  beta: number,
  logLik: Float64Array,
  at: string,
): void {
  const d = model.dim;
  for (let t = 0; t < count; t++) {
    const x = values.subarray(t * d, (t + 1) * d);
    logLik[t] = checkLogValue(model.logLikelihood(x), "logLikelihood", at, "draw", t, x, true);
    if (logLik[t] === Number.NEGATIVE_INFINITY && beta > 0) {
      throw new OccamError(
        "non-finite",
        `${at}: model.logLikelihood is −Infinity at draw ${t}, where the power posterior has zero density; the kernel returned a point outside the support.`,
      );
    }
  }
}

/**
 * The kernel of one temperature β: the model's exact one, the user's, or HMC or random-walk Metropolis
 * started from the tuning carried from the previous temperature (step size and inverse mass, or the
 * draws' scale times `rwFactor`), tuned within the temperature when its warm-up is long enough; once
 * the run is over, `tuned` holds the HMC or random-walk kernel that made the kept draws.
 */
function temperatureKernel(
  model: BayesModel,
  kind: ReturnType<typeof resolveKernelKind>,
  opts: ResolvedPowerPosterior,
  beta: number,
  at: string,
  carried: { stepSize: number; inverseMass: Float64Array; scale: Float64Array; rwFactor: number },
): {
  kernel: Kernel<PositionState, StepInfo> | Adaptation<PositionState, StepInfo>;
  tuned?: { readonly hmc?: HmcKernel; readonly rw?: RandomWalkKernel };
} {
  const d = model.dim;
  const warmup = opts.warmupPerTemperature;
  const adaptWithin = warmup >= ADAPT_WARMUP;
  const target = tempered(model, beta);
  if (kind === "model") {
    // Called as a method, so that a model written as a class keeps its `this`.
    const kernel = model.powerPosteriorKernel?.(beta) as Kernel<PositionState, StepInfo>;
    if (kernel === null || typeof kernel !== "object" || typeof kernel.step !== "function") {
      throw new OccamError("invalid-argument", `${at}: model.powerPosteriorKernel returned no kernel.`);
    }
    return { kernel };
  }
  if (kind === "user") {
    const kernel = (opts.kernel as PowerPosteriorKernelFactory)(beta);
    if (!isKernelOrAdaptation(kernel)) {
      throw new OccamError("invalid-argument", `${at}: the kernel factory returned no kernel.`);
    }
    return { kernel };
  }
  // A kernel tuned within this temperature reports its tuning to `tuned` at the end of the warm-up.
  const tuned: { hmc?: HmcKernel; rw?: RandomWalkKernel } = {};
  if (kind === "hmc") {
    const settings: HmcWarmupOptions = {
      trajectoryLength: opts.hmc.steps === undefined ? Math.PI / 2 : undefined,
      stepSizeJitter: 0.2,
      ...opts.hmc,
      target,
      stepSize: carried.stepSize,
      inverseMassMatrix: carried.inverseMass,
      adaptStepSize: adaptWithin && (opts.hmc.adaptStepSize ?? true),
      adaptMetric: warmup >= MASS_WARMUP && (opts.hmc.adaptMetric ?? true),
    };
    if (!(settings.adaptStepSize || settings.adaptMetric)) {
      const hmc = buildHmcKernel(settings);
      return { kernel: hmc, tuned: { hmc } };
    }
    const kernel = watchWarmup(hmcWarmup(settings), { tuned: (hmc) => (tuned.hmc = hmc) });
    return { kernel, tuned };
  }
  const base = new Float64Array(d);
  for (let j = 0; j < d; j++) base[j] = (2.38 / Math.sqrt(d)) * carried.scale[j] * carried.rwFactor;
  if (!adaptWithin) {
    const rw = buildRandomWalkKernel({ target, scale: base });
    return { kernel: rw, tuned: { rw } };
  }
  const kernel = watchWarmup(randomWalkWarmup({ target, scale: base }), { tuned: (rw) => (tuned.rw = rw) });
  return { kernel, tuned };
}
