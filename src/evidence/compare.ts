import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { createRng } from "../random/rng.js";
import { type EvidenceMethod, estimateEvidence } from "./estimate.js";
import { samplePosterior } from "./posterior-sampling.js";
import type { EvidenceResult, PosteriorDrawsInput } from "./result.js";

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

/** What {@link compareEstimators} returns. */
export interface EstimatorComparison {
  readonly results: readonly EvidenceResult[];
  /** Every pair of Monte Carlo estimates (methods whose error bars are statistical). */
  readonly pairs: readonly EstimatePair[];
  /** True when every pair agrees within the threshold. */
  readonly agree: boolean;
  /** The inverse-variance weighted mean of the Monte Carlo estimates and its standard error. */
  readonly consensus: { readonly logZ: number; readonly stdErr: number };
  /** The exact log Z, when the model has one, and each estimate's z against it. */
  readonly exact?: { readonly logZ: number; readonly z: readonly number[] };
}

/**
 * Methods whose standard error does not measure their error: the harmonic mean's variance is
 * usually infinite, Laplace's error is asymptotic (it reports 0), and the k-NN entropy estimator has
 * a bias its standard error does not include. They are listed but not used to judge agreement.
 */
const NOT_STATISTICAL: ReadonlySet<string> = new Set(["harmonic-mean", "laplace", "entropy"]);

/**
 * Runs several estimators on one model and reports whether they agree within their errors: a
 * cross-check of the numbers, not only of their spread. Methods that need posterior draws share one
 * set, sampled once.
 */
export function compareEstimators(
  model: BayesModel,
  methods: readonly EvidenceMethod[],
  options: CompareEstimatorsOptions = {},
): EstimatorComparison {
  if (methods.length < 2) {
    throw new OccamError(
      "invalid-argument",
      `compareEstimators needs at least two methods, got ${methods.length}.`,
    );
  }
  const threshold = options.threshold ?? 3;
  const streams = createRng(options.seed ?? 1).split(methods.length + 1);
  const draws = options.draws ?? samplePosterior(model, { rng: streams[0] }).draws;
  const results = methods.map((method, i) =>
    // Each method's own seed comes from its own stream, so adding a method changes no other result.
    estimateEvidence(model, { method, draws, seed: Math.floor(streams[i + 1].uniform() * 0xffffffff) }),
  );
  const statistical = results
    .map((r, i) => ({ r, name: methods[i] }))
    .filter((x) => !NOT_STATISTICAL.has(x.name));
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
    if (r.stdErr > 0 && Number.isFinite(r.stdErr)) {
      weight += 1 / r.stdErr ** 2;
      weighted += r.logZ / r.stdErr ** 2;
    }
  }
  const exactLogZ = model.exactLogEvidence?.();
  return {
    results,
    pairs,
    agree: pairs.every((p) => p.agree),
    consensus:
      weight > 0
        ? { logZ: weighted / weight, stdErr: 1 / Math.sqrt(weight) }
        : { logZ: Number.NaN, stdErr: Number.NaN },
    ...(exactLogZ === undefined
      ? {}
      : { exact: { logZ: exactLogZ, z: results.map((r) => (r.logZ - exactLogZ) / r.stdErr) } }),
  };
}
