/**
 * Evidence from posterior draws of subsets of the data (Everson, Krzanowski, Bailey & Fieldsend, "On
 * evidence weighted mixture classification", eqs. 7–8): a held-out predictive, the G-fold product
 * ∏ p(D_g | D_−g), and the chain rule p(D) = p(D_1) ∏_{g≥2} p(D_g | D_1 … D_{g−1}), each conditional
 * estimated by averaging the likelihood of the predicted observations over posterior draws given the
 * conditioning observations, or (the chain rule with `terms: "bridge"`) by a bridge between the
 * posteriors before and after a fold joins. The split of the data is in cross-validation-blocks.ts,
 * the terms and the model contract in cross-validation-terms.ts.
 */

import { union } from "../data/folds.js";
import { OccamError } from "../errors.js";
import type { Draws } from "../model/draws.js";
import type { BayesModel } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { bridgeSampling } from "./bridge-sampling.js";
import { checkCount, checkModel, type RandomOptions, resolveRng } from "./checks.js";
import { type ConditionalPair, conditionalPairs, partitionBlocks } from "./cross-validation-blocks.js";
import {
  bridgedChainRule,
  type CrossValidationTerm,
  conditionalTerm,
  exactSubsetLogEvidence,
  type FinalSample,
  isSubsettable,
  type SubsetDraws,
  type SubsettableModel,
  subsetDraws,
  subsetModel,
} from "./cross-validation-terms.js";
import type { PosteriorKernelChoice } from "./posterior-sampling.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";

export {
  type CrossValidationTerm,
  type ExactPosteriorSampler,
  hasExactPosterior,
  isSubsettable,
  type SubsettableModel,
} from "./cross-validation-terms.js";

const WHERE = "crossValidatedEvidence";

// ---------------------------------------------------------------------------------------------
// Options.

/** Which quantity {@link crossValidatedEvidence} estimates; see its documentation. */
export type CrossValidationForm = "held-out" | "k-fold" | "chain-rule";

/**
 * How posterior draws given a subset are made: `"auto"` uses the subset model's exact
 * `samplePosterior` when it has one, else MCMC chosen as `samplePosterior` of posterior-sampling.ts
 * does (the model's exact `powerPosteriorKernel(1)`, else NUTS with gradients, else random walk);
 * `"exact"` requires the exact sampler; the other values pick that MCMC kernel.
 */
export type CrossValidationSampler = "exact" | PosteriorKernelChoice;

/** An estimator of log p(D_1) for the chain rule's first fold: given the subset model and its posterior draws. */
export type FirstFoldEstimatorFn = (
  model: BayesModel,
  context: { rng: Rng; draws: Draws },
) => EvidenceEstimate;

/**
 * The estimator of log p(D_1) in the chain rule: `"auto"` is `"exact"` when the subset model has
 * `exactLogEvidence()`, else `"bridge-sampling"` on posterior draws of the subset; or a function.
 */
export type FirstFoldEstimator = "auto" | "exact" | "bridge-sampling" | FirstFoldEstimatorFn;

