import { OccamError } from "../errors.js";
import { cholesky } from "../math/linalg.js";
import { Draws } from "../model/draws.js";
import type { BayesModel } from "../model/model.js";
import type { UnboundedModel } from "../model/transform.js";
import { createRng, type Rng } from "../random/rng.js";

/**
 * An estimate of log Z = log p(D | M) in nats with its standard error, whether the estimator's own
 * checks trust that error, the cost, and the estimator's typed diagnostics. Frozen. `M` is the
 * method's name (the one users pass to `estimateEvidence`), `D` its diagnostics.
 */
export interface EvidenceEstimate<M extends string = string, D = unknown> {
  /** The estimator, by the name `estimateEvidence` takes: "bridge", "smc", … */
  readonly method: M;
  /** The estimate of log Z, in nats. */
  readonly logZ: number;
  /**
   * Standard error of `logZ` (nats). 0 for deterministic approximations (Laplace), whose error is
   * not statistical; +Infinity when the estimator cannot bound its own error.
   */
  readonly stdErr: number;
  /**
   * False when the estimator's own checks say the error bar cannot be trusted (too few effective
   * draws, heavy-tailed weights, chains that disagree, …); `warnings` then says why. A result that is
   * not reliable must not decide anything.
   */
  readonly reliable: boolean;
  /** What the user should know, in words they can act on: first the reasons for `reliable: false`. */
  readonly warnings: readonly string[];
  /** Number of likelihood evaluations (or likelihood-gradient evaluations) made. */
  readonly nLikelihoodEvals: number;
  /** Wall-clock time in seconds (`performance.now()`). */
  readonly seconds: number;
  /** The estimator's own diagnostics. */
  readonly diagnostics: D;
}

/** The fields of an {@link EvidenceEstimate}, as an estimator assembles them. */
export interface EvidenceResultFields<M extends string, D> {
  method: M;
  logZ: number;
  stdErr: number;
  nLikelihoodEvals: number;
  seconds: number;
  diagnostics: D;
  /** Why the error bar cannot be trusted; any entry makes the result unreliable. */
  unreliable?: readonly string[];
  /** Other things the user should know (they do not make the result unreliable). */
  warnings?: readonly string[];
}

/**
 * Validates and freezes an evidence result: `method` non-empty, `logZ` finite, `stdErr` ≥ 0 (not
 * NaN; +Infinity allowed, and then the result is unreliable), `nLikelihoodEvals` a non-negative
 * integer, `seconds` finite and ≥ 0. `reliable` is true when no reason was given against it. A
 * non-finite log Z is a numeric fault of the estimator and throws `non-finite`.
 */
