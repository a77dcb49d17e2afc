/**
 * The MCMC moves of the tempering engine. Each sweep moves every particle of the cloud by one
 * transition that leaves the power posterior p(θ) L(θ)^β invariant, in the metric of the cloud's
 * covariance Σ = L Lᵀ (as tempered SMC in PyMC and blackjax tunes its kernels from the particles): a
 * correlated or badly scaled target looks like a standard normal in the whitened coordinates
 * z = L⁻¹(θ − m), so one step size and one trajectory length serve every direction.
 */
import {
  type MultivariateStudentT,
  multivariateStudentT,
} from "../../distributions/multivariate-student-t.js";
import { OccamError } from "../../errors.js";
import { lowerSolve, lowerTimesPlus, lowerTransposeTimes } from "../../math/triangular.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { standardNormals } from "../../random/variates.js";
import { isFiniteVector, isUsableLogDensity, metropolisHastings } from "../../samplers/accept.js";
import { leapfrog } from "../../samplers/integrators.js";
import type { Kernel, PositionState, StepInfo } from "../../samplers/kernel.js";
import { diagonalMetric, type Metric } from "../../samplers/metric.js";
import type { CloudShape, LikelihoodCounter, ParticleCloud } from "./cloud.js";

/**
 * The move of the particles: HMC in the cloud's metric (needs `gradLogPrior` and `gradLogLikelihood`),
 * random-walk Metropolis with the cloud's covariance (any model), or the model's own
 * `powerPosteriorKernel(β)` (an exact Gibbs or independent draw where the model has one).
 */
export type CloudMove = "hmc" | "random-walk" | "model";

/**
 * The move "auto" stands for (the model's kernel, else HMC with gradients, else the random walk),
 * or the move asked for, checked against what the model provides.
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

/**
 * Acceptance rate each move aims for: 0.8 for HMC (Stan's default; the engine takes the caller's
 * or the model's `hmcTargetAccept` instead where either gives one), 0.234 for random-walk
 * Metropolis (0.44 in one dimension; Roberts, Gelman & Gilks 1997).
 */
export function targetAcceptance(move: CloudMove, d: number): number {
  if (move === "hmc") return 0.8;
  return d === 1 ? 0.44 : 0.234;
}

/**
 * The step size a move starts from: HMC's leapfrog step in whitened units, d^(−1/4) (the order that
 * keeps a standard normal's acceptance steady as d grows); the random walk's 2.38/√d (optimal for a
 * Gaussian target).
 */
export function initialStepSize(move: CloudMove, d: number): number {
  return move === "hmc" ? d ** -0.25 : 2.38 / Math.sqrt(d);
}

/** HMC's integration time in whitened units: a quarter period of a standard normal's dynamics. */
const TRAJECTORY_LENGTH = Math.PI / 2;

/**
 * The largest step size tuning may reach. HMC: a third of the integration time, so that a trajectory
 * keeps at least three leapfrog steps; a longer step (the acceptance allows ε ≈ 1 for a standard
 * normal in a few dimensions) leaves one-step trajectories, which diffuse like Langevin moves and
 * relax log L slowly. The random walk: 2.38 (its optimum in one dimension).
 */
export function maxStepSize(move: CloudMove): number {
  return move === "hmc" ? TRAJECTORY_LENGTH / 3 : 2.38;
}
/** The most leapfrog steps one trajectory may take (a multimodal cloud's metric spans its modes). */
export const MAX_LEAPFROG_STEPS = 16;
/** A trajectory whose energy error exceeds this is divergent and rejected. */
const DIVERGENCE = 1000;

