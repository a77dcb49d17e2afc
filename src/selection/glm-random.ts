/**
 * The evidence of one GLM with random terms in a comparison: the model (`RandomEffectsGlm`) sampled by
 * NUTS as `occam evidence` samples (four chains of 500 + 500 draws started from a small tempered run),
 * its log evidence by bridge sampling on those draws with the draws' checks, and, under a g-prior, the
 * correction from the sampled stand-in intercept prior to the flat one every model of the comparison
 * shares.
 */
import type { DesignTerm, NewRowsGroups, RandomTerm } from "../data/design.js";
import { DEFAULT_POSTERIOR_SIZE } from "../evidence/compare.js";
import { estimateEvidence } from "../evidence/estimate.js";
import { samplePosterior } from "../evidence/posterior-sampling.js";
import { type GlmDesign, GlmLikelihood, type GlmPosteriorDraws } from "../models/glm/evidence.js";
import type { GlmOutcome } from "../models/glm/family.js";
import { gMixture, slopeInformation } from "../models/glm/g-prior.js";
import {
  type FixedEffectsPrior,
  flatInterceptCorrection,
  RandomEffectsGlm,
  type RandomTermData,
  randomPartAtRows,
} from "../models/glm/random-effects.js";
import { createRng } from "../random/rng.js";
import type { GlmComparisonSetup, GlmModelEvidence, GlmPrior } from "./glm.js";
import type { AveragedGlm } from "./glm-average.js";
import { subsetSeed } from "./linear-estimated.js";

/** Each slope's mean and sd (n − 1 denominator) over the training rows, by which its values are standardised. */
function slopeScales(random: RandomTerm, n: number): { mean: number; sd: number }[] {
  return random.slopeValues.map((values) => {
    let mean = 0;
    for (let i = 0; i < n; i++) mean += values[i] / n;
    let squares = 0;
    for (let i = 0; i < n; i++) squares += (values[i] - mean) ** 2;
    return { mean, sd: Math.sqrt(squares / (n - 1)) };
  });
}

/** rows × d values the term's effects multiply: 1 for the intercept, each slope standardised by `scales`. */
function effectValues(
  random: RandomTerm,
  scales: readonly { mean: number; sd: number }[],
  slopeValues: readonly Float64Array[],
  rows: number,
): Float64Array {
  const d = (random.intercept ? 1 : 0) + random.slopes.length;
  const Z = new Float64Array(rows * d);
  const offset = random.intercept ? 1 : 0;
  if (random.intercept) for (let i = 0; i < rows; i++) Z[i * d] = 1;
  slopeValues.forEach((values, s) => {
    const { mean, sd } = scales[s];
    for (let i = 0; i < rows; i++) Z[i * d + offset + s] = sd > 0 ? (values[i] - mean) / sd : 0;
  });
  return Z;
}

/** A design term's random effects on the rows, their slopes standardised (mean 0, sd 1 with n − 1). */
export function randomTermData(term: DesignTerm & { random: RandomTerm }, n: number): RandomTermData {
  const { random } = term;
  return {
    name: term.name,
    groups: random.levels.length,
    codes: random.codes,
    effects: (random.intercept ? 1 : 0) + random.slopes.length,
    Z: effectValues(random, slopeScales(random, n), random.slopeValues, n),
    effectNames: [...(random.intercept ? ["(intercept)"] : []), ...random.slopes],
  };
}

/** New rows' groups and effects' values for a term trained on n rows, standardised as the training rows'. */
export function newRowsEffects(
  term: DesignTerm & { random: RandomTerm },
  n: number,
  groups: NewRowsGroups,
): { codes: Int32Array; Z: Float64Array } {
  const { random } = term;
  const Z = effectValues(random, slopeScales(random, n), groups.slopeValues, groups.codes.length);
  return { codes: groups.codes, Z };
}

/**
 * The log evidence of the GLM with fixed design `design` (intercept column first, `fixedNames` the
 * others) and the random terms `randomTerms` under `prior`, by bridge sampling on NUTS draws.
 */
