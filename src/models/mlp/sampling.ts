import { OccamError } from "../../errors.js";
import { minimize } from "../../math/optimize.js";
import { createRng, type Rng } from "../../random/rng.js";
import type { HmcWarmupOptions } from "../../samplers/hmc.js";
import { watchWarmup } from "../../samplers/kernel.js";
import { type Progress, runChain } from "../../samplers/run.js";
import type { BayesianMlp } from "./bayesian.js";
import { MLP_FIT_DEFAULTS } from "./defaults.js";
import { MLP_CALIBRATION, MLP_HMC_DEFAULTS, type MlpKernel } from "./kernel.js";
import { GROUP_COUNT, randomWeights } from "./network.js";

/** Options of {@link sampleBayesianMlp}. */
export interface SampleBayesianMlpOptions {
  /**
   * Inverse temperature β in [0, 1]: the chain targets p(w, τ, α) L(w, τ)^β (β = 1 is the posterior).
   * @defaultValue 1
   */
  beta?: number;
  /**
   * Kept draws.
   * @defaultValue 200
   */
  draws?: number;
  /**
   * Warm-up sweeps, during which the HMC step size and the diagonal mass matrix adapt (the last 20 %,
   * up to 150, calibrate the fixed step size: {@link MLP_CALIBRATION}); discarded.
   * @defaultValue 500
   */
  warmup?: number;
  /**
   * Keep every thin-th sweep.
   * @defaultValue 1
   */
  thin?: number;
  /** Seed; give `seed` or `rng`. @defaultValue 0 */
  seed?: number;
  /** Generator (instead of `seed`). */
  rng?: Rng;
  /**
   * Where the chain starts: a position (length `model.dim`, e.g. the last position at the previous
   * temperature); `"optimize"`: weights from a short L-BFGS fit of the penalised sum of squares from
   * random weights, τ and α_k at their conditional means; `"prior"`: a draw from the prior.
   * @defaultValue "optimize" for β > 0, "prior" for β = 0
   */
  initial?: Float64Array | "optimize" | "prior";
  /**
   * Settings of the weights' HMC kernel, merged over {@link MLP_HMC_DEFAULTS}. Pass a `stepSize` and
   * `inverseMassMatrix` carried from a neighbouring temperature to start adaptation there.
   * @defaultValue {@link MLP_HMC_DEFAULTS}
   */
  hmc?: Omit<HmcWarmupOptions, "target">;
  /** Progress callback (see `runChain`). */
  onProgress?: (p: Progress) => void;
  /** Abort signal (see `runChain`). */
  signal?: AbortSignal;
}

/** Draws of a {@link BayesianMlp} at one inverse temperature. */
export interface BayesianMlpDraws {
  /** The inverse temperature β. */
  readonly beta: number;
  /** Number of kept draws S. */
  readonly nDraws: number;
  /** Number of weights W. */
  readonly weightCount: number;
  /** Weights, S × W row-major. */
  readonly weights: Float64Array;
  /** τ at each draw. */
  readonly noisePrecision: Float64Array;
  /** α_k at each draw, S × 4 row-major (groups in layout order). */
  readonly groupPrecisions: Float64Array;
  /** log L(w, τ) at each draw (untempered): the U of path sampling (thesis eq. 6.74). */
  readonly logLikelihood: Float64Array;
  /** The last position (a start for the next temperature). */
  readonly lastPosition: Float64Array;
  /** Mean HMC acceptance probability of the kept sweeps. */
  readonly acceptanceRate: number;
  /** Divergent HMC trajectories among the kept sweeps (rejected, never returned). */
  readonly divergences: number;
  /** Divergent trajectories during warm-up. */
  readonly warmupDivergences: number;
  /** The adapted HMC step size. */
  readonly stepSize: number;
  /** The adapted diagonal inverse mass matrix of the weights. */
  readonly inverseMassMatrix: Float64Array;
  /** Gradient and likelihood evaluations, warm-up included. */
  readonly evaluations: number;
  /** Wall-clock seconds. */
  readonly seconds: number;
}

/**
 * A starting position near a mode: L-BFGS on ½ S(w) + ½ λ‖w‖² (λ = 0.01) from random weights, then τ
 * and each α_k at their conditional means given those weights.
 */
export function optimizedStart(model: BayesianMlp, rng: Rng, maxIterations = 300): Float64Array {
  const { network, sumOfSquares: ss, weightCount: W } = model;
  const lambda = 0.01;
  const w0 = randomWeights(network, rng);
  const r = minimize(
    (w, g) => {
      const s = ss.gradient(w, g);
      let sq = 0;
      for (let j = 0; j < W; j++) {
        g[j] = 0.5 * g[j] + lambda * w[j];
        sq += w[j] * w[j];
      }
      return 0.5 * s + 0.5 * lambda * sq;
    },
    w0,
    { maxIterations },
  );
  const w = r.x;
  const nValues = model.data.n * model.data.outputs;
  const s = ss.value(w);
  const tau = (model.noisePrior.shape + 0.5 * nValues) / (model.noisePrior.rate + 0.5 * s);
  const alpha = new Float64Array(GROUP_COUNT);
  for (let k = 0; k < GROUP_COUNT; k++) {
    const { offset, length } = network.groups[k];
    let sq = 0;
    for (let j = offset; j < offset + length; j++) sq += w[j] * w[j];
    alpha[k] = (model.groupPriors[k].shape + 0.5 * length) / (model.groupPriors[k].rate + 0.5 * sq);
  }
  return model.position(w, { noisePrecision: tau, groupPrecisions: alpha });
}