/** Buffers of the moves, made once per run. */
export class MoveScratch {
  readonly theta: Float64Array;
  readonly z: Float64Array;
  readonly momentum: Float64Array;
  readonly gradZ: Float64Array;
  readonly gradPrior: Float64Array;
  readonly gradLikelihood: Float64Array;
  readonly gradSum: Float64Array;
  readonly unitMetric: Metric;
  /** The HMC moves' memo of each particle's gradients (see {@link GradientMemo}), made at the first sweep. */
  private memo: GradientMemo | null = null;
  constructor(readonly dim: number) {
    const d = dim;
    this.theta = new Float64Array(d);
    this.z = new Float64Array(d);
    this.momentum = new Float64Array(d);
    this.gradZ = new Float64Array(d);
    this.gradPrior = new Float64Array(d);
    this.gradLikelihood = new Float64Array(d);
    this.gradSum = new Float64Array(d);
    this.unitMetric = diagonalMetric(new Float64Array(d).fill(1));
  }

  /** The memo for a cloud of n particles (a new, empty one when n changed). */
  memoFor(n: number): GradientMemo {
    if (this.memo === null || this.memo.n !== n) this.memo = new GradientMemo(n, this.dim);
    return this.memo;
  }
}

/**
 * The gradients of the log prior and log likelihood at the position where each particle's last HMC
 * trajectory ended and was accepted. A trajectory that starts where the particle's memo was written
 * (the same position, bit for bit: no resampling, independence or other move has put another point
 * there since) takes its start's gradient from here instead of evaluating the model again, which
 * saves one evaluation per trajectory of a few leapfrog steps. The cloud keeps the log prior and log
 * likelihood there; the gradients do not depend on β, so the memo holds across temperatures.
 */
export class GradientMemo {
  /** The position each particle's gradients were taken at (NaN, which equals nothing, until then). */
  readonly positions: Float64Array;
  readonly gradPrior: Float64Array;
  readonly gradLikelihood: Float64Array;
  constructor(
    readonly n: number,
    d: number,
  ) {
    this.positions = new Float64Array(n * d).fill(Number.NaN);
    this.gradPrior = new Float64Array(n * d);
    this.gradLikelihood = new Float64Array(n * d);
  }

  /** Whether particle i (its row starting at `row`) still sits where its gradients were taken. */
  holds(cloudPositions: Float64Array, row: number, d: number): boolean {
    for (let a = 0; a < d; a++) if (this.positions[row + a] !== cloudPositions[row + a]) return false;
    return true;
  }

  /** Records the gradients at `theta` for the particle whose row starts at `row`. */
  record(row: number, theta: Float64Array, gradPrior: Float64Array, gradLikelihood: Float64Array): void {
    // A loop rather than TypedArray.set, whose call costs more than the copy in a few dimensions.
    for (let a = 0; a < theta.length; a++) {
      this.positions[row + a] = theta[a];
      this.gradPrior[row + a] = gradPrior[a];
      this.gradLikelihood[row + a] = gradLikelihood[a];
    }
  }
}

/**
 * What one sweep did: the particles it moved, the sum of their acceptance probabilities, the divergent
 * trajectories (energy errors above the threshold) and the moves stopped where the model failed (NaN
 * or +∞, a non-finite gradient).
 */
export interface SweepOutcome {
  moved: number;
  acceptSum: number;
  divergent: number;
  failed: number;
}

/**
 * One HMC transition of every particle (or, with `stride` k, of one in k from a random offset), in
 * the whitened coordinates of `shape`: the target is log p(m + Lz) + β log L(m + Lz) with gradient
 * Lᵀ∇, unit mass, leapfrog steps of size ε (jittered ±20 %) for a time π/2 (jittered ±50 % in steps,
 * at most {@link MAX_LEAPFROG_STEPS}). A hand-written sweep rather than the samplers' HMC kernel: the
 * metric is dense, the particles share the buffers, and each particle's log prior and log likelihood
 * are kept, with their gradients in a {@link GradientMemo} that starts the next trajectory from the
 * same point without evaluating the model; `movedFlags[i]` is set when particle i accepts. Allocates
 * nothing after the first sweep of a run.
 */
