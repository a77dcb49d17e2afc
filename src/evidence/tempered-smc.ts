/**
 * Adaptive tempered sequential Monte Carlo (as PyMC's `sample_smc` and blackjax's
 * `adaptive_tempered_smc`), and the particle-cloud machinery annealed importance sampling reuses.
 */
import { OccamError } from "../errors.js";
import { cholesky } from "../math/linalg.js";
import { kishEss, logMeanExp, logSumExp } from "../math/logspace.js";
import type { BayesModel } from "../model/model.js";
import { tempered } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { buildHmcKernel, type HmcKernel, type HmcState } from "../samplers/hmc.js";
import type { Kernel, PositionState, StepInfo } from "../samplers/kernel.js";
import {
  checkCount,
  checkModel,
  type EvidenceResult,
  evidenceResult,
  meanAndSd,
  type RandomOptions,
  resolveRng,
  secondsSince,
  showPoint,
} from "./result.js";
import { refineLadder, validateLadder } from "./schedule.js";

/** A particle system: N positions (row-major N × d) with their log prior and log likelihood. */
export interface ParticleCloud {
  readonly n: number;
  readonly dim: number;
  readonly positions: Float64Array;
  readonly logPrior: Float64Array;
  readonly logLikelihood: Float64Array;
}

/**
 * The MCMC move of the particles: random-walk Metropolis with the cloud's covariance, HMC with the
 * cloud's variances as its diagonal inverse mass matrix, or the model's own `powerPosteriorKernel(β)`
 * (an exact Gibbs or independent draw where the model has one).
 */
export type CloudMove = "random-walk" | "hmc" | "model";

/**
 * The MCMC move of one temperature, set from the particle cloud. Random walk: y = x + scale · L z,
 * z ~ N(0, I). HMC: leapfrog step size `scale`, diagonal inverse mass matrix `inverseMass`, integration
 * time π/2 in the metric's units. Model: nothing to tune (`cholesky` and `inverseMass` empty).
 */
export interface CloudProposal {
  /** The inverse temperature the move targets. */
  readonly beta: number;
  readonly move: CloudMove;
  /** Random walk: lower Cholesky factor (d × d, row-major) of the cloud's covariance (empty for HMC). */
  readonly cholesky: Float64Array;
  /** Random walk: the factor multiplying L (2.38/√d at first). HMC: the step size. Tuned by acceptance. */
  readonly scale: number;
  /** HMC: the cloud's variances, the diagonal inverse mass matrix (empty for the random walk). */
  readonly inverseMass: Float64Array;
}

/** Counts likelihood evaluations and checks every value, naming the temperature. */
export class LikelihoodCounter {
  /** Likelihood evaluations made so far. */
  evaluations = 0;
  constructor(
    private readonly model: BayesModel,
    /** The estimator's name, for messages. */
    readonly where: string,
  ) {}

  /** log L(θ), checked: NaN or +∞ throws `non-finite` naming `context` (e.g. "β = 0.3"). */
  logLikelihood(theta: Float64Array, context: string): number {
    this.evaluations++;
    const v = this.model.logLikelihood(theta);
    if (Number.isNaN(v) || v === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${this.where}: model.logLikelihood is ${v} at ${showPoint(theta)} (${context}); it must return a finite number or −Infinity.`,
      );
    }
    return v;
  }

  /** log p(θ), checked likewise (not counted as a likelihood evaluation). */
  logPrior(theta: Float64Array, context: string): number {
    const v = this.model.logPrior(theta);
    if (Number.isNaN(v) || v === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${this.where}: model.logPrior is ${v} at ${showPoint(theta)} (${context}); it must return a finite number or −Infinity.`,
      );
    }
    return v;
  }
}

