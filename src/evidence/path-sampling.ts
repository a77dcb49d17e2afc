/**
 * Path sampling / thermodynamic integration (Gelman & Meng 1998; Fabricius thesis §5.3–5.5, seed 004):
 * log Z = ∫₀¹ E_β[log L] dβ along the geometric path p(θ) L(θ)^β (thesis eqs. 5.19–5.21, 5.29).
 */
import { effectiveSampleSize } from "../diagnostics/ess.js";
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { paretoKHat } from "./importance-sampling.js";
import {
  type PowerPosteriorOptions,
  type PowerPosteriorSample,
  resolvePowerPosteriorOptions,
  samplePowerPosteriors,
  temperatureLabel,
} from "./power-posterior.js";
import {
  type EvidenceResult,
  evidenceResult,
  logWeightSummary,
  meanAndSd,
  resolveRng,
  secondsSince,
} from "./result.js";
import { randomTemperatures, temperatureDensity, validateLadder } from "./schedule.js";
import { SHORT_RUNG_FRACTION } from "./stepping-stone.js";
import {
  type AdaptiveLadder,
  type AdaptiveLadderOptions,
  adaptiveLadder,
  adaptiveSummary,
  resolveAdaptiveLadderOptions,
} from "./tempered-smc.js";

/**
 * Quadrature rule of the ladder scheme: `"trapezoid"`, `"simpson"` (the quadratic through each pair of
 * intervals), or `"hermite"`: the trapezoid rule corrected by the slopes at the nodes,
 * ∫_a^b f ≈ h (f(a) + f(b))/2 − h² (f'(b) − f'(a))/12 (the integral of the cubic Hermite interpolant),
 * with the exact slope d/dβ E_β[log L] = Var_β[log L] estimated from the same draws (Friel, Hurn &
 * Wyse 2014, "Improving power posterior estimation of statistical evidence", Statistics and
 * Computing 24). Each interval is integrated on its own, so it suits the very unequal spacing of an
 * adaptive ladder, where Simpson's quadratic through three nodes of very different spacing can
 * overshoot.
 */
export type QuadratureRule = "trapezoid" | "simpson" | "hermite";

/** Options of {@link pathSampling}. */
export interface PathSamplingOptions extends PowerPosteriorOptions {
  /**
   * `"ladder"`: E_β[log L] estimated at each temperature of a fixed ladder and integrated by
   * quadrature. `"random"`: the thesis's scheme (eq. 5.23), temperatures drawn from
   * p(θ) = (1 − k) θ^−k, one short chain segment at each.
   * @defaultValue "ladder"
   */
  scheme?: "ladder" | "random";
  /**
   * Ladder scheme: the temperatures, from 0 to 1, strictly increasing. Without one, an adaptive
   * ladder ({@link adaptiveLadder}, option `adaptive`): a pilot SMC run's stages, each split into 4.
   * @defaultValue the adaptive ladder
   */
  ladder?: ArrayLike<number>;
  /**
   * Ladder scheme, without `ladder`: how the adaptive ladder is found (`refine` defaults to 4).
   * @defaultValue `{ particles: 200, targetEss: 0.5, refine: 4 }`
   */
  adaptive?: AdaptiveLadderOptions;
  /**
   * Ladder scheme: the quadrature rule (see {@link QuadratureRule}). "simpson" integrates the
   * quadratic through each pair of intervals (for any spacing; with an odd number of intervals the
   * last one uses the quadratic through the last three temperatures); "hermite" corrects the
   * trapezoid rule with the slopes Var_β[log L].
   * @defaultValue "hermite"
   */
  rule?: QuadratureRule;
  /**
   * Random scheme: the number N of random temperatures.
   * @defaultValue 1000 (as the thesis)
   */
  temperatures?: number;
  /**
   * Random scheme: the exponent k < 1 of the temperature density p(θ) = (1 − k) θ^−k.
   * @defaultValue 0.9 (the thesis's best among 0, 0.5, 0.9, 0.99)
   */
  k?: number;
}

/**
 * Weights of the nodes a < b < c for ∫_lo^hi of the quadratic interpolating them (Lagrange basis
 * integrated exactly; coordinates shifted to b to limit cancellation).
 */
