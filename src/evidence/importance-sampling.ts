import { multivariateNormal } from "../distributions/multivariate-normal.js";
import { multivariateStudentT } from "../distributions/multivariate-student-t.js";
import { OccamError } from "../errors.js";
import type { Draws } from "../model/draws.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import type { Rng } from "../random/rng.js";
import {
  checkCount,
  checkLogValue,
  checkModel,
  type RandomOptions,
  resolveRng,
  showPoint,
} from "./checks.js";
import { fitGaussian, type PosteriorDrawsInput, posteriorDraws, unboundedDraws } from "./draws-input.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";
import { logWeightSummary, weightReasons } from "./weights.js";

const WHERE = "importanceSampling";

/**
 * An importance-sampling proposal q: a sampler and its normalised log density. Every occam
 * multivariate distribution (`multivariateNormal`, `multivariateStudentT`) is one.
 */
export interface ImportanceProposal {
  /** A draw from q, written to `out` (and returned), or returned as a new array. */
  sample(rng: Rng, out: Float64Array): Float64Array;
  /** log q(x), normalised: q must integrate to 1 for log Z to be right. */
  logPdf(x: Float64Array): number;
}

/** Options of {@link importanceSampling}. */
export interface ImportanceSamplingOptions extends RandomOptions {
  /** The proposal q. Give either this or `draws` (from which a proposal is fitted). */
  proposal?: ImportanceProposal;
  /**
   * Posterior draws (from a sampler) to fit the proposal to: their mean and covariance define a
   * normal or Student-t proposal. Used only when `proposal` is not given.
   */
  draws?: PosteriorDrawsInput;
  /**
   * Family of the fitted proposal. The Student-t's heavier tails keep the weights bounded where the
   * posterior's tails are heavier than a normal's.
   * @defaultValue "student-t"
   */
  proposalFamily?: "normal" | "student-t";
  /**
   * Degrees of freedom of the fitted Student-t proposal.
   * @defaultValue 5
   */
  dof?: number;
  /**
   * Scale inflation of the fitted proposal: its Cholesky factor is `scale` times that of the draws'
   * covariance (so the scale matrix is scale² Σ). A proposal a little wider than the posterior keeps
   * the weight variance finite.
   * @defaultValue 1.2
   */
  scale?: number;
  /**
   * Number of proposal draws (per repetition).
   * @defaultValue 10000
   */
  samples?: number;
}

/** Diagnostics of {@link importanceSampling}. */
export interface ImportanceSamplingDiagnostics {
  /** What the proposal was: the user's, or a normal / Student-t fitted to the draws. */
  readonly proposal: string;
  readonly samples: number;
  /** Kish's effective sample size of the weights, and as a fraction of the draws. */
  readonly ess: number;
  readonly essFraction: number;
  /** The largest weight's share of the total. */
  readonly maxWeightShare: number;
  /** Pareto k̂ of the weights' upper tail (null when it cannot be estimated). */
  readonly paretoK: number | null;
}

/** The result of {@link importanceSampling}. */
export type ImportanceSamplingResult = EvidenceEstimate<"importance", ImportanceSamplingDiagnostics>;

interface ResolvedImportanceOptions {
  samples: number;
  proposalFamily: "normal" | "student-t";
  dof: number;
  scale: number;
}