/** `n` independent prior draws with their log prior and log likelihood. */
export function priorCloud(
  model: BayesModel,
  n: number,
  rng: Rng,
  counter: LikelihoodCounter,
): ParticleCloud {
  const d = model.dim;
  const positions = new Float64Array(n * d);
  const logPrior = new Float64Array(n);
  const logLikelihood = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = model.samplePrior(rng);
    if (!(x instanceof Float64Array) || x.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${counter.where}: model.samplePrior must return a Float64Array of length ${d} (model.dim).`,
      );
    }
    positions.set(x, i * d);
    logPrior[i] = counter.logPrior(x, `prior draw ${i}`);
    if (!(logPrior[i] > Number.NEGATIVE_INFINITY)) {
      throw new OccamError(
        "non-finite",
        `${counter.where}: model.logPrior is −Infinity at its own prior draw ${i}.`,
      );
    }
    logLikelihood[i] = counter.logLikelihood(x, `prior draw ${i}, β = 0`);
  }
  return { n, dim: d, positions, logPrior, logLikelihood };
}

/**
 * Writes the weighted mean of the cloud (weights e^{logW}, any scale) into `mean` and returns the
 * largest log weight and the sum of the weights relative to it, which the covariance passes reuse.
 */
function cloudMean(
  cloud: ParticleCloud,
  logW: Float64Array,
  mean: Float64Array,
): { max: number; total: number } {
  const { n, dim: d, positions } = cloud;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) if (logW[i] > max) max = logW[i];
  let total = 0;
  mean.fill(0);
  for (let i = 0; i < n; i++) {
    const w = Math.exp(logW[i] - max);
    total += w;
    for (let j = 0; j < d; j++) mean[j] += w * positions[i * d + j];
  }
  for (let j = 0; j < d; j++) mean[j] /= total;
  return { max, total };
}

/**
 * Lower Cholesky factor of the weighted covariance of the cloud (weights e^{logW}, any scale). A
 * singular covariance (collapsed cloud, fewer distinct particles than dimensions) gets a jitter of
 * 10⁻⁸ · mean variance on the diagonal, growing tenfold until the factorisation succeeds.
 */
export function cloudCholesky(
  cloud: ParticleCloud,
  logW: Float64Array,
  out: Float64Array,
  mean: Float64Array,
): void {
  const { n, dim: d, positions } = cloud;
  const { max, total } = cloudMean(cloud, logW, mean);
  out.fill(0);
  let sumW2 = 0;
  for (let i = 0; i < n; i++) {
    const w = Math.exp(logW[i] - max) / total;
    if (w === 0) continue;
    sumW2 += w * w;
    const row = i * d;
    for (let a = 0; a < d; a++) {
      const da = positions[row + a] - mean[a];
      for (let b = 0; b <= a; b++) out[a * d + b] += w * da * (positions[row + b] - mean[b]);
    }
  }
  // Unbiased weighted covariance: divide by 1 − Σw² (reliability weights).
  const correction = sumW2 < 1 ? 1 / (1 - sumW2) : 1;
  let trace = 0;
  for (let a = 0; a < d; a++) {
    for (let b = 0; b <= a; b++) out[a * d + b] *= correction;
    trace += out[a * d + a];
  }
  const base = trace > 0 && Number.isFinite(trace) ? trace / d : 1;
  const work = new Float64Array(d * d);
  for (let jitter = 0; ; jitter = jitter === 0 ? 1e-8 * base : jitter * 10) {
    work.set(out);
    for (let a = 0; a < d; a++) work[a * d + a] += jitter;
    try {
      cholesky(work, d, work);
      out.set(work);
      return;
    } catch (error) {
      if (!(error instanceof OccamError) || jitter > 1e6 * base) {
        throw new OccamError(
          "non-finite",
          `the particle cloud's covariance cannot be factorised (${error instanceof Error ? error.message : String(error)}); check the model for non-finite values.`,
        );
      }
    }
  }
}

/**
 * Systematic resampling: one uniform u, particles chosen at (u + i)/N on the cumulative weights.
 * Writes the chosen indices into `out`. Lower variance than multinomial resampling (Douc, Cappé &
 * Moulines 2005) and O(N).
 */
export function systematicResample(logW: Float64Array, rng: Rng, out: Int32Array): void {
  const n = logW.length;
  const logTotal = logSumExp(logW);
  const u = rng.uniform();
  let cumulative = Math.exp(logW[0] - logTotal);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const point = (u + i) / n;
    while (point > cumulative && j < n - 1) {
      j++;
      cumulative += Math.exp(logW[j] - logTotal);
    }
    out[i] = j;
  }
}

/** Reorders the cloud in place by `index` (particle i becomes old particle index[i]). */
function applyResample(
  cloud: ParticleCloud,
  index: Int32Array,
  scratch: Float64Array,
  scratchN: Float64Array,
): void {
  const { n, dim: d } = cloud;
  scratch.set(cloud.positions);
  for (let i = 0; i < n; i++) {
    const k = index[i];
    for (let j = 0; j < d; j++) cloud.positions[i * d + j] = scratch[k * d + j];
  }
  scratchN.set(cloud.logPrior);
  for (let i = 0; i < n; i++) cloud.logPrior[i] = scratchN[index[i]];
  scratchN.set(cloud.logLikelihood);
  for (let i = 0; i < n; i++) cloud.logLikelihood[i] = scratchN[index[i]];
}

/**
 * Random-walk Metropolis moves y = x + scale · L z of particles `from` … `to − 1` of the cloud,
 * `steps` each, targeting p(θ) L(θ)^β. Hand-written rather than a `Kernel` so that the proposal
 * buffers are shared by every particle and the log prior and log likelihood of each particle are
 * kept (the tempered density changes with β but they do not). Allocates nothing. Returns the
 * number of accepted moves.
 */
export function randomWalkMoves(
  cloud: ParticleCloud,
  from: number,
  to: number,
  proposal: CloudProposal,
  steps: number,
  rng: Rng,
  counter: LikelihoodCounter,
  z: Float64Array,
  y: Float64Array,
): number {
  const d = cloud.dim;
  const { beta, cholesky: L, scale } = proposal;
  const { positions, logPrior, logLikelihood } = cloud;
  const context = `β = ${beta}`;
  let accepted = 0;
  for (let i = from; i < to; i++) {
    const row = i * d;
    for (let s = 0; s < steps; s++) {
      for (let j = 0; j < d; j++) z[j] = rng.normal();
      for (let a = 0; a < d; a++) {
        let v = 0;
        for (let b = 0; b <= a; b++) v += L[a * d + b] * z[b];
        y[a] = positions[row + a] + scale * v;
      }
      const lpY = counter.logPrior(y, context);
      const u = rng.uniform();
      if (lpY === Number.NEGATIVE_INFINITY) continue;
      const llY = counter.logLikelihood(y, context);
      if (llY === Number.NEGATIVE_INFINITY) continue;
      const logRatio = lpY + beta * llY - (logPrior[i] + beta * logLikelihood[i]);
      if (u < Math.exp(Math.min(0, logRatio))) {
        for (let j = 0; j < d; j++) positions[row + j] = y[j];
        logPrior[i] = lpY;
        logLikelihood[i] = llY;
        accepted++;
      }
    }
  }
  return accepted;
}

