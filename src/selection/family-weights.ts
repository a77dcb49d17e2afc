/**
 * Two ways to weight a few families of model for a combined prediction, side by side:
 *
 * - posterior family probabilities (Everson et al. eqs. 5–6), p(M_i | D) ∝ p(D | M_i) p(M_i), from
 *   estimated log evidences: their standard errors are carried into the probabilities by simulation,
 *   and an evidence its estimator does not trust is left out (with a warning) unless asked for;
 * - stacking weights (Yao, Vehtari, Simpson & Gelman 2018, Bayesian Analysis 13: 917–1007): the
 *   weights on the simplex that maximise the held-out log score Σ_i log Σ_m w_m p(y_i | x_i, D_−i, M_m)
 *   of the mixture, from leave-one-out or fold predictive densities.
 *
 * The first answers "which family generated the data", and concentrates on one family as data grow;
 * the second answers "which mixture predicts best", and keeps several families when each predicts some
 * rows better. A user should see both.
 */
import { invalidArgument, OccamError } from "../errors.js";
import { createRng } from "../random/rng.js";
import { compareModels } from "./compare.js";

/** Options of {@link familyProbabilities}. */
export interface FamilyProbabilitiesOptions {
  /** The families' names. */
  names: readonly string[];
  /** log p(D | M_i) of each family. */
  logEvidence: ArrayLike<number>;
  /** Standard errors of the log evidences. */
  stdErr: ArrayLike<number>;
  /** Whether each estimate's own checks trust it. */
  reliable: readonly boolean[];
  /**
   * Prior probabilities of the families (normalised over the families kept).
   * @defaultValue uniform
   */
  prior?: ArrayLike<number>;
  /**
   * Keep families whose evidence is not reliable. By default they are left out of the
   * probabilities, with a warning: an evidence that may be off by more than its error must not
   * decide anything silently.
   * @defaultValue false
   */
  includeUnreliable?: boolean;
  /**
   * Central probability of the reported intervals.
   * @defaultValue 0.95
   */
  level?: number;
  /**
   * Simulated sets of log evidences for the intervals.
   * @defaultValue 4000
   */
  simulations?: number;
  /** Seed of the simulation. @defaultValue 1 */
  seed?: number;
}

/** The result of {@link familyProbabilities}: arrays indexed like the families given. */
export interface FamilyProbabilities {
  readonly names: readonly string[];
  /** Whether each family took part (reliable, or included on request). */
  readonly included: readonly boolean[];
  /** p(M_i | D) at the estimated log evidences; 0 for a family left out. */
  readonly probability: Float64Array;
  /** Delta-method standard errors of the probabilities (0 for a family left out). */
  readonly probabilityStdErr: Float64Array;
  /**
   * Central intervals of the probabilities when each log evidence is drawn from N(logZ_i, stdErr_i²)
   * independently: how much the estimators' errors leave the probabilities undecided.
   */
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly level: number;
  /** Why families were left out. */
  readonly warnings: readonly string[];
}

/**
 * Posterior probabilities of families from their estimated log evidences, with intervals that carry
 * the estimates' standard errors (see the module header). When no family can take part (every
 * evidence unreliable and `includeUnreliable` off), every family is left out, every probability is 0,
 * and a warning says so.
 *
 * @example
 * familyProbabilities({ names: ["logistic", "rbf"], logEvidence: [-102.8, -104.1], stdErr: [0.1, 0.3], reliable: [true, true] });
 */
