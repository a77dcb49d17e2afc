/**
 * The options of the input-selecting mixture classifier (`fitMixtureClassifier`, `occam
 * select-inputs`) in one place: what each means, the defaults the command line's help shows, and the
 * resolver that checks them and fills the defaults.
 */
import { OccamError } from "../../errors.js";

/** Options of `fitMixtureClassifier`. */
export interface MixtureClassifierOptions {
  /** Number D of Gaussian kernels of each input's mixture. @defaultValue 3 */
  kernels?: number;
  /** h of the hyperprior β_i ~ Gamma(g, h_i) with h_i = h / R_i² (R_i the range of input i). @defaultValue 0.25 */
  h?: number;
  /** Shape a of the kernel precisions' prior λ ~ Gamma(a, β_i). @defaultValue 2 */
  a?: number;
  /** Shape g of the hyperprior on β_i. @defaultValue 0.2 */
  g?: number;
  /**
   * κ₀: the prior of a kernel mean is N(ξ_i, 1/(κ₀ λ)) (in units of R_i), i.e. 1/√κ₀ kernel widths
   * around the midpoint. @defaultValue 0.05
   */
  kappa0?: number;
  /** Dirichlet prior count δ_w of the kernel weights (class-specific and pooled). @defaultValue 1 */
  deltaW?: number;
  /** Dirichlet prior count δ_P of the class priors. @defaultValue 1 */
  deltaP?: number;
  /**
   * Resolution ρ: β_i is truncated to β_i ≥ a ρ² (in units of R_i²), which keeps kernels from collapsing
   * onto repeated values (with ties at the midpoint the posterior is improper without a bound).
   * @defaultValue 0.01
   */
  resolution?: number;
  /** Mean c of the truncated Poisson prior on the number of inputs. @defaultValue 3 */
  poissonMean?: number;
  /**
   * Smallest subset size the prior allows: 1 (the paper's truncation 1 … I_max) or 0 (the empty
   * subset, whose predictions are the class priors, is allowed too). @defaultValue 1
   */
  minInputs?: 0 | 1;
  /**
   * "per-input": every input has its own mixture and allocations (a naive-Bayes mixture; selects every
   * input whose distribution depends on the class). "shared": Sykacek's kernels shared by the selected
   * inputs, each other input regressed on them (fewer inputs; see shared-chain.ts for what it assumes).
   * @defaultValue "per-input"
   */
  structure?: "per-input" | "shared";
  /** Relative weights of the birth, death and exchange moves (birth and death must be equal). @defaultValue [1, 1, 1] */
  moveWeights?: readonly [number, number, number];
  /**
   * Reversible-jump proposals (birth, death, exchange) after each Gibbs scan; 0 keeps the starting
   * subset fixed.
   * @defaultValue 5
   */
  jumpsPerSweep?: number;
  /** Sweeps per chain, burn-in included. @defaultValue 15000 */
  draws?: number;
  /** Sweeps discarded at the start of each chain. @defaultValue 5000 */
  burnIn?: number;
  /**
   * Independent chains from random starts; their kept draws are pooled, and the spread of their input
   * probabilities is reported. @defaultValue 1
   */
  chains?: number;
  /** Seed of the random stream. @defaultValue 1 */
  seed?: number;
  /** Starting subset (input indices) of every chain. @defaultValue one to three inputs chosen at random */
  initialInputs?: readonly number[];
  /** Test inputs (m × p row-major) whose class probabilities are averaged over the kept draws. @defaultValue none */
  test?: { readonly X: Float64Array; readonly n: number };
  /** Called every 500 sweeps with the sweep number (counted over all chains). @defaultValue none */
  onProgress?: (sweep: number, total: number) => void;
}

/** Filled-in options (internal; shared with the chains). */
export interface Settings {
  D: number;
  h: number;
  a: number;
  g: number;
  kappa0: number;
  deltaW: number;
  deltaP: number;
  c: number;
  minInputs: number;
  structure: "per-input" | "shared";
  resolution: number;
  weights: readonly [number, number, number];
  jumps: number;
  draws: number;
  burnIn: number;
  chains: number;
  seed: number;
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be a finite number > 0, got ${value}.`,
    );
  }
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be a finite number ≥ 0, got ${value}.`,
    );
  }
  return value;
}

