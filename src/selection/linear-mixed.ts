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
import type { SubsetFamily } from "../models/family.js";
import type { RandomTermData } from "../models/glm/random-effects.js";
import { hyperGDensity, zellnerSiowDensity } from "../models/linear/g-mixture.js";
import {
  type LinearMixedEvidence,
  LinearMixedPosterior,
  linearMixedEvidence,
  type SlopeGPrior,
} from "../models/linear/mixed.js";
import { createRng } from "../random/rng.js";
import { randomTermData } from "./glm-random.js";
import { listedSubsets, type Ranked, rankEstimates, subsetSeed, withNullModel } from "./linear-estimated.js";
import type { LinearPriorSummary, ResolvedLinearOptions } from "./linear-options.js";
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
 * The ranked models of a comparison whose terms include random ones (see the module header), `family`
 * the comparison's family over the same terms (which gives the models without random terms their exact
 * scores: random terms own no design columns).
 */
export function mixedEvidences(
  family: SubsetFamily,
  design: LinearDesign,
  summary: LinearPriorSummary,
  o: ResolvedLinearOptions,
  top: number,
  onProgress: ((done: number, total: number) => void) | undefined,
): Ranked {
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
  const unreliable = new Map<string, readonly string[]>();
  estimated.forEach((members, i) => {
    if (members.some(isRandom)) {
      const fit = mixedModel(design, members, randomData, gPrior, o.seed);
      fits.set(members.join(","), fit);
      if (!fit.reliable) unreliable.set(members.join(","), fit.warnings);
      [scores[i], stdErr[i]] = [fit.logBayesFactor, fit.stdErr];
    } else {
      scores[i] = family.score(members);
    }
    if (i < subsets.length) onProgress?.(i + 1, subsets.length);
  });
  const ranked = rankEstimates(
    withFits(family, design, fits),
    o,
    top,
    { subsets, estimated },
    scores,
    stdErr,
  );
  return { ...ranked, settings: {}, unreliable };
}

/** One model with random terms: its posterior over θ, and the evidence by importance sampling. */
function mixedModel(
  design: LinearDesign,
  members: readonly number[],
  randomData: readonly (RandomTermData | undefined)[],
  gPrior: SlopeGPrior,
  seed: number,
): LinearMixedEvidence {
  const { terms, n, columns: P } = design;
  const fixedColumns = members.flatMap((t) => terms[t].columns);
  const k = fixedColumns.length;
  const X = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < k; a++) X[i * k + a] = design.X[i * P + fixedColumns[a]];
  }
  const random = members.flatMap((t) => randomData[t] ?? []);
  const post = new LinearMixedPosterior(X, design.y, n, k, random, gPrior);
  const where = `the model on {${members.map((t) => terms[t].name).join(", ")}}`;
  return linearMixedEvidence(post, { rng: createRng(subsetSeed(seed, members)) }, where);
}

/** `family` with the fitted models' scores and coefficient moments where a model holds a random term. */
function withFits(
  family: SubsetFamily,
  design: LinearDesign,
  fits: ReadonlyMap<string, LinearMixedEvidence>,
): SubsetFamily {
  const fitOf = (members: ArrayLike<number>) => fits.get(Array.from(members).join(","));
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
  };
}