/** The HMC kernel of a {@link CloudProposal}: fixed step size and mass matrix, no adaptation. */
export function cloudHmcKernel(model: BayesModel, proposal: CloudProposal): HmcKernel {
  return buildHmcKernel({
    target: tempered(model, proposal.beta),
    stepSize: proposal.scale,
    inverseMassMatrix: proposal.inverseMass,
    trajectoryLength: Math.PI / 2,
    stepSizeJitter: 0.2,
    adaptStepSize: false,
    adaptMassMatrix: false,
  });
}

/**
 * HMC moves of particles `from` … `to − 1`, `steps` transitions each, with a kernel from
 * {@link cloudHmcKernel}; each particle's log prior and log likelihood are updated at its new
 * position (the kernel's gradient evaluations and its initial one are counted). Returns the sum of
 * the acceptance probabilities.
 */
export function hmcMoves(
  kernel: HmcKernel,
  cloud: ParticleCloud,
  from: number,
  to: number,
  steps: number,
  rng: Rng,
  counter: LikelihoodCounter,
  beta: number,
): number {
  const d = cloud.dim;
  const context = `β = ${beta}`;
  let acceptSum = 0;
  for (let i = from; i < to; i++) {
    const x = cloud.positions.subarray(i * d, (i + 1) * d);
    let state: HmcState;
    let initial: HmcState;
    try {
      state = kernel.init(x);
      initial = state;
      counter.evaluations++;
      for (let s = 0; s < steps; s++) {
        const result = kernel.step(rng, state);
        state = result.state;
        counter.evaluations += result.info.evaluations;
        acceptSum += result.info.acceptProbability;
      }
    } catch (error) {
      if (error instanceof OccamError)
        throw new OccamError(error.code, `${counter.where} at ${context}: ${error.message}`);
      throw error;
    }
    // A rejected transition returns the same state object: nothing to update when all were rejected.
    if (state !== initial) {
      x.set(state.position);
      const lp = counter.logPrior(x, context);
      cloud.logPrior[i] = lp;
      // log L from the state's log density lp + β log L, saving a likelihood evaluation. Its rounding
      // error, ε(|lp| + β|log L|)/β, enters the weights multiplied by the next Δβ, which on any sensible
      // ladder is of the order of β: harmless. A tiny β or an extreme prior gets a fresh evaluation.
      const ell = (state.logDensity - lp) / beta;
      cloud.logLikelihood[i] =
        beta >= 1e-3 && Number.isFinite(ell) && Math.abs(lp) < 1e6 ? ell : counter.logLikelihood(x, context);
    }
  }
  return acceptSum;
}

/**
 * The model's `powerPosteriorKernel(β)`, checked (called as a method, so that a model written as a
 * class keeps its `this`). Throws an `OccamError` when the model has none or it returns no kernel.
 */
export function modelKernel(model: BayesModel, beta: number, where: string): Kernel<PositionState, StepInfo> {
  if (typeof model.powerPosteriorKernel !== "function") {
    throw new OccamError(
      "invalid-argument",
      `${where}: the move "model" needs model.powerPosteriorKernel(beta); this model has none (use "auto").`,
    );
  }
  const kernel = model.powerPosteriorKernel(beta) as Kernel<PositionState, StepInfo>;
  if (kernel === null || typeof kernel !== "object" || typeof kernel.step !== "function") {
    throw new OccamError("invalid-argument", `${where}: the kernel at β = ${beta} is not a Kernel.`);
  }
  return kernel;
}

/**
 * Moves particles `from` … `to − 1` of the cloud by `steps` transitions each of a `Kernel` (the
 * model's or a user's) targeting p(θ) L(θ)^β, and updates their log prior and log likelihood.
 * Returns the sum of the reported acceptance probabilities.
 */