/** Options of {@link crossValidatedEvidence}. */
export interface CrossValidatedEvidenceOptions extends RandomOptions {
  /**
   * The quantity: `"held-out"` log p(D_E | D_T) (eq. 7), `"k-fold"` Σ_g log p(D_g | D_−g) (eq. 8, a
   * pseudo-likelihood, biased above log Z), or `"chain-rule"` log p(D) itself. Required, since the
   * three are different numbers.
   */
  form: CrossValidationForm;
  /**
   * Number of folds G (k-fold and chain-rule), 2 ≤ G ≤ n.
   * @defaultValue 5
   */
  folds?: number;
  /**
   * The folds themselves, overriding `folds` and `shuffle`: index arrays that partition 0 … n − 1 (for
   * held-out, two blocks: training then evidence).
   */
  partition?: readonly ArrayLike<number>[];
  /**
   * Assign observations to folds at random (seeded) rather than in contiguous blocks. Contiguous folds
   * of data sorted by some variable (Everson's two regimes) condition on unrepresentative subsets.
   * @defaultValue true
   */
  shuffle?: boolean;
  /**
   * Fraction of the observations in the training set D_T (held-out).
   * @defaultValue 0.5
   */
  trainFraction?: number;
  /**
   * Posterior draws per posterior (per fold), over all chains.
   * @defaultValue 4000
   */
  draws?: number;
  /**
   * How the posterior draws are made.
   * @defaultValue "auto"
   */
  sampler?: CrossValidationSampler;
  /**
   * MCMC chains per posterior, each on its own `rng.split` stream (MCMC only).
   * @defaultValue 4
   */
  chains?: number;
  /**
   * Warm-up iterations per chain (MCMC only).
   * @defaultValue 1000
   */
  warmup?: number;
  /**
   * Where the MCMC chains of each posterior start (MCMC only), as `samplePosterior` takes it:
   * "tempered" pays for a small tempered run per posterior so that chains find every mode; "prior"
   * starts them at prior draws, enough for a posterior with one mode (an identified family).
   * @defaultValue "tempered"
   */
  starts?: "tempered" | "prior";
  /**
   * The estimator of log p(D_1) (chain-rule only).
   * @defaultValue "auto"
   */
  firstFoldEstimator?: FirstFoldEstimator;
  /**
   * How each chain-rule factor p(D_g | D_1 … D_{g−1}) is estimated (chain-rule only): `"importance"`
   * averages p(D_g | θ) over posterior draws given folds 1 … g − 1 (one posterior per factor, but the
   * average rests on the few draws the next posterior favours when a fold moves the posterior far,
   * as with small early folds or many parameters); `"bridge"` bridges the posteriors given folds
   * 1 … g − 1 and 1 … g with Meng & Wong's optimal bridge (see `bridgeRatio`), using draws of both, so
   * it needs only that they overlap. With `"bridge"` the posterior given fold 1 serves both log p(D_1)
   * and the second factor, and the last posterior is that given all observations.
   * @defaultValue "importance"
   */
  terms?: "importance" | "bridge";
  /**
   * With `terms: "bridge"`, posterior draws given all observations already made (e.g. for
   * predictions), used as the last posterior instead of sampling it again; its reasons for
   * unreliability count as the estimate's.
   */
  finalSample?: FinalSample;
}

interface Resolved {
  form: CrossValidationForm;
  folds: number;
  partition: readonly ArrayLike<number>[] | undefined;
  shuffle: boolean;
  trainFraction: number;
  draws: number;
  sampler: CrossValidationSampler;
  chains: number;
  warmup: number;
  starts: "tempered" | "prior";
  firstFoldEstimator: FirstFoldEstimator;
  terms: "importance" | "bridge";
}

