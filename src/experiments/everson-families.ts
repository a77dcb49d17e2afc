/**
 * Everson, Krzanowski, Bailey & Fieldsend's proposal carried out: families of classifier — logistic
 * regression (global), RBF networks (semi-local), probabilistic k-NN (local), Sykacek's mixture and a
 * one-hidden-layer network — compared by the evidence of the labels given the inputs, their
 * predictions averaged by the evidence (eqs. 5–6) and, beside that, stacked (Yao et al. 2018), on
 * five data sets: Pima (Ripley's split), Ionosphere (the first 175 rows for training), Wine, iris and
 * MASS's crabs (stratified halves, a different split per seed). Each data set is run with several
 * seeds; every run reports each family's evidence (the chain rule, or tempered SMC where the chain
 * rule failed its checks and the tempered run passed its own) with its cross-check, the family
 * probabilities and the test scores (and the first seed Everson's G-fold product), and checks the claim: the
 * evidence-weighted average predicts about as well as the best single family.
 */
import { fileURLToPath } from "node:url";
import { readCsv } from "../data/csv-file.js";
import { OccamError } from "../errors.js";
import { meanAndSd } from "../evidence/weights.js";
import {
  CLASSIFIER_FAMILIES,
  type ClassifierFamilyName,
  type ClassifierFamilyOptions,
  classifierTable,
  encodeClassifierTable,
} from "../models/classifiers/index.js";
import { mostProbableClass } from "../models/classifiers/predictive.js";
import { type ClassificationData, selectRows, stratifiedSplit } from "../models/mixture-classifier/data.js";
import { createRng } from "../random/rng.js";
import {
  type ClassifierFamilyComparison,
  compareClassifierFamilies,
} from "../selection/classifier-families.js";

const SYKACEK = fileURLToPath(new URL("../../data/sykacek/", import.meta.url));
const CLASSIFICATION = fileURLToPath(new URL("../../data/classification/", import.meta.url));

/** The data sets, in the order of the report. */
export const EVERSON_FAMILY_DATA = ["pima", "ionosphere", "wine", "iris", "crabs"] as const;

/** A data set's name. */
export type EversonFamilyData = (typeof EVERSON_FAMILY_DATA)[number];

/** Options of {@link runEversonFamiliesExperiment}. */
export interface EversonFamiliesOptions {
  /** Base seed; run s uses seed + s. @defaultValue 1 */
  seed?: number;
  /** One seed, 1000 draws per posterior and no G-fold product, instead of five seeds, 2000 and the product. @defaultValue false */
  quick?: boolean;
  /** Seeds per data set (overrides `quick`). @defaultValue 5 (1 with `quick`) */
  seeds?: number;
  /** The data sets. @defaultValue all five */
  data?: readonly EversonFamilyData[];
  /** The families. @defaultValue all five */
  families?: readonly ClassifierFamilyName[];
  /** Posterior draws per posterior (overrides `quick`). @defaultValue 2000 (1000 with `quick`) */
  draws?: number;
  /**
   * Estimate Everson's G-fold product on each data set's first seed (it costs G more posteriors per
   * family, and one run shows how far it sits above the chain rule). @defaultValue true (false with `quick`)
   */
  everson?: boolean;
  /**
   * Weigh and predict by tempered SMC a family whose chain rule or chains fail their checks (see
   * `CompareClassifierFamiliesOptions.tempered`). @defaultValue true
   */
  tempered?: boolean;
  /** The families' own options. */
  familyOptions?: ClassifierFamilyOptions;
  /** Told what is being run. */
  onProgress?: (step: string) => void;
}

/** One family on one run. */
export interface EversonFamilyRow {
  readonly family: string;
  /** How the family is weighed: by the chain rule ("chain-rule"), or by tempered SMC ("smc") where the chain rule failed its checks and the tempered run passed its own. */
  readonly method: string;
  readonly logEvidence: number;
  readonly stdErr: number;
  readonly reliable: boolean;
  /** The cross-check (bridge sampling, pknn's quadrature, tempered SMC, or the chain rule when the evidence is SMC's) and its z against the evidence. */
  readonly crossCheck: {
    readonly method: string;
    readonly logEvidence: number;
    readonly stdErr: number;
    readonly reliable: boolean;
    readonly z: number;
  } | null;
  /** Everson's G-fold product, or null. */
  readonly everson: {
    readonly logEvidence: number;
    readonly stdErr: number;
    readonly reliable: boolean;
  } | null;
  /** p(M | D), null when the family was left out. */
  readonly probability: number | null;
  readonly stackingWeight: number;
  readonly accuracy: number;
  readonly logLoss: number;
  readonly logLossMcse: number;
  readonly brier: number;
}

/** A combined predictive on one run. */
export interface EversonCombinedRow {
  readonly accuracy: number;
  readonly logLoss: number;
  readonly logLossMcse: number;
  readonly brier: number;
}

