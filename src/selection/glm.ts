/**
 * Which inputs explain a binary, binomial or count outcome: generalised linear models on every subset
 * of the candidate terms, each model's log evidence with its standard error ({@link glmEvidence}:
 * Laplace at the mode, corrected by importance sampling), turned into posterior model probabilities
 * with 90 % intervals over those errors, and inclusion probabilities. The sibling of
 * `compareLinearModels` for outcomes that are not Gaussian.
 */

import { type Standardized, standardize } from "../data/csv.js";
import type { DesignTerm, LinearData, NewRowsGroups, RandomTerm } from "../data/design.js";
import { OccamError } from "../errors.js";
import {
  type GlmDesign,
  type GlmPosteriorDraws,
  glmEvidence,
  glmLaplace,
  glmPosteriorDraws,
} from "../models/glm/evidence.js";
import { GLM_LINKS, type GlmFamilyName, type GlmLink, glmOutcome } from "../models/glm/family.js";
import { glmGPriorEvidence, gPriorLaplace, gPriorPosteriorDraws } from "../models/glm/g-prior.js";
import { createRng } from "../random/rng.js";
import { type ModelPrior, probabilityIntervals } from "./compare.js";
import {
  type AveragedGlm,
  averagedCoefficients,
  averagedPredictions,
  type GlmCoefficient,
  type GlmPrediction,
} from "./glm-average.js";
import {
  type RandomPosteriorDraws,
  randomEffectsEvidence,
  randomPart,
  randomTermData,
  thinnedDraws,
} from "./glm-random.js";
import {
  modelLogPrior,
  modelsToCorrect,
  SCREEN_ABOVE,
  screenedEvidence,
  startingDraws,
} from "./glm-screening.js";
import { subsetSeed } from "./linear-estimated.js";
import { alwaysTerms, checkSizeLimit } from "./model-space.js";

/** Options of {@link compareGlms}. */
export interface CompareGlmOptions {
  /** The outcome's distribution. */
  family: GlmFamilyName;
  /** @defaultValue the family's canonical link: logit, or log for poisson */
  link?: GlmLink;
  /**
   * The prior of the coefficients. `robust` and `hyper-g-n`: mixtures of g-priors (Li & Clyde 2018; see
   * `glmGPriorEvidence`), a flat intercept and the slopes N(0, g J⁻¹) with J their Fisher information
   * at the maximum-likelihood fit, free of the inputs' units. `normal`: every coefficient, the intercept
   * included, ~ N(0, scale²) on inputs standardised to mean 0 and standard deviation 1 (n − 1), as
   * Friel & Wyse (2012) and rstanarm use.
   * @defaultValue { name: "robust" }
   */
  prior?: GlmPrior;
  /** Binomial trials per row. */
  trials?: Float64Array;
  /** Poisson offset per row (log exposure), added to the linear predictor. */
  offset?: Float64Array;
  /** Which models: every subset of terms, those of at most `max` terms, or only the full model. @defaultValue "all" */
  subsets?: "all" | "none" | { max: number };
  /** Prior over models. @defaultValue "uniform" */
  modelPrior?: ModelPrior;
  /** A model holds an interaction only with its main effects. @defaultValue true */
  heredity?: boolean;
  /**
   * Terms held by every model (BAS's `include.always`), by name; the model prior then applies to the
   * other terms. @defaultValue none
   */
  always?: readonly string[];
  /** Importance draws per model to start with (more follow until the standard error is 0.005 nats). @defaultValue 200 */
  draws?: number;
  /** @defaultValue 1 */
  seed?: number;
  /** List only the best `top` models. @defaultValue all */
  top?: number;
  /**
   * New rows to predict at: `X` holds `rows` × P values of the design's candidate columns (before
   * standardisation, as `LinearDesign.X`), `offset` their offsets (poisson, when the training rows
   * have one).
   */
  predict?: {
    X: Float64Array;
    rows: number;
    offset?: Float64Array;
    /** With random terms: the new rows' groups and slope values, by the term's name (`(1 | g)`). */
    groups?: Readonly<Record<string, NewRowsGroups>>;
  };
  /** Told after each model with the count done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Told each model's evidence as soon as it is computed (`compareGlms`, in this thread), so that a table can fill in. */
  onModel?: (model: GlmModelUpdate) => void;
}

