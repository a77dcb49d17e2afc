/** The options of the Fabricius linear experiment and their resolution into checked settings. */
import { invalidArgument } from "../../errors.js";
import { defaultRhoGrid } from "../../models/linear/maximum-likelihood.js";
import type { Settings } from "./data.js";
import { NOISE_PRIORS, type NoisePrior } from "./exact-bayes.js";

/** Options of `runFabriciusLinearExperiment`. */
export interface FabriciusLinearOptions {
  /** @defaultValue 1 */
  seed?: number;
  /** Fewer repetitions, ρ values and temperatures (well under a minute). @defaultValue false */
  quick?: boolean;
  /** Number of data sets. @defaultValue 100 (quick: 20) */
  repetitions?: number;
  /** Training cases. @defaultValue 20 */
  nTrain?: number;
  /** Test cases. @defaultValue 200 */
  nTest?: number;
  /** Candidate inputs. @defaultValue 10 */
  inputs?: number;
  /** The first `relevant` inputs have weight 1, the others 0. @defaultValue 3 */
  relevant?: number;
  /** Noise standard deviation σ. @defaultValue 0.1 */
  noiseSd?: number;
  /** ρ grid of the regularised ML criteria. @defaultValue {@link defaultRhoGrid} */
  mlRhoGrid?: ArrayLike<number>;
  /** ρ grid of the exact-Bayes evidence (τ_w = ρτ). @defaultValue 10⁻⁶ … 10² by decades (quick: 10⁻⁴, 10⁻², 1) */
  nigRhoGrid?: ArrayLike<number>;
  /** Priors on τ of the exact-Bayes part. @defaultValue {@link NOISE_PRIORS} */
  noisePriors?: readonly NoisePrior[];
  /** Run the path-sampling part. @defaultValue true */
  pathSampling?: boolean;
  /** Random temperatures of path sampling. @defaultValue 1000 (quick: 200) */
  temperatures?: number;
  /** Path sampling for the nested models with 1 … pathModels inputs. @defaultValue 9 (as the thesis) */
  pathModels?: number;
  /** Called with what comes next. */
  onProgress?: (step: string) => void;
}

/** `value` (or `fallback` when undefined), checked to be an integer ≥ `min`; throws an `OccamError`. */
export function integer(value: number | undefined, fallback: number, name: string, min: number): number {
  const v = value ?? fallback;
  if (!(Number.isInteger(v) && v >= min))
    throw invalidArgument("runFabriciusLinearExperiment", `${name} must be an integer ≥ ${min}, got ${v}.`);
  return v;
}

/** The experiment's settings from its options, checked. */
export function resolveSettings(options: FabriciusLinearOptions) {
  const seed = integer(options.seed, 1, "seed", 0);
  const quick = options.quick === true;
  const s: Settings = {
    reps: integer(options.repetitions, quick ? 20 : 100, "repetitions", 1),
    n: integer(options.nTrain, 20, "nTrain", 2),
    m: integer(options.nTest, 200, "nTest", 1),
    p: integer(options.inputs, 10, "inputs", 1),
    q: integer(options.relevant, 3, "relevant", 1),
    sigma: options.noiseSd ?? 0.1,
  };
  if (s.p > 20)
    throw invalidArgument(
      "runFabriciusLinearExperiment",
      `inputs must be at most 20 (all 2^p subsets are scored), got ${s.p}.`,
    );
  if (s.q > s.p)
    throw invalidArgument("runFabriciusLinearExperiment", `relevant (${s.q}) cannot exceed inputs (${s.p}).`);
  if (!(Number.isFinite(s.sigma) && s.sigma > 0))
    throw invalidArgument("runFabriciusLinearExperiment", `noiseSd must be finite and > 0, got ${s.sigma}.`);
  const mlRhoGrid = options.mlRhoGrid === undefined ? defaultRhoGrid() : Float64Array.from(options.mlRhoGrid);
  const nigRhoGrid = Float64Array.from(
    options.nigRhoGrid ?? (quick ? [1e-4, 1e-2, 1] : Array.from({ length: 9 }, (_, i) => 10 ** (i - 6))),
  );
  for (const rho of nigRhoGrid) {
    if (!(Number.isFinite(rho) && rho > 0))
      throw invalidArgument(
        "runFabriciusLinearExperiment",
        `every nigRhoGrid value must be finite and > 0, got ${rho}.`,
      );
  }
  const noisePriors = options.noisePriors ?? NOISE_PRIORS;
  for (const prior of noisePriors) {
    if (!(prior.alpha > 0 && prior.beta > 0 && Number.isFinite(prior.alpha) && Number.isFinite(prior.beta))) {
      throw invalidArgument(
        "runFabriciusLinearExperiment",
        `noise prior "${prior.name}" needs finite alpha, beta > 0.`,
      );
    }
  }
  return { seed, quick, s, mlRhoGrid, nigRhoGrid, noisePriors };
}
