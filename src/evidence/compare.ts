import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { createRng } from "../random/rng.js";
import type { PosteriorDrawsInput } from "./draws-input.js";
import {
  type EvidenceMethod,
  type EvidenceMethodSettings,
  type EvidenceResult,
  estimateEvidence,
  NEEDS_DRAWS,
} from "./estimate.js";
import {
  type PosteriorSample,
  type PosteriorSamplingOptions,
  samplePosterior,
} from "./posterior-sampling.js";

/**
 * The methods `occam evidence` and {@link compareEstimators} run when none are named: bridge sampling
 * on NUTS draws, the precise answer in seconds, and tempered SMC from the prior as an independent
 * cross-check, sized by {@link CROSS_CHECK_SETTINGS} to confirm it rather than to match its precision.
 */
export const DEFAULT_EVIDENCE_METHODS: readonly EvidenceMethod[] = ["bridge", "smc"];

/**
 * The methods the default runs next when neither of its own gives a reliable estimate: both temper
 * from the prior with moves that need no gradient (nested sampling's slices, TMCMC's random walk), so
 * they follow the neck of a funnel where every HMC trajectory of bridge's chains and smc's moves
 * diverges (the centred eight schools). They are sized by {@link FALLBACK_SETTINGS}.
 */
export const FALLBACK_EVIDENCE_METHODS: readonly EvidenceMethod[] = ["nested", "tmcmc"];

/** What a report says when the fallback methods ran. */
export const FALLBACK_NOTE =
  `Neither ${DEFAULT_EVIDENCE_METHODS.join(" nor ")} was reliable, so ${FALLBACK_EVIDENCE_METHODS.join(" and ")} ` +
  "ran too: they temper from the prior with moves that need no gradient.";

/** Settings for some of the methods, by method name. */
export type EvidenceSettingsByMethod = { readonly [M in EvidenceMethod]?: EvidenceMethodSettings[M] };

/**
 * The default cross-check's size: one tempered SMC run of 1024 particles in 8 islands, moved until a
 * hundredth of each temperature's memory is left (rather than a thousandth): a standard error of
 * 0.1–0.2 nats, enough to tell whether bridge sampling's answer is right, from the prior alone (smc's
 * own defaults temper a second run from a reference fitted to the first). Islands of 128 particles
 * rather than smc's 64: on the Pima regressions 16 islands of 32 left the standard error about 1.2
 * times too small, with one run in 20 beyond 3.4 of them, where 8 of 128 gave errors of the size
 * they claim (rms z 1.04 over 60 runs, none beyond 2.6). At most 400 000 likelihood evaluations (about
 * six times what the Pima regressions need): where independence proposals cannot move the particles
 * and HMC must, on a 55-parameter random-intercept model, a cross-check would otherwise cost millions;
 * one that runs out is marked unreliable, and the precise methods stay one flag away.
 */
export const CROSS_CHECK_SETTINGS: EvidenceSettingsByMethod = {
  smc: { particles: 1024, islands: 8, memoryLeft: 0.01, maxEvaluations: 400_000 },
};

/**
 * The fallback methods' size: they give the answer rather than check it, so each is run to about
 * ±0.03 nats (the consensus of the two to about ±0.02): nested sampling with 2000 live points, TMCMC
 * with 4096 samples. (With twice as many, TMCMC's islands stop seeing its failure on Neal's funnel:
 * at 8192 samples one run of three was 1.8 nats low and called reliable; at 4096 six of six were
 * flagged.)
 */
export const FALLBACK_SETTINGS: EvidenceSettingsByMethod = {
  nested: { livePoints: 2000 },
  tmcmc: { samples: 4096 },
};

/** How occam samples the posterior for the draw-based methods of a comparison. */
export type PosteriorSize = Pick<PosteriorSamplingOptions, "chains" | "warmup" | "draws">;

/**
 * The posterior draws of the default comparison: Stan's four NUTS chains with half its warm-up and
 * draws (500 of each per chain), enough for bridge sampling to about ±0.005 nats on a regression, in
 * half the evaluations. Named methods draw at `samplePosterior`'s own defaults.
 */
export const DEFAULT_POSTERIOR_SIZE: PosteriorSize = { warmup: 500, draws: 500 };

/** Options of {@link compareEstimators}. */
export interface CompareEstimatorsOptions {
  /** @defaultValue 1 */
  seed?: number;
  /** Posterior draws shared by the methods that need them; sampled once by occam when not given. */
  draws?: PosteriorDrawsInput;
  /**
   * Two estimates agree when |difference| ≤ `threshold` × the standard error of the difference.
   * @defaultValue 3
   */
  threshold?: number;
  /**
   * Settings of some of the methods (each method not named here runs at its own defaults).
   * @defaultValue {@link CROSS_CHECK_SETTINGS} when the methods are not named, else none
   */
  settings?: EvidenceSettingsByMethod;
  /**
   * The size of the posterior draws occam makes for the draw-based methods.
   * @defaultValue {@link DEFAULT_POSTERIOR_SIZE} when the methods are not named, else `samplePosterior`'s
   */
  posterior?: PosteriorSize;
  /** Told each method's result (or failure) as soon as it has one, so that a table can fill in. */
  onEstimate?: (outcome: EstimatorOutcome) => void;
}