export function evidenceResult<M extends string, D>(
  fields: EvidenceResultFields<M, D>,
): EvidenceEstimate<M, D> {
  const { method, logZ, stdErr, nLikelihoodEvals, seconds } = fields;
  if (typeof method !== "string" || method.length === 0) {
    throw new OccamError("invalid-argument", "evidenceResult: method must be a non-empty string.");
  }
  if (!Number.isFinite(logZ)) {
    throw new OccamError(
      "non-finite",
      `${method}: the log evidence estimate is ${logZ}; the estimator failed (check the model's log densities and the options).`,
    );
  }
  if (!(stdErr >= 0)) {
    throw new OccamError(
      "non-finite",
      `${method}: the standard error is ${stdErr}; it must be ≥ 0 (or +Infinity when unknown).`,
    );
  }
  if (!(Number.isInteger(nLikelihoodEvals) && nLikelihoodEvals >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `${method}: nLikelihoodEvals must be a non-negative integer, got ${nLikelihoodEvals}.`,
    );
  }
  if (!(Number.isFinite(seconds) && seconds >= 0)) {
    throw new OccamError("invalid-argument", `${method}: seconds must be finite and ≥ 0, got ${seconds}.`);
  }
  const unreliable = [...(fields.unreliable ?? [])];
  if (stdErr === Number.POSITIVE_INFINITY && unreliable.length === 0) {
    unreliable.push("the estimator could not estimate its own standard error.");
  }
  const warnings = Object.freeze([...unreliable, ...(fields.warnings ?? [])]);
  const diagnostics = Object.freeze(fields.diagnostics);
  return Object.freeze({
    method,
    logZ,
    stdErr,
    reliable: unreliable.length === 0,
    warnings,
    nLikelihoodEvals,
    seconds,
    diagnostics,
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the estimators.

/** Options every randomised estimator accepts: a seed, or a generator to draw from. */
export interface RandomOptions {
  /**
   * Seed of the estimator's random stream (ignored when `rng` is given).
   * @defaultValue 0
   */
  seed?: number;
  /** A generator to use instead of `seed` (the estimator consumes it). */
  rng?: Rng;
}

/** The generator an estimator draws from: `options.rng`, else `createRng(options.seed ?? 0)`. */
export function resolveRng(options: RandomOptions, where: string): Rng {
  if (options.rng !== undefined) {
    if (options.seed !== undefined) {
      throw new OccamError("invalid-argument", `${where}: give either seed or rng, not both.`);
    }
    const rng = options.rng as Partial<Rng>;
    if (
      rng === null ||
      typeof rng !== "object" ||
      typeof rng.uniform !== "function" ||
      typeof rng.split !== "function"
    ) {
      throw new OccamError("invalid-argument", `${where}: rng must be an Rng made by createRng.`);
    }
    return options.rng;
  }
  return createRng(options.seed ?? 0);
}

/** Posterior draws made elsewhere: a {@link Draws} store (any number of chains) or one chain of draws. */
export type PosteriorDrawsInput = Draws | readonly Float64Array[];

/**
 * Validates posterior draws for an estimator and returns them as a {@link Draws} store (one chain
 * when an array was given). Throws when they are missing (occam has no exact-posterior hook on
 * `BayesModel`, so draws must come from a sampler), have the wrong dimension, are non-finite, or
 * are fewer than `minDraws` (`minPerChain` per chain).
 */
export function posteriorDraws(
  input: PosteriorDrawsInput | undefined,
  dim: number,
  where: string,
  minDraws: number,
  minPerChain = 1,
): Draws {
  if (input === undefined) {
    throw new OccamError(
      "invalid-argument",
      `${where}: needs posterior draws ({ draws }): a Draws store from runChain or an array of Float64Array ` +
        "draws made elsewhere (occam models do not offer an exact posterior sampler to call instead).",
    );
  }
  let draws: Draws;
  if (input instanceof Draws) {
    if (input.dim !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}: the draws have dimension ${input.dim} but model.dim is ${dim}; pass draws of this model's parameters.`,
      );
    }
    draws = input;
    const { values } = draws;
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) {
        const t = Math.floor(i / dim);
        throw new OccamError(
          "non-finite",
          `${where}: coordinate ${i % dim} of draw ${t % draws.nDraws} of chain ${Math.floor(t / draws.nDraws)} is ${values[i]}.`,
        );
      }
    }
  } else {
    if (!Array.isArray(input) || input.length === 0) {
      throw new OccamError(
        "invalid-argument",
        `${where}: draws must be a Draws store or a non-empty array of Float64Array draws.`,
      );
    }
    const n = input.length;
    draws = new Draws({ dim, nChains: 1, nDraws: n });
    for (let t = 0; t < n; t++) {
      const x = input[t];
      if (!(x instanceof Float64Array) || x.length !== dim) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}: draw ${t} must be a Float64Array of length ${dim} (model.dim), got ${describe(x)}.`,
        );
      }
      for (let j = 0; j < dim; j++) {
        if (!Number.isFinite(x[j])) {
          throw new OccamError(
            "non-finite",
            `${where}: coordinate ${j} of draw ${t} is ${x[j]}; draws must be finite.`,
          );
        }
      }
      draws.values.set(x, t * dim);
    }
    draws.logDensity.fill(Number.NaN);
  }
  if (draws.size < minDraws || draws.nDraws < minPerChain) {
    throw new OccamError(
      "invalid-argument",
      `${where}: needs at least ${minDraws} posterior draws${minPerChain > 1 ? ` and ${minPerChain} per chain` : ""}, ` +
        `got ${draws.nChains} chain(s) of ${draws.nDraws}; run the sampler longer.`,
    );
  }
  return draws;
}

/**
 * Draws of a bounded model mapped to the unbounded scale of `view` (a new store), or the draws
 * themselves when the model has no bounds. Throws when a draw lies on or outside the bounds.
 */
export function unboundedDraws(view: UnboundedModel, draws: Draws): Draws {
  if (view.identity) return draws;
  const d = draws.dim;
  const out = new Draws({ dim: d, nChains: draws.nChains, nDraws: draws.nDraws, names: draws.names });
  for (let t = 0; t < draws.size; t++) {
    view.toUnbounded(draws.values.subarray(t * d, (t + 1) * d), out.values.subarray(t * d, (t + 1) * d));
  }
  out.logDensity.fill(Number.NaN);
  return out;
}

/** The minimum Kish effective sample size of importance weights for their delta-method error to be trusted. */
export const MIN_WEIGHT_ESS = 100;
/** Above this Pareto k̂ importance weights probably have an infinite variance (Vehtari et al. 2024). */
export const MAX_PARETO_K = 0.7;

/**
 * Why an importance-sampling estimate's standard error cannot be trusted, if it cannot: too few
 * effective draws (Kish ESS below {@link MIN_WEIGHT_ESS}) or a tail too heavy for a finite variance
 * (Pareto k̂ above {@link MAX_PARETO_K}). `what` names the weights in the message.
 */
export function weightReasons(ess: number, total: number, paretoK: number, what: string): string[] {
  const reasons: string[] = [];
  if (ess < MIN_WEIGHT_ESS) {
    reasons.push(
      `${what} have an effective sample size of ${ess.toFixed(1)} of ${total}: a handful of draws carry the estimate, so its ` +
        "standard error means nothing.",
    );
  }
  if (paretoK > MAX_PARETO_K) {
    reasons.push(
      `${what} have a Pareto k̂ of ${paretoK.toFixed(2)} (> ${MAX_PARETO_K}): their variance is probably infinite, so the ` +
        "standard error is too small and the estimate too low.",
    );
  }
  return reasons;
}

function describe(value: unknown): string {
  if (value instanceof Float64Array) return `length ${value.length}`;
  if (Array.isArray(value)) return `a plain array of length ${value.length} (use Float64Array)`;
  return String(value);
}

/** A short rendering of a parameter vector for error messages. */
export function showPoint(theta: Float64Array): string {
  const head = Array.from(theta.subarray(0, 4), (v) => v.toPrecision(4)).join(", ");
  return `[${head}${theta.length > 4 ? ", …" : ""}]`;
}

/**
 * Checks a log-likelihood (or log-prior) value computed at a point: NaN and +Infinity are faults of
 * the model and throw `non-finite` naming the point (`pointKind` and `index`, e.g. "posterior draw" 17); −Infinity is returned unless `allowMinusInfinity`
 * is false (a posterior draw must have a positive likelihood).
 */
export function checkLogValue(
  value: number,
  what: "logLikelihood" | "logPrior",
  where: string,
  pointKind: string,
  index: number,
  theta: Float64Array,
  allowMinusInfinity: boolean,
): number {
  if (value > Number.NEGATIVE_INFINITY && value < Number.POSITIVE_INFINITY) return value;
  if (value === Number.NEGATIVE_INFINITY && allowMinusInfinity) return value;
  const hint =
    value === Number.NEGATIVE_INFINITY
      ? "a posterior draw must have a positive prior and likelihood: were the draws made from this model?"
      : `model.${what} must return a finite number or −Infinity.`;
  throw new OccamError(
    "non-finite",
    `${where}: model.${what} is ${value} at ${pointKind} ${index} ${showPoint(theta)}; ${hint}`,
  );
}

/** Checks that `value` is an integer ≥ `min`, naming the option. */
export function checkCount(value: number, name: string, where: string, min: number): void {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new OccamError("invalid-argument", `${where}: ${name} must be an integer ≥ ${min}, got ${value}.`);
  }
}

/** Checks that the model has the parts an estimator needs. */
export function checkModel(model: BayesModel, where: string): void {
  if (model === null || typeof model !== "object") {
    throw new OccamError("invalid-argument", `${where}: model must be a BayesModel object.`);
  }
  if (!(Number.isInteger(model.dim) && model.dim >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: model.dim must be a positive integer, got ${model.dim}.`,
    );
  }
  for (const name of ["logPrior", "logLikelihood"] as const) {
    if (typeof model[name] !== "function") {
      throw new OccamError("invalid-argument", `${where}: model.${name} must be a function.`);
    }
  }
}