function quadraticWeights(a: number, b: number, c: number, lo: number, hi: number): [number, number, number] {
  const A = a - b;
  const C = c - b;
  const L = lo - b;
  const H = hi - b;
  // ∫ (u − p)(u − q) du from L to H, with u = x − b.
  const integral = (p: number, q: number): number => {
    const f = (u: number) => (u * u * u) / 3 - ((p + q) * u * u) / 2 + p * q * u;
    return f(H) - f(L);
  };
  return [
    integral(0, C) / (A * (A - C)),
    integral(A, C) / ((0 - A) * (0 - C)),
    integral(A, 0) / (C * (C - A)),
  ];
}

/**
 * Quadrature weights of `rule` on the nodes `x` (sorted increasing, at least 2): ∫ f ≈ Σ w_k f(x_k).
 * For "hermite" these are the trapezoid weights; the slopes' weights are {@link slopeWeights}.
 */
export function quadratureWeights(x: ArrayLike<number>, rule: QuadratureRule): Float64Array {
  const n = x.length;
  const w = new Float64Array(n);
  if (rule === "trapezoid" || rule === "hermite" || n < 3) {
    for (let k = 0; k + 1 < n; k++) {
      const h = x[k + 1] - x[k];
      w[k] += h / 2;
      w[k + 1] += h / 2;
    }
    return w;
  }
  let k = 0;
  for (; k + 2 < n; k += 2) {
    const [wa, wb, wc] = quadraticWeights(x[k], x[k + 1], x[k + 2], x[k], x[k + 2]);
    w[k] += wa;
    w[k + 1] += wb;
    w[k + 2] += wc;
  }
  if (k + 1 < n) {
    // An odd number of intervals: the last one by the quadratic through the last three nodes.
    const [wa, wb, wc] = quadraticWeights(x[k - 1], x[k], x[k + 1], x[k], x[k + 1]);
    w[k - 1] += wa;
    w[k] += wb;
    w[k + 1] += wc;
  }
  return w;
}

/**
 * The weights c_k of the slopes in the corrected trapezoid rule ("hermite"): ∫ f ≈ Σ w_k f(x_k) +
 * Σ c_k f'(x_k), c_k = (h_k² − h_{k−1}²)/12 with h_k = x_{k+1} − x_k (h_{−1} = h_K = 0).
 */
export function slopeWeights(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const c = new Float64Array(n);
  for (let k = 0; k + 1 < n; k++) {
    const h2 = (x[k + 1] - x[k]) ** 2 / 12;
    c[k] += h2;
    c[k + 1] -= h2;
  }
  return c;
}

