/**
 * Sykacek's input-selecting mixture classifier ("On input selection with reversible jump MCMC
 * sampling", NIPS 1999), in a collapsed, conjugate variant with one mixture per input (the default,
 * `structure: "per-input"`, described here) or with Sykacek's shared kernels plus a shared-allocation
 * background (`structure: "shared"`, in shared-chain.ts).
 *
 * The model. On inputs standardised to u_i = (x_i − ξ_i)/R_i (ξ_i the midpoint, R_i the range), every
 * input i has its own D Gaussian kernels with a conjugate Normal–Gamma prior μ | λ ~ N(0, 1/(κ₀ λ)),
 * λ ~ Gamma(a, β_i), β_i ~ Gamma(g, h) (Sykacek's h_i = h / R_i² in the original units) truncated to
 * β_i ≥ a ρ², and its own allocations z_i. An input in S has class-specific kernel weights w_ki ~
 * Dirichlet(δ_w); an input outside S one weight vector shared by the classes. So
 * p(x | k) = Π_{i∈S} Σ_d w_kid N(u_i; μ_id, 1/λ_id) × Π_{i∉S} p(u_i), and p(k | x) = p(k | x_S).
 * Kernel parameters, weights and class priors (Dirichlet δ_P) are integrated out; the state is
 * (S, {z_i}, β, labels of unlabelled rows).
 *
 * Departures from the paper, and why:
 * - Sykacek's kernels are shared by the inputs (one allocation per row). Its likelihood covers x_S
 *   only, which compares densities of different dimension; modelling the other inputs by a
 *   class-independent background fixes that, but then a birth must line up the new input with the
 *   shared allocations: with kernel parameters proposed (earlier version) or integrated out and the
 *   background allocations proposed from fitted responsibilities (tried here), log proposal ratios
 *   were off by tens to hundreds of nats and fewer than 0.1 % of jumps were accepted. With one
 *   mixture per input, a jump keeps z_i and changes only whether its weights depend on the class:
 *   the kernel evidence cancels and the acceptance ratio is a ratio of Dirichlet–multinomials. The
 *   price: within a class the inputs are independent (a naive-Bayes mixture), so correlated inputs
 *   that carry the same class information are all selected. The shared-allocation alternative
 *   (shared-chain.ts) needs no proposal either, but its jumps are almost never accepted on real data.
 * - The subset prior is p(S) = TruncatedPoisson(|S|; c, 1 … I_max) / C(I_max, |S|) (SEEDS.md erratum).
 * - Moves: collapsed Gibbs on each z_i and on unlabelled rows' classes, random-walk Metropolis on
 *   log β_i, and birth / death / exchange over S composed by {@link mixture}; several independent
 *   chains from random starts can be pooled, their spread being a convergence check.
 */
import gammaln from "@stdlib/math-base-special-gammaln";
import { OccamError } from "../../errors.js";
import { createRng, type Rng } from "../../random/rng.js";
import { metropolisHastings } from "../../samplers/accept.js";
import { type Move, mixture } from "../../samplers/mixture.js";
import type { ClassificationData } from "./data.js";
import { runSharedChain } from "./shared-chain.js";

const LOG_PI = Math.log(Math.PI);
const LOG_2PI = Math.log(2 * Math.PI);
/** Test predictions are averaged over every PREDICT_EVERY-th kept sweep. */
const PREDICT_EVERY = 5;

