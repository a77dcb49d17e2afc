/**
 * Comparing linear regressions on subsets of candidate terms: the family of the chosen prior, every
 * subset enumerated (or sampled by MCMC when there are too many), and the typed result `occam compare`
 * prints. The options and result types live in `linear-options.ts`, the sampled-estimator path in
 * `linear-estimated.ts`.
 */
import type { NumericTable } from "../data/csv.js";
import { type LinearData, numericDesign } from "../data/design.js";
import { OccamError } from "../errors.js";
import type { PredictiveResponse, SubsetFamily } from "../models/family.js";
import { type CentredStatistics, centredStatistics } from "../models/linear/design.js";
import { gPriorsFamily, unitInformationScorer } from "../models/linear/g-prior.js";
import { type GTableStats, newTableStats } from "../models/linear/g-table.js";
import { hyperGFamily } from "../models/linear/hyper-g.js";
import { independentFamily } from "../models/linear/independent.js";
import { nigFamily } from "../models/linear/nig-subsets.js";
import { zellnerSiowFamily } from "../models/linear/zellner-siow.js";
import { createRng } from "../random/rng.js";
import { averageSubsetPredictions } from "./average.js";
import { logModelPrior } from "./compare.js";
import { estimatedEvidences, type Ranked } from "./linear-estimated.js";
import { checkMixedComparison, mixedEvidences } from "./linear-mixed.js";
import {
  type CompareLinearOptions,
  DEFAULT_LISTED,
  DEFAULT_MCMC_STEPS,
  G_PRIORS,
  type LinearComparison,
  type LinearModelRow,
  type LinearPrediction,
  type LinearPriorSummary,
  type ResolvedLinearOptions,
  resolveLinearOptions,
} from "./linear-options.js";
import { alwaysTerms, checkSizeLimit, hereditaryFilter } from "./model-space.js";
import { sampleSubsets } from "./subset-sampling.js";
import { MAX_ENUMERATED_INPUTS, type SubsetSummary, searchSubsets, summarizeSubsets } from "./subsets.js";

export { subsetSeed } from "./linear-estimated.js";
// The options, their constants and the result types are part of this module's interface.
export {
  type CoefficientSummary,
  type CompareLinearOptions,
  DEFAULT_LISTED,
  DEFAULT_MCMC_STEPS,
  DEFAULT_SAMPLES,
  type GammaPrior,
  LINEAR_ESTIMATORS,
  LINEAR_PRIOR_DEFAULTS,
  LINEAR_PRIORS,
  type LinearComparison,
  type LinearEstimator,
  type LinearModelRow,
  type LinearPrediction,
  type LinearPrior,
  type LinearPriorName,
  type LinearPriorSummary,
  MAX_ESTIMATED_MODELS,
  type SampledLinearEstimator,
  type SubsetSearchSummary,
} from "./linear-options.js";

/** The family of the chosen prior over the design's terms, and the summary of the prior. */
function buildFamily(
  data: LinearData,
  stats: CentredStatistics,
  o: ResolvedLinearOptions,
  tables: GTableStats,
): { family: SubsetFamily; summary: LinearPriorSummary } {
  const { design } = data;
  const { prior, intercept, standardize } = o;
  switch (prior.name) {
    case "zellner-siow": {
      const { r } = prior;
      return {
        family: zellnerSiowFamily(design, stats, { r, tables }),
        summary: { name: "zellner-siow", r },
      };
    }
    case "g-prior":
      return {
        family: gPriorsFamily(design, stats, unitInformationScorer(design.n)),
        summary: { name: "g-prior", g: design.n },
      };
    case "hyper-g":
    case "hyper-g-n": {
      const { a } = prior;
      const perN = prior.name === "hyper-g-n";
      return { family: hyperGFamily(design, stats, { a, perN, tables }), summary: { name: prior.name, a } };
    }
    case "nig": {
      const { v, a, b } = prior;
      return {
        family: nigFamily(design, stats, { v, a, b, intercept, standardize }),
        summary: { name: "nig", v, a, b, standardized: standardize },
      };
    }
    case "independent": {
      const { noise, weights } = prior;
      // The model's own names: α, β the noise precision's Gamma shape and scale, α_w, β_w the weights'.
      const hyper = { alpha: noise.shape, beta: noise.scale, alphaW: weights.shape, betaW: weights.scale };
      return {
        family: independentFamily(design, stats, { ...hyper, intercept, standardize }),
        summary: {
          name: "independent",
          noise: { ...noise },
          weights: { ...weights },
          standardized: standardize,
        },
      };
    }
  }
}