/** One model's evidence as {@link CompareGlmOptions.onModel} tells it. */
export interface GlmModelUpdate {
  readonly inputs: readonly string[];
  readonly logEvidence: number;
  readonly stdErr: number;
  readonly reliable: boolean;
}

/** The prior of a GLM comparison's coefficients (see {@link CompareGlmOptions.prior}). */
export type GlmPrior =
  | { readonly name: "normal"; readonly scale: number }
  | { readonly name: "robust" }
  | { readonly name: "hyper-g-n" };

/** One model of a GLM comparison. */
export interface GlmModelRow {
  readonly inputs: readonly string[];
  readonly logEvidence: number;
  readonly stdErr: number;
  /** Laplace's approximation, before importance sampling corrected it; null for a model with random terms (sampled). */
  readonly laplaceLogEvidence: number | null;
  /** Against the model without inputs (the intercept alone). */
  readonly logBayesFactor: number;
  readonly logBayesFactorStdErr: number;
  readonly posteriorProbability: number;
  /** 90 % interval of the probability over the evidences' errors. */
  readonly probabilityInterval: readonly [number, number];
  readonly reliable: boolean;
  readonly warnings: readonly string[];
  /** Scored by Laplace's approximation alone, far below the best model (see `GlmComparison.screenedModels`). */
  readonly screened: boolean;
}

/** What {@link compareGlms} returns. */
export interface GlmComparison {
  readonly family: GlmFamilyName;
  readonly link: GlmLink;
  readonly prior: GlmPrior;
  readonly modelPrior: ModelPrior;
  /** The terms every model holds (`always`). */
  readonly always: readonly string[];
  /** The models, most probable first (the best `top`). */
  readonly models: readonly GlmModelRow[];
  /** How many models were compared. */
  readonly modelCount: number;
  /** Each term's posterior inclusion probability. */
  readonly inclusionProbabilities: Readonly<Record<string, number>>;
  /**
   * The model-averaged intercept and coefficients of the design's columns in the inputs' units, with
   * their sd and central 95 % intervals (0 in the models that leave a column out).
   */
  readonly coefficients: readonly GlmCoefficient[];
  /** The terms whose inclusion probability is at least 0.5. */
  readonly medianModel: readonly string[];
  /** The model-averaged mean response (probability, expected count) at the new rows, with 90 % intervals, when asked for. */
  readonly predictions?: readonly GlmPrediction[];
  /** Models whose evidence is not reliable (their warnings say why). */
  readonly unreliableModels: number;
  /**
   * Of more than 1024 models, those whose Laplace approximation (BAS's, within a few hundredths of a
   * nat on regressions) puts them more than 10 nats of log posterior below the best: their evidence is
   * that approximation, without a standard error, and each says so; every other model's is corrected.
   */
  readonly screenedModels: number;
  readonly nLikelihoodEvals: number;
  readonly seconds: number;
}

/** Importance draws behind each probability interval. */
const INTERVAL_DRAWS = 4000;
/** The averages hold the most probable models until this much of the probability, and at most `MAX_AVERAGED` of them. */
const AVERAGED_PROBABILITY = 1 - 1e-4;
const MAX_AVERAGED = 100;
/** Antithetic pairs of posterior draws for the averages, shared by the models in proportion to their probabilities. */
const AVERAGE_PAIRS = 2000;
/** The fewest pairs a model averaged draws. */
const MIN_AVERAGE_PAIRS = 25;
/** The most models compared at once (2^15: every subset of 15 terms). */
const MAX_MODELS = 1 << 15;

/** One model's evidence as a comparison keeps it: plain values, so that it crosses threads. */
export interface GlmModelEvidence {
  readonly logZ: number;
  readonly stdErr: number;
  /** Laplace's approximation; null for a model with random terms. */
  readonly laplaceLogZ: number | null;
  readonly reliable: boolean;
  readonly warnings: readonly string[];
  readonly nLikelihoodEvals: number;
  /** Under the normal prior: the mode and its precision's Cholesky factor, the averages' proposal. */
  readonly mode?: Float64Array;
  readonly precisionCholesky?: Float64Array;
  /** With random terms: the posterior draws (their fixed coefficients, weights and whole draws), for the averages. */
  readonly posterior?: RandomPosteriorDraws;
  /** True for a model scored by Laplace's approximation alone (see {@link screenedEvidence}). */
  readonly screened?: boolean;
}