/** One data set and seed. */
export interface EversonFamiliesRun {
  readonly data: EversonFamilyData;
  readonly seed: number;
  readonly trainRows: number;
  readonly testRows: number;
  readonly families: readonly EversonFamilyRow[];
  readonly average: EversonCombinedRow | null;
  readonly stacked: EversonCombinedRow | null;
  /** The best single family's test log loss and accuracy (over all families, reliable or not). */
  readonly bestLogLoss: number;
  readonly bestAccuracy: number;
  /** The claim's two checks: average log loss ≤ best + its Monte Carlo error; accuracy ≥ best − 1 point. */
  readonly logLossWithinBest: boolean;
  readonly accuracyWithinBest: boolean;
  /**
   * The average's test log loss minus the best family's (by log loss), and its accuracy minus the best
   * family's (by accuracy), each with its standard error over the paired test rows: how far a test set
   * of this size tells the two apart, which the Monte Carlo error does not say. Null without an average.
   */
  readonly gaps: { readonly logLoss: PairedGap; readonly accuracy: PairedGap } | null;
  /** Whether the average is within two of those standard errors of the best family on both scores. */
  readonly withinTestNoise: boolean;
  readonly warnings: readonly string[];
  readonly seconds: number;
}

/** What {@link runEversonFamiliesExperiment} returns. */
export interface EversonFamiliesResult {
  readonly draws: number;
  readonly folds: number;
  readonly runs: readonly EversonFamiliesRun[];
}

function read(dir: string, file: string, target: string, factors?: readonly string[]) {
  return classifierTable(readCsv(`${dir}${file}`), { target, factors, source: file });
}

/** The training and test rows of a data set for run s (a fixed split, or stratified halves by seed). */
export function eversonFamilyData(
  name: EversonFamilyData,
  seed: number,
): { train: ClassificationData; test: ClassificationData } {
  const halves = (data: ClassificationData) => stratifiedSplit(data, 0.5, createRng(seed).split(2)[1]);
  switch (name) {
    case "pima": {
      const { data, encoding } = read(SYKACEK, "pima-train.csv", "type");
      return {
        train: data,
        test: encodeClassifierTable(readCsv(`${SYKACEK}pima-test.csv`), encoding, "pima-test.csv"),
      };
    }
    case "ionosphere": {
      const { data } = read(SYKACEK, "ionosphere.csv", "Class");
      const first = Array.from({ length: 175 }, (_, r) => r);
      const rest = Array.from({ length: data.n - 175 }, (_, r) => r + 175);
      return { train: selectRows(data, first), test: selectRows(data, rest) };
    }
    case "wine":
      return halves(read(SYKACEK, "wine.csv", "class").data);
    case "iris":
      return halves(read(CLASSIFICATION, "iris.csv", "Species").data);
    case "crabs":
      return halves(read(CLASSIFICATION, "crabs.csv", "sp", ["sex"]).data);
  }
}

/** A paired comparison of predictives a and b on the same test rows. */
export interface PairedGap {
  /** The mean over the rows of a's score minus b's. */
  readonly difference: number;
  /** Its standard error over the rows: the sd of the rows' differences over √m. */
  readonly testStdErr: number;
}

function pairedGap(differences: Float64Array): PairedGap {
  const { mean, sd } = meanAndSd(differences);
  return Object.freeze({ difference: mean, testStdErr: sd / Math.sqrt(differences.length) });
}

/** Log loss of predictive a minus that of b, row by row: the mean of −log a(y_r) + log b(y_r) (probabilities rows × K). */
export function pairedLogLossGap(a: Float64Array, b: Float64Array, labels: Int32Array, K: number): PairedGap {
  return pairedGap(Float64Array.from(labels, (y, r) => Math.log(b[r * K + y]) - Math.log(a[r * K + y])));
}

/** Accuracy of predictive a minus that of b, row by row (each row 1 when its most probable class is right). */
export function pairedAccuracyGap(
  a: Float64Array,
  b: Float64Array,
  labels: Int32Array,
  K: number,
): PairedGap {
  const right = (p: Float64Array, r: number) => (mostProbableClass(p, r, K) === labels[r] ? 1 : 0);
  return pairedGap(Float64Array.from(labels, (_, r) => right(a, r) - right(b, r)));
}

/**
 * Whether an average is within two paired standard errors of the best family on both scores: its log
 * loss at most 2 s.e. plus its Monte Carlo error `logLossMcse` above, its accuracy at most 2 s.e.
 * below. The Monte Carlo error (and 1e-9 for rounding) is allowed because an average that is the best
 * family but for a small weight elsewhere differs from it on every row alike, by less than occam knows
 * either predictive, and the rows' paired spread is then no measure of noise.
 */
export function withinTestNoise(gaps: { logLoss: PairedGap; accuracy: PairedGap }, logLossMcse = 0): boolean {
  const { logLoss, accuracy } = gaps;
  return (
    logLoss.difference <= 2 * logLoss.testStdErr + logLossMcse + 1e-9 &&
    accuracy.difference >= -2 * accuracy.testStdErr
  );
}

