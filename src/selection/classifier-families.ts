/**
 * Which family of classifier the data favour, and predictions averaged across families (Everson,
 * Krzanowski, Bailey & Fieldsend, eqs. 5–6). For each family: the evidence of the labels given the
 * inputs, log p(y | X, M), by the chain rule over stratified folds (the same folds for every family);
 * a cross-check of it by a second estimator (bridge sampling on posterior draws given all rows, or the
 * family's exact computation); optionally Everson's G-fold product Σ_g log p(D_g | D_−g), the paper's
 * number, which sits above log p(y | X, M); posterior draws given all training rows, their predictive
 * at test rows and their leave-one-out densities. Then family probabilities from the evidences (their
 * errors carried by simulation, unreliable ones left out), the evidence-weighted predictive
 * Σ_i p(y | x, D, M_i) p(M_i | D), and beside it the stacked predictive (Yao et al. 2018). With
 * `tempered`, a family whose chain rule or chains fail their checks is also run by tempered SMC on all
 * rows, whose evidence and particles then take the failed ones' place where they pass their own.
 */

import { OccamError } from "../errors.js";
import {
  buildClassifier,
  type ClassifierFamilyName,
  classCounts,
  classificationScores,
  confusionMatrix,
  logLossMonteCarloError,
  minimumRowsPerClass,
  type PosteriorPredictive,
  type ReliabilityBin,
  reliabilityBins,
  standardizeClassifierInputs,
  stratifiedFolds,
} from "../models/classifiers/index.js";
import type { ClassificationData } from "../models/mixture-classifier/data.js";
import { createRng, type Rng } from "../random/rng.js";
import { type FamilyRun, runFamily } from "./classifier-family-run.js";
import {
  type ClassifierComparisonSettings,
  type CompareClassifierFamiliesOptions,
  resolveClassifierComparison,
} from "./classifier-options.js";
import { familyProbabilities, stackingWeights } from "./family-weights.js";

export type { FamilyRun } from "./classifier-family-run.js";
export type { CompareClassifierFamiliesOptions } from "./classifier-options.js";

/** An evidence estimate as the comparison reports it. */
export interface EstimateSummary {
  readonly method: string;
  readonly logZ: number;
  readonly stdErr: number;
  readonly reliable: boolean;
  readonly warnings: readonly string[];
}

/** Test scores, with the Monte Carlo error of the log loss. */
export interface TestScores {
  readonly accuracy: number;
  readonly logLoss: number;
  /** Monte Carlo standard error of `logLoss` (from the finite posterior draws). */
  readonly logLossMcse: number;
  readonly brier: number;
}

/** One family's results. */
export interface ClassifierFamilyResult {
  readonly name: ClassifierFamilyName;
  /** The model's size and prior, in words. */
  readonly summary: string;
  readonly dim: number;
  /** log p(y | X, M) as the family is weighed: by the chain rule, or by tempered SMC (see `tempered`). */
  readonly evidence: EstimateSummary;
  /** The second estimate of the same number (the chain rule when `evidence` is tempered SMC's), or null. */
  readonly crossCheck: EstimateSummary | null;
  /** (evidence − cross-check) / √(se₁² + se₂²), or null. */
  readonly crossCheckZ: number | null;
  /** Everson's G-fold product Σ_g log p(D_g | D_−g), or null when not asked for. */
  readonly everson: EstimateSummary | null;
  /**
   * The posterior draws given all training rows that make the predictions and LOO: whether they pass
   * their checks and what to know (the first warning says when they are a tempered run's particles);
   * `maxRhat` and `minEss` are the HMC chains'.
   */
  readonly posterior: {
    readonly reliable: boolean;
    readonly maxRhat: number;
    readonly minEss: number;
    readonly warnings: readonly string[];
  };
  /** Whether the family takes part in the evidence-weighted average. */
  readonly included: boolean;
  /** p(M | D), 0 when left out; its delta-method error and simulated interval. */
  readonly probability: number;
  readonly probabilityStdErr: number;
  readonly probabilityInterval: readonly [number, number] | null;
  /** The stacking weight (0 when left out of stacking). */
  readonly stackingWeight: number;
  /** The leave-one-out expected log predictive density of the training rows. */
  readonly loo: { readonly elpd: number; readonly elpdStdErr: number; readonly highParetoK: number };
  readonly test: TestScores | null;
  /** Test class probabilities, test rows × classes, or null. */
  readonly testProbabilities: Float64Array | null;
  readonly seconds: number;
}

/** A combined predictive's test scores, confusion matrix (counts[observed][predicted]) and reliability diagram. */
export interface CombinedScores extends TestScores {
  readonly confusion: number[][];
  readonly probabilities: Float64Array;
  /** Ten bins of predicted probability against observed frequency (see `reliabilityBins`). */
  readonly reliability: readonly ReliabilityBin[];
}