/** A GLM comparison checked and set up: its models, and each model's evidence on demand. */
export interface GlmComparisonSetup {
  readonly start: number;
  readonly data: LinearData;
  readonly options: CompareGlmOptions;
  readonly link: GlmLink;
  readonly prior: GlmPrior;
  readonly modelPrior: ModelPrior;
  readonly seed: number;
  /** The terms every model holds, by index. */
  readonly always: readonly number[];
  /** The models compared, as ascending term lists. */
  readonly subsets: readonly (readonly number[])[];
  /** The log evidence of the model on `members` (seeded by the model, so the same on any thread). */
  evidence(members: readonly number[]): GlmModelEvidence;
  /**
   * Laplace's approximation of the model's log evidence (BAS's under a g-prior), its Newton's method
   * started at the fit of the model without its last term when this setup scored that one; NaN for a
   * model with random terms.
   */
  screen(members: readonly number[]): { logZ: number; nLikelihoodEvals: number };
}

/** The most models with random terms a comparison samples (each takes seconds). */
const MAX_SAMPLED_MODELS = 64;

/**
 * Compares GLMs of `data`'s target on subsets of its terms (see the module header). The target must
 * suit the family: 0/1 for bernoulli, successes out of `trials` for binomial, counts for poisson.
 */
export function compareGlms(data: LinearData, options: CompareGlmOptions): GlmComparison {
  const setup = prepareGlmComparison(data, options);
  const { subsets } = setup;
  const scores = subsets.length > SCREEN_ABOVE ? subsets.map((members) => setup.screen(members)) : undefined;
  const chosen = scores === undefined ? subsets.map((_, i) => i) : modelsToCorrect(setup, scores);
  const evidences = scores?.map(screenedEvidence) ?? new Array<GlmModelEvidence>(subsets.length);
  const { terms } = data.design;
  chosen.forEach((i, done) => {
    const e = setup.evidence(subsets[i]);
    evidences[i] = e;
    options.onModel?.({
      inputs: subsets[i].map((t) => terms[t].name),
      logEvidence: e.logZ,
      stdErr: e.stdErr,
      reliable: e.reliable,
    });
    options.onProgress?.(done + 1, chosen.length);
  });
  return finishGlmComparison(setup, evidences);
}

