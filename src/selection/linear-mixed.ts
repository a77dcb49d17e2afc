/**
 * `compareLinearModels` with random terms (`(1 | g)`, `(x | g)`) in the formula: every listed subset of
 * the terms, the models without a random term scored exactly by the family of the prior, each model with
 * one by {@link linearMixedEvidence} (importance sampling over the random terms' scales and g, seeded by
 * {@link subsetSeed} so that a model's estimate depends only on the seed and the model). The standard
 * errors are carried to the Bayes factors and, as 90 % intervals, to the probabilities, as for a sampled
 * estimator.
 */
import type { DesignTerm, LinearDesign, RandomTerm } from "../data/design.js";
import { OccamError } from "../errors.js";
import type { PredictiveComponent, PredictiveResponse, SubsetFamily } from "../models/family.js";
import type { RandomTermData } from "../models/glm/random-effects.js";
import { hyperGDensity, zellnerSiowDensity } from "../models/linear/g-mixture.js";
import {
  type LinearMixedEvidence,
  LinearMixedPosterior,
  linearMixedEvidence,
  type SlopeGPrior,
} from "../models/linear/mixed.js";
import { createRng } from "../random/rng.js";
import { newRowsEffects, randomTermData } from "./glm-random.js";
import type { LinearComparisonSetup } from "./linear.js";
import { listedSubsets, type Ranked, rankEstimates, subsetSeed, withNullModel } from "./linear-estimated.js";
import type { CompareLinearOptions, LinearPriorSummary, ResolvedLinearOptions } from "./linear-options.js";
import { MAX_ENUMERATED_INPUTS } from "./subsets.js";

/** The most models with a random term one comparison estimates. */
export const MAX_MIXED_MODELS = 4096;

/** The slopes' prior on g of the models with random terms: the comparison's g-prior. */
function slopeGPrior(summary: LinearPriorSummary, n: number): SlopeGPrior {
  switch (summary.name) {
    case "zellner-siow":
      return { kind: "mixture", density: zellnerSiowDensity(n, summary.r) };
    case "hyper-g":
    case "hyper-g-n":
      return { kind: "mixture", density: hyperGDensity(summary.a, n, summary.name === "hyper-g-n") };
    case "g-prior":
      return { kind: "fixed", g: summary.g };
    default:
      throw new OccamError(
        "invalid-argument",
        `random terms take a g-prior on the fixed coefficients (zellner-siow, g-prior, hyper-g, hyper-g-n), not --prior ${summary.name}.`,
      );
  }
}

/** Checks that a comparison with random terms can run: the exact estimator, and enumerable subsets. */
export function checkMixedComparison(o: ResolvedLinearOptions, p: number): void {
  if (o.estimator !== "exact") {
    throw new OccamError(
      "invalid-argument",
      `with random terms the models' evidences are computed by importance sampling over the terms' scales; --estimator ${o.estimator} does not apply.`,
    );
  }
  if (o.subsets === "all" && p > MAX_ENUMERATED_INPUTS) {
    throw new OccamError(
      "invalid-argument",
      `${p} terms with random terms among them are too many to enumerate; narrow with --subsets max=K, --inputs or --always.`,
    );
  }
}

/**
 * The ranked models of a comparison whose terms include random ones (see the module header); the
 * setup's family, over the same terms, gives the models without random terms their exact scores (random
 * terms own no design columns), and with `predict` the ranking's family predicts at the new rows.
 */
export function mixedEvidences(
  setup: Pick<LinearComparisonSetup, "family" | "data" | "summary" | "o" | "top" | "predict">,
  onProgress: ((done: number, total: number) => void) | undefined,
): Ranked {
  const { family, summary, o, top, predict } = setup;
  const { design } = setup.data;
  const { terms } = design;
  const isRandom = (t: number) => terms[t].random !== undefined;
  const subsets = listedSubsets(family, o);
  const mixedCount = subsets.filter((m) => m.some(isRandom)).length;
  if (mixedCount > MAX_MIXED_MODELS) {
    throw new OccamError(
      "invalid-argument",
      `${mixedCount} models hold a random term, more than ${MAX_MIXED_MODELS}; narrow with --subsets max=K, --inputs or --always.`,
    );
  }
  const gPrior = slopeGPrior(summary, design.n);
  const randomData = terms.map((t) =>
    t.random === undefined ? undefined : randomTermData(t as DesignTerm & { random: RandomTerm }, design.n),
  );
  const estimated = withNullModel(subsets);
  const scores = new Float64Array(estimated.length);
  const stdErr = new Float64Array(estimated.length);
  const fits = new Map<string, LinearMixedEvidence>();
  estimated.forEach((members, i) => {
    if (members.some(isRandom)) {
      const fit = mixedModel(design, members, randomData, gPrior, o.seed);
      fits.set(members.join(","), fit);
      [scores[i], stdErr[i]] = [fit.logBayesFactor, fit.stdErr];
    } else {
      scores[i] = family.score(members);
    }
    if (i < subsets.length) onProgress?.(i + 1, subsets.length);
  });
  const fitted = withFits(
    family,
    design,
    fits,
    (members) => mixedPosterior(design, members, randomData, gPrior),
    predict,
  );
  const ranked = rankEstimates(fitted, o, top, { subsets, estimated }, scores, stdErr);
  const unreliable = new Map(
    [...fits].filter(([, fit]) => !fit.reliable).map(([key, fit]) => [key, fit.warnings]),
  );
  return { ...ranked, settings: {}, unreliable, family: fitted };
}

