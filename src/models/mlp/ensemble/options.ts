/** The options of {@link ensembleMlp} and their resolution into checked settings. */
import { OccamError } from "../../../errors.js";
import type { BayesianMlp, MlpHyperparameters } from "../bayesian.js";
import type { ensembleMlp } from "./fit.js";

/** Options of {@link ensembleMlp}. */
export interface EnsembleMlpOptions {
  /**
   * Maximum iterations of the thesis's mean-field updates (App. C.2), the refinement's start.
   * @defaultValue 100
   */
  iterations?: number;
  /**
   * Convergence of the App. C iteration: stop when the log of every mean precision changes by less
   * than this.
   * @defaultValue 1e-6
   */
  tolerance?: number;
  /**
   * L-BFGS iterations per App. C update of the mean of q(w).
   * @defaultValue 500
   */
  maxIterations?: number;
  /** Seed of the random starting weights and of the refinement's draws. @defaultValue 0 */
  seed?: number;
  /** Starting weights (length W), e.g. the evidence framework's mode. */
  initialWeights?: Float64Array;
  /**
   * Starting mean precisions (e.g. the evidence framework's τ and α_k); by default their conditional
   * means given the starting weights.
   */
  initialHyper?: MlpHyperparameters;
  /**
   * Steps of stochastic gradient ascent on the ELBO after the App. C iteration; 0 keeps the App. C
   * fixed point (the thesis's method, unrefined).
   * @defaultValue 6000
   */
  steps?: number;
  /**
   * Draws of w from q(w) per step, in antithetic pairs w̄ ± Cε; an even number ≥ 2.
   * @defaultValue 8
   */
  drawsPerStep?: number;
  /**
   * Adam's first step size, in q's own units: the steps are taken in whitened coordinates
   * (w̄ + C u, C (I + δ)), so 0.02 moves w̄ by about 2 % of q's spread along each whitened axis and
   * each log C_ii by about 0.02 (δ below the diagonal by 2/√W times that).
   * @defaultValue 0.02
   */
  learningRate?: number;
  /**
   * The step size at the last step: it decays geometrically from `learningRate` to this.
   * @defaultValue 0.0005
   */
  finalLearningRate?: number;
}

/** {@link EnsembleMlpOptions} with every default filled in. */
export interface EnsembleSettings {
  readonly iterations: number;
  readonly tolerance: number;
  readonly maxIterations: number;
  readonly seed: number;
  readonly steps: number;
  readonly drawsPerStep: number;
  readonly learningRate: number;
  readonly finalLearningRate: number;
}

/** Fills the defaults of {@link EnsembleMlpOptions} and checks them; throws an `OccamError` naming `where`. */
export function resolveEnsembleOptions(
  options: EnsembleMlpOptions,
  model: BayesianMlp,
  where: string,
): EnsembleSettings {
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${where}: options must be an object.`);
  }
  const s: EnsembleSettings = {
    iterations: options.iterations ?? 100,
    tolerance: options.tolerance ?? 1e-6,
    maxIterations: options.maxIterations ?? 500,
    seed: options.seed ?? 0,
    steps: options.steps ?? 6000,
    drawsPerStep: options.drawsPerStep ?? 8,
    learningRate: options.learningRate ?? 0.02,
    finalLearningRate: options.finalLearningRate ?? 0.0005,
  };
  for (const [v, name, min] of [
    [s.iterations, "iterations", 1],
    [s.maxIterations, "maxIterations", 1],
    [s.steps, "steps", 0],
  ] as const) {
    if (!(Number.isInteger(v) && v >= min)) {
      throw new OccamError("invalid-argument", `${where}: ${name} must be an integer ≥ ${min}, got ${v}.`);
    }
  }
  if (!(Number.isInteger(s.drawsPerStep) && s.drawsPerStep >= 2 && s.drawsPerStep % 2 === 0)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: drawsPerStep must be an even integer ≥ 2 (the draws come in antithetic pairs), got ${s.drawsPerStep}.`,
    );
  }
  if (!(s.tolerance > 0 && Number.isFinite(s.tolerance))) {
    throw new OccamError(
      "invalid-argument",
      `${where}: tolerance must be finite and > 0, got ${s.tolerance}.`,
    );
  }
  if (!(s.learningRate > 0 && s.learningRate <= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: learningRate must be in (0, 1] (a fraction of each weight's sd per step), got ${s.learningRate}.`,
    );
  }
  if (!(s.finalLearningRate > 0 && s.finalLearningRate <= s.learningRate)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: finalLearningRate must be in (0, learningRate = ${s.learningRate}], got ${s.finalLearningRate}.`,
    );
  }
  if (!(Number.isInteger(s.seed) && s.seed >= 0 && s.seed <= 0xffffffff)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: seed must be an integer in [0, 4294967295], got ${s.seed}.`,
    );
  }
  const W = model.weightCount;
  if (options.initialWeights !== undefined && options.initialWeights.length !== W) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: initialWeights must have length ${W}, got ${options.initialWeights.length}.`,
    );
  }
  return s;
}