function summariseRun(
  name: EversonFamilyData,
  seed: number,
  cmp: ClassifierFamilyComparison,
  testLabels: Int32Array,
): EversonFamiliesRun {
  const families = cmp.families.map((f) => {
    if (f.test === null) throw new OccamError("internal", "everson-families: a run without test scores.");
    return Object.freeze({
      family: f.name,
      method: f.evidence.method,
      logEvidence: f.evidence.logZ,
      stdErr: f.evidence.stdErr,
      reliable: f.evidence.reliable,
      crossCheck:
        f.crossCheck === null || f.crossCheckZ === null
          ? null
          : {
              method: f.crossCheck.method,
              logEvidence: f.crossCheck.logZ,
              stdErr: f.crossCheck.stdErr,
              reliable: f.crossCheck.reliable,
              z: f.crossCheckZ,
            },
      everson:
        f.everson === null
          ? null
          : { logEvidence: f.everson.logZ, stdErr: f.everson.stdErr, reliable: f.everson.reliable },
      probability: f.included ? f.probability : null,
      stackingWeight: f.stackingWeight,
      accuracy: f.test.accuracy,
      logLoss: f.test.logLoss,
      logLossMcse: f.test.logLossMcse,
      brier: f.test.brier,
    });
  });
  // The best family by each score (the first listed on a tie); a non-finite score never wins.
  const bestBy = (score: (f: EversonFamilyRow) => number, sign: 1 | -1) => {
    let best = -1;
    families.forEach((f, i) => {
      if (Number.isFinite(score(f)) && (best < 0 || sign * score(f) < sign * score(families[best]))) best = i;
    });
    return best;
  };
  const byLogLoss = bestBy((f) => f.logLoss, 1);
  const byAccuracy = bestBy((f) => f.accuracy, -1);
  const bestLogLoss = byLogLoss < 0 ? Number.NaN : families[byLogLoss].logLoss;
  const bestAccuracy = byAccuracy < 0 ? Number.NaN : families[byAccuracy].accuracy;
  const combined = (c: ClassifierFamilyComparison["average"]): EversonCombinedRow | null =>
    c === null
      ? null
      : Object.freeze({
          accuracy: c.accuracy,
          logLoss: c.logLoss,
          logLossMcse: c.logLossMcse,
          brier: c.brier,
        });
  const average = combined(cmp.average);
  const bestByLogLoss = byLogLoss < 0 ? null : cmp.families[byLogLoss].testProbabilities;
  const bestByAccuracy = byAccuracy < 0 ? null : cmp.families[byAccuracy].testProbabilities;
  const K = cmp.classes.length;
  const gaps =
    cmp.average === null || bestByLogLoss === null || bestByAccuracy === null
      ? null
      : Object.freeze({
          logLoss: pairedLogLossGap(cmp.average.probabilities, bestByLogLoss, testLabels, K),
          accuracy: pairedAccuracyGap(cmp.average.probabilities, bestByAccuracy, testLabels, K),
        });
  return Object.freeze({
    data: name,
    seed,
    trainRows: cmp.trainRows,
    testRows: cmp.testRows,
    families: Object.freeze(families),
    average,
    stacked: combined(cmp.stacked),
    bestLogLoss,
    bestAccuracy,
    logLossWithinBest: average !== null && average.logLoss <= bestLogLoss + average.logLossMcse,
    accuracyWithinBest: average !== null && average.accuracy >= bestAccuracy - 0.01,
    gaps,
    withinTestNoise: gaps !== null && average !== null && withinTestNoise(gaps, average.logLossMcse),
    warnings: cmp.warnings,
    seconds: cmp.seconds,
  });
}

/** Runs every family on every data set and seed (see the module header). */
export function runEversonFamiliesExperiment(options: EversonFamiliesOptions = {}): EversonFamiliesResult {
  const quick = options.quick === true;
  const base = options.seed ?? 1;
  const seeds = options.seeds ?? (quick ? 1 : 5);
  const draws = options.draws ?? (quick ? 1000 : 2000);
  const everson = options.everson ?? !quick;
  const data = options.data ?? EVERSON_FAMILY_DATA;
  const families = options.families ?? CLASSIFIER_FAMILIES;
  if (!(Number.isInteger(seeds) && seeds >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `everson-families: seeds must be a positive integer, got ${seeds}.`,
    );
  }
  const runs: EversonFamiliesRun[] = [];
  for (const name of data) {
    for (let s = 0; s < seeds; s++) {
      const seed = base + s;
      const { train, test } = eversonFamilyData(name, seed);
      const cmp = compareClassifierFamilies(train, {
        test,
        families,
        seed,
        draws,
        everson: everson && s === 0,
        tempered: options.tempered ?? true,
        familyOptions: options.familyOptions,
        onProgress:
          options.onProgress === undefined
            ? undefined
            : (step) => options.onProgress?.(`${name} seed ${seed}: ${step}`),
      });
      runs.push(summariseRun(name, seed, cmp, test.labels));
    }
  }
  return Object.freeze({ draws, folds: 5, runs: Object.freeze(runs) });
}