export function kernelMoves(
  kernel: Kernel<PositionState, StepInfo>,
  cloud: ParticleCloud,
  from: number,
  to: number,
  steps: number,
  rng: Rng,
  counter: LikelihoodCounter,
  beta: number,
): number {
  const d = cloud.dim;
  const context = `β = ${beta}`;
  let acceptSum = 0;
  for (let i = from; i < to; i++) {
    const x = cloud.positions.subarray(i * d, (i + 1) * d);
    let state: PositionState;
    try {
      state = kernel.init(Float64Array.from(x));
      for (let s = 0; s < steps; s++) {
        const result = kernel.step(rng, state);
        state = result.state;
        counter.evaluations += result.info?.evaluations ?? 0;
        const a = result.info?.acceptProbability;
        acceptSum += typeof a === "number" && Number.isFinite(a) ? a : 1;
      }
    } catch (error) {
      if (error instanceof OccamError)
        throw new OccamError(error.code, `${counter.where} at ${context}: ${error.message}`);
      throw error;
    }
    const position = state.position;
    if (!(position instanceof Float64Array) || position.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${counter.where}: the kernel at ${context} returned a position of the wrong length.`,
      );
    }
    x.set(position);
    cloud.logPrior[i] = counter.logPrior(x, context);
    cloud.logLikelihood[i] = counter.logLikelihood(x, context);
  }
  return acceptSum;
}

/** Weighted variance of each coordinate of the cloud (weights e^{logW}), floored at a tiny positive value. */
export function cloudVariance(
  cloud: ParticleCloud,
  logW: Float64Array,
  out: Float64Array,
  mean: Float64Array,
): void {
  const { n, dim: d, positions } = cloud;
  const { max, total } = cloudMean(cloud, logW, mean);
  let sumW2 = 0;
  out.fill(0);
  for (let i = 0; i < n; i++) {
    const w = Math.exp(logW[i] - max) / total;
    sumW2 += w * w;
    for (let j = 0; j < d; j++) out[j] += w * (positions[i * d + j] - mean[j]) ** 2;
  }
  const correction = sumW2 < 1 ? 1 / (1 - sumW2) : 1;
  let avg = 0;
  for (let j = 0; j < d; j++) {
    out[j] *= correction;
    avg += out[j] / d;
  }
  // A coordinate the cloud does not resolve gets a small share of the mean variance (never 0).
  const floor = avg > 0 && Number.isFinite(avg) ? 1e-8 * avg : 1e-8;
  for (let j = 0; j < d; j++) if (!(out[j] > floor)) out[j] = floor;
}

/** Variance of `values` under the weights e^{logW} (zero-weight entries, which may be −∞, ignored). */
function weightedVariance(values: Float64Array, logW: Float64Array): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < logW.length; i++) if (logW[i] > max) max = logW[i];
  let total = 0;
  let mean = 0;
  for (let i = 0; i < logW.length; i++) {
    const w = Math.exp(logW[i] - max);
    if (w === 0) continue;
    total += w;
    mean += w * values[i];
  }
  mean /= total;
  let ss = 0;
  for (let i = 0; i < logW.length; i++) {
    const w = Math.exp(logW[i] - max);
    if (w > 0) ss += w * (values[i] - mean) ** 2;
  }
  return ss / total;
}

/** ESS of the incremental weights e^{Δ ℓ_i} (ℓ = −∞ gives weight 0). */
function incrementEss(ell: Float64Array, delta: number, logW: Float64Array): number {
  for (let i = 0; i < ell.length; i++) logW[i] = delta * ell[i];
  return kishEss(logW);
}

/**
 * The next inverse temperature: the β' in (β, 1] at which the ESS of the incremental weights
 * L^{β' − β} equals `target` (a number of particles), found by bisection (the ESS decreases in β');
 * 1 when even β' = 1 keeps the ESS above the target.
 */
export function nextTemperature(ell: Float64Array, beta: number, target: number, logW: Float64Array): number {
  if (incrementEss(ell, 1 - beta, logW) >= target) return 1;
  let lo = 0;
  let hi = 1 - beta;
  for (let it = 0; it < 100 && hi - lo > 1e-14 * hi; it++) {
    const mid = 0.5 * (lo + hi);
    if (incrementEss(ell, mid, logW) >= target) lo = mid;
    else hi = mid;
  }
  // lo keeps the ESS at or above the target. It is 0 only when no positive step keeps it (fewer
  // particles than the target have a positive likelihood): then take a tiny step, which gives the
  // zero-likelihood particles zero weight so that resampling removes them.
  const step = lo > 0 ? lo : Math.max(hi, 1e-12 * beta);
  return Math.min(1, beta + step);
}

/** Settings of one SMC run (internal, resolved). */
export interface SmcSettings {
  particles: number;
  targetEss: number;
  /** The MCMC move. */
  move: CloudMove;
  /** Fixed number of MCMC steps per stage, or "auto". */
  mcmcSteps: number | "auto";
  maxMcmcSteps: number;
  /** Fixed ladder (no adaptation of β) or undefined. */
  ladder: Float64Array | undefined;
  /** With a fixed ladder: resample when the ESS falls below this fraction of N. */
  resampleThreshold: number;
  maxStages: number;
}

/** One stage of a tempered SMC run. */
export interface SmcStage {
  readonly beta: number;
  /** log Z_β' − log Z_β estimated at this stage. */
  readonly logIncrement: number;
  /** Kish ESS of the weights after reweighting, as a fraction of N. */
  readonly essFraction: number;
  readonly resampled: boolean;
  /** Mean acceptance probability of the stage's moves; NaN when it made none (at β = 1). */
  readonly acceptanceRate: number;
  readonly mcmcSteps: number;
  readonly proposal: CloudProposal;
  /** Var[log L] under the reweighted cloud at this stage's β (before its moves), an estimate of Var_β[log L]. */
  readonly logLikelihoodVariance: number;
}

/** The outcome of one tempered SMC run. */
export interface SmcRun {
  readonly logZ: number;
  readonly stages: readonly SmcStage[];
  readonly evaluations: number;
}

/**
 * Acceptance rate the move aims for: 0.234 for random-walk Metropolis (0.44 in one dimension; Roberts,
 * Gelman & Gilks 1997), 0.8 for HMC (Stan's default).
 */
function targetAcceptance(move: CloudMove, d: number): number {
  if (move === "hmc") return 0.8;
  return d === 1 ? 0.44 : 0.234;
}

/**
 * One run of tempered SMC from the prior: reweight by L^{β' − β} (β' chosen adaptively or taken from a
 * ladder), accumulate log Z, resample systematically, move every particle by random-walk Metropolis
 * with the cloud's covariance. Used by {@link temperedSmc} and as the pilot of annealed importance
 * sampling, which records each stage's proposal.
 */
export function runTemperedSmc(model: BayesModel, rng: Rng, settings: SmcSettings, where: string): SmcRun {
  const counter = new LikelihoodCounter(model, where);
  const N = settings.particles;
  const d = model.dim;
  const cloud = priorCloud(model, N, rng, counter);
  const logW = new Float64Array(N); // current normalised-up-to-a-constant log weights (0 after resampling)
  const incW = new Float64Array(N);
  const scratchW = new Float64Array(N);
  const index = new Int32Array(N);
  const scratch = new Float64Array(N * d);
  const scratchN = new Float64Array(N);
  const mean = new Float64Array(d);
  const z = new Float64Array(d);
  const y = new Float64Array(d);
  const stages: SmcStage[] = [];
  let beta = 0;
  let logZ = 0;
  const move = settings.move;
  // Random walk: 2.38/√d (optimal for a Gaussian). HMC in the cloud's metric: d^(−1/4), the order of
  // the step size that keeps the acceptance of a standard Gaussian high as d grows.
  let scale = move === "hmc" ? d ** -0.25 : 2.38 / Math.sqrt(d);
  let lastAccept = Number.NaN;
  const ladder = settings.ladder;
  const alpha = targetAcceptance(move, d);

  for (let stage = 1; beta < 1; stage++) {
    if (stage > settings.maxStages) {
      throw new OccamError(
        "invalid-argument",
        `${where}: ${settings.maxStages} stages did not reach β = 1 (stopped at β = ${beta}); the ESS target may be too high, or the likelihood has an extreme range: lower targetEss or raise maxStages.`,
      );
    }
    const next =
      ladder !== undefined
        ? ladder[stage]
        : nextTemperature(cloud.logLikelihood, beta, settings.targetEss * N, scratchW);
    const delta = next - beta;
    // Incremental weights L^{β' − β}, and log Z += log Σ W_i w_i / Σ W_i.
    for (let i = 0; i < N; i++) incW[i] = logW[i] + delta * cloud.logLikelihood[i];
    const logIncrement = logSumExp(incW) - logSumExp(logW);
    if (!Number.isFinite(logIncrement)) {
      throw new OccamError(
        "non-finite",
        `${where}: every particle has zero weight at β = ${next} (all log likelihoods −Infinity, or one overflowed); check the model.`,
      );
    }
    logZ += logIncrement;
    logW.set(incW);
    const ess = kishEss(logW);
    const logLikelihoodVariance = weightedVariance(cloud.logLikelihood, logW);
    // The proposal's covariance from the reweighted cloud (the best picture of the new target).
    const chol = new Float64Array(move === "random-walk" ? d * d : 0);
    const inverseMass = new Float64Array(move === "hmc" ? d : 0);
    try {
      if (move === "random-walk") cloudCholesky(cloud, logW, chol, mean);
      else if (move === "hmc") cloudVariance(cloud, logW, inverseMass, mean);
    } catch (error) {
      throw new OccamError("non-finite", `${where} at β = ${next}: ${(error as Error).message}`);
    }
    // Resample every stage of the adaptive schedule (its ESS is at the target by construction); on a
    // fixed ladder when the ESS is low, or when a particle has zero weight (a zero-likelihood prior
    // draw), which the moves could not start from.
    let zeroWeight = false;
    for (let i = 0; i < N && !zeroWeight; i++) zeroWeight = logW[i] === Number.NEGATIVE_INFINITY;
    const resample = ladder === undefined || ess < settings.resampleThreshold * N || zeroWeight;
    if (resample) {
      systematicResample(logW, rng, index);
      applyResample(cloud, index, scratch, scratchN);
      logW.fill(0);
    }
    // Steps: fixed, or (PyMC's rule) enough that a particle moves at least once with probability
    // 0.99 at the last stage's acceptance rate: ⌈log(0.01) / log(1 − ᾱ)⌉, within [2, maxMcmcSteps].
    // HMC moves far in one accepted transition: "auto" gives it 4 (on the 10-d Gaussian test model,
    // 4 transitions gave half the variance × cost of 2).
    // No moves after the last reweighting (β = 1): they would not change the estimate.
    let steps: number;
    if (next === 1) {
      steps = 0;
    } else if (settings.mcmcSteps === "auto" && move === "hmc") {
      steps = Math.min(4, settings.maxMcmcSteps);
    } else if (settings.mcmcSteps === "auto" && move === "model") {
      // The model's kernel (exact Gibbs or independent draws, acceptance 1): one transition gives
      // resampled duplicates distinct positions; PyMC's rule, from 1, for a kernel that rejects.
      const a = Number.isFinite(lastAccept) ? Math.min(0.99, Math.max(1e-3, lastAccept)) : 0.99;
      // (less a rounding margin: at ᾱ = 0.99 the ratio is 1 + 2⁻⁵²)
      steps = Math.min(
        settings.maxMcmcSteps,
        Math.max(1, Math.ceil(Math.log(0.01) / Math.log(1 - a) - 1e-9)),
      );
    } else if (settings.mcmcSteps === "auto") {
      const a = Number.isFinite(lastAccept) ? Math.min(0.99, Math.max(1e-3, lastAccept)) : alpha;
      steps = Math.min(settings.maxMcmcSteps, Math.max(2, Math.ceil(Math.log(0.01) / Math.log(1 - a))));
    } else {
      steps = settings.mcmcSteps;
    }
    const proposal: CloudProposal = { beta: next, move, cholesky: chol, scale, inverseMass };
    let accepted = 0;
    if (steps > 0 && move === "random-walk") {
      accepted = randomWalkMoves(cloud, 0, N, proposal, steps, rng, counter, z, y);
    } else if (steps > 0 && move === "model") {
      accepted = kernelMoves(modelKernel(model, next, where), cloud, 0, N, steps, rng, counter, next);
    } else if (steps > 0) {
      accepted = hmcMoves(cloudHmcKernel(model, proposal), cloud, 0, N, steps, rng, counter, next);
    }
    const acceptanceRate = steps > 0 ? accepted / (N * steps) : Number.NaN;
    // Scale adaptation towards the optimal acceptance rate, for the next stage.
    if (Number.isFinite(acceptanceRate)) {
      lastAccept = acceptanceRate;
      if (move !== "model") scale *= Math.exp(acceptanceRate - alpha);
    }
    stages.push({
      beta: next,
      logIncrement,
      essFraction: ess / N,
      resampled: resample,
      acceptanceRate,
      mcmcSteps: steps,
      proposal,
      logLikelihoodVariance,
    });
    beta = next;
  }
  return { logZ, stages, evaluations: counter.evaluations };
}

/** Options of {@link temperedSmc}. */
export interface TemperedSmcOptions extends RandomOptions {
  /**
   * Number of particles N per run.
   * @defaultValue 1000
   */
  particles?: number;
  /**
   * The next β is chosen so that the ESS of the incremental weights is this fraction of N.
   * @defaultValue 0.5
   */
  targetEss?: number;
  /**
   * The MCMC move: random-walk Metropolis with the cloud's covariance (any model), HMC with the
   * cloud's variances as its mass matrix (needs `gradLogPrior` and `gradLogLikelihood`), the model's
   * `powerPosteriorKernel(β)` ("model"), or "auto": the model's kernel when it has one, else HMC
   * when the model has both gradients, else the random walk.
   * @defaultValue "auto"
   */
  move?: CloudMove | "auto";
  /**
   * MCMC steps per particle and stage: a number, or "auto" (random walk: PyMC's rule, enough for a
   * particle to move at least once with probability 0.99 at the previous stage's acceptance rate;
   * HMC: 4; the model's kernel: PyMC's rule from 1, i.e. 1 for an exact kernel).
   * @defaultValue "auto"
   */
  mcmcSteps?: number | "auto";
  /**
   * Upper bound of the "auto" number of steps.
   * @defaultValue 50
   */
  maxMcmcSteps?: number;
  /**
   * Independent runs, each on its own `rng.split` stream; the estimate is the mean of their log Z
   * and the standard error the sd of their log Z over √R. That standard error is itself estimated
   * from R values, so z = error / stdErr follows a Student-t with R − 1 degrees of freedom: with 4
   * runs |z| > 3 happens 6 % of the time, with 8 runs 2 %. Hence 8.
   * @defaultValue 8
   */
  repetitions?: number;
  /**
   * A fixed temperature ladder instead of the adaptive choice (then particles are resampled when
   * the ESS falls below half of N).
   */
  ladder?: ArrayLike<number>;
  /**
   * Stop with an `OccamError` after this many stages.
   * @defaultValue 10000
   */
  maxStages?: number;
}

/**
 * The move "auto" stands for (the model's kernel, else HMC with gradients, else the random walk), or
 * the move asked for, checked against what the model provides.
 */
export function resolveCloudMove(model: BayesModel, choice: CloudMove | "auto", where: string): CloudMove {
  if (choice !== "random-walk" && choice !== "hmc" && choice !== "model" && choice !== "auto") {
    throw new OccamError(
      "invalid-argument",
      `${where}: move must be "auto", "model", "random-walk" or "hmc", got ${String(choice)}.`,
    );
  }
  const gradients = typeof model.gradLogPrior === "function" && typeof model.gradLogLikelihood === "function";
  const exact = typeof model.powerPosteriorKernel === "function";
  if (choice === "hmc" && !gradients) {
    throw new OccamError(
      "invalid-argument",
      `${where}: move "hmc" needs model.gradLogPrior and model.gradLogLikelihood; give them or use move "random-walk".`,
    );
  }
  if (choice === "model" && !exact) {
    throw new OccamError(
      "invalid-argument",
      `${where}: move "model" needs model.powerPosteriorKernel(beta); this model has none (use "auto").`,
    );
  }
  if (choice !== "auto") return choice;
  return exact ? "model" : gradients ? "hmc" : "random-walk";
}

/** Fills the defaults of {@link TemperedSmcOptions} and checks them. */
function resolveSmcOptions(
  model: BayesModel,
  options: TemperedSmcOptions,
  where: string,
): SmcSettings & { repetitions: number } {
  const particles = options.particles ?? 1000;
  const targetEss = options.targetEss ?? 0.5;
  const mcmcSteps = options.mcmcSteps ?? "auto";
  const maxMcmcSteps = options.maxMcmcSteps ?? 50;
  const repetitions = options.repetitions ?? 8;
  const maxStages = options.maxStages ?? 10_000;
  const move = resolveCloudMove(model, options.move ?? "auto", where);
  checkCount(particles, "particles", where, 2);
  checkCount(repetitions, "repetitions", where, 1);
  checkCount(maxMcmcSteps, "maxMcmcSteps", where, 1);
  checkCount(maxStages, "maxStages", where, 1);
  if (!(targetEss > 0 && targetEss < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: targetEss must lie strictly between 0 and 1, got ${targetEss}.`,
    );
  }
  if (mcmcSteps !== "auto") checkCount(mcmcSteps, "mcmcSteps", where, 0);
  const ladder =
    options.ladder === undefined ? undefined : validateLadder(options.ladder, `${where}: ladder`);
  return {
    particles,
    targetEss,
    move,
    mcmcSteps,
    maxMcmcSteps,
    repetitions,
    ladder,
    resampleThreshold: 0.5,
    // A fixed ladder takes exactly its number of rungs.
    maxStages: ladder === undefined ? maxStages : Math.max(maxStages, ladder.length - 1),
  };
}