function resolveOptions(options: CrossValidatedEvidenceOptions): Resolved {
  if (options === null || typeof options !== "object") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: options with { form: "held-out" | "k-fold" | "chain-rule" } are required.`,
    );
  }
  const { form } = options;
  if (form !== "held-out" && form !== "k-fold" && form !== "chain-rule") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: form must be "held-out", "k-fold" or "chain-rule", got ${String(form)}.`,
    );
  }
  const folds = options.folds ?? 5;
  const shuffle = options.shuffle ?? true;
  const trainFraction = options.trainFraction ?? 0.5;
  const draws = options.draws ?? 4000;
  const sampler = options.sampler ?? "auto";
  const chains = options.chains ?? 4;
  const warmup = options.warmup ?? 1000;
  const firstFoldEstimator = options.firstFoldEstimator ?? "auto";
  const starts = options.starts ?? "tempered";
  checkCount(folds, "folds", WHERE, 2);
  if (typeof shuffle !== "boolean") {
    throw new OccamError("invalid-argument", `${WHERE}: shuffle must be true or false.`);
  }
  if (!(trainFraction > 0 && trainFraction < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: trainFraction must lie strictly between 0 and 1, got ${trainFraction}.`,
    );
  }
  checkCount(draws, "draws", WHERE, 20);
  checkCount(chains, "chains", WHERE, 1);
  checkCount(warmup, "warmup", WHERE, 0);
  if (
    typeof sampler !== "function" &&
    !["auto", "exact", "model", "nuts", "hmc", "random-walk"].includes(sampler as string)
  ) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: sampler must be "auto", "exact", "model", "nuts", "hmc", "random-walk" or a function (beta) => Kernel, got ${String(sampler)}.`,
    );
  }
  if (
    typeof firstFoldEstimator !== "function" &&
    firstFoldEstimator !== "auto" &&
    firstFoldEstimator !== "exact" &&
    firstFoldEstimator !== "bridge-sampling"
  ) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: firstFoldEstimator must be "auto", "exact", "bridge-sampling" or a function, got ${String(firstFoldEstimator)}.`,
    );
  }
  if (starts !== "tempered" && starts !== "prior") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: starts must be "tempered" or "prior", got ${String(starts)}.`,
    );
  }
  const terms = options.terms ?? "importance";
  if (terms !== "importance" && terms !== "bridge") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: terms must be "importance" or "bridge", got ${String(terms)}.`,
    );
  }
  if (options.partition !== undefined && options.folds !== undefined) {
    throw new OccamError("invalid-argument", `${WHERE}: give folds or partition, not both.`);
  }
  return {
    form,
    folds,
    partition: options.partition,
    shuffle,
    trainFraction,
    draws,
    sampler,
    chains,
    warmup,
    starts,
    firstFoldEstimator,
    terms,
  };
}

// ---------------------------------------------------------------------------------------------
// The estimator.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The chain rule's first fold, log p(D_1), in {@link CrossValidatedDiagnostics}. */
export interface FirstFoldSummary {
  /** "exact", "bridge" or "user (method)". */
  readonly estimator: string;
  readonly observations: number;
  readonly logZ: number;
  readonly stdErr: number;
  /** Its exact value, where the subset has `exactLogEvidence()`. */
  readonly exact?: number;
}

/** Diagnostics of {@link crossValidatedEvidence}. */
export interface CrossValidatedDiagnostics {
  readonly form: CrossValidationForm;
  /** The quantity estimated, in words. */
  readonly estimand: string;
  readonly blockSizes: readonly number[];
  /** The observations of each block. */
  readonly partition: readonly (readonly number[])[];
  /** Posterior draws per conditioning set. */
  readonly draws: number;
  readonly terms: readonly CrossValidationTerm[];
  readonly firstFold?: FirstFoldSummary;
  /** The exact log p(D), the exact value of the estimated quantity, and (k-fold) their difference. */
  readonly exactLogZ?: number;
  readonly exactValue?: number;
  readonly exactBias?: number;
}

/** The result of {@link crossValidatedEvidence}. */
export type CrossValidatedResult = EvidenceEstimate<"cv", CrossValidatedDiagnostics>;

/**
 * Evidence from posterior draws given subsets of the data, in three forms (Everson et al. eqs. 7–8),
 * each conditional estimated as p(D_A | D_B) = E_{θ ~ p(θ | D_B)}[p(D_A | θ)] ≈ mean_t p(D_A | θ_t)
 * (`logMeanExp` of Σ_{i∈A} log p(y_i | θ_t)):
 *
 * - `"held-out"` (eq. 7): log p(D_E | D_T), the evidence of the evidence set D_E given the training set
 *   D_T (`trainFraction` of the data). This is a conditional evidence: it lacks the Occam factor of
 *   D_T's own evidence, log p(D) = log p(D_T) + log p(D_E | D_T), and is not an estimate of log p(D_E).
 * - `"k-fold"` (eq. 8): Σ_g log p(D_g | D_−g) over G folds: Geisser's pseudo-likelihood (Geisser & Eddy
 *   1979), not log Z. By the chain rule, p(D) = p(D_1) p(D_2 | D_1) … p(D_G | D_1 … D_{G−1}): each fold
 *   is predicted from the folds before it only, the first from the prior alone. The product
 *   ∏_g p(D_g | D_−g) predicts every fold from all the others, so each factor conditions on more data
 *   than the chain rule's, and for a well-specified model the predictive density of new data rises as
 *   the posterior concentrates: the product overestimates p(D). For a regular model with d parameters
 *   the gap is about (d/2)[log(1 + n c) − G log(G/(G − 1))], c the ratio of the prior variance to
 *   the variance one observation leaves: the k-fold product omits the Occam factor of the prior's
 *   width, which grows with log n. (For the conjugate Gaussian mean, c = s0²/σ², and over data from
 *   the prior predictive the expected gap is exactly ½[log(1 + nc) − G log(1 + (n/G)c/(1 + (n − n/G)c))]
 *   per coordinate.) This is the 20–40 nats by which Everson et al.'s Tables 1–2 sit above the exact values
 *   (n = 4000, v = 10⁴, G = 5), a bias the authors could not explain; occam reports it, and when the
 *   model's subsets have `exactLogEvidence()`, `diagnostics` gives the exact k-fold value
 *   Σ_g [log p(D) − log p(D_−g)] beside the exact log Z.
 * - `"chain-rule"`: log p(D) = log p(D_1) + Σ_{g≥2} log p(D_g | D_1 … D_{g−1}), with log p(D_1) from
 *   `firstFoldEstimator` (the exact value when `model.subset(fold 1)` has `exactLogEvidence()`, else
 *   bridge sampling on its posterior draws; `diagnostics.firstFold` says which). This estimates log Z
 *   itself, up to Monte Carlo error and the small downward Jensen bias of each log-mean (about half
 *   its squared standard error).
 *
 * Posterior draws given each subset come from the subset model's exact `samplePosterior(rng, n)` when
 * it has one, else from MCMC (several chains from prior draws, warm-up, each posterior and chain on
 * its own `rng.split` stream). The standard error of each term is the delta-method sd(w)/(mean(w) √ESS)
 * over the weights w = p(D_A | θ_t), ESS the number of draws for exact draws and the MCMC effective
 * sample size of the weight trace otherwise; terms are independent, so their errors add in quadrature.
 * When the weights are dominated by a few draws (Everson's long right tail) a warning says so, since
 * the delta method then understates the error.
 *
 * The model must be a {@link SubsettableModel} (`subset`, `nObservations`, `logLikelihoodPointwise`).
 * `diagnostics` holds the form, the estimand, the folds' sizes, per-term {@link CrossValidationTerm}s,
 * warnings, and the exact values where the model has them: `exactLogZ` (log p(D)), `exactValue` (the
 * exact value of the estimated quantity) and, for k-fold, `exactBias` = exactValue − exactLogZ.
 * Throws an `OccamError` for a model without the contract (saying what to add), bad options (G > n,
 * a partition that is not one), a subset whose likelihood disagrees with the pointwise terms, and
 * NaN or +Infinity likelihoods (naming the draw).
 *
 * @example
 * const model = gaussianMeanModel({ n: 100, seed: 1 });
 * const r = crossValidatedEvidence(model, { form: "chain-rule", folds: 5, seed: 2 });
 */
export function crossValidatedEvidence(
  model: BayesModel,
  options: CrossValidatedEvidenceOptions,
): CrossValidatedResult {
  const start = performance.now();
  checkModel(model, WHERE);
  requireSubsettable(model);
  const o = resolveOptions(options);
  const n = model.nObservations;
  if (!(Number.isInteger(n) && n >= 2)) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: model.nObservations must be an integer ≥ 2 to split the data, got ${n}.`,
    );
  }
  const rng = resolveRng(options, WHERE);
  const [partitionRng, workRng] = rng.split(2);
  const blocks = partitionBlocks(o, n, partitionRng);
  // The conditional terms log p(D_predicted | D_conditioning).
  const pairs = conditionalPairs(o.form, blocks, n);
  const streams = workRng.split(pairs.length + 1);

  const totals: Totals = { logZ: 0, variance: 0, evaluations: 0, unreliable: [], warnings: [] };
  const terms: CrossValidationTerm[] = [];
  let firstSample: SubsetDraws | undefined;
  if (o.form === "chain-rule" && o.terms === "bridge") {
    const b = bridgedChainRule(model, blocks, pairs, streams, o, options.finalSample);
    terms.push(...b.terms);
    totals.logZ += b.logZ;
    totals.variance += b.variance;
    totals.evaluations += b.evaluations;
    totals.unreliable.push(...b.unreliable);
    totals.warnings.push(...b.warnings);
    firstSample = b.first;
  } else {
    for (let k = 0; k < pairs.length; k++) {
      const { conditioning, predicted, label } = pairs[k];
      const outcome = conditionalTerm(model, conditioning, predicted, streams[k], o, label);
      terms.push(outcome.term);
      totals.logZ += outcome.term.logTerm;
      totals.variance += outcome.term.stdErr ** 2;
      totals.evaluations += outcome.evaluations;
      totals.unreliable.push(...outcome.unreliable);
      totals.warnings.push(...outcome.warnings);
    }
  }

  const diagnostics: Mutable<CrossValidatedDiagnostics> = {
    form: o.form,
    estimand:
      o.form === "held-out"
        ? "log p(D_E | D_T): the evidence of the evidence set given the training set"
        : o.form === "k-fold"
          ? "Σ_g log p(D_g | D_−g): Geisser's pseudo-likelihood, above log p(D) for a well-specified model"
          : "log p(D) by the chain rule",
    blockSizes: blocks.map((b) => b.length),
    // Plain arrays, so that the diagnostics serialise as JSON.
    partition: blocks.map((b) => Array.from(b)),
    draws: o.draws,
    terms,
  };

  let firstFold: Mutable<FirstFoldSummary> | undefined;
  if (o.form === "chain-rule") {
    firstFold = firstFoldEvidence(model, blocks[0], streams[pairs.length], o, firstSample, totals);
    diagnostics.firstFold = firstFold;
  }
  addExactValues(model, pairs, blocks, o.form, terms, firstFold, diagnostics);

  return evidenceResult({
    method: "cv",
    logZ: totals.logZ,
    stdErr: Math.sqrt(totals.variance),
    nLikelihoodEvals: totals.evaluations,
    seconds: secondsSince(start),
    unreliable: totals.unreliable,
    warnings: totals.warnings,
    diagnostics,
  });
}

