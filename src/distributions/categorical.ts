import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { categorical as categoricalVariate } from "../random/variates.js";
import { checkOptions, type UnivariateDistribution } from "./distribution.js";

/** Options of {@link categorical}. */
export interface CategoricalOptions {
  /** p_0, …, p_{K−1}: non-negative, summing to 1 (within 1e-9; they are then renormalised). */
  probabilities: ArrayLike<number>;
}

/** The categorical distribution over {0, …, K − 1}. */
export interface Categorical extends UnivariateDistribution {
  readonly family: "categorical";
  /** The (renormalised) probabilities. */
  readonly probabilities: Float64Array;
  /** The number of categories K. */
  readonly size: number;
}

/**
 * The categorical distribution P(X = k) = p_k on the integers 0, …, K − 1. `logPdf(k)` is the log
 * probability log p_k: −Infinity for anything that is not an integer in range.
 */
export function categorical(options: CategoricalOptions): Categorical {
  checkOptions(options, "categorical", "probabilities");
  const { probabilities } = options;
  if (probabilities === null || typeof probabilities !== "object" || !(probabilities.length >= 1)) {
    throw new OccamError("invalid-argument", "categorical: probabilities must be a non-empty array.");
  }
  const k = probabilities.length;
  const p = new Float64Array(k);
  let total = 0;
  for (let i = 0; i < k; i++) {
    const v = probabilities[i];
    if (!(v >= 0 && v <= 1)) {
      throw new OccamError(
        "invalid-argument",
        `categorical: probabilities[${i}] must be in [0, 1], got ${v}.`,
      );
    }
    p[i] = v;
    total += v;
  }
  if (!(Math.abs(total - 1) <= 1e-9)) {
    throw new OccamError(
      "invalid-argument",
      `categorical: probabilities must sum to 1, got ${total}; normalise them (or use categoricalLog from random/variates for log weights).`,
    );
  }
  const logP = new Float64Array(k);
  let mean = 0;
  let second = 0;
  for (let i = 0; i < k; i++) {
    p[i] /= total;
    logP[i] = Math.log(p[i]);
    mean += i * p[i];
    second += i * i * p[i];
  }
  return Object.freeze({
    family: "categorical" as const,
    probabilities: p,
    size: k,
    mean,
    variance: Math.max(0, second - mean * mean),
    logPdf(x: number): number {
      if (Number.isInteger(x) && x >= 0 && x < k) return logP[x];
      return Number.isNaN(x) ? x : Number.NEGATIVE_INFINITY;
    },
    sample(rng: Rng): number {
      return categoricalVariate(rng, p);
    },
  });
}