/** Checks the data and options of {@link compareGlms} and lists its models. */
export function prepareGlmComparison(data: LinearData, options: CompareGlmOptions): GlmComparisonSetup {
  const start = performance.now();
  const { design } = data;
  const { n, columns: P, terms } = design;
  const link = options.link ?? GLM_LINKS[options.family]?.[0];
  if (link === undefined) {
    throw new OccamError(
      "invalid-argument",
      `unknown family "${String(options.family)}": choose bernoulli, binomial or poisson.`,
    );
  }
  const prior = options.prior ?? { name: "robust" };
  if (
    !(prior.name === "robust" || prior.name === "hyper-g-n" || prior.name === "normal") ||
    (prior.name === "normal" && !(Number.isFinite(prior.scale) && prior.scale > 0))
  ) {
    throw new OccamError(
      "invalid-argument",
      "a bernoulli, binomial or poisson comparison takes the prior robust (the default), hyper-g-n, or normal with its scale (--prior normal --scale S, e.g. 10 as Friel & Wyse, 2.5 as rstanarm).",
    );
  }
  if (options.family === "binomial" && options.trials === undefined) {
    throw new OccamError(
      "invalid-argument",
      "a binomial target needs the trials of each row (--trials COLUMN).",
    );
  }
  const outcome = glmOutcome(options.family, link, design.y, {
    trials: options.trials,
    offset: options.offset,
    where: `the target ${data.targetName}`,
  });
  const standardized = standardizedColumns(design.X, n, P, design.columnNames).X;
  for (const term of terms) {
    if (
      options.predict !== undefined &&
      term.random !== undefined &&
      options.predict.groups?.[term.name] === undefined
    ) {
      throw new OccamError(
        "invalid-argument",
        `predict: the new rows need the column ${term.random.group} of the random term ${term.name}.`,
      );
    }
  }
  if (options.predict !== undefined && options.predict.X.length !== options.predict.rows * P) {
    throw new OccamError(
      "dimension-mismatch",
      `the new rows hold ${options.predict.X.length} values, not ${options.predict.rows} rows × ${P} columns.`,
    );
  }
  const always = alwaysTerms(data.design.terms, options.always ?? []);
  const seed = options.seed ?? 1;
  const modelName = (members: readonly number[]) =>
    members.length === 0 ? "the intercept alone" : members.map((t) => terms[t].name).join(", ");
  // Each screened model's fit, by its members, to start its supersets' Newton's method.
  const fits = new Map<string, Float64Array>();
  const subsets = listSubsets(data, options.subsets ?? "all", options.heredity ?? true, always);
  const sampled = subsets.filter((members) => members.some((t) => terms[t].random !== undefined)).length;
  if (sampled > MAX_SAMPLED_MODELS) {
    throw new OccamError(
      "invalid-argument",
      `${sampled} of the ${subsets.length} models hold a random term, and each of those is sampled (about ten seconds a model with 50 groups); occam samples at most ${MAX_SAMPLED_MODELS}. Narrow the search: --subsets max=K, fewer inputs, or --always for terms every model should hold.`,
    );
  }
  const startDraws = startingDraws(subsets.length, options.draws);
  return {
    start,
    data,
    options,
    link,
    prior,
    modelPrior: options.modelPrior ?? "uniform",
    seed,
    always,
    subsets,
    screen(members) {
      if (members.some((t) => terms[t].random !== undefined))
        return { logZ: Number.NaN, nLikelihoodEvals: 0 };
      const where = `the model on ${modelName(members)}`;
      const { design: d } = modelDesign(standardized, n, P, terms, members);
      const parent = fits.get(members.slice(0, -1).join(","));
      const start = parent === undefined ? undefined : new Float64Array(d.k);
      if (parent !== undefined) start?.set(parent);
      const fit =
        prior.name === "normal"
          ? glmLaplace(d, outcome, prior.scale, start, where)
          : gPriorLaplace(d, outcome, prior.name, start, where);
      fits.set(members.join(","), "mle" in fit ? fit.mle : fit.mode);
      return { logZ: fit.logZ, nLikelihoodEvals: fit.nLikelihoodEvals };
    },
    evidence(members) {
      const where = `the model on ${modelName(members)}`;
      const { columns, design: d } = modelDesign(standardized, n, P, terms, members);
      const random = members
        .map((t) => terms[t])
        .filter((t): t is DesignTerm & { random: RandomTerm } => t.random !== undefined)
        .map((t) => randomTermData(t, n));
      if (random.length > 0) {
        const names = columns.map((c) => design.columnNames[c]);
        return randomEffectsEvidence(d, outcome, random, prior, names, subsetSeed(seed, members), where);
      }
      const draws = startDraws === undefined ? {} : { draws: startDraws };
      const rng = createRng(subsetSeed(seed, members));
      if (prior.name !== "normal") {
        const e = glmGPriorEvidence(d, outcome, { mixture: prior.name, ...draws, rng }, where);
        return { ...modelEvidence(e), laplaceLogZ: e.laplaceLogZ };
      }
      const e = glmEvidence(d, outcome, { priorSd: prior.scale, ...draws, rng });
      return {
        ...modelEvidence(e),
        laplaceLogZ: e.laplaceLogZ,
        mode: e.mode,
        precisionCholesky: e.precisionCholesky,
      };
    },
  };
}

/** The fields every evidence shares. */
function modelEvidence(
  e: Pick<GlmModelEvidence, "logZ" | "stdErr" | "reliable" | "warnings" | "nLikelihoodEvals">,
) {
  const { logZ, stdErr, reliable, warnings, nLikelihoodEvals } = e;
  return { logZ, stdErr, reliable, warnings, nLikelihoodEvals };
}