/** The running totals of the estimate's terms: log Z, its variance, likelihood evaluations and the messages. */
interface Totals {
  logZ: number;
  variance: number;
  evaluations: number;
  readonly unreliable: string[];
  readonly warnings: string[];
}

/** Throws an `OccamError` naming what is missing unless the model is a {@link SubsettableModel}. */
function requireSubsettable(model: BayesModel): asserts model is SubsettableModel {
  if (!isSubsettable(model)) {
    const missing = [
      typeof (model as Partial<SubsettableModel>).subset === "function"
        ? null
        : "subset(observations: Int32Array): BayesModel",
      typeof (model as Partial<SubsettableModel>).nObservations === "number" ? null : "nObservations: number",
      typeof model.logLikelihoodPointwise === "function" ? null : "logLikelihoodPointwise(theta, out)",
    ].filter((x) => x !== null);
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: the model does not support cross-validation; add ${missing.join(", ")} ` +
        "(the same prior with the likelihood of only the given observations, the number of observations, and the " +
        "log likelihood of each observation; see SubsettableModel).",
    );
  }
}

/**
 * log p(D_1) for the chain rule, added to `totals`: exact when the first fold's subset model has
 * `exactLogEvidence()` (or "exact" was asked), else by `firstFoldEstimator` on posterior draws given
 * fold 1 (those of the bridged factors when there are some). Returns its summary.
 */
function firstFoldEvidence(
  model: SubsettableModel,
  block: Int32Array,
  stream: Rng,
  o: Resolved,
  firstSample: SubsetDraws | undefined,
  totals: Totals,
): Mutable<FirstFoldSummary> {
  const where = `${WHERE} (fold 1)`;
  const sub = subsetModel(model, block, where);
  const choice = o.firstFoldEstimator;
  const useExact = choice === "exact" || (choice === "auto" && typeof sub.exactLogEvidence === "function");
  let result: {
    logZ: number;
    stdErr: number;
    nLikelihoodEvals: number;
    method: string;
    reliable: boolean;
    warnings: readonly string[];
  };
  let estimator: string;
  if (useExact) {
    if (typeof sub.exactLogEvidence !== "function") {
      throw new OccamError(
        "invalid-argument",
        `${where}: firstFoldEstimator "exact" needs model.subset(…).exactLogEvidence(); use "bridge-sampling".`,
      );
    }
    result = {
      method: "exact",
      logZ: sub.exactLogEvidence(),
      stdErr: 0,
      nLikelihoodEvals: 0,
      reliable: true,
      warnings: [],
    };
    estimator = "exact";
  } else {
    // With bridged factors the posterior given fold 1 is already sampled, and its checks counted.
    const sample = firstSample ?? subsetDraws(sub, stream, o, where);
    if (firstSample === undefined) {
      totals.evaluations += sample.evaluations;
      totals.warnings.push(...sample.warnings.map((w) => `fold 1: ${w}`));
      totals.unreliable.push(...sample.unreliable.map((w) => `fold 1: ${w}`));
    }
    const [bridgeRng] = stream.split(1);
    if (typeof choice === "function") {
      result = choice(sub, { rng: bridgeRng, draws: sample.draws });
      if (result === null || typeof result !== "object" || typeof result.logZ !== "number") {
        throw new OccamError(
          "invalid-argument",
          `${where}: the firstFoldEstimator function must return an EvidenceResult.`,
        );
      }
      estimator = `user (${result.method})`;
    } else {
      result = bridgeSampling(sub, { draws: sample.draws, rng: bridgeRng });
      estimator = result.method;
    }
    if (!(Number.isFinite(result.logZ) && result.stdErr >= 0)) {
      throw new OccamError(
        "non-finite",
        `${where}: the first fold's log evidence is ${result.logZ} ± ${result.stdErr}; it must be finite.`,
      );
    }
  }
  totals.logZ += result.logZ;
  totals.variance += result.stdErr ** 2;
  totals.evaluations += result.nLikelihoodEvals;
  if (!result.reliable) totals.unreliable.push(...result.warnings.map((w) => `fold 1 (${estimator}): ${w}`));
  const firstFold = {
    estimator,
    observations: block.length,
    logZ: result.logZ,
    stdErr: result.stdErr,
  };
  return firstFold;
}

