/**
 * Sykacek (1999), Table 1 and Figure 1: the input-selecting mixture classifier on Pima (Ripley's
 * split, 3 kernels, h = 0.16), Ionosphere (first 175 rows for training, 6 kernels, h = 0.5) and Wine
 * (stratified 50 % splits, 3 kernels, h = 0.28), 15000 sweeps after which the first 5000 are dropped,
 * in both structures (Sykacek's shared kernels with the regression background, and one mixture per
 * input), beside the paper's numbers and a lightly L2-regularised logistic regression on the same split.
 */
import { fileURLToPath } from "node:url";
import { readCsv } from "../data/csv-file.js";
import { OccamError } from "../errors.js";
import { minimize } from "../math/optimize.js";
import {
  type ClassificationData,
  classificationTable,
  fitMixtureClassifier,
  type MixtureClassifierOptions,
  selectRows,
  stratifiedSplit,
} from "../models/mixture-classifier/index.js";
import { createRng } from "../random/rng.js";

const DATA = fileURLToPath(new URL("../../data/sykacek/", import.meta.url));

/** Options of {@link runSykacekExperiment}. */
export interface SykacekOptions {
  /** Base seed. @defaultValue 1 */
  seed?: number;
  /** 3000 sweeps (1000 burn-in) and two Wine splits instead of 15000 (5000) and five. @defaultValue false */
  quick?: boolean;
  /** Sweeps per chain, burn-in included (overrides `quick`). @defaultValue 15000 (3000 with `quick`) */
  draws?: number;
  /** Sweeps dropped (overrides `quick`). @defaultValue 5000 (1000 with `quick`) */
  burnIn?: number;
  /** Number of stratified Wine splits (overrides `quick`). @defaultValue 5 (2 with `quick`) */
  wineSplits?: number;
  /** The classifier's structures, each run on every data set (see {@link MixtureClassifierOptions}). @defaultValue ["per-input", "shared"] */
  structures?: readonly ("shared" | "per-input")[];
  /** Independent chains per data set, pooled. @defaultValue 1 */
  chains?: number;
  /** Told what is being run. @defaultValue none */
  onProgress?: (step: string) => void;
}

/** One data set (or one Wine split): the sampler's results beside the paper's and the baseline's. */
export interface SykacekRow {
  /** "shared" or "per-input". */
  readonly structure: string;
  readonly data: string;
  readonly split: number;
  readonly kernels: number;
  readonly h: number;
  readonly accuracy: number;
  readonly logisticAccuracy: number;
  readonly meanInputs: number;
  readonly maxInputs: number;
  readonly distinctSubsets: number;
  readonly paperAccuracy: number;
  readonly paperMeanInputs: number;
  readonly paperMaxInputs: number;
  readonly topSubsets: readonly { readonly inputs: readonly string[]; readonly probability: number }[];
  readonly inputProbabilities: Readonly<Record<string, number>>;
  readonly acceptance: { readonly birth: number; readonly death: number; readonly exchange: number };
  readonly seconds: number;
}

/** What {@link runSykacekExperiment} returns. */
export interface SykacekResult {
  readonly draws: number;
  readonly burnIn: number;
  readonly rows: readonly SykacekRow[];
}

function load(file: string, target: string, classNames?: readonly string[]): ClassificationData {
  return classificationTable(readCsv(`${DATA}${file}`), { target, classNames, source: file });
}

function accuracy(predicted: Int32Array, labels: Int32Array): number {
  let right = 0;
  for (let t = 0; t < labels.length; t++) if (predicted[t] === labels[t]) right++;
  return right / labels.length;
}

/**
 * Multinomial logistic regression on standardised inputs with an L2 penalty λ/2 ‖W‖² (intercepts
 * unpenalised), fitted by L-BFGS; returns the test predictions.
 */
export function logisticBaseline(
  train: ClassificationData,
  test: ClassificationData,
  lambda = 0.01,
): Int32Array {
  const { n, p } = train;
  const K = train.classNames.length;
  const mean = new Float64Array(p);
  const sd = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    let s = 0;
    for (let r = 0; r < n; r++) s += train.X[r * p + i];
    mean[i] = s / n;
    let v = 0;
    for (let r = 0; r < n; r++) v += (train.X[r * p + i] - mean[i]) ** 2;
    sd[i] = Math.sqrt(v / n) || 1;
  }
  const z = (X: Float64Array, r: number, i: number) => (X[r * p + i] - mean[i]) / sd[i];
  const q = p + 1;
  const eta = new Float64Array(K);
  const f = (theta: Float64Array, grad: Float64Array): number => {
    grad.fill(0);
    let value = 0;
    for (let r = 0; r < n; r++) {
      let max = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < K; k++) {
        let e = theta[k * q + p];
        for (let i = 0; i < p; i++) e += theta[k * q + i] * z(train.X, r, i);
        eta[k] = e;
        if (e > max) max = e;
      }
      let sum = 0;
      for (let k = 0; k < K; k++) sum += Math.exp(eta[k] - max);
      const lse = max + Math.log(sum);
      value -= eta[train.labels[r]] - lse;
      for (let k = 0; k < K; k++) {
        const resid = Math.exp(eta[k] - lse) - (train.labels[r] === k ? 1 : 0);
        for (let i = 0; i < p; i++) grad[k * q + i] += resid * z(train.X, r, i);
        grad[k * q + p] += resid;
      }
    }
    for (let k = 0; k < K; k++) {
      for (let i = 0; i < p; i++) {
        value += 0.5 * lambda * theta[k * q + i] ** 2;
        grad[k * q + i] += lambda * theta[k * q + i];
      }
    }
    return value;
  };
  const { x } = minimize(f, new Float64Array(K * q), { maxIterations: 500 });
  const out = new Int32Array(test.n);
  for (let r = 0; r < test.n; r++) {
    let best = 0;
    let bestEta = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < K; k++) {
      let e = x[k * q + p];
      for (let i = 0; i < p; i++) e += x[k * q + i] * z(test.X, r, i);
      if (e > bestEta) {
        bestEta = e;
        best = k;
      }
    }
    out[r] = best;
  }
  return out;
}