/** One model's design: the intercept and its terms' standardised columns. */
function modelDesign(
  standardized: Float64Array,
  n: number,
  P: number,
  terms: readonly DesignTerm[],
  members: readonly number[],
): { columns: number[]; design: GlmDesign } {
  const columns = members.flatMap((t) => terms[t].columns);
  const k = columns.length + 1;
  const X = new Float64Array(n * k);
  for (let r = 0; r < n; r++) {
    X[r * k] = 1;
    for (let c = 0; c < columns.length; c++) X[r * k + c + 1] = standardized[r * P + columns[c]];
  }
  return { columns, design: { X, n, k } };
}

/**
 * The comparison from every model's evidence (in `setup.subsets`' order): probabilities with their
 * intervals, inclusion probabilities, and the averages from the most probable models' posterior draws.
 */
export function finishGlmComparison(
  setup: GlmComparisonSetup,
  evidences: readonly GlmModelEvidence[],
): GlmComparison {
  const { data, options, link, prior, modelPrior, seed, always } = setup;
  const { design } = data;
  const { n, columns: P, terms } = design;
  const rows = setup.subsets.map((members, i) => ({ members: [...members], e: evidences[i] }));
  // The reference of the log Bayes factors, the intercept alone: computed besides when not listed.
  const nullEvidence = rows.find((r) => r.members.length === 0)?.e ?? setup.evidence([]);
  const logPost = rows.map((r) => r.e.logZ + modelLogPrior(setup, r.members));
  const max = Math.max(...logPost);
  const total = logPost.reduce((s, v) => s + Math.exp(v - max), 0);
  const probability = logPost.map((v) => Math.exp(v - max) / total);
  const intervals = probabilityIntervals(
    logPost,
    rows.map((r) => r.e.stdErr),
    createRng(seed),
    INTERVAL_DRAWS,
  );
  const inclusion: Record<string, number> = {};
  for (const [j, term] of terms.entries()) {
    // Near 1, from the models without the term: a sum of probabilities near 1 carries its rounding
    // errors (1 − 2e−16 where the models without it hold 1e−20).
    const without = rows.reduce((s, r, i) => s + (r.members.includes(j) ? 0 : probability[i]), 0);
    const within = rows.reduce((s, r, i) => s + (r.members.includes(j) ? probability[i] : 0), 0);
    inclusion[term.name] = within > 0.5 ? 1 - without : within;
  }
  const order = rows.map((_, i) => i).sort((a, b) => probability[b] - probability[a]);
  const scaling = standardizedColumns(design.X, n, P, design.columnNames);
  const outcome = glmOutcome(options.family, link, design.y, {
    trials: options.trials,
    offset: options.offset,
  });
  const averaged = averagedModels(
    order.map((i) => ({ ...rows[i], probability: probability[i] })),
    (members, e, pairs) => {
      const { columns, design: d } = modelDesign(scaling.X, n, P, terms, members);
      const stream = createRng(subsetSeed(seed, members)).split(2)[1];
      let draws: GlmPosteriorDraws;
      if (e.posterior !== undefined) {
        const thinned = thinnedDraws(e.posterior, pairs);
        return { columns, draws: thinned, ...randomPart(setup, members, thinned) };
      } else if (prior.name !== "normal") {
        draws = gPriorPosteriorDraws(d, outcome, { mixture: prior.name, pairs, rng: stream });
      } else {
        const fit = { mode: e.mode as Float64Array, precisionCholesky: e.precisionCholesky as Float64Array };
        draws = glmPosteriorDraws(d, outcome, fit, { priorSd: prior.scale, pairs, rng: stream });
      }
      return { columns, draws };
    },
  );
  const termOf = (c: number) => terms.findIndex((t) => t.columns.includes(c));
  const coefficients = averagedCoefficients(
    averaged,
    design.columnNames,
    scaling,
    (c) => inclusion[terms[termOf(c)].name],
  );
  const predictions =
    options.predict === undefined
      ? undefined
      : averagedPredictions(
          averaged,
          link,
          scaling,
          options.predict.X,
          options.predict.rows,
          options.predict.offset,
        );
  const models = order.slice(0, options.top ?? order.length).map((i): GlmModelRow => {
    const { members, e } = rows[i];
    return {
      inputs: members.map((t) => terms[t].name),
      logEvidence: e.logZ,
      stdErr: e.stdErr,
      laplaceLogEvidence: e.laplaceLogZ,
      logBayesFactor: e.logZ - nullEvidence.logZ,
      logBayesFactorStdErr: e === nullEvidence ? 0 : Math.hypot(e.stdErr, nullEvidence.stdErr),
      posteriorProbability: probability[i],
      probabilityInterval: [intervals.lower[i], intervals.upper[i]],
      reliable: e.reliable,
      warnings: e.warnings,
      screened: e.screened === true,
    };
  });
  return {
    family: options.family,
    link,
    prior,
    modelPrior,
    always: always.map((t) => terms[t].name),
    models,
    modelCount: rows.length,
    inclusionProbabilities: inclusion,
    coefficients,
    medianModel: terms.filter((t) => inclusion[t.name] >= 0.5).map((t) => t.name),
    ...(predictions === undefined ? {} : { predictions }),
    unreliableModels: rows.filter((r) => !r.e.reliable && r.e.screened !== true).length,
    screenedModels: rows.filter((r) => r.e.screened === true).length,
    nLikelihoodEvals:
      rows.reduce((s, r) => s + r.e.nLikelihoodEvals, 0) +
      (rows.some((r) => r.e === nullEvidence) ? 0 : nullEvidence.nLikelihoodEvals),
    seconds: (performance.now() - setup.start) / 1000,
  };
}