/**
 * Compares linear regressions of the target on subsets of the candidate terms (inputs, factors,
 * interactions) by their evidence under one prior, and returns posterior model probabilities, Bayes
 * factors against the best and the intercept-only model, R², each term's inclusion probability and each
 * coefficient's model-averaged posterior mean and standard deviation.
 *
 * - Exact scores (every prior but the independent one): all subsets are streamed through a running
 *   summary (`searchSubsets`), in memory independent of their number; with more than
 *   MAX_ENUMERATED_INPUTS terms they are sampled by Metropolis–Hastings and the visited models'
 *   probabilities are their exact scores renormalised over them (`search: "mcmc"`).
 * - A sampled `estimator` (NIG, independent): each model's evidence is estimated with a seed hashed from
 *   the seed and the model ({@link subsetSeed}); Bayes factors carry standard errors and probabilities
 *   90 % intervals over the evidences' errors. At most {@link MAX_ESTIMATED_MODELS} models.
 */
export function compareLinearModels(
  input: NumericTable | LinearData,
  options: CompareLinearOptions = {},
): LinearComparison {
  const setup = prepareLinearComparison(input, options);
  const { family, o, top, search } = setup;
  let result: Ranked;
  if (setup.mixed) {
    result = mixedEvidences(setup, options.onProgress);
  } else if (o.estimator !== "exact") result = estimatedEvidences(family, o, top, options.onProgress);
  else if (search === "mcmc") result = sampled(family, o, top);
  else result = enumerated(family, o, top);
  return linearComparisonResult(setup, result);
}

/** A comparison set up: the checked options, the data, the family of the prior and how models are found. */
export interface LinearComparisonSetup {
  readonly start: number;
  readonly o: ResolvedLinearOptions;
  readonly data: LinearData;
  readonly family: SubsetFamily;
  readonly summary: LinearPriorSummary;
  readonly tables: GTableStats;
  readonly search: LinearComparison["search"];
  readonly top: number;
  readonly predict: CompareLinearOptions["predict"];
  /** True when the terms include random ones (their models' evidences are sampled). */
  readonly mixed: boolean;
}

/** Checks the options and data of {@link compareLinearModels} and builds the family of the prior. */
export function prepareLinearComparison(
  input: NumericTable | LinearData,
  options: CompareLinearOptions,
): LinearComparisonSetup {
  const start = performance.now();
  const data = "design" in input ? input : numericDesign(input);
  const { design } = data;
  const o = { ...resolveLinearOptions(options), always: alwaysTerms(design.terms, options.always ?? []) };
  if (o.always.length > 0 && o.always.length === design.terms.length) {
    throw new OccamError(
      "invalid-argument",
      "--always holds every term, which leaves one model: compare it with --subsets none, or leave some terms free.",
    );
  }
  checkSizeLimit(o.always.length, o.subsets);
  const mixed = design.terms.some((t) => t.random !== undefined);
  const p = design.terms.length;
  if (mixed) checkMixedComparison(o, p);
  if (p === 0) {
    throw new OccamError(
      "invalid-data",
      "there are no candidate inputs: give the CSV at least one column besides the target, or name some with --inputs or --formula.",
    );
  }
  const stats = centredStatistics(design);
  const tables = newTableStats();
  const { family, summary } = buildFamily(data, stats, o, tables);
  const search: LinearComparison["search"] =
    o.subsets === "all" && p > MAX_ENUMERATED_INPUTS ? "mcmc" : "enumerated";
  if (search !== "mcmc" && o.mcmcSteps !== undefined) {
    throw new OccamError(
      "invalid-argument",
      `--mcmc-steps applies only when subsets are sampled (--subsets all with more than ${MAX_ENUMERATED_INPUTS} inputs); these ${p} inputs are enumerated exactly.`,
    );
  }
  const { predict } = options;
  if (predict !== undefined) {
    if (family.predictive === undefined) {
      throw new OccamError(
        "invalid-argument",
        "predictions need a prior with a closed-form predictive: the g-priors (zellner-siow, g-prior, hyper-g, hyper-g-n) or nig, not the independent prior.",
      );
    }
    if (
      !(
        Number.isInteger(predict.rows) &&
        predict.rows >= 1 &&
        predict.X.length === predict.rows * design.columns
      )
    ) {
      throw new OccamError(
        "dimension-mismatch",
        `predict: ${predict.rows} new rows need ${predict.rows} × ${design.columns} values (every design column), got ${predict.X.length}.`,
      );
    }
  }
  return {
    start,
    o,
    data,
    family,
    summary,
    tables,
    search,
    top: options.top ?? DEFAULT_LISTED,
    predict,
    mixed,
  };
}