/** Options of {@link fitMixtureClassifier}. */
export interface MixtureClassifierOptions {
  /** Number D of Gaussian kernels of each input's mixture. @defaultValue 3 */
  kernels?: number;
  /** h of the hyperprior β_i ~ Gamma(g, h_i) with h_i = h / R_i² (R_i the range of input i). @defaultValue 0.25 */
  h?: number;
  /** Shape a of the kernel precisions' prior λ ~ Gamma(a, β_i). @defaultValue 2 */
  a?: number;
  /** Shape g of the hyperprior on β_i. @defaultValue 0.2 */
  g?: number;
  /**
   * κ₀: the prior of a kernel mean is N(ξ_i, 1/(κ₀ λ)) (in units of R_i), i.e. 1/√κ₀ kernel widths
   * around the midpoint. @defaultValue 0.05
   */
  kappa0?: number;
  /** Dirichlet prior count δ_w of the kernel weights (class and background). @defaultValue 1 */
  deltaW?: number;
  /** Dirichlet prior count δ_P of the class priors. @defaultValue 1 */
  deltaP?: number;
  /**
   * Resolution ρ: β_i is truncated to β_i ≥ a ρ² (in units of R_i²), which keeps kernels from collapsing
   * onto repeated values (with ties at the midpoint the posterior is improper without a bound).
   * @defaultValue 0.01
   */
  resolution?: number;
  /** Mean c of the truncated Poisson prior on the number of inputs. @defaultValue 3 */
  poissonMean?: number;
  /**
   * Smallest subset size the prior allows: 1 (the paper's truncation 1 … I_max) or 0 (the empty
   * subset, whose predictions are the class priors, is allowed too). @defaultValue 1
   */
  minInputs?: 0 | 1;
  /**
   * "per-input": every input has its own mixture and allocations (mixes; a naive-Bayes mixture).
   * "shared": Sykacek's shared kernels over S plus a shared-allocation background mixture over ¬S
   * (see shared-chain.ts; exact but its jumps are rarely accepted on real data). @defaultValue "per-input"
   */
  structure?: "per-input" | "shared";
  /** Relative weights of the birth, death and exchange moves (birth and death must be equal). @defaultValue [1, 1, 1] */
  moveWeights?: readonly [number, number, number];
  /**
   * Reversible-jump proposals (birth, death, exchange) after each Gibbs scan; 0 keeps the starting
   * subset fixed, except for the swap of S and ¬S that `structure: "shared"` tries once per sweep.
   * @defaultValue 5
   */
  jumpsPerSweep?: number;
  /** Sweeps per chain, burn-in included. @defaultValue 15000 */
  draws?: number;
  /** Sweeps discarded at the start of each chain. @defaultValue 5000 */
  burnIn?: number;
  /**
   * Independent chains from random starts; their kept draws are pooled, and the spread of their input
   * probabilities is reported. @defaultValue 1
   */
  chains?: number;
  /** Seed of the random stream. @defaultValue 1 */
  seed?: number;
  /** Starting subset (input indices) of every chain. @defaultValue one to three inputs chosen at random */
  initialInputs?: readonly number[];
  /** Test inputs (m × p row-major) whose class probabilities are averaged over the kept draws. @defaultValue none */
  test?: { readonly X: Float64Array; readonly n: number };
  /** Called every 500 sweeps with the sweep number (counted over all chains). @defaultValue none */
  onProgress?: (sweep: number, total: number) => void;
}

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
    /** The swap of S and ¬S of `structure: "shared"` (0 for "per-input", which has none). */
    readonly swap: number;
  };
  /** Test class probabilities averaged over kept draws (m × K row-major), or null without test data. */
  readonly testProbabilities: Float64Array | null;
  /** The most probable class of each test row, or null. */
  readonly predictedClasses: Int32Array | null;
  /** Wall-clock seconds. */
  readonly seconds: number;
}

/** Filled-in options (internal; shared with shared-chain.ts). */
export interface Settings {
  D: number;
  h: number;
  a: number;
  g: number;
  kappa0: number;
  deltaW: number;
  deltaP: number;
  c: number;
  minInputs: number;
  structure: "per-input" | "shared";
  resolution: number;
  weights: readonly [number, number, number];
  jumps: number;
  draws: number;
  burnIn: number;
  chains: number;
  seed: number;
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be a finite number > 0, got ${value}.`,
    );
  }
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be a finite number ≥ 0, got ${value}.`,
    );
  }
  return value;
}

function integerAtLeast(value: number, min: number, name: string): number {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be an integer ≥ ${min}, got ${value}.`,
    );
  }
  return value;
}

function minInputs(value: number | undefined): number {
  if (value === undefined) return 1;
  if (value !== 0 && value !== 1) {
    throw new OccamError("invalid-argument", `mixture classifier: minInputs must be 0 or 1, got ${value}.`);
  }
  return value;
}

function structure(value: string | undefined): "per-input" | "shared" {
  if (value === undefined) return "per-input";
  if (value !== "per-input" && value !== "shared") {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: structure must be "per-input" or "shared", got "${value}".`,
    );
  }
  return value;
}