/**
 * Summary of log weights log w_i for an importance-sampling type estimate of log Z = log mean w:
 * the estimate, its delta-method standard error sd(w)/(√n · mean(w)) (the sd of the normalised
 * weights over √n), and the effective sample size (Σw)²/Σw² of the weights. −Infinity weights count
 * as zero weights. Throws `non-finite` when every weight is zero.
 */
export function logWeightSummary(
  logWeights: Float64Array,
  where: string,
): { logZ: number; stdErr: number; ess: number; maxWeightShare: number } {
  const n = logWeights.length;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) if (logWeights[i] > max) max = logWeights[i];
  if (max === Number.NEGATIVE_INFINITY) {
    throw new OccamError(
      "non-finite",
      `${where}: every one of the ${n} weights is zero (log weight −Infinity): the draws missed the likelihood's support; ` +
        "use more draws or a proposal closer to the posterior.",
    );
  }
  // Weights scaled by the largest, so that each lies in [0, 1] and no exponential overflows. Two
  // passes: Σ(w − w̄)² keeps the small variance of nearly equal weights that Σw² − n w̄² loses.
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < n; i++) {
    const w = Math.exp(logWeights[i] - max);
    sum += w;
    sumSq += w * w;
  }
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (Math.exp(logWeights[i] - max) - mean) ** 2;
  const variance = n > 1 ? ss / (n - 1) : Number.POSITIVE_INFINITY;
  return {
    logZ: max + Math.log(mean),
    stdErr: Math.sqrt(variance / n) / mean,
    ess: (sum * sum) / sumSq,
    maxWeightShare: 1 / sum,
  };
}

