/**
 * Sykacek's input-selecting mixture classifier ("On input selection with reversible jump MCMC
 * sampling", NIPS 1999) in collapsed, conjugate form: the options, the chains pooled, and the
 * posterior over input subsets and test classes that they give. Two structures:
 *
 * - "per-input" (per-input-chain.ts, the default): one mixture per input, class-specific weights for
 *   the inputs in S: a naive-Bayes mixture. Selects every input whose distribution depends on the
 *   class, redundant ones included.
 * - "shared" (shared-chain.ts): Sykacek's class mixture — D kernels shared by the selected inputs S
 *   and by the classes, class-specific weights — with each unselected input regressed on the selected
 *   ones, so that every subset models the same data and t ⊥ x_¬S | x_S. Selects fewer inputs, but
 *   also inputs the class does not depend on when a Gaussian regression on x_S cannot explain them.
 *
 * Common to both, and where they depart from the paper: kernel parameters (Normal–Gamma), weights and
 * class priors (Dirichlet) are integrated out, so a jump proposes no parameters and needs neither
 * proposal densities nor Sykacek's eq. 4 reallocation of kernel weights; Sykacek's likelihood covers
 * x_S only and so compares densities of different dimension, which both structures avoid by modelling
 * every input. The subset prior is p(S) = TruncatedPoisson(|S|; c, minInputs … I_max) / C(I_max, |S|)
 * (SEEDS.md). Moves: collapsed Gibbs on the allocations and on unlabelled rows' classes, random-walk
 * Metropolis on log β_i, and birth / death / exchange over S composed by `mixture`
 * (subset-moves.ts); several chains from random starts can be pooled, their spread being a
 * convergence check.
 */
import { OccamError } from "../../errors.js";
import { createRng } from "../../random/rng.js";
import { PREDICT_EVERY } from "./conjugate.js";
import type { ClassificationData } from "./data.js";
import { type MixtureClassifierOptions, resolveMixtureClassifierOptions } from "./options.js";
import { preparePerInput, runPerInputChain } from "./per-input-chain.js";
import { runSharedChain } from "./shared-chain.js";
import { BIRTH, DEATH, EXCHANGE } from "./subset-moves.js";

export type { MixtureClassifierOptions } from "./options.js";

/** An input subset and its posterior probability (its share of the kept draws). */
export interface SubsetProbability {
  /** Input indices, ascending. */
  readonly inputs: readonly number[];
  /** Input names, in the same order. */
  readonly names: readonly string[];
  /** Fraction of kept draws in this subset. */
  readonly probability: number;
}

/** What {@link fitMixtureClassifier} returns. */
export interface MixtureClassifierFit {
  readonly inputNames: readonly string[];
  readonly classNames: readonly string[];
  /** Kept draws, all chains together. */
  readonly draws: number;
  /** Number of chains pooled. */
  readonly chains: number;
  /** Mean number of inputs over the kept draws. */
  readonly meanInputs: number;
  /** Largest number of inputs in a kept draw. */
  readonly maxInputs: number;
  /** Number of distinct subsets among the kept draws. */
  readonly distinctSubsets: number;
  /** Subsets visited in the kept draws, most probable first. */
  readonly subsets: readonly SubsetProbability[];
  /** Posterior probability that each input is in the subset (pooled). */
  readonly inputProbabilities: Float64Array;
  /** Each chain's input probabilities (chains × p row-major). */
  readonly chainInputProbabilities: Float64Array;
  /**
   * Largest over inputs of the between-chain standard deviation of the input probability (0 with one
   * chain). Above about 0.1 the chains disagree: run longer before trusting the probabilities.
   */
  readonly inputProbabilitySpread: number;
  /** Every subset visited (burn-in included), in order of first visit; `subsetTrace` indexes it. */
  readonly visited: readonly (readonly number[])[];
  /** The index into `visited` of each kept draw's subset, chain after chain. */
  readonly subsetTrace: Int32Array;
  /** Acceptance rates of the birth, death and exchange moves (over all sweeps and chains). */
  readonly acceptance: {
    readonly birth: number;
    readonly death: number;
    readonly exchange: number;
  };
  /** Test class probabilities averaged over kept draws (m × K row-major), or null without test data. */
  readonly testProbabilities: Float64Array | null;
  /** The most probable class of each test row, or null. */
  readonly predictedClasses: Int32Array | null;
  /** Wall-clock seconds. */
  readonly seconds: number;
}