/** The typed result of a comparison from its ranked models. */
export function linearComparisonResult(setup: LinearComparisonSetup, result: Ranked): LinearComparison {
  const { o, data, family, summary, tables, search } = setup;
  const { design } = data;
  const { summary: s } = result;
  const nullScore = family.exact ? family.score([]) : Number.NaN;
  const bestScore = s.top[0].score;
  const termNames = design.terms.map((t) => t.name);
  const models = s.top.map((m, i): LinearModelRow => {
    const e = result.errors?.[i];
    return {
      inputs: Array.from(m.members, (t) => termNames[t]),
      rSquared: family.rSquared(m.members),
      logEvidence: family.givesEvidence ? m.score : null,
      stdErr: family.givesEvidence ? (e?.stdErr ?? 0) : null,
      ...(e?.exact === undefined ? {} : { exactLogEvidence: e.exact }),
      logBayesFactor: m.score - (e?.nullScore ?? nullScore),
      ...(e === undefined ? {} : { logBayesFactorStdErr: e.nullStdErr }),
      logBayesFactorVsBest: m.score - bestScore,
      ...(e === undefined ? {} : { logBayesFactorVsBestStdErr: e.vsBestStdErr }),
      posteriorProbability: Math.exp(m.logPosterior),
      ...(e === undefined ? {} : { probabilityInterval: e.interval }),
      ...(setup.mixed && m.members.some((t) => design.terms[t].random !== undefined)
        ? reliability(result.unreliable?.get(Array.from(m.members).join(",")))
        : {}),
    };
  });
  const inclusionProbabilities: Record<string, number> = {};
  termNames.forEach((name, t) => {
    inclusionProbabilities[name] = s.inclusion[t];
  });
  const termOf = new Int32Array(design.columns);
  design.terms.forEach((t, j) => {
    for (const c of t.columns) termOf[c] = j;
  });
  const coefficients = design.columnNames.map((name, c) => ({
    name,
    inclusionProbability: s.inclusion[termOf[c]],
    mean: Number.isFinite(s.coefficientMean[c]) ? s.coefficientMean[c] : null,
    sd: Number.isFinite(s.coefficientSd[c]) ? s.coefficientSd[c] : null,
  }));
  const random = o.estimator !== "exact" || search === "mcmc" || setup.mixed;
  return {
    family: "linear",
    prior: summary,
    estimator: o.estimator,
    search,
    n: design.n,
    inputs: termNames,
    intercept: G_PRIORS.includes(o.prior.name) || o.intercept,
    standardized: !G_PRIORS.includes(o.prior.name) && o.standardize,
    modelPrior: o.modelPrior,
    heredity: o.heredity,
    always: o.always.map((t) => termNames[t]),
    modelCount: s.count,
    ...(random ? { settings: { seed: o.seed, ...result.settings } } : {}),
    ...(result.agreement === undefined ? {} : { agreement: result.agreement }),
    ...(tables.panels + tables.directEvaluations > 0
      ? {
          quadrature: {
            panels: tables.panels,
            directEvaluations: tables.directEvaluations,
            maxError: tables.maxError,
          },
        }
      : {}),
    ...(result.mcmc === undefined ? {} : { mcmc: result.mcmc }),
    models,
    inclusionProbabilities,
    coefficients,
    factors: data.factors,
    medianModel: termNames.filter((_, t) => s.inclusion[t] >= 0.5),
    ...(setup.predict === undefined
      ? {}
      : { predictions: predictions(result.family ?? family, s.top, setup.predict) }),
    seconds: (performance.now() - setup.start) / 1000,
  };
}