/**
 * Evidence by adaptive tempered sequential Monte Carlo (Del Moral, Doucet & Jasra 2006; the
 * adaptive temperature choice of Jasra et al. 2011, as in PyMC's `sample_smc` and blackjax's
 * `adaptive_tempered_smc`). N particles start from the prior; at each stage the next β is found by
 * bisection so that the ESS of the incremental weights L^{β' − β} is `targetEss` · N, log Z grows by
 * logMeanExp of those weights, the particles are resampled systematically and each moves by a few
 * random-walk Metropolis steps targeting p(θ) L(θ)^β'.
 *
 * The move (option `move`): the model's `powerPosteriorKernel(β)` when it has one (for a conjugate
 * model an exact draw from each power posterior: one per particle and stage, nothing to tune), else
 * HMC when the model has gradients, else random-walk Metropolis.
 * - Random walk (PyMC's SMC-MH kernel): proposal covariance the covariance of the reweighted particle
 *   cloud, scaled by 2.38/√d and tuned from stage to stage by log s += ᾱ − 0.234; "auto" steps by
 *   PyMC's rule. It needs no gradients, so every `BayesModel` qualifies, and the full cloud covariance
 *   makes it invariant to linear reparametrisation.
 * - HMC: the cloud's variances as the diagonal inverse mass matrix, integration time π/2 in that
 *   metric, step size started at d^(−1/4) and tuned from stage to stage by log ε += ᾱ − 0.8, 4
 *   transitions per stage. On the 10-dimensional Gaussian-mean test model it reached the same
 *   variance of log Ẑ with 6–12 times fewer likelihood evaluations than the random walk (whose
 *   d-dimensional diffusion needs ~20 steps per stage to decorrelate the particles), which is why it
 *   is the default where gradients exist.
 * Both step sizes are set from the previous stage's acceptance, i.e. from the particle system, as
 * in PyMC and blackjax; such adaptation makes Ẑ slightly biased (O(1/N) per stage), which is
 * negligible with the few stages an ESS-driven schedule takes.
 *
 * Estimate and standard error: from R independent runs (option `repetitions`). Each run's Ẑ_r is
 * unbiased for Z, so the estimate is the log of their mean, log((1/R) Σ Ẑ_r), computed in log space;
 * averaging log Ẑ_r instead would keep a Jensen bias of about −Var(log Ẑ_r)/2 that does not shrink
 * with R (on the 10-dimensional test model, −0.27 standard errors at 250 particles). The standard
 * error is the delta method's sd(Ẑ_r / mean Ẑ)/√R. It is itself estimated from R values, so
 * z = error/stdErr is heavier-tailed than a normal for small R; hence 8 runs by default. With R = 1
 * the standard error is +Infinity. A remaining small downward bias, roughly −6/N nats on that model,
 * comes from tuning the moves (mass matrix, step size) on the particles they then move.
 *
 * Diagnostics: per run, the β schedule found, its length, the weights' ESS fraction, acceptance rate
 * and number of MCMC steps of each stage (no moves follow the last reweighting, to β = 1: its
 * acceptance rate is NaN), and each run's log Z.
 *
 * @example
 * const result = temperedSmc(model, { particles: 2000, repetitions: 4, seed: 1 });
 */