/**
 * Runs the collapsed reversible-jump sampler on labelled (and optionally unlabelled: label −1)
 * training data and returns posterior subset and input probabilities and, given test inputs,
 * model-averaged class probabilities. Throws `invalid-data` for fewer than two classes, a constant
 * input, or more kernels than training rows.
 *
 * @example
 * const fit = fitMixtureClassifier(train, { kernels: 3, h: 0.16, chains: 4, test: { X: test.X, n: test.n } });
 * fit.subsets[0]; // { inputs: [1, 4], names: ["glu", "bmi"], probability: 0.17 }
 */
export function fitMixtureClassifier(
  data: ClassificationData,
  options: MixtureClassifierOptions = {},
): MixtureClassifierFit {
  const started = performance.now();
  const s = resolveMixtureClassifierOptions(options);
  const { p } = data;
  const K = data.classNames.length;
  checkData(data, s.D);
  const test = options.test;
  checkTestAndStart(options, s.minInputs, p);
  const perInput = s.structure === "per-input" ? preparePerInput(data, s, test) : null;
  const rng = createRng(s.seed);
  const streams = rng.split(s.chains);
  const kept = s.draws - s.burnIn;
  const visited: number[][] = [];
  const ids = new Map<string, number>();
  const subsetTrace = new Int32Array(kept * s.chains);
  const chainProbs = new Float64Array(s.chains * p);
  const testProb = test ? new Float64Array(test.n * K) : null;
  const tried = new Float64Array(3);
  const acceptedMoves = new Float64Array(3);
  let sumInputs = 0;
  let maxInputs = 0;
  for (let c = 0; c < s.chains; c++) {
    const onSweep = (sweep: number) => {
      if (options.onProgress && sweep % 500 === 0)
        options.onProgress(c * s.draws + sweep, s.chains * s.draws);
    };
    const result = perInput
      ? runPerInputChain(perInput, streams[c], options.initialInputs, onSweep)
      : runSharedChain(data, s, test, streams[c], options.initialInputs, onSweep);
    for (let t = 0; t < kept; t++) {
      const key = result.keys[t];
      let id = ids.get(key);
      if (id === undefined) {
        id = visited.length;
        ids.set(key, id);
        visited.push(key === "" ? [] : key.split(",").map(Number));
      }
      subsetTrace[c * kept + t] = id;
      const size = visited[id].length;
      sumInputs += size;
      if (size > maxInputs) maxInputs = size;
      for (const i of visited[id]) chainProbs[c * p + i] += 1 / kept;
    }
    if (testProb && result.testProb) {
      const predictions = Math.ceil(kept / PREDICT_EVERY);
      for (let q = 0; q < testProb.length; q++) testProb[q] += result.testProb[q] / (predictions * s.chains);
    }
    for (let k = 0; k < result.tried.length; k++) {
      tried[k] += result.tried[k];
      acceptedMoves[k] += result.accepted[k];
    }
  }

  // ---- summaries -----------------------------------------------------------------------------
  const total = kept * s.chains;
  const subsets = subsetProbabilities(subsetTrace, visited, data.inputNames);
  const { inputProbabilities, spread } = pooledInputProbabilities(chainProbs, p, s.chains);
  let predicted: Int32Array | null = null;
  if (testProb && test) {
    predicted = new Int32Array(test.n);
    for (let t = 0; t < test.n; t++) {
      let best = 0;
      for (let k = 1; k < K; k++) if (testProb[t * K + k] > testProb[t * K + best]) best = k;
      predicted[t] = best;
    }
  }
  return Object.freeze({
    inputNames: data.inputNames,
    classNames: data.classNames,
    draws: total,
    chains: s.chains,
    meanInputs: sumInputs / total,
    maxInputs,
    distinctSubsets: subsets.length,
    subsets: Object.freeze(subsets),
    inputProbabilities,
    chainInputProbabilities: chainProbs,
    inputProbabilitySpread: spread,
    visited: Object.freeze(visited.map((v) => Object.freeze(v))),
    subsetTrace,
    acceptance: Object.freeze({
      birth: tried[BIRTH] > 0 ? acceptedMoves[BIRTH] / tried[BIRTH] : 0,
      death: tried[DEATH] > 0 ? acceptedMoves[DEATH] / tried[DEATH] : 0,
      exchange: tried[EXCHANGE] > 0 ? acceptedMoves[EXCHANGE] / tried[EXCHANGE] : 0,
    }),
    testProbabilities: testProb,
    predictedClasses: predicted,
    seconds: (performance.now() - started) / 1000,
  });
}