export function hmcSweep(
  model: BayesModel,
  cloud: ParticleCloud,
  beta: number,
  shape: CloudShape,
  stepSize: number,
  rng: Rng,
  counter: LikelihoodCounter,
  s: MoveScratch,
  movedFlags: Uint8Array,
  stride = 1,
): SweepOutcome {
  const d = cloud.dim;
  const { mean, cholesky: L } = shape;
  const { theta, z, momentum: p, gradZ, gradPrior, gradLikelihood, gradSum, unitMetric } = s;
  const memo = s.memoFor(cloud.n);
  const gradLogPrior = model.gradLogPrior as (t: Float64Array, g: Float64Array) => number;
  const gradLogLikelihood = model.gradLogLikelihood as (t: Float64Array, g: Float64Array) => number;
  const context = `β = ${beta}`;
  let lastPrior = 0;
  let lastLikelihood = 0;
  // Set when the model returned NaN or +∞, or a non-finite gradient entry, on this trajectory.
  let modelFailed = false;
  // log π(z) and ∇_z log π = Lᵀ(∇ log p + β ∇ log L) at θ = m + Lz; records the parts for the cloud.
  // Where the model fails (NaN or +∞, a non-finite gradient) it returns NaN, which ends the trajectory.
  const density = (zz: Float64Array, g: Float64Array): number => {
    lowerTimesPlus(L, d, zz, mean, theta);
    lastPrior = gradLogPrior.call(model, theta, gradPrior);
    if (!isUsableLogDensity(lastPrior)) {
      modelFailed = true;
      return Number.NaN;
    }
    if (lastPrior === Number.NEGATIVE_INFINITY) {
      counter.outOfSupport++;
      return lastPrior;
    }
    counter.evaluations++;
    lastLikelihood = gradLogLikelihood.call(model, theta, gradLikelihood);
    if (!isUsableLogDensity(lastLikelihood)) {
      modelFailed = true;
      return Number.NaN;
    }
    if (lastLikelihood === Number.NEGATIVE_INFINITY) return lastLikelihood;
    if (!(isFiniteVector(gradPrior) && isFiniteVector(gradLikelihood))) {
      modelFailed = true;
      return Number.NaN;
    }
    whitenGradient(L, d, beta, gradPrior, gradLikelihood, 0, gradSum, g);
    return lastPrior + beta * lastLikelihood;
  };
  const nominal = Math.max(1, Math.min(MAX_LEAPFROG_STEPS, Math.round(TRAJECTORY_LENGTH / stepSize)));
  let acceptSum = 0;
  let divergent = 0;
  let failed = 0;
  let moved = 0;
  for (let i = stride === 1 ? 0 : rng.integer(stride); i < cloud.n; i += stride) {
    // A particle of zero likelihood (kept, at weight 0, only when never resampled) does not move.
    if (cloud.logLikelihood[i] === Number.NEGATIVE_INFINITY) continue;
    const row = i * d;
    // z = L⁻¹(θ − m).
    for (let a = 0; a < d; a++) z[a] = cloud.positions[row + a] - mean[a];
    lowerSolve(L, d, z, z);
    modelFailed = false;
    const fromMemo = memo.holds(cloud.positions, row, d);
    if (fromMemo) whitenGradient(L, d, beta, memo.gradPrior, memo.gradLikelihood, row, gradSum, gradZ);
    const logStart = fromMemo ? cloud.logPrior[i] + beta * cloud.logLikelihood[i] : density(z, gradZ);
    if (modelFailed) {
      // The model fails at the particle itself (a finite value with a non-finite gradient, far out at
      // small β): it cannot start a trajectory, and stays.
      failed++;
      continue;
    }
    if (!(logStart > Number.NEGATIVE_INFINITY && logStart < Number.POSITIVE_INFINITY)) {
      throw new OccamError(
        "internal",
        `${counter.where}: particle ${i} has zero density at ${context}; it cannot have been resampled.`,
      );
    }
    moved++;
    const kinetic0 = standardNormals(rng, p, d);
    const eps = stepSize * (1 + 0.2 * (2 * rng.uniform() - 1));
    const steps = Math.max(1, Math.round(nominal * (0.5 + rng.uniform())));
    let logEnd = logStart;
    for (let t = 0; t < steps; t++) {
      logEnd = leapfrog.step(density, z, p, gradZ, unitMetric, eps);
      if (!(logEnd > Number.NEGATIVE_INFINITY && logEnd < Number.POSITIVE_INFINITY)) break;
    }
    let kinetic = 0;
    for (let a = 0; a < d; a++) kinetic += p[a] * p[a];
    const energyError = -logEnd + 0.5 * kinetic - (-logStart + 0.5 * kinetic0);
    // Every trajectory that did not end at a finite energy within the threshold is rejected. One that
    // reached zero density met a wall (the prior's support, or a likelihood that underflows in its
    // tail), which holds no mass; one where the model failed (NaN, +∞, a non-finite gradient: a model
    // that overflows far out) is counted apart from the divergences of a region the moves cannot
    // follow (energy errors above the threshold).
    const wall = logEnd === Number.NEGATIVE_INFINITY;
    const isDivergent = !wall && !modelFailed && !(energyError <= DIVERGENCE);
    if (isDivergent) divergent++;
    if (modelFailed) failed++;
    const { accepted, acceptProbability } = metropolisHastings(
      rng,
      isDivergent || wall || modelFailed ? Number.NEGATIVE_INFINITY : -energyError,
    );
    acceptSum += acceptProbability;
    if (accepted) {
      // θ, lastPrior and lastLikelihood hold the trajectory's end: the last density evaluated.
      cloud.positions.set(theta, row);
      cloud.logPrior[i] = lastPrior;
      cloud.logLikelihood[i] = lastLikelihood;
      memo.record(row, theta, gradPrior, gradLikelihood);
      movedFlags[i] = 1;
    }
  }
  return { moved, acceptSum, divergent, failed };
}