export function temperedSmc(model: BayesModel, options: TemperedSmcOptions = {}): EvidenceResult {
  const start = performance.now();
  const where = "temperedSmc";
  checkModel(model, where);
  if (typeof model.samplePrior !== "function") {
    throw new OccamError("invalid-argument", `${where}: model.samplePrior must be a function.`);
  }
  const settings = resolveSmcOptions(model, options, where);
  const rng = resolveRng(options, where);
  const streams = rng.split(settings.repetitions);
  const runs: SmcRun[] = [];
  let evaluations = 0;
  for (let r = 0; r < settings.repetitions; r++) {
    const run = runTemperedSmc(model, streams[r], settings, where);
    runs.push(run);
    evaluations += run.evaluations;
  }
  const logZs = runs.map((run) => run.logZ);
  const R = settings.repetitions;
  const logZ = logMeanExp(logZs);
  // Relative spread of the runs' Ẑ_r around their mean, in log space: sd(Ẑ_r / mean Ẑ).
  const relative = logZs.map((l) => Math.exp(l - logZ));
  const { sd: relativeSd } = meanAndSd(relative);
  const stdErr = R > 1 ? relativeSd / Math.sqrt(R) : Number.POSITIVE_INFINITY;
  const { sd } = meanAndSd(logZs);
  const warnings: string[] = [];
  if (R === 1) warnings.push("one repetition: the standard error cannot be estimated; use repetitions ≥ 2.");
  else if (sd > 1) {
    warnings.push(
      `the runs' log Z differ by ${sd.toFixed(2)} nats (sd): the mean of their Z is dominated by a few runs; ` +
        "use more particles.",
    );
  }
  return evidenceResult({
    method: "tempered-smc",
    logZ,
    stdErr,
    nLikelihoodEvals: evaluations,
    seconds: secondsSince(start),
    diagnostics: {
      particles: settings.particles,
      move: settings.move,
      repetitions: R,
      targetEss: settings.targetEss,
      repetitionLogZ: logZs,
      repetitionSd: sd,
      stages: runs.map((run) => run.stages.length),
      schedule: runs.map((run) => run.stages.map((s) => s.beta)),
      essFractions: runs.map((run) => run.stages.map((s) => s.essFraction)),
      acceptanceRates: runs.map((run) => run.stages.map((s) => s.acceptanceRate)),
      mcmcSteps: runs.map((run) => run.stages.map((s) => s.mcmcSteps)),
      meanLogEstimate: meanAndSd(logZs).mean,
      warnings,
    },
  });
}

