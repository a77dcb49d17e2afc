/**
 * The pieces of cross-validated evidence (cross-validated.ts): the contract a model offers for it,
 * posterior draws given a subset of the observations, and the conditional terms
 * log p(D_predicted | D_conditioning) — averaged over the conditioning posterior, or bridged between
 * the posteriors before and after a fold joins.
 */
import { union } from "../data/folds.js";
import { weightTraceEss } from "../diagnostics/ess.js";
import { OccamError } from "../errors.js";
import { Draws } from "../model/draws.js";
import type { BayesModel } from "../model/model.js";
import type { Rng } from "../random/rng.js";
import { bridgeRatio } from "./bridge-sampling.js";
import { checkModel, showPoint } from "./checks.js";
import type { PosteriorKernelChoice } from "./posterior-sampling.js";
import { samplePosterior } from "./posterior-sampling.js";
import { logWeightSummary } from "./weights.js";

const WHERE = "crossValidatedEvidence";

/** How posterior draws given a subset are made (the options of `crossValidatedEvidence` that decide it). */
export interface DrawSettings {
  readonly draws: number;
  readonly sampler: "exact" | PosteriorKernelChoice;
  readonly chains: number;
  readonly warmup: number;
  readonly starts: "tempered" | "prior";
}

/** Posterior draws given all observations already made, that the bridged chain rule may take as its last posterior. */
export interface FinalSample {
  readonly draws: Draws;
  readonly kernel: string;
  readonly unreliable: readonly string[];
  readonly warnings: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// The contract a model offers for cross-validation.

/**
 * A model that supports cross-validated evidence: besides a {@link BayesModel} it knows its number of
 * observations, gives the log likelihood of each observation, and builds the same model on a subset
 * of its observations.
 *
 * - `nObservations`: n, the number of observations (the length of `logLikelihoodPointwise`'s output).
 * - `logLikelihoodPointwise(θ, out)`: writes log p(y_i | θ) for i = 0 … n − 1 into `out`, so that
 *   Σ_i out[i] = logLikelihood(θ) (observations conditionally independent given θ).
 * - `subset(observations)`: the same prior with the likelihood of only the listed observations
 *   (distinct indices in [0, n)), i.e. a model whose posterior is p(θ | D_observations). Its
 *   `logLikelihood(θ)` must equal Σ_{i ∈ observations} of the pointwise terms (checked at one draw per
 *   posterior). When the subset model has `samplePosterior(rng, count)` (an exact posterior sampler)
 *   or `exactLogEvidence()`, cross-validation uses them.
 */
export interface SubsettableModel extends BayesModel {
  /** Number of observations n. */
  readonly nObservations: number;
  logLikelihoodPointwise(theta: Float64Array, out: Float64Array): void;
  /** The same prior with the likelihood of only the listed observations. */
  subset(observations: Int32Array): BayesModel;
}

/** True when `model` offers `subset`, `nObservations` and `logLikelihoodPointwise` ({@link SubsettableModel}). */
export function isSubsettable(model: BayesModel): model is SubsettableModel {
  const m = model as Partial<SubsettableModel>;
  return (
    typeof m.subset === "function" &&
    typeof m.logLikelihoodPointwise === "function" &&
    typeof m.nObservations === "number"
  );
}

/** A model with an exact posterior sampler (conjugate families): `count` independent posterior draws. */
export interface ExactPosteriorSampler {
  samplePosterior(rng: Rng, count: number): Float64Array[];
}

/** True when `model` has an exact `samplePosterior(rng, count)`. */
export function hasExactPosterior(model: BayesModel): model is BayesModel & ExactPosteriorSampler {
  return typeof (model as Partial<ExactPosteriorSampler>).samplePosterior === "function";
}

// ---------------------------------------------------------------------------------------------
// Posterior draws given a subset.

/** Posterior draws given a subset of the observations, with how they were made and whether to trust them. */
export interface SubsetDraws {
  draws: Draws;
  /** "exact" or the MCMC kernel used. */
  sampler: string;
  /** Likelihood evaluations made by the sampler. */
  evaluations: number;
  /** Why the MCMC draws cannot be trusted, if they cannot (see `samplePosterior`). */
  unreliable: readonly string[];
  warnings: readonly string[];
}

/** Posterior draws of `sub`: its exact sampler when it has one (or `sampler: "exact"` asks), else MCMC by `samplePosterior`. */
export function subsetDraws(sub: BayesModel, rng: Rng, o: DrawSettings, where: string): SubsetDraws {
  const useExact = o.sampler === "exact" || (o.sampler === "auto" && hasExactPosterior(sub));
  const d = sub.dim;
  if (useExact) {
    if (!hasExactPosterior(sub)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: sampler "exact" needs model.subset(…).samplePosterior(rng, count); this model has none (use "auto").`,
      );
    }
    const list = sub.samplePosterior(rng, o.draws);
    if (!Array.isArray(list) || list.length !== o.draws) {
      throw new OccamError(
        "invalid-argument",
        `${where}: samplePosterior(rng, ${o.draws}) must return an array of ${o.draws} Float64Array draws.`,
      );
    }
    const draws = new Draws({ dim: d, nChains: 1, nDraws: o.draws, names: sub.names });
    for (let t = 0; t < o.draws; t++) {
      const x = list[t];
      if (!(x instanceof Float64Array) || x.length !== d) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}: samplePosterior returned draw ${t} that is not a Float64Array of length ${d} (model.dim).`,
        );
      }
      for (let j = 0; j < d; j++) {
        if (!Number.isFinite(x[j])) {
          throw new OccamError(
            "non-finite",
            `${where}: samplePosterior draw ${t} has coordinate ${j} = ${x[j]}.`,
          );
        }
      }
      draws.values.set(x, t * d);
    }
    draws.logDensity.fill(Number.NaN);
    return { draws, sampler: "exact", evaluations: 0, unreliable: [], warnings: [] };
  }
  const perChain = Math.max(10, Math.ceil(o.draws / o.chains));
  try {
    const sample = samplePosterior(sub, {
      kernel: o.sampler === "auto" ? "auto" : (o.sampler as PosteriorKernelChoice),
      chains: o.chains,
      warmup: o.warmup,
      starts: o.starts,
      draws: perChain,
      rng,
    });
    return {
      draws: sample.draws,
      sampler: sample.kernel,
      evaluations: sample.nLikelihoodEvals + o.chains,
      unreliable: sample.unreliable,
      warnings: sample.warnings,
    };
  } catch (error) {
    if (error instanceof OccamError) throw new OccamError(error.code, `${where}: ${error.message}`);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// One conditional term log p(D_pred | D_cond).

/** One conditional term of the estimate, log p(D_predicted | D_conditioning), in `diagnostics.terms`. */
export interface CrossValidationTerm {
  /** Number of predicted observations. */
  readonly predicted: number;
  /** Number of conditioning observations. */
  readonly conditioning: number;
  /** The estimate of log p(D_predicted | D_conditioning). */
  readonly logTerm: number;
  /** Its delta-method standard error, sd(w)/(mean(w) √ESS). */
  readonly stdErr: number;
  /** The ESS the standard error uses: the number of draws for exact draws, else the MCMC ESS of the weights. */
  readonly ess: number;
  /** Kish's (Σw)²/Σw² of the weights w = p(D_predicted | θ): how many draws the average really rests on. */
  readonly importanceEss: number;
  /** The largest weight's share of Σw. */
  readonly maxWeightShare: number;
  /** "exact" or the MCMC kernel that drew θ. */
  readonly sampler: string;
  /** The exact value, where the model's subsets have `exactLogEvidence()`. */
  readonly exact?: number;
}

/** A conditional term with its cost and its reasons for (un)reliability. */
export interface TermOutcome {
  term: CrossValidationTerm;
  evaluations: number;
  unreliable: string[];
  warnings: string[];
}

const POINTWISE_TOLERANCE = 1e-8;

/**
 * log p(D_predicted | D_conditioning) as the mean of p(D_predicted | θ) over posterior draws given the
 * conditioning observations, with the delta method's standard error over the weights' MCMC ESS; marked
 * unreliable when the mean rests on fewer than 50 draws or one draw carries over 20 % of it.
 */
export function conditionalTerm(
  model: SubsettableModel,
  conditioning: Int32Array,
  predicted: Int32Array,
  rng: Rng,
  o: DrawSettings,
  label: string,
): TermOutcome {
  const where = `${WHERE} (${label})`;
  const sub = subsetModel(model, conditioning, where);
  const sample = subsetDraws(sub, rng, o, where);
  const { draws } = sample;
  const d = model.dim;
  const n = model.nObservations;
  const total = draws.size;
  const pointwise = new Float64Array(n);
  const logW = new Float64Array(total);
  for (let t = 0; t < total; t++) {
    const theta = draws.values.subarray(t * d, (t + 1) * d);
    logW[t] = predictedLogLikelihood(model, theta, predicted, pointwise, where, t);
    if (t === 0) checkSubsetAgrees(sub, theta, pointwise, conditioning, where);
  }
  const summary = logWeightSummary(logW, where);
  // sd(w)/mean(w) from the i.i.d. standard error sd(w)/(√N mean(w)).
  const relativeSd = summary.stdErr * Math.sqrt(total);
  // MCMC draws are autocorrelated: Var(mean w) ≈ Var(w)/ESS, with the ESS of the weight trace.
  const ess = sample.sampler === "exact" ? total : weightTraceEss(logW, draws.nChains, draws.nDraws);
  const stdErr = relativeSd / Math.sqrt(ess);
  const warnings = sample.warnings.map((w) => `${label}: ${w}`);
  const unreliable = sample.unreliable.map((w) => `${label}: ${w}`);
  if (summary.ess < MIN_TERM_KISH || summary.maxWeightShare > MAX_TERM_SHARE) {
    unreliable.push(
      `${label}: the average of p(D_predicted | θ) rests on few draws (importance ESS ${summary.ess.toFixed(1)} of ${total}, ` +
        `largest weight ${(100 * summary.maxWeightShare).toFixed(0)} % of the sum); its standard error is unreliable: ` +
        "use more draws or smaller folds.",
    );
  }
  return {
    term: {
      predicted: predicted.length,
      conditioning: conditioning.length,
      logTerm: summary.logZ,
      stdErr,
      ess,
      importanceEss: summary.ess,
      maxWeightShare: summary.maxWeightShare,
      sampler: sample.sampler,
    },
    evaluations: sample.evaluations + total,
    unreliable,
    warnings,
  };
}

/** The thresholds under which an average over draws "rests on few draws" (either estimator of a factor). */
const MIN_TERM_KISH = 50;
const MAX_TERM_SHARE = 0.2;
/** How many times a bridged factor may halve its fold (so up to 2^MAX_BRIDGE_SPLITS steps). */
const MAX_BRIDGE_SPLITS = 2;

/** The bridged chain rule's factors g = 2 … G, their sum and variance, and the posterior given fold 1. */
export interface BridgedChainRule {
  terms: CrossValidationTerm[];
  logZ: number;
  variance: number;
  evaluations: number;
  unreliable: string[];
  warnings: string[];
  /** The posterior given fold 1, for log p(D_1). */
  first: SubsetDraws;
}

/**
 * The chain rule's factors g = 2 … G by bridges between successive posteriors (`terms: "bridge"`):
 * posteriors given folds 1, 1–2, …, 1–G (the last given every observation, or `finalSample`), and
 * log p(D_g | D_1 … D_{g−1}) = log(Z_{1…g} / Z_{1…g−1}) by `bridgeRatio` with l = log p(D_g | θ).
 */
export function bridgedChainRule(
  model: SubsettableModel,
  blocks: readonly Int32Array[],
  pairs: readonly { conditioning: Int32Array; predicted: Int32Array; label: string }[],
  streams: readonly Rng[],
  o: DrawSettings,
  finalSample: FinalSample | undefined,
): BridgedChainRule {
  const G = blocks.length;
  const n = model.nObservations;
  const d = model.dim;
  const unreliable: string[] = [];
  const warnings: string[] = [];
  let evaluations = 0;
  // Posterior k is given folds 1 … k + 1.
  const posteriors: SubsetDraws[] = [];
  for (let k = 0; k < G; k++) {
    const label = k === G - 1 ? "posterior given all folds" : `posterior given folds 1–${k + 1}`;
    const sample = successivePosterior(model, k, blocks, pairs, streams, o, finalSample, label);
    posteriors.push(sample);
    evaluations += sample.evaluations;
    unreliable.push(...sample.unreliable.map((w) => `${label}: ${w}`));
    warnings.push(...sample.warnings.map((w) => `${label}: ${w}`));
  }
  // log p(D_predicted | θ) at every draw of a posterior, per chain.
  const pointwise = new Float64Array(n);
  const logLikelihoodOf = (sample: SubsetDraws, predicted: Int32Array, label: string): Float64Array[] => {
    const { draws } = sample;
    const chains: Float64Array[] = [];
    for (let c = 0; c < draws.nChains; c++) {
      const chain = new Float64Array(draws.nDraws);
      for (let t = 0; t < draws.nDraws; t++) {
        const index = c * draws.nDraws + t;
        const theta = draws.values.subarray(index * d, (index + 1) * d);
        chain[t] = predictedLogLikelihood(model, theta, predicted, pointwise, `${WHERE} (${label})`, index);
      }
      chains.push(chain);
    }
    evaluations += draws.size;
    return chains;
  };
  /**
   * log(Z_{C ∪ P} / Z_C) by a bridge from the posterior given C (`from`) to that given C ∪ P (`to`).
   * When the two barely overlap (the bridge rests on few draws) and P has rows to spare, a posterior
   * given C and half of P is sampled between them and each half bridged in turn (up to
   * MAX_BRIDGE_SPLITS times): the chain rule over smaller steps, as sequential Monte Carlo over data does.
   */
  const bridge = (
    from: SubsetDraws,
    to: SubsetDraws,
    conditioning: Int32Array,
    predicted: Int32Array,
    rng: Rng,
    label: string,
    splits: number,
  ): { logRatio: number; re2: number; kish: number; share: number; converged: boolean; steps: number } => {
    const r = bridgeRatio(logLikelihoodOf(from, predicted, label), logLikelihoodOf(to, predicted, label));
    const kish = Math.min(r.kishA, r.kishB);
    const share = Math.max(r.maxShareA, r.maxShareB);
    if ((kish >= MIN_TERM_KISH && share <= MAX_TERM_SHARE) || splits === 0 || predicted.length < 2) {
      return { logRatio: r.logRatio, re2: r.re2, kish, share, converged: r.converged, steps: 1 };
    }
    const half = predicted.length >> 1;
    const firstHalf = predicted.subarray(0, half);
    const middleRows = union([conditioning, firstHalf]);
    const where = `${WHERE} (${label}: posterior given ${middleRows.length} rows, between the two)`;
    const [middleRng, firstRng, secondRng] = rng.split(3);
    const middle = subsetDraws(subsetModel(model, middleRows, where), middleRng, o, where);
    evaluations += middle.evaluations;
    unreliable.push(...middle.unreliable.map((w) => `${label}: ${w}`));
    warnings.push(...middle.warnings.map((w) => `${label}: ${w}`));
    const a = bridge(from, middle, conditioning, firstHalf, firstRng, label, splits - 1);
    const b = bridge(middle, to, middleRows, predicted.subarray(half), secondRng, label, splits - 1);
    return {
      logRatio: a.logRatio + b.logRatio,
      re2: a.re2 + b.re2,
      kish: Math.min(a.kish, b.kish),
      share: Math.max(a.share, b.share),
      converged: a.converged && b.converged,
      steps: a.steps + b.steps,
    };
  };
  const terms: CrossValidationTerm[] = [];
  let logZ = 0;
  let variance = 0;
  for (let k = 0; k < pairs.length; k++) {
    const { predicted, conditioning, label } = pairs[k];
    // Stream k served posterior k + 1's sampling, done by now; what follows of it is independent of that.
    const r = bridge(
      posteriors[k],
      posteriors[k + 1],
      conditioning,
      predicted,
      streams[k],
      label,
      MAX_BRIDGE_SPLITS,
    );
    const { kish, share } = r;
    checkBridgedTerm(r, k, label, unreliable, warnings);
    const stdErr = Math.sqrt(r.re2);
    logZ += r.logRatio;
    variance += r.re2;
    terms.push({
      predicted: predicted.length,
      conditioning: conditioning.length,
      logTerm: r.logRatio,
      stdErr,
      ess: kish,
      importanceEss: kish,
      maxWeightShare: share,
      sampler: `bridge (${posteriors[k].sampler})`,
    });
  }
  return { terms, logZ, variance, evaluations, unreliable, warnings, first: posteriors[0] };
}

/** What to know about factor k's bridge `r`: added to the run's `unreliable` and `warnings`. */
function checkBridgedTerm(
  r: { kish: number; share: number; converged: boolean; steps: number },
  k: number,
  label: string,
  unreliable: string[],
  warnings: string[],
): void {
  const { kish, share } = r;
  if (!r.converged) unreliable.push(`${label}: the bridge iteration did not converge.`);
  if (kish < MIN_TERM_KISH || share > MAX_TERM_SHARE) {
    unreliable.push(
      `${label}: the bridge between the posteriors given folds 1–${k + 1} and 1–${k + 2} rests on few draws ` +
        `(Kish size ${kish.toFixed(1)}, largest summand ${(100 * share).toFixed(0)} % of its side's sum, ` +
        `in ${r.steps} steps): the two posteriors barely overlap; its standard error is unreliable: use more draws or more folds.`,
    );
  }
  if (r.steps > 1) {
    warnings.push(
      `${label}: bridged in ${r.steps} steps through posteriors given part of the fold, as the posteriors given folds 1–${k + 1} and 1–${k + 2} barely overlap.`,
    );
  }
}

/**
 * The chain rule's posterior k, given folds 1 … k + 1 (the last given every observation: `finalSample`
 * when given), sampled on its stream: k = 0 on the stream after the pairs', k on pair k − 1's.
 */
function successivePosterior(
  model: SubsettableModel,
  k: number,
  blocks: readonly Int32Array[],
  pairs: readonly { conditioning: Int32Array }[],
  streams: readonly Rng[],
  o: DrawSettings,
  finalSample: FinalSample | undefined,
  label: string,
): SubsetDraws {
  const G = blocks.length;
  const where = `${WHERE} (${label})`;
  let sample: SubsetDraws;
  if (k === G - 1 && finalSample !== undefined) {
    sample = {
      draws: finalSample.draws,
      sampler: finalSample.kernel,
      evaluations: 0,
      unreliable: finalSample.unreliable,
      warnings: finalSample.warnings,
    };
  } else {
    const rows =
      k === 0
        ? blocks[0]
        : k === G - 1
          ? Int32Array.from({ length: model.nObservations }, (_, i) => i)
          : pairs[k].conditioning;
    const stream = k === 0 ? streams[pairs.length] : streams[k - 1];
    sample = subsetDraws(subsetModel(model, rows, where), stream, o, where);
  }
  if (sample.draws.dim !== model.dim) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: the draws have dimension ${sample.draws.dim}, the model ${model.dim}.`,
    );
  }
  return sample;
}

/**
 * log p(D_predicted | θ): the pointwise log likelihoods at θ (left in `pointwise`) summed over the
 * predicted observations; a NaN or +∞ sum is an OccamError naming posterior draw `draw`.
 */
function predictedLogLikelihood(
  model: SubsettableModel,
  theta: Float64Array,
  predicted: Int32Array,
  pointwise: Float64Array,
  where: string,
  draw: number,
): number {
  model.logLikelihoodPointwise(theta, pointwise);
  let s = 0;
  for (let k = 0; k < predicted.length; k++) s += pointwise[predicted[k]];
  if (Number.isNaN(s) || s === Number.POSITIVE_INFINITY) {
    throw new OccamError(
      "non-finite",
      `${where}: the log likelihood of the predicted observations is ${s} at posterior draw ${draw} ${showPoint(theta)}; ` +
        "model.logLikelihoodPointwise must write finite numbers or −Infinity.",
    );
  }
  return s;
}

/** `model.subset(observations)`, checked to be a model with the same parameters. */
export function subsetModel(model: SubsettableModel, observations: Int32Array, where: string): BayesModel {
  const sub = model.subset(observations);
  checkModel(sub, `${where}: model.subset(…)`);
  if (sub.dim !== model.dim) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: model.subset(…) has dim ${sub.dim} but the model has ${model.dim}; a subset keeps the parameters.`,
    );
  }
  return sub;
}

