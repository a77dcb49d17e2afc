/**
 * Which inputs explain a binary, binomial or count outcome: generalised linear models on every subset
 * of the candidate terms, each model's log evidence with its standard error ({@link glmEvidence}:
 * Laplace at the mode, corrected by importance sampling), turned into posterior model probabilities
 * with 90 % intervals over those errors, and inclusion probabilities. The sibling of
 * `compareLinearModels` for outcomes that are not Gaussian.
 */

import { type Standardized, standardize } from "../data/csv.js";
import type { DesignTerm, LinearData, RandomTerm } from "../data/design.js";
import { OccamError } from "../errors.js";
import { type GlmEvidence, glmEvidence, glmPosteriorDraws } from "../models/glm/evidence.js";
import { GLM_LINKS, type GlmFamilyName, type GlmLink, glmOutcome } from "../models/glm/family.js";
import { glmGPriorEvidence, gPriorPosteriorDraws } from "../models/glm/g-prior.js";
import { createRng } from "../random/rng.js";
import { logModelPrior, type ModelPrior, probabilityIntervals } from "./compare.js";
import {
  type AveragedGlm,
  averagedCoefficients,
  averagedPredictions,
  type GlmCoefficient,
  type GlmPrediction,
} from "./glm-average.js";
import { type RandomEffectsEvidence, randomEffectsEvidence, randomTermData } from "./glm-random.js";
import { subsetSeed } from "./linear-estimated.js";

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
  predict?: { X: Float64Array; rows: number; offset?: Float64Array };
  /** Told after each model with the count done and the total. */
  onProgress?: (done: number, total: number) => void;
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

/**
 * Compares GLMs of `data`'s target on subsets of its terms (see the module header). The target must
 * suit the family: 0/1 for bernoulli, successes out of `trials` for binomial, counts for poisson.
 */
export function compareGlms(data: LinearData, options: CompareGlmOptions): GlmComparison {
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
  const scaling = standardizedColumns(design.X, n, P, design.columnNames);
  const standardized = scaling.X;
  const randomTerm = terms.find((t) => t.random !== undefined);
  if (options.predict !== undefined && randomTerm !== undefined) {
    throw new OccamError(
      "invalid-argument",
      `predictions at new rows are not yet available with random terms (${randomTerm.name}); leave out --predict.`,
    );
  }
  if (options.predict !== undefined && options.predict.X.length !== options.predict.rows * P) {
    throw new OccamError(
      "dimension-mismatch",
      `the new rows hold ${options.predict.X.length} values, not ${options.predict.rows} rows × ${P} columns.`,
    );
  }
  const always = alwaysTerms(data, options.always ?? []);
  const subsets = listSubsets(data, options.subsets ?? "all", options.heredity ?? true, always);
  const modelPrior = options.modelPrior ?? "uniform";
  const seed = options.seed ?? 1;
  const randomOf = (members: readonly number[]) =>
    members
      .map((t) => terms[t])
      .filter((t): t is DesignTerm & { random: RandomTerm } => t.random !== undefined)
      .map((t) => randomTermData(t, n));
  const modelDesign = (members: readonly number[]) => {
    const columns = members.flatMap((t) => terms[t].columns);
    const k = columns.length + 1;
    const X = new Float64Array(n * k);
    for (let r = 0; r < n; r++) {
      X[r * k] = 1;
      for (let c = 0; c < columns.length; c++) X[r * k + c + 1] = standardized[r * P + columns[c]];
    }
    return { columns, design: { X, n, k } };
  };
  const modelName = (members: readonly number[]) =>
    members.length === 0 ? "the intercept alone" : members.map((t) => terms[t].name).join(", ");
  const evidence = (members: readonly number[]) => {
    const draws = options.draws === undefined ? {} : { draws: options.draws };
    const rng = createRng(subsetSeed(seed, members));
    const { columns, design: d } = modelDesign(members);
    const random = randomOf(members);
    if (random.length > 0) {
      const names = columns.map((c) => design.columnNames[c]);
      return randomEffectsEvidence(
        d,
        outcome,
        random,
        prior,
        names,
        subsetSeed(seed, members),
        `the model on ${modelName(members)}`,
      );
    }
    return prior.name === "normal"
      ? glmEvidence(d, outcome, { priorSd: prior.scale, ...draws, rng })
      : glmGPriorEvidence(
          d,
          outcome,
          { mixture: prior.name, ...draws, rng },
          `the model on ${modelName(members)}`,
        );
  };
  const rows = subsets.map((members, i) => {
    const e = evidence(members);
    options.onProgress?.(i + 1, subsets.length);
    return { members, e };
  });
  // The reference of the log Bayes factors, the intercept alone: computed besides when not listed.
  const nullEvidence = rows.find((r) => r.members.length === 0)?.e ?? evidence([]);
  const p = terms.length;
  const free = p - always.length;
  const logPost = rows.map(
    (r) => r.e.logZ + logModelPrior(modelPrior, free, r.members.length - always.length),
  );
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
  const averaged = averagedModels(
    order.map((i) => ({ ...rows[i], probability: probability[i] })),
    (members, e, pairs) => {
      const { columns, design: d } = modelDesign(members);
      const stream = createRng(subsetSeed(seed, members)).split(2)[1];
      const draws =
        "draws" in e
          ? (e as RandomEffectsEvidence).draws(pairs)
          : prior.name === "normal"
            ? glmPosteriorDraws(d, outcome, e as GlmEvidence, { priorSd: prior.scale, pairs, rng: stream })
            : gPriorPosteriorDraws(d, outcome, { mixture: prior.name, pairs, rng: stream });
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
      laplaceLogEvidence: "laplaceLogZ" in e ? e.laplaceLogZ : null,
      logBayesFactor: e.logZ - nullEvidence.logZ,
      logBayesFactorStdErr: e === nullEvidence ? 0 : Math.hypot(e.stdErr, nullEvidence.stdErr),
      posteriorProbability: probability[i],
      probabilityInterval: [intervals.lower[i], intervals.upper[i]],
      reliable: e.reliable,
      warnings: e.warnings,
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
    unreliableModels: rows.filter((r) => !r.e.reliable).length,
    nLikelihoodEvals:
      rows.reduce((s, r) => s + r.e.nLikelihoodEvals, 0) +
      (rows.some((r) => r.e === nullEvidence) ? 0 : nullEvidence.nLikelihoodEvals),
    seconds: (performance.now() - start) / 1000,
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

/** The indices of the terms named in `always`; an unknown name is an `invalid-argument` OccamError. */
function alwaysTerms(data: LinearData, names: readonly string[]): number[] {
  const { terms } = data.design;
  return [...new Set(names)]
    .map((name) => {
      // "(1|g)" names the term "(1 | g)": spaces do not count.
      const j = terms.findIndex((t) => t.name.replace(/\s/g, "") === name.replace(/\s/g, ""));
      if (j < 0) {
        throw new OccamError(
          "invalid-argument",
          `--always: no term "${name}"; the terms are ${terms.map((t) => `"${t.name}"`).join(", ")}.`,
        );
      }
      return j;
    })
    .sort((a, b) => a - b);
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
  const maxSize = which === "all" ? p : Math.min(which.max, p);
  if (maxSize < always.length) {
    throw new OccamError(
      "invalid-argument",
      `--subsets max=${maxSize} leaves no model that holds the ${always.length} terms of --always.`,
    );
  }
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