/**
 * The exact values, where the model and its subsets have them: log p(D) in `diagnostics.exactLogZ`,
 * each term's exact value, and when every term has one, the exact value of the estimated quantity
 * (and, for k-fold, its bias above log Z).
 */
function addExactValues(
  model: SubsettableModel,
  pairs: readonly ConditionalPair[],
  blocks: readonly Int32Array[],
  form: CrossValidationForm,
  terms: CrossValidationTerm[],
  firstFold: Mutable<FirstFoldSummary> | undefined,
  diagnostics: Mutable<CrossValidatedDiagnostics>,
): void {
  const exactLogZ = typeof model.exactLogEvidence === "function" ? model.exactLogEvidence() : undefined;
  if (exactLogZ !== undefined) {
    let exactValue = 0;
    let complete = true;
    for (let k = 0; k < pairs.length && complete; k++) {
      const { conditioning, predicted } = pairs[k];
      const joint = exactSubsetLogEvidence(model, union([conditioning, predicted]));
      const cond = exactSubsetLogEvidence(model, conditioning);
      if (joint === undefined || cond === undefined) {
        complete = false;
        break;
      }
      terms[k] = { ...terms[k], exact: joint - cond };
      exactValue += joint - cond;
    }
    if (complete && form === "chain-rule") {
      const first = exactSubsetLogEvidence(model, blocks[0]);
      if (first === undefined) complete = false;
      else exactValue += first;
      if (firstFold !== undefined && first !== undefined) firstFold.exact = first;
    }
    diagnostics.exactLogZ = exactLogZ;
    if (complete) {
      diagnostics.exactValue = exactValue;
      // How far the k-fold pseudo-likelihood itself (no Monte Carlo error) sits above log Z. (For the
      // chain rule the exact value is log Z; for held-out it is a different quantity.)
      if (form === "k-fold") diagnostics.exactBias = exactValue - exactLogZ;
    }
  }
}