/** The subset's log likelihood must be the sum of the pointwise terms of its observations. */
function checkSubsetAgrees(
  sub: BayesModel,
  theta: Float64Array,
  pointwise: Float64Array,
  observations: Int32Array,
  where: string,
): void {
  let s = 0;
  for (let k = 0; k < observations.length; k++) s += pointwise[observations[k]];
  const direct = sub.logLikelihood(theta);
  if (!(Math.abs(direct - s) <= POINTWISE_TOLERANCE * (1 + Math.abs(s)))) {
    throw new OccamError(
      "invalid-argument",
      `${where}: model.subset(observations).logLikelihood(θ) is ${direct} at ${showPoint(theta)}, but the sum of ` +
        `model.logLikelihoodPointwise over the same ${observations.length} observations is ${s}; subset must keep the ` +
        "prior and the likelihood of exactly those observations, and nObservations must match the pointwise output.",
    );
  }
}

/** Exact log p(D_S) for an index set S (the whole model when S covers all observations), or undefined. */
export function exactSubsetLogEvidence(
  model: SubsettableModel,
  observations: Int32Array,
): number | undefined {
  if (observations.length === model.nObservations) return model.exactLogEvidence?.();
  const sub = model.subset(observations);
  return typeof sub.exactLogEvidence === "function" ? sub.exactLogEvidence() : undefined;
}