/** One pair of estimates and how far apart they are in units of their joint error. */
export interface EstimatePair {
  readonly a: string;
  readonly b: string;
  readonly difference: number;
  /** difference / √(stdErr_a² + stdErr_b²); ±Infinity when both claim no error and differ. */
  readonly z: number;
  readonly agree: boolean;
}

/** A method that gave no estimate, and why. */
export interface EstimatorFailure {
  readonly method: EvidenceMethod;
  /** The OccamError's message. */
  readonly message: string;
}

/** What {@link compareEstimators} returns. */
export interface EstimatorComparison {
  /** The estimates, in the order the methods were given (without the methods that failed). */
  readonly results: readonly EvidenceResult[];
  /** The methods that stopped with an error instead (a model they do not apply to, a sampler that could not move, …). */
  readonly failures: readonly EstimatorFailure[];
  /** The posterior draws the draw-based methods shared, when occam made them. */
  readonly posterior?: PosteriorSample;
  /** Every pair of reliable estimates. */
  readonly pairs: readonly EstimatePair[];
  /**
   * True when every pair of reliable estimates agrees within the threshold; false when fewer than
   * two are reliable (nothing was cross-checked).
   */
  readonly agree: boolean;
  /** The inverse-variance weighted mean of the reliable estimates and its standard error; null when none is reliable. */
  readonly consensus: { readonly logZ: number; readonly stdErr: number } | null;
  /** The exact log Z, when the model has one, and each estimate's z against it. */
  readonly exact?: { readonly logZ: number; readonly z: readonly number[] };
  /** True when the default methods gave no reliable estimate and {@link FALLBACK_EVIDENCE_METHODS} ran too. */
  readonly fellBack?: boolean;
}

/** One method's outcome: its estimate, or why it gave none. */
export type EstimatorOutcome =
  | { readonly result: EvidenceResult; readonly failure?: undefined }
  | { readonly failure: EstimatorFailure; readonly result?: undefined };

/** What {@link runEstimators} computed for the methods it ran. */
export interface EstimatorRuns {
  /** One outcome per method run, in the order of `only` (or of the methods). */
  readonly outcomes: readonly EstimatorOutcome[];
  /** The posterior draws occam made for the draw-based methods among them. */
  readonly posterior?: PosteriorSample;
}

/**
 * Runs the methods at positions `only` (default: all) of `methods` on the model. Each method's seed
 * comes from its own stream of `seed` and its position, and the shared posterior draws from a stream of
 * their own, so any subset of the methods run anywhere gives the same outcomes as the whole list.
 */
export function runEstimators(
  model: BayesModel,
  methods: readonly EvidenceMethod[],
  options: CompareEstimatorsOptions & { only?: readonly number[] } = {},
): EstimatorRuns {
  const only = options.only ?? methods.map((_, i) => i);
  const streams = createRng(options.seed ?? 1).split(methods.length + 1);
  // One set of posterior draws for every method that needs them, made only if one does.
  const sample =
    options.draws === undefined && only.some((i) => NEEDS_DRAWS.has(methods[i]))
      ? samplePosterior(model, { ...options.posterior, rng: streams[0] })
      : undefined;
  const outcomes = only.map((i): EstimatorOutcome => {
    const method = methods[i];
    // Each method's own seed comes from its own stream, so adding a method changes no other result.
    const seed = Math.floor(streams[i + 1].uniform() * 0xffffffff);
    const settings = options.settings?.[method];
    let outcome: EstimatorOutcome;
    try {
      outcome = {
        result: estimateEvidence(model, {
          method,
          draws: options.draws,
          sample,
          seed,
          ...(settings === undefined ? {} : { settings }),
        }),
      };
    } catch (error) {
      // A method that cannot run on the model is one failure among the methods; a model whose own
      // code threw is wrong for every method.
      if (!(error instanceof OccamError) || error.code === "model-error") throw error;
      outcome = { failure: { method, message: error.message } };
    }
    options.onEstimate?.(outcome);
    return outcome;
  });
  return sample === undefined ? { outcomes } : { outcomes, posterior: sample };
}

/**
 * Runs several estimators on one model and reports whether they agree within their errors: a
 * cross-check of the numbers, not only of their spread. Methods that need posterior draws share one
 * set, sampled once. Only reliable results (see `EvidenceEstimate.reliable`: the harmonic mean and
 * Laplace never are) enter the pairs and the consensus; the others are listed with their warnings.
 * Without `methods`, bridge sampling with a quick tempered cross-check ({@link DEFAULT_EVIDENCE_METHODS}),
 * followed by {@link FALLBACK_EVIDENCE_METHODS} when neither of the two is reliable.
 *
 * @example
 * const { consensus, agree } = compareEstimators(model); // bridge, cross-checked by a quick smc
 * const precise = compareEstimators(model, ["bridge", "smc", "stepping-stone"]); // each at its defaults
 */
