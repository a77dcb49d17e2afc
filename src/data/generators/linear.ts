import { OccamError } from "../../errors.js";
import { createRng } from "../../random/rng.js";

/** Options of {@link linearRegressionData}. */
export interface LinearRegressionDataOptions {
  /** Number of observations n. */
  n: number;
  /** Number of inputs p (columns of X, the intercept column included when `intercept` is on). */
  p: number;
  /**
   * The true weights w (length p).
   * @defaultValue drawn from N(0, 1) with the seed
   */
  weights?: ArrayLike<number>;
  /** Standard deviation of the Gaussian noise ε. */
  noiseSd: number;
  /**
   * Make the first column of X all ones (then weights[0] is the intercept).
   * @defaultValue false
   */
  intercept?: boolean;
  /**
   * Seed of the generator.
   * @defaultValue 0
   */
  seed?: number;
}

/** A synthetic regression data set. */
export interface LinearRegressionData {
  /** Inputs, n × p row-major: independent N(0, 1) entries (a first column of ones with `intercept`). */
  readonly X: Float64Array;
  /** Responses y = Xw + ε, ε ~ N(0, noiseSd² I). */
  readonly y: Float64Array;
  readonly n: number;
  readonly p: number;
  /** The true weights. */
  readonly weights: Float64Array;
  readonly noiseSd: number;
}

/**
 * Synthetic linear regression data y = Xw + ε with standard-normal inputs, ε ~ N(0, noiseSd²): the
 * test bed of the Normal–Inverse-Gamma model (`nigRegression`). The same seed gives the same data.
 * Throws an `OccamError` for n, p not positive integers, noiseSd not ≥ 0, or weights of the wrong length.
 *
 * @example
 * const { X, y } = linearRegressionData({ n: 100, p: 3, weights: [1, -2, 0.5], noiseSd: 0.3, seed: 1 });
 */
export function linearRegressionData(options: LinearRegressionDataOptions): LinearRegressionData {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", "linearRegressionData: options { n, p, noiseSd } are required.");
  }
  const { n, p, noiseSd } = options;
  const intercept = options.intercept ?? false;
  const seed = options.seed ?? 0;
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new OccamError("invalid-argument", `linearRegressionData: n must be a positive integer, got ${n}.`);
  }
  if (!(Number.isInteger(p) && p >= 1)) {
    throw new OccamError("invalid-argument", `linearRegressionData: p must be a positive integer, got ${p}.`);
  }
  if (!(Number.isFinite(noiseSd) && noiseSd >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `linearRegressionData: noiseSd must be a finite number ≥ 0, got ${noiseSd}.`,
    );
  }
  const rng = createRng(seed);
  const weights = new Float64Array(p);
  if (options.weights !== undefined) {
    if (options.weights.length !== p) {
      throw new OccamError(
        "dimension-mismatch",
        `linearRegressionData: weights has length ${options.weights.length}, expected p = ${p}.`,
      );
    }
    for (let j = 0; j < p; j++) {
      weights[j] = options.weights[j];
      if (!Number.isFinite(weights[j])) {
        throw new OccamError("invalid-argument", `linearRegressionData: weights[${j}] is ${weights[j]}.`);
      }
    }
  } else {
    for (let j = 0; j < p; j++) weights[j] = rng.normal();
  }
  const X = new Float64Array(n * p);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let mu = 0;
    for (let j = 0; j < p; j++) {
      const x = intercept && j === 0 ? 1 : rng.normal();
      X[i * p + j] = x;
      mu += x * weights[j];
    }
    y[i] = mu + noiseSd * rng.normal();
  }
  return Object.freeze({ X, y, n, p, weights, noiseSd });
}