/**
 * How estimators that take a fixed ladder (stepping-stone, path sampling, annealed importance
 * sampling) find one when the caller gives none: see {@link adaptiveLadder}.
 */
export interface AdaptiveLadderOptions {
  /**
   * Particles of the pilot run.
   * @defaultValue 200
   */
  particles?: number;
  /**
   * Each pilot stage's β is chosen so that the ESS of the incremental weights L^{β' − β} over the
   * (resampled) particles is this fraction of them.
   * @defaultValue 0.5
   */
  targetEss?: number;
  /**
   * Each pilot stage is split into this many rungs by {@link refineLadder}; each rung's weights
   * then have about 1/refine of a stage's log-variance. The default is the estimator's own
   * (stepping-stone and path sampling: a number; annealed importance sampling: from the pilot).
   */
  refine?: number;
  /**
   * The pilot's MCMC move (see {@link TemperedSmcOptions.move}).
   * @defaultValue "auto"
   */
  move?: CloudMove | "auto";
  /**
   * Stop with an `OccamError` after this many pilot stages.
   * @defaultValue 10000
   */
  maxStages?: number;
}

/** What {@link adaptiveLadder} returns. */
export interface AdaptiveLadder {
  /** The ladder for the estimator: the pilot's schedule, each stage split into `refine` rungs. */
  readonly ladder: Float64Array;
  /** The pilot's schedule: 0 and the β of each stage. */
  readonly pilotLadder: Float64Array;
  /** Each pilot stage (its tuned move, ESS, Var[log L] at its β). */
  readonly stages: readonly SmcStage[];
  /** The number of rungs each pilot stage was split into. */
  readonly refine: number;
  /** The pilot's move. */
  readonly move: CloudMove;
  /** The pilot's own (rough, few-particle) log Z estimate. */
  readonly pilotLogZ: number;
  /** Likelihood evaluations of the pilot. */
  readonly evaluations: number;
}