/**
 * Evidence by path sampling (thermodynamic integration): log Z = ∫₀¹ E_β[log L(θ)] dβ, where the
 * integrand U = d/dβ log[p(θ) L(θ)^β] = log L(θ) (thesis eq. 5.21 on the geometric path 5.29, the
 * prior as reference system, z₀ = 1).
 *
 * **Ladder scheme (the default)**: E_β[log L] is estimated by the mean of log L over the draws at
 * each temperature of a ladder (thesis eq. 5.22) and integrated by the corrected trapezoid rule
 * ("hermite", the default: the trapezoid rule minus h²/12 times the change of the slope
 * d/dβ E_β[log L] = Var_β[log L] over each interval, both estimated from the draws), Simpson's or the
 * plain trapezoid rule. The default ladder is adaptive ({@link adaptiveLadder}): a pilot run of
 * adaptive tempered SMC (200 particles, the model's exact kernel where it has one) finds stages whose
 * incremental weights keep half their ESS, each then split into 4, so the temperatures follow the
 * power posterior wherever it moves; with a prior much broader than the likelihood that is at
 * β ~ 10⁻¹¹ … 10⁻⁴, where powerLadder(32, 4) has no rungs (on the wine data, raw inputs, v = 10⁴, it
 * was 2 × 10⁷ nats off; the adaptive ladder with "hermite" stays within 0.3 nats, at |z| < 3).
 *
 * The standard error propagates each temperature's Monte Carlo error through the quadrature: per
 * temperature the variance of the mean of its influence values w_k ℓ_i + c_k (ℓ_i − ℓ̄)² (w_k, c_k the
 * weights of the values and of the slopes) over their ESS. The quadrature's own (discretisation)
 * error is estimated by the same rule on the half ladder (every other temperature) and Richardson's
 * factor, reported in `diagnostics.discretisationError` with the other rule's estimate, and added in
 * quadrature to the standard error (`diagnostics.monteCarloStdErr` is the Monte Carlo part alone),
 * with a warning when it dominates.
 *
 * When E_prior[log L] is infinite or has an infinite variance (some prior draws have log L = −∞, or
 * the lower tail of log L over the prior draws has Pareto k̂ > 0.7, as with a Gamma prior of shape
 * ≤ 1 on a weight precision), the integral from 0 is meaningless: it then starts at the first rung
 * β_1, log Z(β_1) = log E_prior[L^{β_1}] is estimated by importance sampling from the prior draws (the
 * first rung of stepping-stone sampling), and a warning says so.
 *
 * **Random scheme** (thesis eq. 5.23): N temperatures θ_i from p(θ) = (1 − k) θ^−k (eq. 5.31, with the
 * normalisation corrected from θ^−k/(1 − k)), sorted increasing, a short warm-started chain segment at
 * each (`warmupPerTemperature` 2 and `drawsPerTemperature` 1 by default: the thesis keeps the third
 * of three Gibbs sweeps), and log Z ≈ (1/N) Σ U_i / p(θ_i). Unbiased when each draw comes from its
 * power posterior; the standard error sd(U/p)/√N treats the terms as independent, which the
 * warm-started draws are not quite.
 *
 * Why the ladder is the default: the terms U/p(θ) of the random scheme carry the whole size of
 * log L (hundreds of nats for 20 observations) times 1/p(θ), so their variance is enormous: on the
 * 10-dimensional Gaussian-mean test model with k = 0.9 it is about 3.5 × 10⁵ nats² per term, a
 * standard error near 19 nats with the thesis's N = 1000, where a 33-temperature ladder with 1000
 * draws each reaches about 0.06 nats at a similar cost. "hermite" is the default rule because each
 * interval is integrated on its own with its exact slopes, which suits the very unequal spacing of an
 * adaptive ladder: on the wine models (adaptive ladder, 500 draws) the trapezoid rule was biased by
 * up to −0.7 nats, Simpson and "hermite" were not, and "hermite"'s estimated discretisation error was
 * 4 times smaller than Simpson's.
 *
 * Throws an `OccamError` for a NaN log likelihood (naming the temperature), and for a −∞ one at
 * β = 0 when the β = 0 draws are not exact prior draws (`exactPrior: false`).
 *
 * @example
 * const result = pathSampling(model, { drawsPerTemperature: 2000, seed: 1 });
 */
export function pathSampling(model: BayesModel, options: PathSamplingOptions = {}): EvidenceResult {
  const start = performance.now();
  const where = "pathSampling";
  const scheme = options.scheme ?? "ladder";
  if (scheme === "ladder") return ladderScheme(model, options, where, start);
  if (scheme === "random") return randomScheme(model, options, where, start);
  throw new OccamError(
    "invalid-argument",
    `${where}: scheme must be "ladder" or "random", got ${String(scheme)}.`,
  );
}

/** Pareto k̂ of the lower tail of the prior draws' log likelihoods above which E₀[log L] is not trusted. */
export const PRIOR_TAIL_K = 0.7;

/**
 * The Pareto shape k̂ of the lower tail of log L over prior draws (of −log L above its minimum): k̂ ≥ 1
 * means E_prior[log L] = −∞, k̂ > 0.5 an infinite variance; a likelihood with light tails gives
 * k̂ ≈ 0. +Infinity when some draw has log L = −∞.
 */
export function priorLogLikelihoodTail(ell: Float64Array): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < ell.length; i++) {
    if (ell[i] === Number.NEGATIVE_INFINITY) return Number.POSITIVE_INFINITY;
    if (ell[i] > max) max = ell[i];
  }
  // log(1 + (max − ℓ)): the GPD fit is then to the tail of −ℓ, shifted to start at 1 (k̂ is shift-free
  // in the limit; the shift keeps the logs finite).
  const logValues = Float64Array.from(ell, (l) => Math.log1p(max - l));
  const k = paretoKHat(logValues);
  return Number.isFinite(k) ? k : 0;
}

interface NodeStatistics {
  /** E_β[log L] estimates. */
  means: Float64Array;
  /** Var_β[log L] estimates (the slope of E_β[log L]). */
  variances: Float64Array;
}

function nodeStatistics(sample: PowerPosteriorSample, from: number): NodeStatistics {
  const temps = sample.temperatures;
  const means = new Float64Array(temps.length);
  const variances = new Float64Array(temps.length);
  for (let k = from; k < temps.length; k++) {
    const { mean, sd } = meanAndSd(temps[k].logLikelihood);
    means[k] = mean;
    variances[k] = sd * sd;
  }
  return { means, variances };
}