/** The posterior over θ of the model on `members` (some of them random terms). */
function mixedPosterior(
  design: LinearDesign,
  members: readonly number[],
  randomData: readonly (RandomTermData | undefined)[],
  gPrior: SlopeGPrior,
): LinearMixedPosterior {
  const { n } = design;
  const fixedColumns = members.flatMap((t) => design.terms[t].columns);
  const X = columnsOf(design.X, design.columns, n, fixedColumns);
  const random = members.flatMap((t) => randomData[t] ?? []);
  return new LinearMixedPosterior(X, design.y, n, fixedColumns.length, random, gPrior);
}

/** The rows × columns.length matrix of `columns` taken from a rows × P one. */
function columnsOf(X: ArrayLike<number>, P: number, rows: number, columns: readonly number[]): Float64Array {
  const k = columns.length;
  const out = new Float64Array(rows * k);
  for (let i = 0; i < rows; i++) for (let a = 0; a < k; a++) out[i * k + a] = X[i * P + columns[a]];
  return out;
}

/** One model with random terms: its evidence by importance sampling, seeded by the model. */
function mixedModel(
  design: LinearDesign,
  members: readonly number[],
  randomData: readonly (RandomTermData | undefined)[],
  gPrior: SlopeGPrior,
  seed: number,
): LinearMixedEvidence {
  const post = mixedPosterior(design, members, randomData, gPrior);
  const where = `the model on {${members.map((t) => design.terms[t].name).join(", ")}}`;
  return linearMixedEvidence(post, { rng: createRng(subsetSeed(seed, members)) }, where);
}

/**
 * A model with random terms' predictive at new rows: a mixture over its weighted draws of θ, each a
 * Student-t given θ (`LinearMixedPosterior.predictiveAt`).
 */
function mixedPredictive(
  design: LinearDesign,
  members: readonly number[],
  post: LinearMixedPosterior,
  draws: LinearMixedEvidence["draws"],
  newRows: {
    X: ArrayLike<number>;
    m: number;
    groups: NonNullable<CompareLinearOptions["predict"]>["groups"];
  },
  response: PredictiveResponse,
): PredictiveComponent[] {
  const { n } = design;
  const { m } = newRows;
  const fixedColumns = members.flatMap((t) => design.terms[t].columns);
  const groups = members
    .filter((t) => design.terms[t].random !== undefined)
    .map((t) => {
      const term = design.terms[t] as DesignTerm & { random: RandomTerm };
      const given = newRows.groups?.[term.name];
      if (given === undefined) {
        throw new OccamError(
          "invalid-argument",
          `predict: the new rows need the column ${term.random.group} of the random term ${term.name}.`,
        );
      }
      return newRowsEffects(term, n, given);
    });
  const rows = { rows: m, X: columnsOf(newRows.X, design.columns, m, fixedColumns), groups };
  const dim = draws.theta.length / draws.count;
  const components: PredictiveComponent[] = [];
  for (let s = 0; s < draws.count; s++) {
    if (!(draws.weights[s] > 0)) continue;
    post.logBayesFactor(draws.theta.subarray(s * dim, (s + 1) * dim));
    const location = new Float64Array(m);
    const scale = new Float64Array(m);
    post.predictiveAt(rows, response === "observation" ? 1 : 0, location, scale);
    components.push({ weight: draws.weights[s], predictive: { dof: n - 1, location, scale } });
  }
  return components;
}

/** `family` with the fitted models' scores and coefficient moments where a model holds a random term. */
function withFits(
  family: SubsetFamily,
  design: LinearDesign,
  fits: ReadonlyMap<string, LinearMixedEvidence>,
  posteriorOf: (members: readonly number[]) => LinearMixedPosterior,
  predict: CompareLinearOptions["predict"],
): SubsetFamily {
  const fitOf = (members: ArrayLike<number>) => fits.get(Array.from(members).join(","));
  const plainPredictive = family.predictive;
  return {
    terms: family.terms,
    columnNames: family.columnNames,
    givesEvidence: family.givesEvidence,
    exact: false,
    score: (members) => fitOf(members)?.logBayesFactor ?? family.score(members),
    enumerate() {
      throw new OccamError("invalid-argument", "models with random terms are listed, not enumerated.");
    },
    moments(members, mean, variance) {
      const fit = fitOf(members);
      if (fit === undefined) {
        family.moments(members, mean, variance);
        return;
      }
      const columns = Array.from(members).flatMap((t) => design.terms[t].columns);
      columns.forEach((c, a) => {
        mean[c] = fit.mean[a];
        variance[c] = fit.variance[a];
      });
    },
    rSquared: family.rSquared,
    ...(plainPredictive === undefined || predict === undefined
      ? {}
      : {
          predictive(members, X, m, response = "observation") {
            const fit = fitOf(members);
            if (fit === undefined) return plainPredictive(members, X, m, response);
            const list = Array.from(members);
            const newRows = { X, m, groups: predict.groups };
            return mixedPredictive(design, list, posteriorOf(list), fit.draws, newRows, response);
          },
        }),
  };
}