/**
 * g = Lᵀ(∇ log p + β ∇ log L), the gradient of the tempered density in whitened coordinates, from
 * the gradients at `from` in `gradPrior` and `gradLikelihood`; `sum` is scratch.
 */
function whitenGradient(
  L: Float64Array,
  d: number,
  beta: number,
  gradPrior: Float64Array,
  gradLikelihood: Float64Array,
  from: number,
  sum: Float64Array,
  g: Float64Array,
): void {
  for (let a = 0; a < d; a++) sum[a] = gradPrior[from + a] + beta * gradLikelihood[from + a];
  lowerTransposeTimes(L, d, sum, g);
}

/**
 * One random-walk Metropolis transition of every particle: y = θ + scale · L ξ,
 * ξ ~ N(0, I), with the cloud's covariance L Lᵀ (PyMC's SMC kernel). Needs no gradients, so it serves
 * every model, and the full covariance makes it invariant to linear reparametrisation. Allocates nothing.
 */
export function randomWalkSweep(
  cloud: ParticleCloud,
  beta: number,
  shape: CloudShape,
  scale: number,
  rng: Rng,
  counter: LikelihoodCounter,
  s: MoveScratch,
  movedFlags: Uint8Array,
): SweepOutcome {
  const d = cloud.dim;
  const L = shape.cholesky;
  const { theta: y, z } = s;
  const score: ProposalScore = { logPrior: 0, logLikelihood: 0 };
  let acceptSum = 0;
  let moved = 0;
  let failed = 0;
  for (let i = 0; i < cloud.n; i++) {
    if (cloud.logLikelihood[i] === Number.NEGATIVE_INFINITY) continue;
    moved++;
    const row = i * d;
    for (let j = 0; j < d; j++) z[j] = rng.normal();
    lowerTimesPlus(L, d, z, null, y);
    for (let a = 0; a < d; a++) y[a] = cloud.positions[row + a] + scale * y[a];
    const status = scoreProposal(counter, y, score);
    if (status === "failed") failed++;
    const logRatio =
      status === "scored"
        ? score.logPrior + beta * score.logLikelihood - (cloud.logPrior[i] + beta * cloud.logLikelihood[i])
        : Number.NEGATIVE_INFINITY;
    const { accepted, acceptProbability } = metropolisHastings(rng, logRatio);
    acceptSum += acceptProbability;
    if (accepted) {
      cloud.positions.set(y, row);
      cloud.logPrior[i] = score.logPrior;
      cloud.logLikelihood[i] = score.logLikelihood;
      movedFlags[i] = 1;
    }
  }
  return { moved, acceptSum, divergent: 0, failed };
}