/**
 * Samples a {@link BayesianMlp} at inverse temperature β by Gibbs updates of τ and the group
 * precisions alternating with hybrid Monte Carlo on the weights (thesis §6.3.5). The HMC step size is
 * adapted in warm-up by dual averaging (aiming at 0.65) together with a diagonal mass matrix, then
 * fixed by a final calibration stage aiming at a realised acceptance of 0.75 ({@link MLP_CALIBRATION}),
 * so each temperature gets its own. Divergent trajectories are rejected and counted, never returned.
 * Returns the draws of weights, τ and precisions, the log likelihood of each draw, and diagnostics.
 *
 * @example
 * const model = bayesianMlp(train, { hidden: 8 });
 * const d = sampleBayesianMlp(model, { draws: 200, warmup: 500, seed: 3 });
 * const pred = predictBayesianMlp(model.network, d, test.X, test.n);
 */
export function sampleBayesianMlp(
  model: BayesianMlp,
  options: SampleBayesianMlpOptions = {},
): BayesianMlpDraws {
  const where = "sampleBayesianMlp";
  const beta = options.beta ?? 1;
  const draws = options.draws ?? MLP_FIT_DEFAULTS.draws;
  const warmup = options.warmup ?? MLP_FIT_DEFAULTS.warmup;
  const thin = options.thin ?? 1;
  if (!(beta >= 0 && beta <= 1)) {
    throw new OccamError("invalid-argument", `${where}: beta must lie in [0, 1], got ${beta}.`);
  }
  for (const [value, name, min] of [
    [draws, "draws", 1],
    [warmup, "warmup", 0],
    [thin, "thin", 1],
  ] as const) {
    if (!(Number.isInteger(value) && value >= min)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: ${name} must be an integer ≥ ${min}, got ${value}.`,
      );
    }
  }
  if (options.seed !== undefined && options.rng !== undefined) {
    throw new OccamError("invalid-argument", `${where}: give seed or rng, not both.`);
  }
  const rng = options.rng ?? createRng(options.seed ?? 0);
  const [initRng, chainRng] = rng.split(2);
  const initial = options.initial ?? (beta > 0 ? "optimize" : "prior");
  let start: Float64Array;
  if (initial === "optimize") start = optimizedStart(model, initRng);
  else if (initial === "prior") start = model.samplePrior(initRng);
  else if (initial instanceof Float64Array && initial.length === model.dim) start = initial;
  else {
    throw new OccamError(
      "invalid-argument",
      `${where}: initial must be "optimize", "prior" or a Float64Array of length ${model.dim}.`,
    );
  }
  const started = performance.now();
  let warmupDivergences = 0;
  let tuned: MlpKernel | undefined;
  const warmupRun = watchWarmup(model.powerPosteriorWarmup(beta, options.hmc), {
    step: (info) => {
      if (info.divergent) warmupDivergences++;
    },
    tuned: (kernel) => (tuned = kernel),
  });
  const result = runChain(warmupRun, {
    draws,
    warmup,
    thin,
    rng: chainRng,
    initial: start,
    names: model.names,
    onProgress: options.onProgress,
    signal: options.signal,
  });
  const stats = result.stats[0];
  // The sweeps' evaluations, then one likelihood a kept draw below.
  let evaluations = stats.warmupEvaluations + stats.evaluations;
  const W = model.weightCount;
  const dim = model.dim;
  const weights = new Float64Array(draws * W);
  const noisePrecision = new Float64Array(draws);
  const groupPrecisions = new Float64Array(draws * GROUP_COUNT);
  const logLikelihood = new Float64Array(draws);
  for (let t = 0; t < draws; t++) {
    const x = result.values.subarray(t * dim, (t + 1) * dim);
    weights.set(x.subarray(0, W), t * W);
    noisePrecision[t] = Math.exp(x[W]);
    for (let k = 0; k < GROUP_COUNT; k++) groupPrecisions[t * GROUP_COUNT + k] = Math.exp(x[W + 1 + k]);
    logLikelihood[t] = model.logLikelihoodAt(x.subarray(0, W), noisePrecision[t]);
    evaluations++;
  }
  const kernel = tuned as MlpKernel;
  return Object.freeze({
    beta,
    nDraws: draws,
    weightCount: W,
    weights,
    noisePrecision,
    groupPrecisions,
    logLikelihood,
    lastPosition: Float64Array.from(result.values.subarray((draws - 1) * dim, draws * dim)),
    acceptanceRate: stats.acceptanceRate,
    divergences: stats.divergences,
    warmupDivergences,
    stepSize: kernel.stepSize,
    inverseMassMatrix: kernel.inverseMassMatrix,
    evaluations,
    seconds: (performance.now() - started) / 1000,
  });
}

// --- prediction --------------------------------------------------------------------------------
