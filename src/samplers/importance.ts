import { checkInteger, OccamError } from "../errors.js";
import { logMeanExp, logSumExp } from "../math/logspace.js";
import type { LogDensity } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { checkTarget, describePosition } from "./accept.js";

/**
 * A proposal distribution one can draw from and evaluate: the independent proposal of importance and
 * rejection sampling. `logPdf` must be the normalised log density of the draws `sample` makes.
 */
export interface Proposal {
  /** Dimension of the draws, checked against the target's when present. */
  readonly dim?: number;
  /** Writes one draw into `out`. */
  sample(rng: Rng, out: Float64Array): void;
  /** The normalised log density at `x`. */
  logPdf(x: Float64Array): number;
}

/** Checks a proposal's shape against the target's dimension, naming the caller. */
export function checkProposal(where: string, proposal: Proposal, dim: number): void {
  if (
    proposal === null ||
    typeof proposal !== "object" ||
    typeof proposal.sample !== "function" ||
    typeof proposal.logPdf !== "function"
  ) {
    throw new OccamError(
      "invalid-argument",
      `${where}: proposal must be an object with sample(rng, out) and logPdf(x).`,
    );
  }
  if (proposal.dim !== undefined && proposal.dim !== dim) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: the proposal's dim is ${proposal.dim} but the target's is ${dim}.`,
    );
  }
}

/**
 * Draws one proposal into `x` and returns its log density under the proposal, checking that the draw is
 * finite and that the proposal's log density there is finite (a proposal cannot draw where it has no
 * mass).
 */
export function drawProposal(where: string, rng: Rng, proposal: Proposal, x: Float64Array): number {
  proposal.sample(rng, x);
  let bad = 0;
  for (let i = 0; i < x.length; i++) bad += x[i] * 0;
  if (bad !== 0) {
    throw new OccamError(
      "non-finite",
      `${where}: the proposal drew the non-finite point ${describePosition(x)}.`,
    );
  }
  const logQ = proposal.logPdf(x);
  if (!Number.isFinite(logQ)) {
    throw new OccamError(
      "non-finite",
      `${where}: the proposal's logPdf is ${logQ} at its own draw ${describePosition(x)}; it must be finite wherever the proposal draws.`,
    );
  }
  return logQ;
}

/** Options of {@link importanceSample}. */
export interface ImportanceOptions {
  /**
   * The (unnormalised) target log density: a LogDensity, or a plain function θ ↦ log π(θ) when the
   * proposal states its `dim`. −∞ is allowed (zero weight), NaN and +∞ are not.
   */
  logTarget: LogDensity | ((theta: Float64Array) => number);
  /** The proposal q, which must cover the target's support. */
  proposal: Proposal;
  /** Number of proposal draws n (at least 2). */
  samples: number;
}

/** The weighted sample of {@link importanceSample} and what it estimates. */
export interface ImportanceResult {
  /** Dimension of the draws. */
  readonly dim: number;
  /** The n proposal draws, row-major n × dim: coordinate j of draw k is `samples[k * dim + j]`. */
  readonly samples: Float64Array;
  /** log wₖ = log π(xₖ) − log q(xₖ). */
  readonly logWeights: Float64Array;
  /** wₖ / Σ w, summing to 1. */
  readonly normalizedWeights: Float64Array;
  /** Kish's effective sample size (Σ w)² / Σ w², between 1 and n. */
  readonly ess: number;
  /** log of the mean weight: an estimate of log ∫ π(θ) dθ (the log evidence when π = prior × likelihood). */
  readonly logNormalizer: number;
  /** Delta-method standard error of `logNormalizer`: sd(w) / (mean(w) √n). */
  readonly stdErr: number;
  /** The self-normalised estimate of the target's mean, Σ w̄ₖ xₖ. */
  readonly mean: Float64Array;
}

/**
 * Self-normalised importance sampling: n independent draws from `proposal`, weighted by π/q, all in
 * log space. Returns the weights, Kish's ESS, the estimate of log ∫π with its delta-method standard
 * error, and the self-normalised mean. Throws `non-finite` when a draw or a log weight is NaN, when the
 * target is +∞, or when every weight is zero (the proposal misses the target).
 *
 * @example
 * const { logNormalizer, stdErr } = importanceSample(rng, { logTarget, proposal, samples: 10_000 });
 */
export function importanceSample(rng: Rng, options: ImportanceOptions): ImportanceResult {
  const where = "importanceSample";
  if (options === null || typeof options !== "object") {
    throw new OccamError(
      "invalid-argument",
      `${where}: options must be an object with logTarget, proposal and samples.`,
    );
  }
  const { proposal, samples: n } = options;
  let logTarget: (theta: Float64Array) => number;
  let dim: number;
  if (typeof options.logTarget === "function") {
    logTarget = options.logTarget;
    const proposalDim = (proposal as Proposal | undefined)?.dim;
    if (!(Number.isInteger(proposalDim) && (proposalDim as number) >= 1)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: logTarget is a plain function, so proposal.dim must give the dimension (or pass a LogDensity { dim, logDensity }).`,
      );
    }
    dim = proposalDim as number;
  } else {
    const target = options.logTarget;
    checkTarget(where, target, false);
    logTarget = (theta) => target.logDensity(theta);
    dim = target.dim;
  }
  checkProposal(where, proposal, dim);
  checkInteger(n, `${where}: samples`, 2);

  const samples = new Float64Array(n * dim);
  const logWeights = new Float64Array(n);
  const x = new Float64Array(dim);
  for (let k = 0; k < n; k++) {
    const logQ = drawProposal(where, rng, proposal, x);
    const logP = logTarget(x);
    if (Number.isNaN(logP) || logP === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${where}: the target log density is ${logP} at proposal draw ${k} ${describePosition(x)}; it must be finite or −Infinity.`,
      );
    }
    samples.set(x, k * dim);
    logWeights[k] = logP - logQ;
  }

  const logNormalizer = logMeanExp(logWeights);
  if (!(logNormalizer > Number.NEGATIVE_INFINITY)) {
    throw new OccamError(
      "non-finite",
      `${where}: all ${n} importance weights are zero; the proposal puts no draws where the target has mass (widen or move it).`,
    );
  }
  const logTotal = logSumExp(logWeights);
  let max = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < n; k++) if (logWeights[k] > max) max = logWeights[k];
  const normalizedWeights = new Float64Array(n);
  let sumSquares = 0;
  // Scaled weights w̃ = e^{log w − max} ∈ [0, 1] give sd(w)/mean(w) without overflow (the ratio is scale-free).
  let scaledSum = 0;
  for (let k = 0; k < n; k++) {
    const w = Math.exp(logWeights[k] - logTotal);
    normalizedWeights[k] = w;
    sumSquares += w * w;
    scaledSum += Math.exp(logWeights[k] - max);
  }
  const scaledMean = scaledSum / n;
  let scaledSs = 0;
  for (let k = 0; k < n; k++) {
    const dev = Math.exp(logWeights[k] - max) - scaledMean;
    scaledSs += dev * dev;
  }
  const stdErr = Math.sqrt(scaledSs / (n - 1)) / (scaledMean * Math.sqrt(n));

  const mean = new Float64Array(dim);
  for (let k = 0; k < n; k++) {
    const w = normalizedWeights[k];
    if (w === 0) continue;
    const row = k * dim;
    for (let j = 0; j < dim; j++) mean[j] += w * samples[row + j];
  }
  return { dim, samples, logWeights, normalizedWeights, ess: 1 / sumSquares, logNormalizer, stdErr, mean };
}
