/** The checks every evidence estimator makes of its arguments, and its random stream. */
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { createRng, type Rng } from "../random/rng.js";

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