function enumerated(family: SubsetFamily, o: ResolvedLinearOptions, top: number): Ranked {
  const p = family.terms.length;
  if (o.subsets === "none") {
    const members = Array.from({ length: p }, (_, j) => j);
    return { summary: summarizeSubsets(family, [{ members, score: family.score(members) }], { top }) };
  }
  const maxSize = o.subsets === "all" ? p : Math.min(o.subsets.max, p);
  return {
    summary: searchSubsets(family, {
      maxSize,
      prior: o.modelPrior,
      top,
      heredity: o.heredity,
      always: o.always,
    }),
  };
}

/** Too many terms to enumerate: Metropolis–Hastings over subsets, exact scores of the visited ones. */
function sampled(family: SubsetFamily, o: ResolvedLinearOptions, top: number): Ranked {
  const p = family.terms.length;
  const steps = o.mcmcSteps ?? DEFAULT_MCMC_STEPS;
  const burnIn = Math.ceil(steps / 10);
  // The chain moves over the terms not in every model (`free`); a model is those and `always`.
  const free = Array.from({ length: p }, (_, j) => j).filter((j) => !o.always.includes(j));
  const withAlways = (members: ArrayLike<number>): number[] =>
    o.always.length === 0
      ? Array.from(members)
      : [...o.always, ...Array.from(members, (j) => free[j])].sort((a, b) => a - b);
  const heredity = hereditaryFilter(family, o.heredity);
  const inModel = new Uint8Array(p);
  const sample = sampleSubsets({
    p: free.length,
    logEvidence: (members) => family.score(withAlways(members)),
    rng: createRng(o.seed),
    prior: o.modelPrior,
    iterations: steps,
    burnIn,
    allowed:
      heredity === undefined
        ? undefined
        : (freeInModel) => {
            inModel.fill(0);
            for (const t of o.always) inModel[t] = 1;
            free.forEach((t, j) => {
              inModel[t] = freeInModel[j];
            });
            return heredity(inModel);
          },
  });
  const visited = Array.from({ length: sample.count }, (_, i) => ({
    members: withAlways(sample.members.subarray(sample.offsets[i], sample.offsets[i + 1])),
    score: sample.logEvidence[i],
  }));
  const summary = summarizeSubsets(family, visited, { prior: o.modelPrior, top, always: o.always });
  let discrepancy = 0;
  for (let i = 0; i < sample.count; i++) {
    const size = visited[i].members.length - o.always.length;
    const logPost = visited[i].score + logModelPrior(o.modelPrior, free.length, size) - summary.logNormaliser;
    discrepancy += Math.abs(sample.visits[i] / sample.iterations - Math.exp(logPost));
  }
  return {
    summary,
    mcmc: {
      steps,
      burnIn,
      distinctModels: sample.count,
      acceptanceRate: sample.acceptanceRate,
      frequencyDiscrepancy: 0.5 * discrepancy,
    },
  };
}

/**
 * The model-averaged predictions at the new rows: the listed models weighted by their posterior
 * probabilities (those below a millionth of the total left out), their predictives mixed.
 */
function predictions(
  family: SubsetFamily,
  models: SubsetSummary["top"],
  predict: NonNullable<CompareLinearOptions["predict"]>,
): LinearPrediction[] {
  const at = (response: PredictiveResponse) =>
    averageSubsetPredictions(family, models, predict.X, predict.rows, { levels: [0.9], response });
  const mean = at("mean");
  const observation = at("observation");
  return Array.from({ length: predict.rows }, (_, r) => ({
    mean: mean.mean[r],
    lower: mean.intervals[0].lower[r],
    upper: mean.intervals[0].upper[r],
    observationLower: observation.intervals[0].lower[r],
    observationUpper: observation.intervals[0].upper[r],
  }));
}

/** A row's `reliable` and, when it is not, `warnings`. */
function reliability(warnings: readonly string[] | undefined): Pick<LinearModelRow, "reliable" | "warnings"> {
  return warnings === undefined ? { reliable: true } : { reliable: false, warnings: [...warnings] };
}
