import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";

/** The outcome of one Metropolis–Hastings accept/reject decision. */
export interface AcceptDecision {
  /** Whether the proposal is accepted. */
  readonly accepted: boolean;
  /** min(1, e^{log ratio}), the probability with which it was accepted. */
  readonly acceptProbability: number;
}

/**
 * The one Metropolis–Hastings accept step shared by random-walk, MALA, HMC and reversible-jump moves.
 * `logAcceptRatio` is log[π(y) q(x | y) / (π(x) q(y | x))] (plus any log Jacobian). A ratio of −∞
 * (the proposal has zero density) is rejected and +∞ accepted; NaN is a numeric fault and throws.
 * Exactly one uniform is drawn per call, whatever the ratio, so streams stay aligned.
 *
 * @example
 * const { accepted } = metropolisHastings(rng, logDensityNew - logDensityOld);
 */
export function metropolisHastings(rng: Rng, logAcceptRatio: number): AcceptDecision {
  if (Number.isNaN(logAcceptRatio)) {
    throw new OccamError(
      "non-finite",
      "Metropolis–Hastings log acceptance ratio is NaN; the log density or the proposal density returned NaN.",
    );
  }
  const u = rng.uniform();
  const acceptProbability = logAcceptRatio >= 0 ? 1 : Math.exp(logAcceptRatio);
  // u ∈ [0, 1): P(u < p) = p exactly, and p = 0 (ratio −∞) is never accepted.
  return { accepted: u < acceptProbability, acceptProbability };
}

/** Formats a position for an error message: the first few coordinates, at 4 significant digits. */
export function describePosition(position: ArrayLike<number>): string {
  const shown = Array.from({ length: Math.min(position.length, 6) }, (_, i) =>
    Number(position[i]).toPrecision(4),
  );
  return `[${shown.join(", ")}${position.length > 6 ? `, … (${position.length} coordinates)` : ""}]`;
}

/**
 * Whether a log density evaluated at a proposal can be weighed: a finite number, or −∞ (zero density,
 * simply rejected). NaN and +∞ cannot: such a proposal is a divergence, rejected and counted by the
 * kernel, never thrown (the model may overflow far from where its mass is, as a user's code does).
 */
export function isUsableLogDensity(logDensity: number): boolean {
  return !(Number.isNaN(logDensity) || logDensity === Number.POSITIVE_INFINITY);
}

/** Whether every entry of a gradient is finite (x · 0 is 0 for a finite x and NaN otherwise). */
export function isFiniteVector(values: Float64Array): boolean {
  let bad = 0;
  for (let i = 0; i < values.length; i++) bad += values[i] * 0;
  return bad === 0;
}

/**
 * Checks a kernel's starting point: a Float64Array of length `dim` with finite entries. Throws
 * `dimension-mismatch` or `non-finite` naming the kernel.
 */
export function checkStartPosition(kernel: string, position: Float64Array, dim: number): void {
  if (!(position instanceof Float64Array)) {
    throw new OccamError("invalid-argument", `${kernel}: the starting position must be a Float64Array.`);
  }
  if (position.length !== dim) {
    throw new OccamError(
      "dimension-mismatch",
      `${kernel}: the starting position has ${position.length} coordinates but the target's dim is ${dim}.`,
    );
  }
  for (let i = 0; i < dim; i++) {
    if (!Number.isFinite(position[i])) {
      throw new OccamError(
        "non-finite",
        `${kernel}: coordinate ${i} of the starting position is ${position[i]}; start at finite values.`,
      );
    }
  }
}

/** Checks the log density at a kernel's starting point: it must be finite (the start must be in the support). */
export function checkStartLogDensity(kernel: string, logDensity: number, position: Float64Array): void {
  if (!Number.isFinite(logDensity)) {
    throw new OccamError(
      "non-finite",
      `${kernel}: the log density at the starting position ${describePosition(position)} is ${logDensity}; start where the target density is positive and finite.`,
    );
  }
}

/** Checks that `target` is a LogDensity (with a gradient when `needsGradient`), naming the kernel. */
export function checkTarget(kernel: string, target: unknown, needsGradient: boolean): void {
  const t = target as { dim?: unknown; logDensity?: unknown; gradLogDensity?: unknown } | null;
  if (t === null || typeof t !== "object" || typeof t.logDensity !== "function") {
    throw new OccamError(
      "invalid-argument",
      `${kernel}: target must be a LogDensity { dim, logDensity(theta) } (for a model use tempered(model, 1)).`,
    );
  }
  if (!(Number.isInteger(t.dim) && (t.dim as number) >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${kernel}: target.dim must be a positive integer, got ${t.dim}.`,
    );
  }
  if (needsGradient && typeof t.gradLogDensity !== "function") {
    throw new OccamError(
      "invalid-argument",
      `${kernel}: the target has no gradLogDensity; give the model gradLogPrior and gradLogLikelihood, or use a random-walk kernel.`,
    );
  }
}

/**
 * The starting state of a gradient-based kernel: the position copied, with its log density and
 * gradient, checked (finite, and a finite gradient); throws an OccamError naming `kernel` otherwise.
 */
export function gradientStart(
  kernel: string,
  grad: (theta: Float64Array, gradient: Float64Array) => number,
  position: Float64Array,
  dim: number,
): { position: Float64Array; logDensity: number; gradient: Float64Array } {
  checkStartPosition(kernel, position, dim);
  const start = Float64Array.from(position);
  const gradient = new Float64Array(dim);
  const logDensity = grad(start, gradient);
  checkStartLogDensity(kernel, logDensity, position);
  if (!isFiniteVector(gradient)) {
    throw new OccamError(
      "non-finite",
      `${kernel}: the gradient of the log density is non-finite at the starting position ${describePosition(position)}.`,
    );
  }
  return { position: start, logDensity, gradient };
}