/** What {@link compareClassifierFamilies} returns. */
export interface ClassifierFamilyComparison {
  readonly classes: readonly string[];
  readonly inputs: readonly string[];
  readonly trainRows: number;
  readonly testRows: number;
  readonly folds: number;
  readonly seed: number;
  readonly families: readonly ClassifierFamilyResult[];
  /** The probabilities' central level (0.95). */
  readonly probabilityLevel: number;
  /** The evidence-weighted predictive's test scores, or null without test rows. */
  readonly average: CombinedScores | null;
  /** The stacked predictive's test scores, or null without test rows. */
  readonly stacked: CombinedScores | null;
  readonly warnings: readonly string[];
  readonly seconds: number;
}

/**
 * Throws `invalid-data` unless every class has the rows each family needs (see
 * `minimumRowsPerClass`), naming the families the data do support.
 */
export function checkFamilySupport(
  train: ClassificationData,
  families: readonly ClassifierFamilyName[],
  folds: number,
): void {
  const counts = classCounts(train);
  let smallest = 0;
  for (let k = 1; k < counts.length; k++) if (counts[k] < counts[smallest]) smallest = k;
  const fewest = counts[smallest];
  const unsupported = families.filter((f) => fewest < minimumRowsPerClass(f, folds));
  if (unsupported.length === 0) return;
  const supported = families.filter((f) => !unsupported.includes(f));
  const needs = unsupported.map((f) => `${f} needs ${minimumRowsPerClass(f, folds)}`).join(", ");
  throw new OccamError(
    "invalid-data",
    `The training data support ${supported.length === 0 ? "none" : `only ${supported.join(", ")}`} of the ${families.length} families asked for: ` +
      `class "${train.classNames[smallest]}" has ${fewest} training rows, and per class ${needs} ` +
      `(every family one row per fold of the ${folds}-fold chain rule, rbf, mixture and mlp two). ` +
      "Ask for fewer families, use fewer folds (--folds), or give more rows.",
  );
}

/** Scores of a weighted mixture of the families' predictives. */
function combine(
  runs: readonly FamilyRun[],
  weights: ArrayLike<number>,
  test: ClassificationData,
  K: number,
): CombinedScores | null {
  const parts: { weight: number; predictive: PosteriorPredictive }[] = [];
  const probabilities = new Float64Array(test.n * K);
  runs.forEach((run, i) => {
    if (!(weights[i] > 0) || run.predictive === null) return;
    parts.push({ weight: weights[i], predictive: run.predictive });
    const p = run.predictive.probabilities;
    for (let j = 0; j < p.length; j++) probabilities[j] += weights[i] * p[j];
  });
  if (parts.length === 0) return null;
  return Object.freeze({
    ...classificationScores(probabilities, test.labels, K),
    logLossMcse: logLossMonteCarloError(parts),
    confusion: confusionMatrix(probabilities, test.labels, K),
    probabilities,
    reliability: Object.freeze(reliabilityBins(probabilities, test.labels, K)),
  });
}

/**
 * Compares classifier families on training data by the evidence of the labels given the inputs, and
 * scores each family, their evidence-weighted average and their stack on test rows (see the module
 * header). Inputs are standardised by the training rows. Throws `invalid-data` when a class has too
 * few rows for a family asked for (`checkFamilySupport`), and `invalid-argument` for bad options or
 * an unknown family.
 *
 * @example
 * const cmp = compareClassifierFamilies(train, { test, families: ["logistic", "pknn"], seed: 1 });
 * cmp.families.map((f) => [f.name, f.evidence.logZ, f.probability]);
 */
export function compareClassifierFamilies(
  train: ClassificationData,
  options: CompareClassifierFamiliesOptions = {},
): ClassifierFamilyComparison {
  const start = performance.now();
  const shared = prepareFamilies(train, options);
  const runs = shared.o.families.map((_, i) => runFamilyOf(shared, options, i));
  return weighClassifierFamilies(train, options, runs, start);
}

/** What every family's run shares: the options, the standardised rows, the folds and the streams. */
interface SharedSetup {
  o: ClassifierComparisonSettings;
  scaled: ReturnType<typeof standardizeClassifierInputs>;
  partition: Int32Array[];
  streams: Rng[];
}

/**
 * Checks a comparison's options and that the data support every family asked for (throwing the
 * OccamError `compareClassifierFamilies` would), and returns its settings.
 */
export function checkClassifierComparison(
  train: ClassificationData,
  options: CompareClassifierFamiliesOptions,
): ClassifierComparisonSettings {
  const o = resolveClassifierComparison(options);
  checkFamilySupport(train, o.families, o.folds);
  return o;
}

