/**
 * The maximum-likelihood network of the Fabricius thesis §6.3.2: minimise the weight-decay cost
 * C(w) = ½ S(w) + ½ λ ‖w‖² (eq. 6.43 with R = λ/2 · I and the Gaussian error function of eq. 6.40 at
 * unit τ; S is the sum of squared errors) by L-BFGS from several seeded starts, and report the training
 * error, the test error and the final-prediction-error estimate FPE = (N + N_w)/(N − N_w) · E_train
 * (eq. 6.44). The thesis used conjugate gradients; L-BFGS finds the same minima faster.
 */
import { OccamError } from "../../errors.js";
import { minimize } from "../../math/optimize.js";
import { createRng } from "../../random/rng.js";
import { checkMlpData, type MlpData } from "./data.js";
import { createMlp, type Mlp, randomWeights } from "./network.js";
import { type SumOfSquares, sumOfSquares } from "./sum-of-squares.js";

/** Options of {@link fitMaximumLikelihoodMlp}. */
export interface MaximumLikelihoodMlpOptions {
  /** Number of hidden units H ≥ 1. */
  hidden: number;
  /**
   * Weight decay λ ≥ 0 of the cost ½ S(w) + ½ λ ‖w‖². The thesis found λ = 0 best on the robot arm.
   * @defaultValue 0
   */
  weightDecay?: number;
  /**
   * Number of optimisations from independent random starts (the thesis used 10).
   * @defaultValue 10
   */
  starts?: number;
  /**
   * Seed of the starting weights; start s uses stream s of `createRng(seed).split(starts)`.
   * @defaultValue 0
   */
  seed?: number;
  /**
   * L-BFGS iterations per start.
   * @defaultValue 3000
   */
  maxIterations?: number;
  /**
   * Scale of the random starting weights (see `randomWeights`).
   * @defaultValue 1
   */
  initialScale?: number;
  /** A test set, to report the test error of each start. */
  test?: MlpData;
}

/** One optimisation. */
export interface MaximumLikelihoodMlpStart {
  /** The weights found (layout of `createMlp`). */
  readonly weights: Float64Array;
  /** The cost ½ S(w) + ½ λ ‖w‖² at `weights`. */
  readonly cost: number;
  /** Training error: S(w) / (N · O), the mean squared error per target value. */
  readonly trainError: number;
  /** Training mean squared error of each output. */
  readonly trainErrorPerOutput: Float64Array;
  /** Test error S_test(w) / (N_test · O), or undefined without a test set. */
  readonly testError: number | undefined;
  /** Test mean squared error of each output, or undefined without a test set. */
  readonly testErrorPerOutput: Float64Array | undefined;
  /** FPE = (N + N_w)/(N − N_w) · trainError; undefined when N_w ≥ N, where it is not defined. */
  readonly fpe: number | undefined;
  /** Whether L-BFGS met its convergence test. */
  readonly converged: boolean;
  /** L-BFGS iterations taken. */
  readonly iterations: number;
}

/** What {@link fitMaximumLikelihoodMlp} returns. */
export interface MaximumLikelihoodMlpFit {
  /** The network (its shape and weight layout). */
  readonly network: Mlp;
  /** Number of hidden units H. */
  readonly hidden: number;
  /** Number of weights N_w = H·I + H + O·H + O. */
  readonly weightCount: number;
  /** Number of training cases N. */
  readonly n: number;
  /** The weight decay λ. */
  readonly weightDecay: number;
  /** One entry per start, in seed order. */
  readonly starts: readonly MaximumLikelihoodMlpStart[];
  /** Index of the start with the lowest cost. */
  readonly best: number;
  /** Mean training error over the starts (the thesis averaged its 10 seeds). */
  readonly meanTrainError: number;
  /** Mean test error over the starts, or undefined without a test set. */
  readonly meanTestError: number | undefined;
  /** Mean FPE over the starts, or undefined when N_w ≥ N. */
  readonly meanFpe: number | undefined;
  /** Wall-clock seconds. */
  readonly seconds: number;
}

/**
 * The final-prediction-error estimate of the test error (thesis eq. 6.44, Akaike):
 * FPE = (N + N_w)/(N − N_w) · E_train with N training cases and N_w weights. Undefined (returns
 * undefined) when N_w ≥ N. The thesis counts cases, not target values, as N; so does this function.
 */
export function finalPredictionError(trainError: number, n: number, weightCount: number): number | undefined {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(weightCount) && weightCount >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `finalPredictionError: n and weightCount must be integers (n ≥ 1, weightCount ≥ 0), got ${n} and ${weightCount}.`,
    );
  }
  if (weightCount >= n) return undefined;
  return ((n + weightCount) / (n - weightCount)) * trainError;
}