/** Resolved {@link AdaptiveLadderOptions} (refine may be left to the estimator). */
export interface ResolvedAdaptiveLadder {
  particles: number;
  targetEss: number;
  refine: number | undefined;
  move: CloudMove | "auto";
  maxStages: number;
}

/** Fills the defaults of {@link AdaptiveLadderOptions} and checks them (for the estimators). */
export function resolveAdaptiveLadderOptions(
  options: AdaptiveLadderOptions | undefined,
  where: string,
): ResolvedAdaptiveLadder {
  const o = options ?? {};
  if (o === null || typeof o !== "object") {
    throw new OccamError(
      "invalid-argument",
      `${where}: adaptive must be an object of AdaptiveLadderOptions.`,
    );
  }
  const particles = o.particles ?? 200;
  const targetEss = o.targetEss ?? 0.5;
  const maxStages = o.maxStages ?? 10_000;
  checkCount(particles, "adaptive.particles", where, 2);
  checkCount(maxStages, "adaptive.maxStages", where, 1);
  if (o.refine !== undefined) checkCount(o.refine, "adaptive.refine", where, 1);
  if (!(targetEss > 0 && targetEss < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: adaptive.targetEss must lie strictly between 0 and 1, got ${targetEss}.`,
    );
  }
  return { particles, targetEss, refine: o.refine, move: o.move ?? "auto", maxStages };
}

/**
 * A temperature ladder adapted to the model, for estimators that need a fixed one: a pilot run of
 * adaptive tempered SMC ({@link runTemperedSmc}: from prior draws, each next β found by bisection so
 * that the ESS of the incremental weights L^{β' − β} is `targetEss` of the particles, then resampling
 * and moves at β', with the model's exact kernel when it has one) places temperatures where the power
 * posteriors move, so that consecutive ones overlap. Fixed ladders cannot: with a prior much broader
 * than the likelihood the power posterior changes at β ~ 10⁻¹⁰ … 10⁻⁴, below the first rungs of
 * powerLadder(32, 4). Each pilot stage is then split into `refine` rungs ({@link refineLadder});
 * `refine` given as a function is computed from the pilot's stages.
 *
 * The estimator then samples afresh on this ladder, so that, given the ladder, its estimate keeps the
 * properties it has on any fixed ladder (stepping-stone and AIS unbiased for Z).
 */
export function adaptiveLadder(
  model: BayesModel,
  rng: Rng,
  options: ResolvedAdaptiveLadder,
  refine: number | ((stages: readonly SmcStage[]) => number),
  where: string,
): AdaptiveLadder {
  const move = resolveCloudMove(model, options.move, where);
  const run = runTemperedSmc(
    model,
    rng,
    {
      particles: options.particles,
      targetEss: options.targetEss,
      move,
      mcmcSteps: "auto",
      maxMcmcSteps: 50,
      ladder: undefined,
      resampleThreshold: 0.5,
      maxStages: options.maxStages,
    },
    `${where} (adaptive ladder pilot)`,
  );
  const pilotLadder = Float64Array.from([0, ...run.stages.map((s) => s.beta)]);
  const m = options.refine ?? (typeof refine === "function" ? refine(run.stages) : refine);
  checkCount(m, "adaptive.refine", where, 1);
  return Object.freeze({
    ladder: refineLadder(pilotLadder, m),
    pilotLadder,
    stages: run.stages,
    refine: m,
    move,
    pilotLogZ: run.logZ,
    evaluations: run.evaluations,
  });
}

/** A JSON-friendly summary of an adaptive ladder for an estimator's diagnostics. */
export function adaptiveSummary(pilot: AdaptiveLadder): Record<string, unknown> {
  return {
    pilotLadder: Array.from(pilot.pilotLadder),
    refine: pilot.refine,
    move: pilot.move,
    pilotLogZ: pilot.pilotLogZ,
    pilotEvaluations: pilot.evaluations,
  };
}
