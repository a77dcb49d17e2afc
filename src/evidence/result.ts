/** The typed result every evidence estimator returns, and how an estimator builds it. */
import { OccamError } from "../errors.js";

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

/** Seconds elapsed since `start` (a `performance.now()` reading). */
export function secondsSince(start: number): number {
  return Math.max(0, (performance.now() - start) / 1000);
}