/**
 * Variance of Σ_k (w_k mean_k + c_k var_k) over the nodes `from` … K: to first order each node
 * contributes the variance of the mean of its influence values φ_i = w_k ℓ_i + c_k (ℓ_i − mean_k)²,
 * divided by their effective sample size (the number of draws for independent prior draws). Nodes are
 * independent chains. Returns the total and each node's Monte Carlo error (√ of its contribution).
 */
function quadratureVariance(
  sample: PowerPosteriorSample,
  stats: NodeStatistics,
  w: Float64Array,
  c: Float64Array | undefined,
  from: number,
): { variance: number; nodeErrors: Float64Array } {
  const temps = sample.temperatures;
  const nodeErrors = new Float64Array(temps.length);
  let variance = 0;
  for (let k = from; k < temps.length; k++) {
    const ell = temps[k].logLikelihood;
    const n = ell.length;
    const phi = new Float64Array(n);
    const m = stats.means[k];
    const ck = c === undefined ? 0 : c[k];
    for (let i = 0; i < n; i++) phi[i] = w[k] * ell[i] + ck * (ell[i] - m) ** 2;
    const { sd } = meanAndSd(phi);
    if (!Number.isFinite(sd)) {
      throw new OccamError(
        "invalid-argument",
        `pathSampling: the Monte Carlo error at ${temperatureLabel(sample.betas, k)} cannot be estimated (too few draws); use drawsPerTemperature ≥ 8.`,
      );
    }
    let ess = temps[k].exact ? n : n >= 8 ? effectiveSampleSize([phi]) : Number.NaN;
    if (Number.isNaN(ess)) ess = sd === 0 ? n : temps[k].ess;
    const v = sd === 0 ? 0 : (sd * sd) / ess;
    nodeErrors[k] = Math.sqrt(v);
    variance += v;
  }
  return { variance, nodeErrors };
}

/** ∫ over the nodes `from` … K of `rule` (with the slopes for "hermite"). */
function integrate(
  betas: ArrayLike<number>,
  stats: NodeStatistics,
  rule: QuadratureRule,
  index: number[],
): number {
  const x = index.map((k) => betas[k]);
  const w = quadratureWeights(x, rule);
  let sum = 0;
  for (let i = 0; i < index.length; i++) sum += w[i] * stats.means[index[i]];
  if (rule === "hermite") {
    const c = slopeWeights(x);
    for (let i = 0; i < index.length; i++) sum += c[i] * stats.variances[index[i]];
  }
  return sum;
}

/** Path sampling's default ladder: each stage of the adaptive pilot split into this many rungs. */
export const PATH_REFINE = 4;