function resolveImportanceOptions(options: ImportanceSamplingOptions): ResolvedImportanceOptions {
  const samples = options.samples ?? 10_000;
  const proposalFamily = options.proposalFamily ?? "student-t";
  const dof = options.dof ?? 5;
  const scale = options.scale ?? 1.2;
  checkCount(samples, "samples", WHERE, 2);
  if (proposalFamily !== "normal" && proposalFamily !== "student-t") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: proposalFamily must be "normal" or "student-t", got ${String(proposalFamily)}.`,
    );
  }
  if (!(Number.isFinite(dof) && dof > 0)) {
    throw new OccamError("invalid-argument", `${WHERE}: dof must be a finite number > 0, got ${dof}.`);
  }
  if (!(Number.isFinite(scale) && scale > 0)) {
    throw new OccamError("invalid-argument", `${WHERE}: scale must be a finite number > 0, got ${scale}.`);
  }
  return { samples, proposalFamily, dof, scale };
}

/**
 * A normal or Student-t proposal fitted to posterior draws: location their mean, Cholesky factor
 * `scale` times that of their covariance. Throws `not-positive-definite` when the draws' covariance
 * is singular (fewer distinct draws than parameters, or a parameter that never moves).
 */
export function fitProposal(
  draws: Draws,
  family: "normal" | "student-t",
  dof: number,
  scale: number,
  where: string,
): ImportanceProposal & { readonly description: string } {
  const _d = draws.dim;
  const { mean, L } = fitGaussian(draws, where, "to fit the proposal to");
  for (let i = 0; i < L.length; i++) L[i] *= scale;
  if (family === "normal") {
    const q = multivariateNormal({ mean, choleskyL: L });
    return { sample: q.sample, logPdf: q.logPdf, description: `normal fitted to the draws, scale ${scale}` };
  }
  const q = multivariateStudentT({ dof, location: mean, choleskyL: L });
  return {
    sample: q.sample,
    logPdf: q.logPdf,
    description: `student-t(${dof}) fitted to the draws, scale ${scale}`,
  };
}

/**
 * Evidence by importance sampling (seed 002 option 3; thesis eqs. 5.4–5.7):
 * Z = E_q[p(θ) L(θ) / q(θ)] ≈ (1/N) Σ w_i, computed in log space as log Z = logMeanExp(log w),
 * log w = log p(θ) + log L(θ) − log q(θ), θ ~ q.
 *
 * The proposal is the user's `proposal` (on the model's own scale), or a normal / Student-t fitted to
 * posterior `draws` (on the unbounded scale when the model declares bounds). The standard error is the
 * delta method in log space, sd(w / w̄) / √N, from the weights' variance, which is honest only when
 * that variance is finite and enough draws carry it: the result is marked unreliable when the
 * weights' Pareto k̂ exceeds 0.7 (Vehtari et al. 2024, Pareto smoothed importance sampling) or their
 * Kish ESS is below 100. A proposal fitted to draws from one mode of a multimodal posterior misses
 * the others without any sign in the weights: draws from `samplePosterior` come from several chains
 * started apart, whose disagreement `estimateEvidence` reports.
 *
 * Throws an `OccamError` for a NaN or +Infinity log likelihood or log prior (naming the draw), a
 * non-finite proposal draw or log q, a proposal draw of the wrong length, and when both or neither
 * of `proposal` and `draws` are given.
 */
export function importanceSampling(
  model: BayesModel,
  options: ImportanceSamplingOptions = {},
): ImportanceSamplingResult {
  const start = performance.now();
  checkModel(model, WHERE);
  const o = resolveImportanceOptions(options);
  const rng = resolveRng(options, WHERE);
  const d = model.dim;

  let proposal: ImportanceProposal;
  let description: string;
  let target = model;
  if (options.proposal !== undefined) {
    if (options.draws !== undefined) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: give either a proposal or draws to fit one to, not both.`,
      );
    }
    const p = options.proposal;
    if (
      p === null ||
      typeof p !== "object" ||
      typeof p.sample !== "function" ||
      typeof p.logPdf !== "function"
    ) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: proposal must be an object with sample(rng, out) and logPdf(x), e.g. multivariateStudentT(...).`,
      );
    }
    proposal = p;
    description = "user proposal";
  } else {
    if (options.draws === undefined) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: needs a proposal ({ proposal }) or posterior draws to fit one to ({ draws }, e.g. from runChain); ` +
          "occam models do not offer an exact posterior sampler to call instead.",
      );
    }
    const view = unbounded(model, WHERE);
    target = view.model;
    const draws = unboundedDraws(view, posteriorDraws(options.draws, d, WHERE, Math.max(d + 2, 10)));
    const fitted = fitProposal(draws, o.proposalFamily, o.dof, o.scale, WHERE);
    proposal = fitted;
    description = fitted.description;
  }

  const total = o.samples;
  const logWeights = new Float64Array(total);
  const buffer = new Float64Array(d);
  let evals = 0;
  for (let i = 0; i < total; i++) {
    const theta = proposal.sample(rng, buffer);
    if (!(theta instanceof Float64Array) || theta.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${WHERE}: proposal.sample returned ${theta instanceof Float64Array ? `length ${theta.length}` : String(theta)} ` +
          `at proposal draw ${i}; it must return a Float64Array of length ${d} (model.dim).`,
      );
    }
    for (let j = 0; j < d; j++) {
      if (!Number.isFinite(theta[j])) {
        throw new OccamError(
          "non-finite",
          `${WHERE}: proposal draw ${i} has coordinate ${j} = ${theta[j]}; the proposal must return finite values.`,
        );
      }
    }
    const lq = proposal.logPdf(theta);
    if (!Number.isFinite(lq)) {
      throw new OccamError(
        "non-finite",
        `${WHERE}: proposal.logPdf is ${lq} at its own draw ${i} ${showPoint(theta)}; it must be finite wherever the proposal samples.`,
      );
    }
    const lp = checkLogValue(target.logPrior(theta), "logPrior", WHERE, "proposal draw", i, theta, true);
    if (lp === Number.NEGATIVE_INFINITY) {
      logWeights[i] = lp;
      continue;
    }
    evals++;
    const ll = checkLogValue(
      target.logLikelihood(theta),
      "logLikelihood",
      WHERE,
      "proposal draw",
      i,
      theta,
      true,
    );
    logWeights[i] = lp + ll - lq;
  }

  const summary = logWeightSummary(logWeights, WHERE);
  const paretoK = paretoKHat(logWeights);
  return evidenceResult({
    method: "importance",
    logZ: summary.logZ,
    stdErr: summary.stdErr,
    nLikelihoodEvals: evals,
    seconds: secondsSince(start),
    unreliable: weightReasons(summary.ess, total, paretoK, "the importance weights"),
    diagnostics: {
      proposal: description,
      samples: total,
      ess: summary.ess,
      essFraction: summary.ess / total,
      maxWeightShare: summary.maxWeightShare,
      paretoK: Number.isFinite(paretoK) ? paretoK : null,
    },
  });
}

/**
 * The Pareto shape estimate k̂ of the upper tail of importance weights, from their logs: a
 * generalised Pareto distribution fitted to the largest M = ⌈min(0.2 S, 3√S)⌉ weights above the
 * next largest, by Zhang & Stephens (2009, Technometrics 51(3)) with the weakly informative prior
 * shrinkage of Vehtari et al. (2024, JMLR 25), as in the R package loo's `gpdfit`. k̂ < 0.5: the weights
 * have a finite variance; 0.5–0.7: finite mean, usable; > 0.7: the estimate is unreliable. NaN when
 * the tail has fewer than 5 weights or they are all equal.
 */
export function paretoKHat(logWeights: ArrayLike<number>): number {
  const S = logWeights.length;
  const M = Math.ceil(Math.min(0.2 * S, 3 * Math.sqrt(S)));
  if (M < 5 || M >= S) return Number.NaN;
  const sorted = Float64Array.from(logWeights).sort();
  const max = sorted[S - 1];
  if (!Number.isFinite(max)) return Number.NaN;
  const cutoff = Math.exp(sorted[S - M - 1] - max);
  // Tail exceedances over the cutoff, ascending, on the scale of the largest weight (k̂ is scale-free).
  const x = new Float64Array(M);
  for (let i = 0; i < M; i++) x[i] = Math.exp(sorted[S - M + i] - max) - cutoff;
  if (!(x[M - 1] > 0) || x[M - 1] - x[0] <= 0) return Number.NaN;
  return gpdShape(x);
}

/** Zhang & Stephens' posterior-mean estimate of the GPD shape from sorted exceedances x ≥ 0. */
function gpdShape(x: Float64Array): number {
  const N = x.length;
  const prior = 3;
  const m = 30 + Math.floor(Math.sqrt(N));
  const xStar = x[Math.floor(N / 4 + 0.5) - 1]; // first quartile
  if (!(xStar > 0)) return Number.NaN;
  const theta = new Float64Array(m);
  const logLik = new Float64Array(m);
  let maxLogLik = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < m; j++) {
    const t = 1 / x[N - 1] + (1 - Math.sqrt(m / (j + 0.5))) / prior / xStar;
    theta[j] = t;
    // Profile log likelihood of θ: N [log(−θ / k) − k − 1], k = mean log(1 − θ x).
    let k = 0;
    for (let i = 0; i < N; i++) k += Math.log1p(-t * x[i]);
    k /= N;
    const l = N * (Math.log(-t / k) - k - 1);
    logLik[j] = Number.isNaN(l) ? Number.NEGATIVE_INFINITY : l;
    if (logLik[j] > maxLogLik) maxLogLik = logLik[j];
  }
  let wSum = 0;
  let thetaHat = 0;
  for (let j = 0; j < m; j++) {
    const w = Math.exp(logLik[j] - maxLogLik);
    wSum += w;
    thetaHat += w * theta[j];
  }
  thetaHat /= wSum;
  let k = 0;
  for (let i = 0; i < N; i++) k += Math.log1p(-thetaHat * x[i]);
  k /= N;
  // Weakly informative prior: shrink k̂ towards 0.5 with the weight of 10 pseudo-observations.
  return (k * N + 10 * 0.5) / (N + 10);
}