function integerAtLeast(value: number, min: number, name: string): number {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be an integer ≥ ${min}, got ${value}.`,
    );
  }
  return value;
}

function minInputs(value: number | undefined): number {
  if (value === undefined) return MIXTURE_CLASSIFIER_DEFAULTS.minInputs;
  if (value !== 0 && value !== 1) {
    throw new OccamError("invalid-argument", `mixture classifier: minInputs must be 0 or 1, got ${value}.`);
  }
  return value;
}

function structure(value: string | undefined): "per-input" | "shared" {
  if (value === undefined) return MIXTURE_CLASSIFIER_DEFAULTS.structure;
  if (value !== "per-input" && value !== "shared") {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: structure must be "per-input" or "shared", got "${value}".`,
    );
  }
  return value;
}

/** The defaults of {@link MixtureClassifierOptions}, which `occam select-inputs`' help shows. */
export const MIXTURE_CLASSIFIER_DEFAULTS = Object.freeze({
  kernels: 3,
  moveWeights: Object.freeze([1, 1, 1] as const),
  h: 0.25,
  a: 2,
  g: 0.2,
  kappa0: 0.05,
  deltaW: 1,
  deltaP: 1,
  resolution: 0.01,
  poissonMean: 3,
  minInputs: 1 as const,
  structure: "per-input" as const,
  jumpsPerSweep: 5,
  draws: 15000,
  burnIn: 5000,
  chains: 1,
  seed: 1,
});

/** Checks `options` and fills in {@link MIXTURE_CLASSIFIER_DEFAULTS}; throws an `invalid-argument` OccamError. */
export function resolveMixtureClassifierOptions(options: MixtureClassifierOptions): Settings {
  const D = integerAtLeast(options.kernels ?? MIXTURE_CLASSIFIER_DEFAULTS.kernels, 1, "kernels");
  const draws = options.draws ?? MIXTURE_CLASSIFIER_DEFAULTS.draws;
  const burnIn = options.burnIn ?? MIXTURE_CLASSIFIER_DEFAULTS.burnIn;
  if (!(Number.isInteger(draws) && Number.isInteger(burnIn) && burnIn >= 0 && draws > burnIn)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: need integers draws > burnIn ≥ 0, got draws = ${draws}, burnIn = ${burnIn}.`,
    );
  }
  const weights = options.moveWeights ?? MIXTURE_CLASSIFIER_DEFAULTS.moveWeights;
  weights.forEach((w, j) => {
    positive(w, `moveWeights[${j}]`);
  });
  if (weights[0] !== weights[1]) {
    throw new OccamError(
      "invalid-argument",
      "mixture classifier: the birth and death moves must have equal weights (each is the other's reverse).",
    );
  }
  return {
    D,
    h: positive(options.h ?? MIXTURE_CLASSIFIER_DEFAULTS.h, "h"),
    a: positive(options.a ?? MIXTURE_CLASSIFIER_DEFAULTS.a, "a"),
    g: positive(options.g ?? MIXTURE_CLASSIFIER_DEFAULTS.g, "g"),
    kappa0: positive(options.kappa0 ?? MIXTURE_CLASSIFIER_DEFAULTS.kappa0, "kappa0"),
    deltaW: positive(options.deltaW ?? MIXTURE_CLASSIFIER_DEFAULTS.deltaW, "deltaW"),
    deltaP: positive(options.deltaP ?? MIXTURE_CLASSIFIER_DEFAULTS.deltaP, "deltaP"),
    c: positive(options.poissonMean ?? MIXTURE_CLASSIFIER_DEFAULTS.poissonMean, "poissonMean"),
    minInputs: minInputs(options.minInputs),
    structure: structure(options.structure),
    resolution: nonNegative(options.resolution ?? MIXTURE_CLASSIFIER_DEFAULTS.resolution, "resolution"),
    weights,
    jumps: integerAtLeast(
      options.jumpsPerSweep ?? MIXTURE_CLASSIFIER_DEFAULTS.jumpsPerSweep,
      0,
      "jumpsPerSweep",
    ),
    draws,
    burnIn,
    chains: integerAtLeast(options.chains ?? MIXTURE_CLASSIFIER_DEFAULTS.chains, 1, "chains"),
    seed: options.seed ?? MIXTURE_CLASSIFIER_DEFAULTS.seed,
  };
}