export function familyProbabilities(options: FamilyProbabilitiesOptions): FamilyProbabilities {
  const { names, logEvidence, stdErr, reliable } = options;
  const count = names.length;
  if (count < 1) throw invalidArgument("familyProbabilities", "give at least one family.");
  if (logEvidence.length !== count || stdErr.length !== count || reliable.length !== count) {
    throw new OccamError(
      "dimension-mismatch",
      `familyProbabilities: names, logEvidence, stdErr and reliable must have one entry per family (${count}).`,
    );
  }
  const prior = options.prior ?? new Array<number>(count).fill(1 / count);
  if (prior.length !== count)
    throw invalidArgument("familyProbabilities", `prior has ${prior.length} entries, expected ${count}.`);
  for (let i = 0; i < count; i++) {
    if (!(prior[i] >= 0 && Number.isFinite(prior[i])))
      throw invalidArgument("familyProbabilities", `prior[${i}] must be finite and ≥ 0.`);
  }
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1))
    throw invalidArgument("familyProbabilities", `level must lie in (0, 1), got ${level}.`);
  const simulations = options.simulations ?? 4000;
  if (!(Number.isInteger(simulations) && simulations >= 100))
    throw invalidArgument("familyProbabilities", "simulations must be an integer ≥ 100.");
  const includeUnreliable = options.includeUnreliable ?? false;
  const warnings: string[] = [];
  const included = names.map((name, i) => {
    if (prior[i] === 0) return false;
    const ok = reliable[i] || includeUnreliable;
    if (!reliable[i]) {
      warnings.push(
        includeUnreliable
          ? `${name}: its evidence is not reliable but is included on request; its probability may be wrong by more than its interval says.`
          : `${name}: its evidence is not reliable, so it is left out of the family probabilities and the average (includeUnreliable, or --include-unreliable, keeps it, to see what it would change).`,
      );
    }
    return ok;
  });
  const kept = names.map((_, i) => i).filter((i) => included[i]);
  if (kept.length === 0) {
    // Nothing trustworthy to weigh: no probabilities, and the caller says so instead of averaging.
    warnings.push(
      "no family has a reliable evidence (and a non-zero prior), so there are no family probabilities and no average: run the estimators longer, or include unreliable evidences explicitly.",
    );
    const zero = () => new Float64Array(count);
    return Object.freeze({
      names: [...names],
      included,
      probability: zero(),
      probabilityStdErr: zero(),
      lower: zero(),
      upper: zero(),
      level,
      warnings: Object.freeze(warnings),
    });
  }
  const comparison = compareModels({
    logEvidence: kept.map((i) => logEvidence[i]),
    stdErr: kept.map((i) => stdErr[i]),
    logPrior: kept.map((i) => Math.log(prior[i])),
    names: kept.map((i) => names[i]),
  });
  const probability = new Float64Array(count);
  const probabilityStdErr = new Float64Array(count);
  kept.forEach((i, j) => {
    probability[i] = comparison.probability[j];
    probabilityStdErr[i] = comparison.probabilityStdErr?.[j] ?? 0;
  });
  const { lower, upper } = simulatedIntervals(
    kept,
    logEvidence,
    stdErr,
    prior,
    count,
    level,
    simulations,
    options.seed ?? 1,
  );
  return Object.freeze({
    names: [...names],
    included,
    probability,
    probabilityStdErr,
    lower,
    upper,
    level,
    warnings: Object.freeze(warnings),
  });
}

/** Quantiles of the probabilities over simulated log evidences logZ_i + stdErr_i · N(0, 1). */
function simulatedIntervals(
  kept: readonly number[],
  logEvidence: ArrayLike<number>,
  stdErr: ArrayLike<number>,
  prior: ArrayLike<number>,
  count: number,
  level: number,
  simulations: number,
  seed: number,
): { lower: Float64Array; upper: Float64Array } {
  const rng = createRng(seed);
  const K = kept.length;
  const samples = new Float64Array(K * simulations);
  const logPost = new Float64Array(K);
  for (let s = 0; s < simulations; s++) {
    let max = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < K; j++) {
      const i = kept[j];
      logPost[j] = logEvidence[i] + stdErr[i] * rng.normal() + Math.log(prior[i]);
      if (logPost[j] > max) max = logPost[j];
    }
    let total = 0;
    for (let j = 0; j < K; j++) total += Math.exp(logPost[j] - max);
    for (let j = 0; j < K; j++) samples[j * simulations + s] = Math.exp(logPost[j] - max) / total;
  }
  const lower = new Float64Array(count);
  const upper = new Float64Array(count);
  const tail = 0.5 * (1 - level);
  for (let j = 0; j < K; j++) {
    const sorted = samples.subarray(j * simulations, (j + 1) * simulations).sort();
    lower[kept[j]] = sorted[Math.floor(tail * (simulations - 1))];
    upper[kept[j]] = sorted[Math.ceil((1 - tail) * (simulations - 1))];
  }
  return { lower, upper };
}