/** Throws unless the test inputs have p columns and the starting inputs are distinct indices, at least `minInputs`. */
function checkTestAndStart(options: MixtureClassifierOptions, minInputs: number, p: number): void {
  const test = options.test;
  if (test !== undefined && test.X.length !== test.n * p) {
    throw new OccamError(
      "dimension-mismatch",
      `mixture classifier: the test inputs have length ${test.X.length}, expected ${test.n} × ${p}.`,
    );
  }
  const init = options.initialInputs;
  if (
    init !== undefined &&
    (init.length < minInputs ||
      new Set(init).size !== init.length ||
      init.some((i) => !(Number.isInteger(i) && i >= 0 && i < p)))
  ) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: initialInputs must be distinct input indices in 0 … ${p - 1}, at least ${minInputs}.`,
    );
  }
}

/** The subsets the chains visited (ids into `visited`, over every kept draw), most probable first. */
function subsetProbabilities(
  subsetTrace: Int32Array,
  visited: readonly number[][],
  inputNames: readonly string[],
): SubsetProbability[] {
  const total = subsetTrace.length;
  const counts = new Float64Array(visited.length);
  for (let t = 0; t < total; t++) counts[subsetTrace[t]]++;
  const subsets: SubsetProbability[] = [];
  counts.forEach((cnt, id) => {
    if (cnt > 0) {
      const inputs = visited[id];
      subsets.push(
        Object.freeze({
          inputs: Object.freeze([...inputs]),
          names: Object.freeze(inputs.map((i) => inputNames[i])),
          probability: cnt / total,
        }),
      );
    }
  });
  subsets.sort((x, y) => y.probability - x.probability);
  return subsets;
}

/** Each input's inclusion probability averaged over the chains, and the largest sd between chains. */
function pooledInputProbabilities(
  chainProbs: Float64Array,
  p: number,
  chains: number,
): { inputProbabilities: Float64Array; spread: number } {
  const inputProbabilities = new Float64Array(p);
  let spread = 0;
  for (let i = 0; i < p; i++) {
    let mean = 0;
    for (let c = 0; c < chains; c++) mean += chainProbs[c * p + i] / chains;
    inputProbabilities[i] = mean;
    if (chains > 1) {
      let v = 0;
      for (let c = 0; c < chains; c++) v += (chainProbs[c * p + i] - mean) ** 2;
      spread = Math.max(spread, Math.sqrt(v / (chains - 1)));
    }
  }
  return { inputProbabilities, spread };
}

/** What one chain returns (internal; shared by per-input-chain.ts and shared-chain.ts). */
export interface ChainResult {
  keys: string[];
  testProb: Float64Array | null;
  /** Jumps tried and accepted by kind (birth, death, exchange). */
  tried: Float64Array;
  accepted: Float64Array;
}

function checkData(data: ClassificationData, D: number): void {
  const { n, p, labels, classNames } = data;
  const K = classNames.length;
  if (!(p >= 1 && data.X.length === n * p && labels.length === n)) {
    throw new OccamError(
      "dimension-mismatch",
      `mixture classifier: X must be n × p = ${n} × ${p} and labels length ${n}.`,
    );
  }
  const seen = new Set<number>();
  let labelledRows = 0;
  for (let r = 0; r < n; r++) {
    const k = labels[r];
    if (!(Number.isInteger(k) && k >= -1 && k < K)) {
      throw new OccamError(
        "invalid-data",
        `mixture classifier: row ${r} has label ${k}, outside −1 … ${K - 1}.`,
      );
    }
    if (k >= 0) {
      seen.add(k);
      labelledRows++;
    }
  }
  if (K < 2 || seen.size < 2) {
    throw new OccamError(
      "invalid-data",
      `mixture classifier: the training labels hold ${seen.size} class${seen.size === 1 ? "" : "es"} (${[...seen].map((k) => classNames[k]).join(", ")}); a classifier needs at least two.`,
    );
  }
  if (D > n) {
    throw new OccamError(
      "invalid-data",
      `mixture classifier: ${D} kernels for ${n} training rows; use at most as many kernels as rows (fewer kernels, or more data).`,
    );
  }
  if (labelledRows === 0) throw new OccamError("invalid-data", "mixture classifier: no labelled rows.");
}