const PAPER = {
  pima: { accuracy: 0.789, mean: 4, max: 7 },
  ionosphere: { accuracy: 0.915, mean: 4.3, max: 9 },
  wine: { accuracy: 1, mean: 4.4, max: 8 },
};

/** Runs Table 1 / Figure 1 of Sykacek (1999) on the project's copies of the three data sets. */
export function runSykacekExperiment(options: SykacekOptions = {}): SykacekResult {
  const seed = options.seed ?? 1;
  const quick = options.quick === true;
  const draws = options.draws ?? (quick ? 3000 : 15000);
  const burnIn = options.burnIn ?? (quick ? 1000 : 5000);
  const rows: SykacekRow[] = [];
  const structures = options.structures ?? ["per-input", "shared"];
  if (structures.length === 0) {
    throw new OccamError("invalid-argument", "sykacek: give at least one structure.");
  }
  /** A data set (or one Wine split) with its settings and the logistic baseline's accuracy on it. */
  interface Problem {
    name: keyof typeof PAPER;
    split: number;
    train: ClassificationData;
    test: ClassificationData;
    kernels: number;
    h: number;
    logisticAccuracy: number;
  }
  const problem = (
    name: keyof typeof PAPER,
    split: number,
    train: ClassificationData,
    test: ClassificationData,
    kernels: number,
    h: number,
  ): Problem => ({
    name,
    split,
    train,
    test,
    kernels,
    h,
    logisticAccuracy: accuracy(logisticBaseline(train, test), test.labels),
  });
  const one = (structure: "shared" | "per-input", problem: Problem) => {
    const { name, split, train, test, kernels, h, logisticAccuracy } = problem;
    options.onProgress?.(`${structure}: ${name}${name === "wine" ? ` split ${split + 1}` : ""}`);
    const fit = fitMixtureClassifier(train, {
      kernels,
      h,
      draws,
      burnIn,
      seed: seed + split,
      structure,
      chains: options.chains,
      test: { X: test.X, n: test.n },
    });
    rows.push(
      Object.freeze({
        structure,
        data: name,
        split,
        kernels,
        h,
        accuracy: accuracy(fit.predictedClasses as Int32Array, test.labels),
        logisticAccuracy,
        meanInputs: fit.meanInputs,
        maxInputs: fit.maxInputs,
        distinctSubsets: fit.distinctSubsets,
        paperAccuracy: PAPER[name].accuracy,
        paperMeanInputs: PAPER[name].mean,
        paperMaxInputs: PAPER[name].max,
        topSubsets: fit.subsets.slice(0, 5).map((s) => ({ inputs: s.names, probability: s.probability })),
        inputProbabilities: Object.fromEntries(
          fit.inputNames.map((nm, i) => [nm, fit.inputProbabilities[i]]),
        ),
        acceptance: fit.acceptance,
        seconds: fit.seconds,
      }),
    );
  };
  const pimaTrain = load("pima-train.csv", "type");
  const iono = load("ionosphere.csv", "Class");
  const first = Array.from({ length: 175 }, (_, r) => r);
  const rest = Array.from({ length: iono.n - 175 }, (_, r) => r + 175);
  const wine = load("wine.csv", "class");
  const splits = options.wineSplits ?? (quick ? 2 : 5);
  const streams = createRng(seed).split(splits);
  const problems = [
    problem("pima", 0, pimaTrain, load("pima-test.csv", "type", pimaTrain.classNames), 3, 0.16),
    problem("ionosphere", 0, selectRows(iono, first), selectRows(iono, rest), 6, 0.5),
    ...streams.map((stream, s) => {
      const { train, test } = stratifiedSplit(wine, 0.5, stream);
      return problem("wine", s, train, test, 3, 0.28);
    }),
  ];
  for (const structure of structures) for (const pr of problems) one(structure, pr);
  return Object.freeze({
    draws,
    burnIn,
    rows: Object.freeze(rows),
  });
}