export function compareEstimators(
  model: BayesModel,
  methods: readonly EvidenceMethod[] = DEFAULT_EVIDENCE_METHODS,
  options: CompareEstimatorsOptions = {},
): EstimatorComparison {
  checkMethodCount(methods);
  const settings = defaultSettings(methods, options);
  const posterior = defaultPosteriorSize(methods, options);
  const runs = runEstimators(model, methods, { ...options, settings, posterior });
  const comparison = summariseEstimators(model, runs.outcomes, runs.posterior, options.threshold);
  if (!needsFallback(methods, comparison)) return comparison;
  const more = runEstimators(model, WITH_FALLBACK, {
    ...options,
    settings: { ...FALLBACK_SETTINGS, ...settings },
    only: FALLBACK_POSITIONS,
  });
  return {
    ...summariseEstimators(model, [...runs.outcomes, ...more.outcomes], runs.posterior, options.threshold),
    fellBack: true,
  };
}

/** The default methods followed by the fallback ones: each method's seed depends only on its position here. */
export const WITH_FALLBACK: readonly EvidenceMethod[] = [
  ...DEFAULT_EVIDENCE_METHODS,
  ...FALLBACK_EVIDENCE_METHODS,
];

/** The fallback methods' positions in {@link WITH_FALLBACK}. */
export const FALLBACK_POSITIONS: readonly number[] = FALLBACK_EVIDENCE_METHODS.map(
  (_, i) => DEFAULT_EVIDENCE_METHODS.length + i,
);

/** Whether the comparison of `methods` calls for the fallback methods: the default list, with no reliable estimate. */
export function needsFallback(methods: readonly EvidenceMethod[], comparison: EstimatorComparison): boolean {
  return methods === DEFAULT_EVIDENCE_METHODS && comparison.consensus === null;
}

/** The settings the methods run with: the cross-check's size when the methods were not named. */
export function defaultSettings(
  methods: readonly EvidenceMethod[],
  options: { settings?: EvidenceSettingsByMethod },
): EvidenceSettingsByMethod | undefined {
  if (options.settings !== undefined) return options.settings;
  // The default list itself, not an equal one: methods a user names run at their own defaults.
  return methods === DEFAULT_EVIDENCE_METHODS ? CROSS_CHECK_SETTINGS : undefined;
}

/** The size of the posterior draws: the default comparison's when the methods were not named. */
export function defaultPosteriorSize(
  methods: readonly EvidenceMethod[],
  options: { posterior?: PosteriorSize },
): PosteriorSize | undefined {
  if (options.posterior !== undefined) return options.posterior;
  return methods === DEFAULT_EVIDENCE_METHODS ? DEFAULT_POSTERIOR_SIZE : undefined;
}

/** Throws unless there are at least two methods to cross-check. */
export function checkMethodCount(methods: readonly EvidenceMethod[]): void {
  if (methods.length < 2) {
    throw new OccamError(
      "invalid-argument",
      `compareEstimators needs at least two methods, got ${methods.length}.`,
    );
  }
}

/** The comparison of the methods' outcomes (in the methods' order): pairs, agreement, consensus. */
export function summariseEstimators(
  model: BayesModel,
  outcomes: readonly EstimatorOutcome[],
  posterior: PosteriorSample | undefined,
  threshold = 3,
): EstimatorComparison {
  const results: EvidenceResult[] = [];
  const failures: EstimatorFailure[] = [];
  for (const o of outcomes) {
    if (o.result !== undefined) results.push(o.result);
    else failures.push(o.failure);
  }
  const sample = posterior;
  const statistical = results
    .map((r) => ({ r, name: r.method }))
    .filter((x) => x.r.reliable && x.r.stdErr > 0 && Number.isFinite(x.r.stdErr));
  const pairs: EstimatePair[] = [];
  for (let i = 0; i < statistical.length; i++) {
    for (let j = i + 1; j < statistical.length; j++) {
      const a = statistical[i];
      const b = statistical[j];
      const difference = a.r.logZ - b.r.logZ;
      const se = Math.hypot(a.r.stdErr, b.r.stdErr);
      const z =
        se > 0 ? difference / se : difference === 0 ? 0 : Math.sign(difference) * Number.POSITIVE_INFINITY;
      pairs.push({ a: a.name, b: b.name, difference, z, agree: Math.abs(z) <= threshold });
    }
  }
  let weight = 0;
  let weighted = 0;
  for (const { r } of statistical) {
    weight += 1 / r.stdErr ** 2;
    weighted += r.logZ / r.stdErr ** 2;
  }
  const exactLogZ = model.exactLogEvidence?.();
  return {
    results,
    failures,
    ...(sample === undefined ? {} : { posterior: sample }),
    pairs,
    agree: pairs.length > 0 && pairs.every((p) => p.agree),
    consensus: weight > 0 ? { logZ: weighted / weight, stdErr: 1 / Math.sqrt(weight) } : null,
    ...(exactLogZ === undefined
      ? {}
      : { exact: { logZ: exactLogZ, z: results.map((r) => (r.logZ - exactLogZ) / r.stdErr) } }),
  };
}
