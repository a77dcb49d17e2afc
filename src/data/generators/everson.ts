import { OccamError } from "../../errors.js";
import { createRng } from "../../random/rng.js";

/** Options of {@link eversonData}. */
export interface EversonDataOptions {
  /** Number of observations n (Everson et al. use 4000); the first ⌈n/2⌉ follow regime A, the rest regime B. */
  n: number;
  /**
   * Seed of the generator.
   * @defaultValue 0
   */
  seed?: number;
}

/** Everson et al.'s synthetic regression data (sec. 3). */
export interface EversonData {
  /** The four inputs x_1 … x_4, n × 4 row-major, independent N(0, 1) (column j − 1 holds x_j). */
  readonly X: Float64Array;
  /** The responses. */
  readonly y: Float64Array;
  readonly n: number;
  /** 0 for regime A (y = x_2 − 4x_3 + ε, ε ~ N(0, 1)), 1 for regime B (y = x_1 − x_3/2 + ε, ε ~ N(0, 0.2²)). */
  readonly regime: Uint8Array;
}

/**
 * The data of Everson, Krzanowski, Bailey & Fieldsend, sec. 3 (eq. 9): four inputs x_1 … x_4, each
 * N(0, 1); in half the data y = x_2 − 4x_3 + ε with noise variance 1, in the other half
 * y = x_1 − x_3/2 + ε with noise variance 0.2²; x_4 is irrelevant and the intercept is 0. The first
 * ⌈n/2⌉ rows are regime A, the rest regime B (shuffle folds over them). The same seed gives the same data.
 * Throws an `OccamError` when n is not a positive integer.
 *
 * @example
 * const { X, y } = eversonData({ n: 4000, seed: 1 });
 */
export function eversonData(options: EversonDataOptions): EversonData {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", "eversonData: options { n } are required.");
  }
  const { n } = options;
  const seed = options.seed ?? 0;
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new OccamError("invalid-argument", `eversonData: n must be a positive integer, got ${n}.`);
  }
  const rng = createRng(seed);
  const X = new Float64Array(n * 4);
  const y = new Float64Array(n);
  const regime = new Uint8Array(n);
  const half = Math.ceil(n / 2);
  for (let i = 0; i < n; i++) {
    const row = i * 4;
    for (let j = 0; j < 4; j++) X[row + j] = rng.normal();
    const x1 = X[row];
    const x2 = X[row + 1];
    const x3 = X[row + 2];
    if (i < half) {
      y[i] = x2 - 4 * x3 + rng.normal();
    } else {
      regime[i] = 1;
      y[i] = x1 - x3 / 2 + 0.2 * rng.normal();
    }
  }
  return Object.freeze({ X, y, n, regime });
}