function ladderScheme(
  model: BayesModel,
  options: PathSamplingOptions,
  where: string,
  start: number,
): EvidenceResult {
  const rule = options.rule ?? "hermite";
  if (rule !== "trapezoid" && rule !== "simpson" && rule !== "hermite") {
    throw new OccamError(
      "invalid-argument",
      `${where}: rule must be "hermite", "trapezoid" or "simpson", got ${String(rule)}.`,
    );
  }
  const resolved = resolvePowerPosteriorOptions(options, where, { minDraws: 2 });
  let ladder: Float64Array;
  let sampling: PowerPosteriorOptions = options;
  let pilot: AdaptiveLadder | undefined;
  if (options.ladder === undefined) {
    const adaptive = resolveAdaptiveLadderOptions(options.adaptive, where);
    const [pilotStream, samplingStream] = resolveRng(options, where).split(2);
    pilot = adaptiveLadder(model, pilotStream, adaptive, PATH_REFINE, where);
    ladder = pilot.ladder;
    sampling = { ...options, seed: undefined, rng: samplingStream };
  } else {
    ladder = validateLadder(options.ladder, `${where}: ladder`);
  }
  const sample = samplePowerPosteriors(model, ladder, sampling, where, resolved);
  const K = ladder.length - 1;
  const warnings: string[] = [];

  // E_prior[log L] from the β = 0 draws: when some are −∞ or their lower tail is too heavy (E₀[log L]
  // = −∞, or an infinite variance), the integral starts at β_1 and log Z_{β_1} = log E₀[L^{β_1}] is
  // estimated by importance sampling, as the first rung of stepping-stone sampling.
  const prior = sample.temperatures[0];
  const tail = prior.exact ? priorLogLikelihoodTail(prior.logLikelihood) : 0;
  let first = 0;
  let firstRung: { logRatio: number; variance: number; essFraction: number } | undefined;
  if (!prior.exact) {
    for (let i = 0; i < prior.logLikelihood.length; i++) {
      if (prior.logLikelihood[i] === Number.NEGATIVE_INFINITY) {
        throw new OccamError(
          "non-finite",
          `${where}: the log likelihood is −Infinity at draw ${i} at ${temperatureLabel(ladder, 0)}, so E_β[log L] = −∞ there ` +
            "and thermodynamic integration is undefined; use exactPrior: true (the default) or steppingStone.",
        );
      }
    }
  } else if (tail > PRIOR_TAIL_K) {
    first = 1;
    firstRung = stoneRung(prior.logLikelihood, ladder[1], where);
    warnings.push(
      (tail === Number.POSITIVE_INFINITY
        ? "some prior draws have log L = −Infinity, so E_prior[log L] = −∞"
        : `the prior draws' log likelihoods have a heavy lower tail (Pareto k̂ = ${tail.toFixed(2)} > ${PRIOR_TAIL_K}): ` +
          "E_prior[log L] is infinite or has an infinite variance") +
        `; the integral starts at β_1 = ${ladder[1]} and log Z(β_1) = log E_prior[L^β_1] is estimated by importance sampling ` +
        "(stepping-stone's first rung). steppingStone avoids the issue altogether.",
    );
    if (firstRung.essFraction < SHORT_RUNG_FRACTION) {
      warnings.push(
        `the first rung (β 0 → ${ladder[1]}) has an importance-weight ESS fraction of ${firstRung.essFraction.toFixed(3)}: add temperatures near 0.`,
      );
    }
  }
  const stats = nodeStatistics(sample, first);
  const index: number[] = [];
  for (let k = first; k <= K; k++) index.push(k);
  const nodes = index.map((k) => ladder[k]);
  const wNodes = quadratureWeights(nodes, rule);
  const cNodes = rule === "hermite" ? slopeWeights(nodes) : undefined;
  const w = new Float64Array(K + 1);
  const c = new Float64Array(K + 1);
  for (let i = 0; i < index.length; i++) {
    w[index[i]] = wNodes[i];
    if (cNodes !== undefined) c[index[i]] = cNodes[i];
  }
  let logZ = integrate(ladder, stats, rule, index);
  let { variance, nodeErrors } = quadratureVariance(
    sample,
    stats,
    w,
    rule === "hermite" ? c : undefined,
    first,
  );
  if (firstRung !== undefined) {
    logZ += firstRung.logRatio;
    variance += firstRung.variance;
    nodeErrors[0] = Math.sqrt(firstRung.variance);
  }

  // The same rule on the half ladder (every other temperature, keeping β = 1) for the discretisation error.
  const half: number[] = [];
  for (let k = first; k <= K; k += 2) half.push(k);
  if (half[half.length - 1] !== K) half.push(K);
  const coarse = integrate(ladder, stats, rule, half) + (firstRung?.logRatio ?? 0);
  const order = rule === "trapezoid" || half.length < 3 ? 2 : 4;
  const discretisationError = Math.abs(logZ - coarse) / (2 ** order - 1);
  const otherRule: QuadratureRule = rule === "simpson" ? "trapezoid" : "simpson";
  const other = integrate(ladder, stats, otherRule, index) + (firstRung?.logRatio ?? 0);
  // The standard error counts the discretisation error too (added in quadrature): a coarse ladder
  // shows in it rather than in a confident wrong answer.
  const monteCarloStdErr = Math.sqrt(variance);
  const stdErr = Math.hypot(monteCarloStdErr, discretisationError);
  if (discretisationError > monteCarloStdErr) {
    warnings.push(
      `the estimated discretisation error (${discretisationError.toPrecision(3)} nats, from the half ladder) exceeds the Monte Carlo ` +
        `error (${monteCarloStdErr.toPrecision(3)}); the standard error includes it, but the estimate may be biased: use more temperatures` +
        (rule === "trapezoid" ? ' or rule "hermite"' : "") +
        ".",
    );
  }

  return evidenceResult({
    method: `path-sampling (${rule})`,
    logZ,
    stdErr,
    nLikelihoodEvals: sample.nLikelihoodEvals + (pilot?.evaluations ?? 0),
    seconds: secondsSince(start),
    diagnostics: {
      scheme: "ladder",
      rule,
      kernel: sample.kernel,
      ladder: Array.from(ladder),
      adaptiveLadder: pilot === undefined ? undefined : adaptiveSummary(pilot),
      drawsPerTemperature: resolved.drawsPerTemperature,
      meanLogLikelihood: Array.from(stats.means),
      varianceLogLikelihood: Array.from(stats.variances),
      monteCarloErrors: Array.from(nodeErrors),
      logLikelihoodEss: sample.temperatures.map((t) => t.ess),
      acceptanceRates: sample.temperatures.map((t) => t.acceptanceRate),
      priorTailK: tail,
      firstRungLogRatio: firstRung?.logRatio,
      halfLadderEstimate: coarse,
      discretisationError,
      monteCarloStdErr,
      otherRuleEstimate: other,
      warnings,
    },
  });
}