/** Options of {@link stackingWeights}. */
export interface StackingOptions {
  /**
   * Stop when an iteration raises the mean log score by less than this.
   * @defaultValue 1e-10
   */
  tolerance?: number;
  /** @defaultValue 10000 */
  maxIterations?: number;
}

/** The result of {@link stackingWeights}. */
export interface StackingWeights {
  /** The weights on the simplex, one per model. */
  readonly weights: Float64Array;
  /** The maximised held-out log score Σ_i log Σ_m w_m p_im (nats). */
  readonly logScore: number;
  readonly iterations: number;
  readonly converged: boolean;
}

/**
 * Stacking weights from held-out log predictive densities `logDensity` (n × M, row i model m:
 * log p(y_i | x_i, D_−i, M_m), e.g. leave-one-out or G-fold): the w on the simplex maximising
 * Σ_i log Σ_m w_m p_im (Yao et al. 2018, eq. 4). The objective is concave, and the fixed-point
 * iteration w_m ← w_m · (1/n) Σ_i p_im / Σ_m′ w_m′ p_im′ (the EM algorithm for mixture weights) raises it
 * at every step from the uniform start; it stops when the gain falls below `tolerance`. Densities are
 * rescaled per row in log space, so no exponential underflows.
 *
 * @example
 * const { weights } = stackingWeights(loo, n, 3); // loo: n × 3 log densities
 */
export function stackingWeights(
  logDensity: ArrayLike<number>,
  n: number,
  M: number,
  options: StackingOptions = {},
): StackingWeights {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(M) && M >= 1) || logDensity.length !== n * M) {
    throw new OccamError(
      "dimension-mismatch",
      `stackingWeights: need n × M = ${n} × ${M} log densities, got ${logDensity.length}.`,
    );
  }
  const tolerance = options.tolerance ?? 1e-10;
  const maxIterations = options.maxIterations ?? 10000;
  // p_im / max_m p_im, and the row maxima, so that the score is Σ_i [max_i + log Σ_m w_m q_im].
  const q = new Float64Array(n * M);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    let max = Number.NEGATIVE_INFINITY;
    for (let m = 0; m < M; m++) {
      const v = logDensity[i * M + m];
      if (Number.isNaN(v) || v === Number.POSITIVE_INFINITY) {
        throw new OccamError("non-finite", `stackingWeights: log density of row ${i}, model ${m} is ${v}.`);
      }
      if (v > max) max = v;
    }
    if (max === Number.NEGATIVE_INFINITY) {
      throw new OccamError("non-finite", `stackingWeights: every model gives row ${i} zero density.`);
    }
    offset += max;
    for (let m = 0; m < M; m++) q[i * M + m] = Math.exp(logDensity[i * M + m] - max);
  }
  const w = new Float64Array(M).fill(1 / M);
  const next = new Float64Array(M);
  const score = (): number => {
    let s = 0;
    for (let i = 0; i < n; i++) {
      let mix = 0;
      for (let m = 0; m < M; m++) mix += w[m] * q[i * M + m];
      s += Math.log(mix);
    }
    return s;
  };
  let current = score();
  let iterations = 0;
  let converged = M === 1;
  while (!converged && iterations < maxIterations) {
    next.fill(0);
    for (let i = 0; i < n; i++) {
      let mix = 0;
      for (let m = 0; m < M; m++) mix += w[m] * q[i * M + m];
      for (let m = 0; m < M; m++) next[m] += (w[m] * q[i * M + m]) / mix / n;
    }
    w.set(next);
    iterations++;
    const updated = score();
    converged = updated - current < tolerance * n;
    current = updated;
  }
  return Object.freeze({ weights: w, logScore: current + offset, iterations, converged });
}