function prepareFamilies(train: ClassificationData, options: CompareClassifierFamiliesOptions): SharedSetup {
  const o = checkClassifierComparison(train, options);
  const scaled = standardizeClassifierInputs(train, options.test ?? null);
  const K = train.classNames.length;
  const [partitionRng, familyRng] = createRng(o.seed).split(3);
  const partition = stratifiedFolds(scaled.train.labels, K, o.folds, partitionRng);
  return { o, scaled, partition, streams: familyRng.split(o.families.length) };
}

function runFamilyOf(shared: SharedSetup, options: CompareClassifierFamiliesOptions, i: number): FamilyRun {
  const { o, scaled } = shared;
  const name = o.families[i];
  options.onProgress?.(`${name}: building the model`);
  const model = buildClassifier(name, scaled.train, options.familyOptions);
  return runFamily(name, model, shared.partition, scaled.test, o, options, shared.streams[i]);
}

/**
 * The run of family `index` of `options.families` alone: its evidence, posterior, predictions and
 * leave-one-out densities, exactly as {@link compareClassifierFamilies} computes them (the folds and
 * the family's stream depend only on the seed and the family's position).
 */
export function classifierFamilyRun(
  train: ClassificationData,
  options: CompareClassifierFamiliesOptions,
  index: number,
): FamilyRun {
  const shared = prepareFamilies(train, options);
  if (!(Number.isInteger(index) && index >= 0 && index < shared.o.families.length)) {
    throw new OccamError(
      "invalid-argument",
      `family index ${index} is not one of the ${shared.o.families.length} families.`,
    );
  }
  return runFamilyOf(shared, options, index);
}

/**
 * The comparison from every family's run (in the order of `options.families`): probabilities,
 * stacking weights and the averaged predictions. `start` is when the work began (`performance.now()`).
 */
export function weighClassifierFamilies(
  train: ClassificationData,
  options: CompareClassifierFamiliesOptions,
  runs: readonly FamilyRun[],
  start: number,
): ClassifierFamilyComparison {
  const o = resolveClassifierComparison(options);
  const scaled = standardizeClassifierInputs(train, options.test ?? null);
  const K = train.classNames.length;
  // The third of the seed's streams, after the folds' and the families'.
  const simulationRng = createRng(o.seed).split(3)[2];
  const warnings: string[] = [];
  const weights = familyProbabilities({
    names: o.families,
    logEvidence: runs.map((r) => r.result.evidence.logZ),
    stdErr: runs.map((r) => r.result.evidence.stdErr),
    reliable: runs.map((r) => r.result.evidence.reliable),
    prior: options.familyPrior,
    includeUnreliable: options.includeUnreliable,
    seed: Math.floor(simulationRng.uniform() * 2 ** 31),
  });
  warnings.push(...weights.warnings);
  // Stacking uses the leave-one-out densities of the families whose posterior draws can be trusted.
  const stackable = runs.map((r) => r.result.posterior.reliable || (options.includeUnreliable ?? false));
  runs.forEach((r, i) => {
    if (!stackable[i])
      warnings.push(`${r.result.name}: its posterior draws are not reliable, so it is left out of stacking.`);
  });
  const stackIndex = runs.map((_, i) => i).filter((i) => stackable[i]);
  const stackWeights = new Float64Array(runs.length);
  if (stackIndex.length > 0) {
    const n = scaled.train.n;
    const M = stackIndex.length;
    const matrix = new Float64Array(n * M);
    stackIndex.forEach((i, m) => {
      for (let r = 0; r < n; r++) matrix[r * M + m] = runs[i].loo[r];
    });
    const stacked = stackingWeights(matrix, n, M);
    stackIndex.forEach((i, m) => {
      stackWeights[i] = stacked.weights[m];
    });
  }
  const test = scaled.test;
  const families = runs.map((run, i) =>
    Object.freeze({
      ...run.result,
      included: weights.included[i],
      probability: weights.probability[i],
      probabilityStdErr: weights.probabilityStdErr[i],
      probabilityInterval: weights.included[i] ? ([weights.lower[i], weights.upper[i]] as const) : null,
      stackingWeight: stackWeights[i],
    }),
  );
  return Object.freeze({
    classes: train.classNames,
    inputs: train.inputNames,
    trainRows: train.n,
    testRows: test?.n ?? 0,
    folds: o.folds,
    seed: o.seed,
    families: Object.freeze(families),
    probabilityLevel: weights.level,
    average: test === null ? null : combine(runs, weights.probability, test, K),
    stacked: test === null || stackIndex.length === 0 ? null : combine(runs, stackWeights, test, K),
    warnings: Object.freeze(warnings),
    seconds: (performance.now() - start) / 1000,
  });
}