/** A Metropolis proposal's log prior and log likelihood, as {@link scoreProposal} leaves them. */
interface ProposalScore {
  logPrior: number;
  logLikelihood: number;
}

/**
 * Scores a Metropolis proposal y into `score`: "scored" when it can be accepted; "failed" when the
 * model returns NaN or +∞ there (a model failure, rejected and counted by the caller); "impossible"
 * outside the prior's support (counted by `counter`) or where the likelihood is 0.
 */
function scoreProposal(
  counter: LikelihoodCounter,
  y: Float64Array,
  score: ProposalScore,
): "scored" | "failed" | "impossible" {
  score.logPrior = counter.proposalLogPrior(y);
  score.logLikelihood = Number.NEGATIVE_INFINITY;
  if (!isUsableLogDensity(score.logPrior)) return "failed";
  if (score.logPrior === Number.NEGATIVE_INFINITY) {
    counter.outOfSupport++;
    return "impossible";
  }
  score.logLikelihood = counter.proposalLogLikelihood(y);
  if (!isUsableLogDensity(score.logLikelihood)) return "failed";
  return score.logLikelihood > Number.NEGATIVE_INFINITY ? "scored" : "impossible";
}

/**
 * The model's `powerPosteriorKernel(β)`, checked (called as a method, so that a model written as a
 * class keeps its `this`).
 */
export function modelKernel(model: BayesModel, beta: number, where: string): Kernel<PositionState, StepInfo> {
  const kernel = model.powerPosteriorKernel?.(beta) as Kernel<PositionState, StepInfo> | undefined;
  if (kernel === null || typeof kernel !== "object" || typeof kernel.step !== "function") {
    throw new OccamError(
      "invalid-argument",
      `${where}: model.powerPosteriorKernel(${beta}) is not a Kernel.`,
    );
  }
  return kernel;
}