/**
 * The models the averages hold, most probable first (see `AVERAGED_PROBABILITY`), their probabilities
 * renormalised over them, each with its posterior draws from `draw`.
 */
function averagedModels<E>(
  ranked: readonly { members: number[]; e: E; probability: number }[],
  draw: (members: number[], e: E, pairs: number) => Omit<AveragedGlm, "probability">,
): AveragedGlm[] {
  const kept: (typeof ranked)[number][] = [];
  let held = 0;
  for (const r of ranked) {
    if (held >= AVERAGED_PROBABILITY || kept.length === MAX_AVERAGED) break;
    kept.push(r);
    held += r.probability;
  }
  return kept.map((r) => ({
    probability: r.probability / held,
    ...draw(r.members, r.e, Math.max(MIN_AVERAGE_PAIRS, Math.round((AVERAGE_PAIRS * r.probability) / held))),
  }));
}

/** The candidate columns standardised to mean 0 and standard deviation 1 (n − 1 denominator, as R's `scale`). */
function standardizedColumns(X: Float64Array, n: number, P: number, names: readonly string[]): Standardized {
  for (let c = 0; c < P; c++) {
    let constant = true;
    for (let r = 1; r < n && constant; r++) constant = X[r * P + c] === X[c];
    if (constant) {
      throw new OccamError(
        "invalid-data",
        `the input ${names[c]} is constant: it cannot explain anything; drop it.`,
      );
    }
  }
  // Random terms alone: no columns to scale.
  if (P === 0) return { X, means: new Float64Array(0), sds: new Float64Array(0) };
  return standardize(X, n, P);
}

/**
 * The subsets of terms compared, as ascending term lists: those holding every term of `always`, with
 * heredity's filter.
 */
function listSubsets(
  data: LinearData,
  which: "all" | "none" | { max: number },
  heredity: boolean,
  always: readonly number[],
): number[][] {
  const { terms } = data.design;
  const p = terms.length;
  if (which === "none") return [terms.map((_, j) => j)];
  checkSizeLimit(always.length, which);
  const maxSize = which === "all" ? p : Math.min(which.max, p);
  const out: number[][] = [];
  const grow = (from: number, chosen: number[]) => {
    const admitted =
      always.every((t) => chosen.includes(t)) &&
      (!heredity || chosen.every((t) => terms[t].parents.every((q) => chosen.includes(q))));
    if (admitted) out.push([...chosen]);
    if (out.length > MAX_MODELS) {
      throw new OccamError(
        "invalid-argument",
        `more than ${MAX_MODELS} models: narrow the search with --subsets max=K or fewer --inputs.`,
      );
    }
    if (chosen.length === maxSize) return;
    for (let j = from; j < p; j++) grow(j + 1, [...chosen, j]);
  };
  grow(0, []);
  return out;
}