export function randomEffectsEvidence(
  design: GlmDesign,
  outcome: GlmOutcome,
  randomTerms: readonly RandomTermData[],
  prior: GlmPrior,
  fixedNames: readonly string[],
  seed: number,
  where: string,
): GlmModelEvidence {
  const p = design.k - 1;
  const fixedPrior: FixedEffectsPrior =
    prior.name === "normal"
      ? prior
      : {
          name: "g",
          mixture: gMixture(prior.name, design.n, p, where),
          J: p > 0 ? slopeInformation(new GlmLikelihood(design, outcome), where) : new Float64Array(0),
        };
  const model = new RandomEffectsGlm(design, outcome, randomTerms, fixedPrior, fixedNames);
  const [posteriorRng] = createRng(seed).split(2);
  const sample = samplePosterior(model, { ...DEFAULT_POSTERIOR_SIZE, rng: posteriorRng });
  const bridge = estimateEvidence(model, { method: "bridge", seed, sample });
  const correction =
    prior.name === "normal" ? undefined : flatInterceptCorrection(sample.draws, Math.max(sample.minEss, 1));
  const { values, size, dim } = sample.draws;
  const k = design.k;
  const theta = new Float64Array(size * k);
  for (let s = 0; s < size; s++) theta.set(values.subarray(s * dim, s * dim + k), s * k);
  return {
    logZ: bridge.logZ + (correction?.logShift ?? 0),
    stdErr: Math.hypot(bridge.stdErr, correction?.stdErr ?? 0),
    laplaceLogZ: null,
    reliable: bridge.reliable,
    warnings: bridge.warnings,
    nLikelihoodEvals: bridge.nLikelihoodEvals + sample.nLikelihoodEvals,
    posterior: {
      theta,
      weights: correction?.weights ?? new Float64Array(size).fill(1 / size),
      count: size,
      random: {
        values: Float64Array.from(values.subarray(0, size * dim)),
        dim,
        termStarts: model.termStarts,
      },
    },
  };
}

/** A model with random terms' posterior draws: the fixed coefficients, and the whole draws for predictions. */
export interface RandomPosteriorDraws extends GlmPosteriorDraws {
  readonly random?: {
    /** count × dim draws of every parameter of the model (`RandomEffectsGlm`). */
    readonly values: Float64Array;
    readonly dim: number;
    /** Where each random term's parameters start in a draw. */
    readonly termStarts: readonly number[];
  };
}

/**
 * `2 · pairs` of a model's posterior draws, evenly spaced through its chains (all of them when it has
 * fewer), their weights renormalised over those kept.
 */
export function thinnedDraws(posterior: RandomPosteriorDraws, pairs: number): RandomPosteriorDraws {
  const size = posterior.count;
  const k = posterior.theta.length / size;
  const count = Math.min(2 * pairs, size);
  const theta = new Float64Array(count * k);
  const weights = new Float64Array(count);
  const { random } = posterior;
  const values = new Float64Array(random === undefined ? 0 : count * random.dim);
  let total = 0;
  for (let s = 0; s < count; s++) {
    const from = Math.floor((s * size) / count);
    theta.set(posterior.theta.subarray(from * k, (from + 1) * k), s * k);
    if (random !== undefined) {
      values.set(random.values.subarray(from * random.dim, (from + 1) * random.dim), s * random.dim);
    }
    weights[s] = posterior.weights[from];
    total += weights[s];
  }
  for (let s = 0; s < count; s++) weights[s] /= total;
  return { theta, weights, count, ...(random === undefined ? {} : { random: { ...random, values } }) };
}

/**
 * With --predict, the random terms' part of the linear predictor at the new rows for each of a model's
 * thinned draws ({@link randomPartAtRows}; a new group's effects drawn with a stream of the model's seed).
 */
export function randomPart(
  setup: GlmComparisonSetup,
  members: readonly number[],
  draws: RandomPosteriorDraws,
): Pick<AveragedGlm, "randomPart"> {
  const { predict } = setup.options;
  const { random } = draws;
  if (predict === undefined || random === undefined) return {};
  const { n, terms } = setup.data.design;
  const held = members
    .map((t) => terms[t])
    .filter((t): t is DesignTerm & { random: RandomTerm } => t.random !== undefined);
  const rows = held.map((t) => newRowsEffects(t, n, predict.groups?.[t.name] as NewRowsGroups));
  const rng = createRng(subsetSeed(setup.seed, members)).split(3)[2];
  const data = held.map((t) => randomTermData(t, n));
  return {
    randomPart: randomPartAtRows(random.values, random.dim, random.termStarts, data, rows, predict.rows, rng),
  };
}