/**
 * Fits a one-hidden-layer tanh network by maximum likelihood with weight decay (thesis §6.3.2):
 * L-BFGS from `starts` seeded random starts, each reported with its training error, test error
 * (with `test`) and FPE. Errors are mean squared errors per target value, S / (N · O).
 * Throws an `OccamError` for bad data (shapes, non-finite values) or options.
 *
 * @example
 * const fit = fitMaximumLikelihoodMlp(train, { hidden: 8, test, starts: 5, seed: 1 });
 * fit.meanTestError; // the thesis's "test error" for H = 8
 */
export function fitMaximumLikelihoodMlp(
  data: MlpData,
  options: MaximumLikelihoodMlpOptions,
): MaximumLikelihoodMlpFit {
  const where = "fitMaximumLikelihoodMlp";
  checkMlpData(data, where);
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${where}: options { hidden } are required.`);
  }
  const weightDecay = options.weightDecay ?? 0;
  const starts = options.starts ?? 10;
  const seed = options.seed ?? 0;
  const maxIterations = options.maxIterations ?? 3000;
  const initialScale = options.initialScale ?? 1;
  if (!(Number.isInteger(options.hidden) && options.hidden >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: hidden must be an integer ≥ 1 (the number of hidden units), got ${options.hidden}.`,
    );
  }
  if (!(Number.isFinite(weightDecay) && weightDecay >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: weightDecay must be finite and ≥ 0, got ${weightDecay}.`,
    );
  }
  for (const [value, name] of [
    [starts, "starts"],
    [maxIterations, "maxIterations"],
  ] as const) {
    if (!(Number.isInteger(value) && value >= 1)) {
      throw new OccamError("invalid-argument", `${where}: ${name} must be an integer ≥ 1, got ${value}.`);
    }
  }
  const { test } = options;
  if (test !== undefined) {
    checkMlpData(test, `${where} (test set)`);
    if (test.inputs !== data.inputs || test.outputs !== data.outputs) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}: the test set has ${test.inputs} inputs and ${test.outputs} outputs, the training set ${data.inputs} and ${data.outputs}.`,
      );
    }
  }
  const started = performance.now();
  const network = createMlp({ inputs: data.inputs, hidden: options.hidden, outputs: data.outputs });
  const O = data.outputs;
  const train = sumOfSquares(network, data.X, data.Y, data.n);
  const testSs = test === undefined ? undefined : sumOfSquares(network, test.X, test.Y, test.n);
  const cost = (w: Float64Array, grad: Float64Array): number => {
    const s = train.gradient(w, grad);
    let decay = 0;
    for (let j = 0; j < w.length; j++) {
      grad[j] = 0.5 * grad[j] + weightDecay * w[j];
      decay += w[j] * w[j];
    }
    return 0.5 * s + 0.5 * weightDecay * decay;
  };

  const streams = createRng(seed).split(starts);
  const results: MaximumLikelihoodMlpStart[] = [];
  let best = 0;
  for (let s = 0; s < starts; s++) {
    const w0 = randomWeights(network, streams[s], initialScale);
    const r = minimize(cost, w0, { maxIterations, gradTolerance: 1e-8, functionTolerance: 1e-14 });
    const onTrain = meanSquaredErrors(train, r.x, data.n, O);
    const onTest =
      testSs === undefined || test === undefined ? undefined : meanSquaredErrors(testSs, r.x, test.n, O);
    const trainError = onTrain.error;
    results.push(
      Object.freeze({
        weights: r.x,
        cost: r.value,
        trainError,
        trainErrorPerOutput: onTrain.perOutput,
        testError: onTest?.error,
        testErrorPerOutput: onTest?.perOutput,
        fpe: finalPredictionError(trainError, data.n, network.size),
        converged: r.converged,
        iterations: r.iterations,
      }),
    );
    if (r.value < results[best].cost) best = s;
  }
  const mean = (pick: (r: MaximumLikelihoodMlpStart) => number | undefined): number | undefined => {
    let sum = 0;
    for (const r of results) {
      const v = pick(r);
      if (v === undefined) return undefined;
      sum += v;
    }
    return sum / results.length;
  };
  return Object.freeze({
    network,
    hidden: options.hidden,
    weightCount: network.size,
    n: data.n,
    weightDecay,
    starts: Object.freeze(results),
    best,
    meanTrainError: mean((r) => r.trainError) as number,
    meanTestError: mean((r) => r.testError),
    meanFpe: mean((r) => r.fpe),
    seconds: (performance.now() - started) / 1000,
  });
}

/** The mean squared errors at weights w over n rows: per output value (S_o / n), and over all (S / (n · O)). */
function meanSquaredErrors(
  ss: SumOfSquares,
  w: Float64Array,
  n: number,
  O: number,
): { perOutput: Float64Array; error: number } {
  const perOutput = new Float64Array(O);
  ss.perOutput(w, perOutput);
  let sum = 0;
  for (let o = 0; o < O; o++) {
    sum += perOutput[o];
    perOutput[o] /= n;
  }
  return { perOutput, error: sum / (n * O) };
}