/** log E₀[L^β] from prior draws, with its delta-method variance and the weights' Kish ESS fraction. */
function stoneRung(
  ell: Float64Array,
  beta: number,
  where: string,
): { logRatio: number; variance: number; essFraction: number } {
  // −∞ · β = −∞: a zero-likelihood draw has weight 0.
  const logW = Float64Array.from(ell, (l) => beta * l);
  const summary = logWeightSummary(logW, where);
  return {
    logRatio: summary.logZ,
    variance: summary.stdErr ** 2,
    essFraction: summary.ess / logW.length,
  };
}

function randomScheme(
  model: BayesModel,
  options: PathSamplingOptions,
  where: string,
  start: number,
): EvidenceResult {
  const n = options.temperatures ?? 1000;
  if (!(Number.isInteger(n) && n >= 2)) {
    throw new OccamError("invalid-argument", `${where}: temperatures must be an integer ≥ 2, got ${n}.`);
  }
  const k = options.k ?? 0.9;
  if (!(Number.isFinite(k) && k < 1)) {
    throw new OccamError("invalid-argument", `${where}: k must be a finite number < 1, got ${k}.`);
  }
  const resolved = resolvePowerPosteriorOptions(options, where, {
    drawsPerTemperature: 1,
    warmupPerTemperature: 2,
  });
  const rng = resolveRng(options, where);
  const [temperatureStream, samplingStream] = rng.split(2);
  const thetas = randomTemperatures(n, temperatureStream, k);
  const sample = samplePowerPosteriors(
    model,
    thetas,
    { ...options, seed: undefined, rng: samplingStream },
    where,
    resolved,
  );
  const terms = new Float64Array(n);
  const means = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const ell = sample.temperatures[i].logLikelihood;
    let s = 0;
    for (let t = 0; t < ell.length; t++) s += ell[t];
    means[i] = s / ell.length;
    const p = temperatureDensity(thetas[i], k);
    // θ = 0 (possible only by underflow) has p = ∞ and contributes U/p = 0.
    terms[i] = Number.isFinite(p) ? means[i] / p : 0;
    if (!Number.isFinite(terms[i])) {
      throw new OccamError(
        "non-finite",
        `${where}: the term U/p(θ) at θ = ${thetas[i]} is ${terms[i]}; the log likelihood there is not finite.`,
      );
    }
  }
  const { mean, sd } = meanAndSd(terms);
  // For comparison: the trapezoid rule over the sorted temperatures, E_θ[log L] held flat beyond them.
  let ordered = thetas[0] * means[0] + (1 - thetas[n - 1]) * means[n - 1];
  for (let i = 0; i + 1 < n; i++) ordered += ((thetas[i + 1] - thetas[i]) * (means[i] + means[i + 1])) / 2;
  return evidenceResult({
    method: "path-sampling (random temperatures)",
    logZ: mean,
    stdErr: sd / Math.sqrt(n),
    nLikelihoodEvals: sample.nLikelihoodEvals,
    seconds: secondsSince(start),
    diagnostics: {
      scheme: "random",
      k,
      temperatures: n,
      kernel: sample.kernel,
      drawsPerTemperature: resolved.drawsPerTemperature,
      warmupPerTemperature: resolved.warmupPerTemperature,
      termSd: sd,
      orderedTrapezoidEstimate: ordered,
    },
  });
}