function fillOptions(options: MixtureClassifierOptions): Settings {
  const D = integerAtLeast(options.kernels ?? 3, 1, "kernels");
  const draws = options.draws ?? 15000;
  const burnIn = options.burnIn ?? 5000;
  if (!(Number.isInteger(draws) && Number.isInteger(burnIn) && burnIn >= 0 && draws > burnIn)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: need integers draws > burnIn ≥ 0, got draws = ${draws}, burnIn = ${burnIn}.`,
    );
  }
  const weights = options.moveWeights ?? [1, 1, 1];
  weights.forEach((w, j) => {
    positive(w, `moveWeights[${j}]`);
  });
  if (weights[0] !== weights[1]) {
    throw new OccamError(
      "invalid-argument",
      "mixture classifier: the birth and death moves must have equal weights (each is the other's reverse).",
    );
  }
  return {
    D,
    h: positive(options.h ?? 0.25, "h"),
    a: positive(options.a ?? 2, "a"),
    g: positive(options.g ?? 0.2, "g"),
    kappa0: positive(options.kappa0 ?? 0.05, "kappa0"),
    deltaW: positive(options.deltaW ?? 1, "deltaW"),
    deltaP: positive(options.deltaP ?? 1, "deltaP"),
    c: positive(options.poissonMean ?? 3, "poissonMean"),
    minInputs: minInputs(options.minInputs),
    structure: structure(options.structure),
    resolution: nonNegative(options.resolution ?? 0.01, "resolution"),
    weights,
    jumps: integerAtLeast(options.jumpsPerSweep ?? 5, 0, "jumpsPerSweep"),
    draws,
    burnIn,
    chains: integerAtLeast(options.chains ?? 1, 1, "chains"),
    seed: options.seed ?? 1,
  };
}

/** The kinds of reversible-jump move. */
const BIRTH = 0;
const DEATH = 1;
const EXCHANGE = 2;

/** A proposed change of subset, written in place by the moves (one buffer per chain). */
interface Proposal {
  kind: number;
  /** Input moved into S (birth, exchange) or −1. */
  add: number;
  /** Input moved out of S (death, exchange) or −1. */
  remove: number;
  /** log π(proposal) − log π(current) without the subset prior. */
  logLikRatio: number;
}

/** Data, priors and tables shared by the chains (read-only once built). */
interface Shared {
  s: Settings;
  n: number;
  p: number;
  K: number;
  /** Standardised inputs (x − ξ)/R, column-major p × n. */
  uc: Float64Array;
  labels: Int32Array;
  labelled: Uint8Array;
  /** log p(S) by size. */
  logPS: Float64Array;
  /** gammaln(a + c/2) and gammaln(a + c/2 + 1/2) − gammaln(a + c/2), c = 0 … n. */
  lgA: Float64Array;
  lgRatio: Float64Array;
  /** log(c + δ_w) and gammaln(c + δ_w), c = 0 … n. */
  logCountW: Float64Array;
  lgCountW: Float64Array;
  /** Starting allocations: per input, responsibilities (n × D) of an EM fit. */
  Q: Float64Array;
  betaMin: number;
  /** Standardised test inputs (m × p), or null. */
  testU: Float64Array | null;
  m: number;
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
  const s = fillOptions(options);
  const { p } = data;
  const K = data.classNames.length;
  checkData(data, s.D);
  const test = options.test;
  if (test !== undefined && test.X.length !== test.n * p) {
    throw new OccamError(
      "dimension-mismatch",
      `mixture classifier: the test inputs have length ${test.X.length}, expected ${test.n} × ${p}.`,
    );
  }
  if (options.initialInputs !== undefined) {
    const init = options.initialInputs;
    if (
      init.length < s.minInputs ||
      new Set(init).size !== init.length ||
      init.some((i) => !(Number.isInteger(i) && i >= 0 && i < p))
    ) {
      throw new OccamError(
        "invalid-argument",
        `mixture classifier: initialInputs must be distinct input indices in 0 … ${p - 1}, at least ${s.minInputs}.`,
      );
    }
  }
  const shared = s.structure === "per-input" ? prepare(data, s, test) : null;
  const rng = createRng(s.seed);
  const streams = rng.split(s.chains);
  const kept = s.draws - s.burnIn;
  const visited: number[][] = [];
  const ids = new Map<string, number>();
  const subsetTrace = new Int32Array(kept * s.chains);
  const chainProbs = new Float64Array(s.chains * p);
  const testProb = test ? new Float64Array(test.n * K) : null;
  const tried = new Float64Array(4);
  const acceptedMoves = new Float64Array(4);
  let sumInputs = 0;
  let maxInputs = 0;
  for (let c = 0; c < s.chains; c++) {
    const onSweep = (sweep: number) => {
      if (options.onProgress && sweep % 500 === 0)
        options.onProgress(c * s.draws + sweep, s.chains * s.draws);
    };
    const result = shared
      ? runChain(shared, streams[c], options.initialInputs, onSweep)
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
  const counts = new Float64Array(visited.length);
  for (let t = 0; t < total; t++) counts[subsetTrace[t]]++;
  const subsets: SubsetProbability[] = [];
  counts.forEach((cnt, id) => {
    if (cnt > 0) {
      const inputs = visited[id];
      subsets.push(
        Object.freeze({
          inputs: Object.freeze([...inputs]),
          names: Object.freeze(inputs.map((i) => data.inputNames[i])),
          probability: cnt / total,
        }),
      );
    }
  });
  subsets.sort((x, y) => y.probability - x.probability);
  const inputProbabilities = new Float64Array(p);
  let spread = 0;
  for (let i = 0; i < p; i++) {
    let mean = 0;
    for (let c = 0; c < s.chains; c++) mean += chainProbs[c * p + i] / s.chains;
    inputProbabilities[i] = mean;
    if (s.chains > 1) {
      let v = 0;
      for (let c = 0; c < s.chains; c++) v += (chainProbs[c * p + i] - mean) ** 2;
      spread = Math.max(spread, Math.sqrt(v / (s.chains - 1)));
    }
  }
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
      swap: tried[3] > 0 ? acceptedMoves[3] / tried[3] : 0,
    }),
    testProbabilities: testProb,
    predictedClasses: predicted,
    seconds: (performance.now() - started) / 1000,
  });
}

/** Standardises the data, tabulates the log-gamma terms and fits each input's death proposal. */
function prepare(
  data: ClassificationData,
  s: Settings,
  test: { readonly X: Float64Array; readonly n: number } | undefined,
): Shared {
  const { n, p, X } = data;
  const { D, a } = s;
  const uc = new Float64Array(n * p);
  const xi = new Float64Array(p);
  const R = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    let lo = Number.POSITIVE_INFINITY;
    let up = Number.NEGATIVE_INFINITY;
    for (let r = 0; r < n; r++) {
      const x = X[r * p + i];
      if (x < lo) lo = x;
      if (x > up) up = x;
    }
    if (!(up - lo > 0)) {
      throw new OccamError(
        "invalid-data",
        `mixture classifier: input "${data.inputNames[i]}" is constant in the training data (every row is ${lo}); it carries no information: leave it out.`,
      );
    }
    xi[i] = 0.5 * (lo + up);
    R[i] = up - lo;
    for (let r = 0; r < n; r++) {
      const v = (X[r * p + i] - xi[i]) / R[i];
      uc[i * n + r] = v;
    }
  }
  let testU: Float64Array | null = null;
  if (test) {
    testU = new Float64Array(test.n * p);
    for (let t = 0; t < test.n; t++) {
      for (let i = 0; i < p; i++) testU[t * p + i] = (test.X[t * p + i] - xi[i]) / R[i];
    }
  }
  // log p(S): truncated Poisson over sizes minInputs … p, uniform within a size (SEEDS.md erratum).
  const logPS = new Float64Array(p + 1).fill(Number.NEGATIVE_INFINITY);
  let norm = 0;
  for (let I = s.minInputs; I <= p; I++) norm += Math.exp(I * Math.log(s.c) - gammaln(I + 1) - s.c);
  for (let I = s.minInputs; I <= p; I++) {
    const logChoose = gammaln(p + 1) - gammaln(I + 1) - gammaln(p - I + 1);
    logPS[I] = I * Math.log(s.c) - gammaln(I + 1) - s.c - Math.log(norm) - logChoose;
  }
  const lgA = new Float64Array(n + 1);
  const lgRatio = new Float64Array(n + 1);
  const logCountW = new Float64Array(n + 1);
  const lgCountW = new Float64Array(n + 1);
  for (let c = 0; c <= n; c++) {
    lgA[c] = gammaln(a + 0.5 * c);
    lgRatio[c] = gammaln(a + 0.5 * c + 0.5) - lgA[c];
    logCountW[c] = Math.log(c + s.deltaW);
    lgCountW[c] = gammaln(c + s.deltaW);
  }
  const labels = Int32Array.from(data.labels);
  const labelled = new Uint8Array(n);
  for (let r = 0; r < n; r++) labelled[r] = labels[r] >= 0 ? 1 : 0;
  const Q = startingResponsibilities(uc, n, p, D, s.resolution);
  return {
    s,
    n,
    p,
    K: data.classNames.length,
    uc,
    labels,
    labelled,
    logPS,
    lgA,
    lgRatio,
    logCountW,
    lgCountW,
    Q,
    betaMin: a * s.resolution * s.resolution,
    testU,
    m: test?.n ?? 0,
  };
}

/**
 * Where each input's allocations start: responsibilities of a D-component 1-D Gaussian mixture fitted
 * by EM (means started at quantiles, variances floored at ρ² + 10⁻⁴), mixed 1 % with uniform.
 */
function startingResponsibilities(
  uc: Float64Array,
  n: number,
  p: number,
  D: number,
  resolution: number,
): Float64Array {
  const Q = new Float64Array(p * n * D);
  const mean = new Float64Array(D);
  const vari = new Float64Array(D);
  const weight = new Float64Array(D);
  const sorted = new Float64Array(n);
  const floor = resolution * resolution + 1e-4;
  const eps = 0.01;
  for (let i = 0; i < p; i++) {
    const x = uc.subarray(i * n, (i + 1) * n);
    sorted.set(x);
    sorted.sort();
    for (let d = 0; d < D; d++) {
      mean[d] = sorted[Math.min(n - 1, Math.floor(((d + 0.5) / D) * n))];
      vari[d] = Math.max(floor, 1 / (D * D * 4));
      weight[d] = 1 / D;
    }
    const resp = Q.subarray(i * n * D, (i + 1) * n * D);
    for (let it = 0; it < 60; it++) {
      for (let r = 0; r < n; r++) {
        let max = Number.NEGATIVE_INFINITY;
        for (let d = 0; d < D; d++) {
          const e = x[r] - mean[d];
          const l = Math.log(weight[d]) - 0.5 * Math.log(vari[d]) - (0.5 * e * e) / vari[d];
          resp[r * D + d] = l;
          if (l > max) max = l;
        }
        let sum = 0;
        for (let d = 0; d < D; d++) {
          const e = Math.exp(resp[r * D + d] - max);
          resp[r * D + d] = e;
          sum += e;
        }
        for (let d = 0; d < D; d++) resp[r * D + d] /= sum;
      }
      for (let d = 0; d < D; d++) {
        let w = 0;
        let s1 = 0;
        for (let r = 0; r < n; r++) {
          w += resp[r * D + d];
          s1 += resp[r * D + d] * x[r];
        }
        const m = w > 0 ? s1 / w : mean[d];
        let s2 = 0;
        for (let r = 0; r < n; r++) s2 += resp[r * D + d] * (x[r] - m) ** 2;
        mean[d] = m;
        vari[d] = Math.max(floor, w > 0 ? s2 / w : vari[d]);
        weight[d] = (w + 1) / (n + D);
      }
    }
    for (let q = 0; q < n * D; q++) {
      resp[q] = (1 - eps) * resp[q] + eps / D;
    }
  }
  return Q;
}

/** What one chain returns (internal; shared with shared-chain.ts). */
export interface ChainResult {
  keys: string[];
  testProb: Float64Array | null;
  tried: Float64Array;
  accepted: Float64Array;
}

/** One chain: collapsed Gibbs scans of every input's allocations, β updates and jumps over S. */
function runChain(
  sh: Shared,
  rng: Rng,
  initialInputs: readonly number[] | undefined,
  onSweep: (sweep: number) => void,
): ChainResult {
  const { s, n, p, K, uc, labelled, logPS, lgA, lgRatio, logCountW, lgCountW, Q } = sh;
  const { D, a, g, h, kappa0, deltaW, deltaP } = s;
  const labels = Int32Array.from(sh.labels);
  const lgA0 = lgA[0];
  const lgW0 = lgCountW[0];
  const lgDW = gammaln(D * deltaW);
  const logKappa0 = Math.log(kappa0);
  // gammaln(c + D δ_w) and log(c + D δ_w), c = 0 … n
  const lgTotal = new Float64Array(n + 1);
  const logTotal = new Float64Array(n + 1);
  for (let c = 0; c <= n; c++) {
    lgTotal[c] = gammaln(c + D * deltaW);
    logTotal[c] = Math.log(c + D * deltaW);
  }

  // ---- state ---------------------------------------------------------------------------------
  const inS = new Uint8Array(p);
  const sel = new Int32Array(p);
  let I = 0;
  const beta = new Float64Array(p);
  const z = new Int32Array(p * n); // allocations of every input, [i * n + r]
  const cnt = new Int32Array(p * D); // kernel counts [i * D + d]
  const s1 = new Float64Array(p * D);
  const s2 = new Float64Array(p * D);
  const mK = new Int32Array(K); // rows per class
  const mKD = new Int32Array(p * K * D); // kernel counts per class [(i * K + k) * D + d]
  // Student-t predictive caches at [i * D + d]
  const C0 = new Float64Array(p * D);
  const M = new Float64Array(p * D);
  const Qc = new Float64Array(p * D);
  const logits = new Float64Array(Math.max(K, D));

  /**
   * Student-t predictive cache of one kernel of input i from its statistics: for u ~ kernel,
   * log p(u) = C0 − (a + c/2 + 1/2) log(1 + Qc (u − M)²) with M = Σu/κ_n, κ_n = κ₀ + c,
   * b_n = β + (Σu² − κ_n M²)/2, Qc = κ_n / (2 b_n (κ_n + 1)), C0 = log Γ ratio + ½ log(Qc/π).
   */
  function refresh(j: number, b: number): void {
    const c = cnt[j];
    const kn = kappa0 + c;
    const mn = s1[j] / kn;
    const bn = b + Math.max(0, 0.5 * (s2[j] - s1[j] * mn));
    const q = kn / (2 * bn * (kn + 1));
    M[j] = mn;
    Qc[j] = q;
    C0[j] = lgRatio[c] + 0.5 * (Math.log(q) - LOG_PI);
  }

  /** log ∫ p(u_i | z_i, μ, λ) dp(μ, λ | β): the Normal–Gamma evidence of input i's kernels at β = b. */
  function logMarginal(i: number, b: number): number {
    const logB = Math.log(b);
    let total = 0;
    for (let d = 0; d < D; d++) {
      const j = i * D + d;
      const nd = cnt[j];
      if (nd === 0) continue;
      const kn = kappa0 + nd;
      const bn = b + Math.max(0, 0.5 * (s2[j] - (s1[j] * s1[j]) / kn));
      total +=
        lgA[nd] -
        lgA0 +
        a * logB -
        (a + 0.5 * nd) * Math.log(bn) +
        0.5 * (logKappa0 - Math.log(kn)) -
        0.5 * nd * LOG_2PI;
    }
    return total;
  }

  /**
   * log p(z_i | t, i ∈ S) − log p(z_i | i ∉ S): Dirichlet–multinomial of the allocations with
   * class-specific weights against one shared weight vector. The kernel evidence is the same on both
   * sides and cancels: this is all a jump needs.
   */
  function logClassGain(i: number): number {
    let total = -(lgDW - lgTotal[n]);
    for (let d = 0; d < D; d++) total -= lgCountW[cnt[i * D + d]] - lgW0;
    for (let k = 0; k < K; k++) {
      total += lgDW - lgTotal[mK[k]];
      const off = (i * K + k) * D;
      for (let d = 0; d < D; d++) total += lgCountW[mKD[off + d]] - lgW0;
    }
    return total;
  }

  // ---- initial state -------------------------------------------------------------------------
  for (let i = 0; i < p; i++) beta[i] = Math.max(sh.betaMin, g / h);
  if (initialInputs !== undefined) {
    for (const i of initialInputs) {
      inS[i] = 1;
      sel[I++] = i;
    }
  } else {
    const size = Math.max(s.minInputs, 1 + rng.integer(Math.min(3, p)));
    const order = Array.from({ length: p }, (_, i) => i);
    for (let q = p - 1; q > 0; q--) {
      const e = rng.integer(q + 1);
      [order[q], order[e]] = [order[e], order[q]];
    }
    for (let q = 0; q < size; q++) {
      inS[order[q]] = 1;
      sel[I++] = order[q];
    }
  }
  for (let r = 0; r < n; r++) if (!labelled[r]) labels[r] = rng.integer(K);
  // start each input's allocations from the responsibilities of its EM fit
  for (let i = 0; i < p; i++) {
    const base = i * n * D;
    for (let r = 0; r < n; r++) {
      let v = rng.uniform();
      let d = D - 1;
      for (let e = 0; e < D; e++) {
        v -= Q[base + r * D + e];
        if (v < 0) {
          d = e;
          break;
        }
      }
      z[i * n + r] = d;
    }
  }

  /** Recomputes every statistic and cache from the allocations (once per sweep: no drift). */
  function rebuild(): void {
    cnt.fill(0);
    s1.fill(0);
    s2.fill(0);
    mK.fill(0);
    mKD.fill(0);
    for (let r = 0; r < n; r++) mK[labels[r]]++;
    for (let i = 0; i < p; i++) {
      for (let r = 0; r < n; r++) {
        const d = z[i * n + r];
        const j = i * D + d;
        const x = uc[i * n + r];
        cnt[j]++;
        s1[j] += x;
        s2[j] += x * x;
        mKD[(i * K + labels[r]) * D + d]++;
      }
      for (let d = 0; d < D; d++) refresh(i * D + d, beta[i]);
    }
  }
  rebuild();

  // ---- collapsed Gibbs -----------------------------------------------------------------------
  /** Draws an index in [0, to) ∝ exp(logits) (overwrites logits). */
  function drawIndex(to: number): number {
    let max = Number.NEGATIVE_INFINITY;
    for (let q = 0; q < to; q++) if (logits[q] > max) max = logits[q];
    let sum = 0;
    for (let q = 0; q < to; q++) {
      const e = Math.exp(logits[q] - max);
      logits[q] = e;
      sum += e;
    }
    let v = rng.uniform() * sum;
    for (let q = 0; q < to; q++) {
      v -= logits[q];
      if (v < 0) return q;
    }
    return to - 1;
  }

  /**
   * One scan of input i's allocations: p(z_ir = d | rest) ∝ (count + δ_w) × Student-t predictive,
   * where the count is the row's class's count of kernel d when i ∈ S and the pooled count otherwise.
   * The hot loop: statistics and caches are updated incrementally as a row leaves and joins a kernel.
   */
  function gibbsInput(i: number): void {
    const off = i * D;
    const base = i * n;
    const selected = inS[i] === 1;
    for (let r = 0; r < n; r++) {
      const x = uc[base + r];
      const kOff = (i * K + labels[r]) * D;
      const d0 = z[base + r];
      let j = off + d0;
      cnt[j]--;
      s1[j] -= x;
      s2[j] -= x * x;
      mKD[kOff + d0]--;
      refresh(j, beta[i]);
      for (let d = 0; d < D; d++) {
        const c = cnt[off + d];
        const e = x - M[off + d];
        logits[d] =
          (selected ? logCountW[mKD[kOff + d]] : logCountW[c]) +
          C0[off + d] -
          (a + 0.5 * c + 0.5) * Math.log1p(Qc[off + d] * e * e);
      }
      const d1 = drawIndex(D);
      z[base + r] = d1;
      j = off + d1;
      cnt[j]++;
      s1[j] += x;
      s2[j] += x * x;
      mKD[kOff + d1]++;
      refresh(j, beta[i]);
    }
  }

  /** The latent classes of unlabelled rows: p(t_r = k | rest) ∝ (m_k + δ_P) Π_{i∈S} (m_{k,i,z_ir} + δ_w)/(m_k + D δ_w). */
  function gibbsLabels(): void {
    for (let r = 0; r < n; r++) {
      if (labelled[r]) continue;
      const k0 = labels[r];
      mK[k0]--;
      for (let i = 0; i < p; i++) mKD[(i * K + k0) * D + z[i * n + r]]--;
      for (let k = 0; k < K; k++) {
        let v = Math.log(mK[k] + deltaP);
        for (let q = 0; q < I; q++) {
          const i = sel[q];
          v += logCountW[mKD[(i * K + k) * D + z[i * n + r]]] - logTotal[mK[k]];
        }
        logits[k] = v;
      }
      const k1 = drawIndex(K);
      labels[r] = k1;
      mK[k1]++;
      for (let i = 0; i < p; i++) mKD[(i * K + k1) * D + z[i * n + r]]++;
    }
  }

  /** Random-walk Metropolis on log β_i, target Gamma(g, h) on β ≥ β_min times the input's evidence. */
  function updateBeta(i: number): void {
    const b0 = beta[i];
    const b1 = b0 * Math.exp(0.5 * rng.normal());
    let logRatio = Number.NEGATIVE_INFINITY;
    if (b1 >= sh.betaMin) {
      // prior (g − 1) log β − h β, plus log β from the Jacobian of the log scale
      logRatio = g * Math.log(b1 / b0) - h * (b1 - b0) + logMarginal(i, b1) - logMarginal(i, b0);
    }
    if (metropolisHastings(rng, logRatio).accepted) {
      beta[i] = b1;
      for (let d = 0; d < D; d++) refresh(i * D + d, b1);
    }
  }

  // ---- reversible-jump moves over S (see the module comment) ----------------------------------
  const proposal: Proposal = { kind: BIRTH, add: -1, remove: -1, logLikRatio: 0 };
  const result = { proposal, logFactor: 0 };
  const impossible = (kind: number) => {
    proposal.kind = kind;
    proposal.add = -1;
    proposal.remove = -1;
    result.logFactor = Number.NEGATIVE_INFINITY;
    return result;
  };
  const pickOutside = (): number => {
    let k = rng.integer(p - I);
    for (let i = 0; i < p; i++) {
      if (inS[i]) continue;
      if (k === 0) return i;
      k--;
    }
    return -1;
  };
  const birth: Move<null, Proposal> = () => {
    if (I === p) return impossible(BIRTH);
    const i = pickOutside();
    proposal.kind = BIRTH;
    proposal.add = i;
    proposal.remove = -1;
    proposal.logLikRatio = logClassGain(i);
    // reverse: death picks i among I + 1; forward: birth picks i among p − I
    result.logFactor = Math.log(p - I) - Math.log(I + 1);
    return result;
  };
  const death: Move<null, Proposal> = () => {
    if (I <= s.minInputs) return impossible(DEATH);
    const j = sel[rng.integer(I)];
    proposal.kind = DEATH;
    proposal.add = -1;
    proposal.remove = j;
    proposal.logLikRatio = -logClassGain(j);
    result.logFactor = Math.log(I) - Math.log(p - I + 1);
    return result;
  };
  const exchange: Move<null, Proposal> = () => {
    if (I === p || I === 0) return impossible(EXCHANGE);
    const j = sel[rng.integer(I)];
    const i = pickOutside();
    proposal.kind = EXCHANGE;
    proposal.add = i;
    proposal.remove = j;
    proposal.logLikRatio = logClassGain(i) - logClassGain(j);
    result.logFactor = 0;
    return result;
  };
  const jump = mixture<null, Proposal>([
    [birth, s.weights[0]],
    [death, s.weights[1]],
    [exchange, s.weights[2]],
  ]);

  function accept(prop: Proposal): void {
    if (prop.remove >= 0) {
      const j = prop.remove;
      inS[j] = 0;
      let q = 0;
      while (sel[q] !== j) q++;
      sel[q] = sel[I - 1];
      I--;
    }
    if (prop.add >= 0) {
      inS[prop.add] = 1;
      sel[I++] = prop.add;
    }
  }

  // ---- predictions (collapsed posterior predictive) -------------------------------------------
  const m = sh.m;
  const testU = sh.testU;
  const testProb = testU ? new Float64Array(m * K) : null;
  const lk = new Float64Array(K);
  const lt = new Float64Array(D);
  function predict(): void {
    if (!testU || !testProb) return;
    for (let t = 0; t < m; t++) {
      for (let k = 0; k < K; k++) lk[k] = Math.log(mK[k] + deltaP);
      for (let q = 0; q < I; q++) {
        const i = sel[q];
        const x = testU[t * p + i];
        const off = i * D;
        let ltMax = Number.NEGATIVE_INFINITY;
        for (let d = 0; d < D; d++) {
          const e = x - M[off + d];
          lt[d] = C0[off + d] - (a + 0.5 * cnt[off + d] + 0.5) * Math.log1p(Qc[off + d] * e * e);
          if (lt[d] > ltMax) ltMax = lt[d];
        }
        for (let d = 0; d < D; d++) lt[d] = Math.exp(lt[d] - ltMax);
        for (let k = 0; k < K; k++) {
          let v = 0;
          const kOff = (i * K + k) * D;
          for (let d = 0; d < D; d++) v += (mKD[kOff + d] + deltaW) * lt[d];
          lk[k] += Math.log(v) - logTotal[mK[k]];
        }
      }
      let max = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < K; k++) if (lk[k] > max) max = lk[k];
      let sum = 0;
      for (let k = 0; k < K; k++) {
        lk[k] = Math.exp(lk[k] - max);
        sum += lk[k];
      }
      for (let k = 0; k < K; k++) testProb[t * K + k] += lk[k] / sum;
    }
  }

  // ---- the chain -----------------------------------------------------------------------------
  const kept = s.draws - s.burnIn;
  const keys: string[] = new Array(kept);
  const tried = new Float64Array(3);
  const acceptedMoves = new Float64Array(3);
  const subsetKey = () =>
    Array.from(sel.subarray(0, I))
      .sort((x, y) => x - y)
      .join(",");
  let key = subsetKey();
  for (let sweep = 0; sweep < s.draws; sweep++) {
    rebuild();
    for (let i = 0; i < p; i++) gibbsInput(i);
    gibbsLabels();
    for (let i = 0; i < p; i++) updateBeta(i);
    for (let jmp = 0; jmp < s.jumps; jmp++) {
      const { proposal: prop, logFactor } = jump(rng, null);
      const logRatio =
        logFactor === Number.NEGATIVE_INFINITY
          ? logFactor
          : prop.logLikRatio +
            logPS[I + (prop.kind === BIRTH ? 1 : prop.kind === DEATH ? -1 : 0)] -
            logPS[I] +
            logFactor;
      tried[prop.kind]++;
      if (metropolisHastings(rng, logRatio).accepted) {
        acceptedMoves[prop.kind]++;
        accept(prop);
        key = subsetKey();
      }
    }
    if (sweep >= s.burnIn) {
      keys[sweep - s.burnIn] = key;
      // test predictions from every PREDICT_EVERY-th kept sweep (neighbouring sweeps are correlated)
      if ((sweep - s.burnIn) % PREDICT_EVERY === 0) predict();
    }
    onSweep(sweep + 1);
  }
  return { keys, testProb, tried, accepted: acceptedMoves };
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