/** Mean and sample standard deviation (n − 1 denominator) of a list of numbers. */
export function meanAndSd(values: ArrayLike<number>): { mean: number; sd: number } {
  const n = values.length;
  let s = 0;
  for (let i = 0; i < n; i++) s += values[i];
  const mean = s / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i] - mean) ** 2;
  return { mean, sd: n > 1 ? Math.sqrt(ss / (n - 1)) : Number.NaN };
}

/**
 * The spread of independent repetitions as a second error measure: the log Z of each repetition,
 * their standard deviation and that divided by √R (the standard error of their mean).
 */
export function repetitionSpread(logZs: readonly number[]): {
  repetitionLogZ: number[];
  repetitionSd: number;
  repetitionStdErr: number;
} {
  const { sd } = meanAndSd(logZs);
  return { repetitionLogZ: [...logZs], repetitionSd: sd, repetitionStdErr: sd / Math.sqrt(logZs.length) };
}

/** Seconds elapsed since `start` (a `performance.now()` reading). */
export function secondsSince(start: number): number {
  return Math.max(0, (performance.now() - start) / 1000);
}

/**
 * Mean and lower Cholesky factor of the covariance of some draws: the Gaussian that bridge and
 * importance sampling fit to posterior draws. A singular covariance is the user's to fix (too few draws,
 * a parameter that never moves), so it is reported as such, naming `what` the draws are for.
 */
export function fitGaussian(
  draws: Draws,
  where: string,
  what: string,
): { mean: Float64Array; L: Float64Array } {
  const d = draws.dim;
  try {
    return { mean: draws.mean(), L: cholesky(draws.covariance(), d) };
  } catch (error) {
    if (error instanceof OccamError && error.code === "not-positive-definite") {
      throw new OccamError(
        "not-positive-definite",
        `${where}: the covariance of the ${draws.size} draws ${what} is singular: give more draws than parameters, ` +
          "and check that every parameter moves in the chain.",
      );
    }
    throw error;
  }
}