/** One transition of the model's own kernel for every particle. */
export function kernelSweep(
  kernel: Kernel<PositionState, StepInfo>,
  cloud: ParticleCloud,
  beta: number,
  rng: Rng,
  counter: LikelihoodCounter,
  movedFlags: Uint8Array,
): SweepOutcome {
  const d = cloud.dim;
  const context = `β = ${beta}`;
  let acceptSum = 0;
  let moved = 0;
  let divergent = 0;
  for (let i = 0; i < cloud.n; i++) {
    if (cloud.logLikelihood[i] === Number.NEGATIVE_INFINITY) continue;
    moved++;
    const x = cloud.positions.subarray(i * d, (i + 1) * d);
    let position: Float64Array;
    try {
      const result = kernel.step(rng, kernel.init(Float64Array.from(x)));
      position = result.state.position;
      counter.evaluations += result.info?.evaluations ?? 0;
      if (result.info?.divergent === true) divergent++;
      const a = result.info?.acceptProbability;
      acceptSum += typeof a === "number" && Number.isFinite(a) ? a : 1;
    } catch (error) {
      if (error instanceof OccamError)
        throw new OccamError(error.code, `${counter.where} at ${context}: ${error.message}`);
      throw error;
    }
    if (!(position instanceof Float64Array) || position.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${counter.where}: the kernel at ${context} returned a position of the wrong length.`,
      );
    }
    for (let a = 0; a < d; a++) if (position[a] !== x[a]) movedFlags[i] = 1;
    x.set(position);
    cloud.logPrior[i] = counter.logPrior(x, context);
    cloud.logLikelihood[i] = counter.logLikelihood(x, context);
  }
  return { moved, acceptSum, divergent, failed: 0 };
}

/** The independence proposal's degrees of freedom (see {@link independenceProposal}). */
export const INDEPENDENCE_DOF = 30;

/**
 * An independence proposal: a multivariate Student-t with a shape's mean and covariance (the other
 * islands', see `IslandComplementShapes`; ν = {@link INDEPENDENCE_DOF}, scale matrix
 * (ν − 2)/ν · L Lᵀ). Thirty degrees of freedom rather than five: with the covariance estimated from the
 * particles, a heavier tail costs much of the acceptance in higher dimensions (a Gaussian target in
 * 50: about 0.45 at ν = 30, 0.3 at ν = 10), and a tail the proposal misses shows as particles that
 * stay, which ends the proposals' turn.
 */
export function independenceProposal(shape: CloudShape, d: number): MultivariateStudentT {
  const nu = INDEPENDENCE_DOF;
  const c = Math.sqrt((nu - 2) / nu);
  const choleskyL = new Float64Array(d * d);
  for (let k = 0; k < d * d; k++) choleskyL[k] = c * shape.cholesky[k];
  return multivariateStudentT({ dof: nu, location: shape.mean, choleskyL });
}

/** log q(θ) of particles `from` to `to` (exclusive) under an independence proposal, written to `logQ`. */
export function independenceLogDensities(
  cloud: ParticleCloud,
  proposal: MultivariateStudentT,
  logQ: Float64Array,
  s: MoveScratch,
  from: number,
  to: number,
): void {
  const d = cloud.dim;
  for (let i = from; i < to; i++) {
    for (let a = 0; a < d; a++) s.theta[a] = cloud.positions[i * d + a];
    logQ[i] = proposal.logPdf(s.theta);
  }
}

/**
 * One independence Metropolis–Hastings transition of particles `from` to `to` (exclusive): y ~ q, an
 * {@link independenceProposal}, accepted with probability min(1, π(y) q(θ) / (π(θ) q(y))). Needs one
 * likelihood evaluation and no gradient; where the cloud is close to Gaussian a few sweeps give fresh
 * draws (PyMC's SMC moves its particles so). `logQ` holds each particle's log q (see
 * {@link independenceLogDensities}); `movedFlags[i]` is set when particle i accepts. Allocates only
 * the outcome.
 */
export function independenceSweep(
  cloud: ParticleCloud,
  beta: number,
  proposal: MultivariateStudentT,
  buffers: {
    readonly rng: Rng;
    readonly counter: LikelihoodCounter;
    readonly scratch: MoveScratch;
    readonly logQ: Float64Array;
    readonly movedFlags: Uint8Array;
  },
  from: number,
  to: number,
): SweepOutcome {
  const { rng, counter, scratch: s, logQ, movedFlags } = buffers;
  const d = cloud.dim;
  const y = s.theta;
  const score: ProposalScore = { logPrior: 0, logLikelihood: 0 };
  let acceptSum = 0;
  let count = 0;
  let failed = 0;
  for (let i = from; i < to; i++) {
    if (cloud.logLikelihood[i] === Number.NEGATIVE_INFINITY) continue;
    count++;
    proposal.sample(rng, y);
    const logQy = proposal.logPdf(y);
    const status = scoreProposal(counter, y, score);
    if (status === "failed") failed++;
    const logRatio =
      status === "scored"
        ? score.logPrior +
          beta * score.logLikelihood -
          logQy -
          (cloud.logPrior[i] + beta * cloud.logLikelihood[i] - logQ[i])
        : Number.NEGATIVE_INFINITY;
    const { accepted, acceptProbability } = metropolisHastings(rng, logRatio);
    acceptSum += acceptProbability;
    if (accepted) {
      cloud.positions.set(y, i * d);
      cloud.logPrior[i] = score.logPrior;
      cloud.logLikelihood[i] = score.logLikelihood;
      logQ[i] = logQy;
      movedFlags[i] = 1;
    }
  }
  return { moved: count, acceptSum, divergent: 0, failed };
}
