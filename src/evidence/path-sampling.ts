/**
 * Path sampling / thermodynamic integration (Gelman & Meng 1998; Fabricius thesis §5.3–5.5, seed 004):
 * log Z = ∫₀¹ E_β[log L] dβ along the geometric path p(θ) L(θ)^β (thesis eqs. 5.19–5.21, 5.29).
 */
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { checkModel, type RandomOptions, resolveRng } from "./checks.js";
import { paretoKHat } from "./importance-sampling.js";
import { nonFiniteChecks } from "./overflow.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";
import { combineIslands, type TemperingDefaults, type TemperingOptions } from "./tempering/estimates.js";
import { type LadderRecord, nodeMoments, pathIslands } from "./tempering/ladder.js";
import {
  type PowerPosteriorOptions,
  resolvePowerPosteriorOptions,
  samplePowerPosteriors,
} from "./tempering/power-posterior.js";
import {
  LOG_POOLING,
  ladderToPrecision,
  type PooledDiagnostics,
  type PrecisionOptions,
} from "./tempering/precision.js";
import { integrate, type QuadratureRule } from "./tempering/quadrature.js";
import { type ReferenceRunOptions, resolveReferenceRuns } from "./tempering/reference.js";
import { randomTemperatures, temperatureDensity } from "./tempering/schedule.js";
import { logWeightSummary, meanAndSd } from "./weights.js";

/** Options of path sampling's ladder scheme (the default): the engine's, and the quadrature rule. */
export interface PathLadderOptions
  extends RandomOptions,
    TemperingOptions,
    PrecisionOptions,
    ReferenceRunOptions {
  scheme?: "ladder";
  /**
   * The quadrature rule (see {@link QuadratureRule}): "hermite" corrects the trapezoid rule with the
   * slopes Var_β[log L]; "simpson" integrates the quadratic through each pair of intervals.
   * @defaultValue "hermite"
   */
  rule?: QuadratureRule;
}

/** Options of the thesis's random-temperature scheme (eq. 5.23): one warm-started chain through random temperatures. */
export interface PathRandomOptions extends PowerPosteriorOptions {
  scheme: "random";
  /**
   * The number N of random temperatures.
   * @defaultValue 1000 (as the thesis)
   */
  temperatures?: number;
  /**
   * The exponent k < 1 of the temperature density p(θ) = (1 − k) θ^−k.
   * @defaultValue 0.9 (the thesis's best among 0, 0.5, 0.9, 0.99)
   */
  k?: number;
}

/** Options of {@link pathSampling}. */
export type PathSamplingOptions = PathLadderOptions | PathRandomOptions;

/**
 * Path sampling's defaults: 1024 particles, a finer ladder than stepping-stone's (each step keeps 80 %
 * of the ESS), draws at β = 1, and sweeps until a thousandth of the start's memory is left. Each
 * E_β[log L] is an average over draws that should be at β; a cloud lagging behind β biases it low: on
 * a 50-dimensional Gaussian with a correlated posterior (ρ = 0.9) and a Gaussian prior, sweeps that
 * stopped at decorrelation gave errors of mean −0.063 nats over ten seeds (every one below the exact
 * value), and with `memoryLeft` 0.001 of mean +0.004 (single runs, at 1.5 times the evaluations) and
 * −0.003 with the further runs of {@link pathSampling}'s precision target (also −0.003 over the
 * calibration suite's 20 seeds, errors' sd 1.1 times the mean standard error there).
 */
export const PATH_DEFAULTS: TemperingDefaults = {
  particles: 1024,
  sweeps: "auto",
  memoryLeft: 0.001,
  targetEss: 0.8,
  draws: 8,
  resample: "always",
  finalSweeps: true,
  independence: true,
};

/**
 * Path sampling's diagnostics on a ladder: the engine's of its last pooled run and every run's
 * summary, and the last pooled run's ladder.
 */
export interface PathLadderDiagnostics extends PooledDiagnostics {
  readonly scheme: "ladder";
  readonly rule: QuadratureRule;
  /** The temperatures, E_β[log L] and Var_β[log L] over all the draws at each. */
  readonly ladder: readonly number[];
  readonly meanLogLikelihood: readonly number[];
  readonly varianceLogLikelihood: readonly number[];
  /**
   * Pareto k̂ of the lower tail of log L over the prior draws (above 0.7, the integral starts at β_1);
   * null when some prior draw has log L = −∞.
   */
  readonly priorTailK: number | null;
  /**
   * The estimate of the same rule on every other temperature, and the discretisation error from it
   * (the standard error is √(monteCarloStdErr² + discretisationError²)).
   */
  readonly halfLadderEstimate: number;
  readonly discretisationError: number;
}

/** Path sampling's diagnostics with random temperatures. */
export interface PathRandomDiagnostics {
  readonly scheme: "random";
  readonly k: number;
  readonly temperatures: number;
  readonly kernel: string;
  readonly drawsPerTemperature: number;
  readonly warmupPerTemperature: number;
  /** The sd of the terms U/p(θ). */
  readonly termSd: number;
  /** For comparison: the trapezoid rule over the sorted temperatures. */
  readonly orderedTrapezoidEstimate: number;
}

/** The result of {@link pathSampling}. */
export type PathSamplingResult = EvidenceEstimate<"path", PathLadderDiagnostics | PathRandomDiagnostics>;

/**
 * Evidence by path sampling (thermodynamic integration): log Z = ∫₀¹ E_β[log L(θ)] dβ, where the
 * integrand U = d/dβ log[p(θ) L(θ)^β] = log L(θ) (thesis eq. 5.21 on the geometric path 5.29, the
 * prior as reference system, z₀ = 1).
 *
 * **Ladder scheme (the default)**: the tempering engine carries a population of chains from the prior
 * to the posterior on an adaptive ladder (each step keeps 80 % of the ESS, so the temperatures follow
 * the power posterior wherever it moves, however broad the prior) and E_β[log L] is the mean of log L
 * over every draw at each temperature, integrated by the corrected trapezoid rule ("hermite": the
 * trapezoid rule minus h²/12 times the change of the slope Var_β[log L] over each interval), Simpson's
 * or the plain trapezoid rule. The standard error is the spread of the islands' estimates (each
 * island's own draws give its own integral; scaled by t_{0.975, G−1}/1.96), which includes the
 * autocorrelation of the sweeps and the correlation between temperatures, plus, in quadrature, the
 * quadrature's own error, estimated by the same rule on the half ladder and Richardson's factor, with
 * a warning when it dominates.
 *
 * Precision: unless `particles` is given, further independent runs of `particles` follow
 * until the pooled standard error is at most `targetStdErr` (0.05 nats), as for `steppingStone`, and
 * at least two: one run's islands understate its error (they share its temperatures and tuning; on
 * a 20-dimensional box-bounded Gaussian single runs had errors' sd 1.4 times their standard error),
 * so the runs' log Z are averaged, their Monte Carlo errors pooled and scaled by the runs' spread
 * ratio whenever it is above 1, and the last run's discretisation error, which more runs on like
 * ladders do not shrink, added in quadrature. One run is made when `particles` is given, and when
 * `maxParticles` leaves no room for a second (with a warning). The first run is then a pilot, and
 * the runs after it start from a normal fitted to its posterior (`referenceRuns`; see `steppingStone`),
 * which stands in for the prior: the integrand becomes E_β[log p L / q].
 *
 * When E_prior[log L] is infinite or has an infinite variance (some prior draws have log L = −∞, or
 * the lower tail of log L over the prior draws has Pareto k̂ > 0.7, as with a Gamma prior of shape
 * ≤ 1 on a weight precision), the integral starts at the first rung β_1 and log Z(β_1) =
 * log E_prior[L^{β_1}] is estimated by importance sampling from the prior draws (stepping-stone's
 * first rung), with a warning.
 *
 * **Random scheme** (thesis eq. 5.23): N temperatures θ_i from p(θ) = (1 − k) θ^−k (eq. 5.31, with the
 * normalisation corrected from θ^−k/(1 − k)), sorted increasing, a short warm-started chain segment at
 * each (`warmupPerTemperature` 2 and `drawsPerTemperature` 1 by default: the thesis keeps the third
 * of three Gibbs sweeps), and log Z ≈ (1/N) Σ U_i / p(θ_i). Unbiased when each draw comes from its
 * power posterior; the standard error sd(U/p)/√N treats the terms as independent, which the
 * warm-started draws are not, so the result is always marked unreliable. Its terms carry the whole
 * size of log L times 1/p(θ): on the 10-dimensional Gaussian-mean test model with k = 0.9 their
 * variance is about 3.5 × 10⁵ nats², a standard error near 19 nats with the thesis's N = 1000.
 *
 * @example
 * const result = pathSampling(model, { particles: 2048, seed: 1 });
 */
export function pathSampling(model: BayesModel, options: PathSamplingOptions = {}): PathSamplingResult {
  const start = performance.now();
  const where = "pathSampling";
  checkModel(model, where);
  const scheme = options.scheme ?? "ladder";
  if (options.scheme === "random") return randomScheme(model, options, where, start);
  if (scheme !== "ladder") {
    throw new OccamError(
      "invalid-argument",
      `${where}: scheme must be "ladder" or "random", got ${String(scheme)}.`,
    );
  }
  return ladderScheme(model, options as PathLadderOptions, where);
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

function ladderScheme(model: BayesModel, options: PathLadderOptions, where: string): PathSamplingResult {
  const rule = options.rule ?? "hermite";
  if (rule !== "trapezoid" && rule !== "simpson" && rule !== "hermite") {
    throw new OccamError(
      "invalid-argument",
      `${where}: rule must be "hermite", "trapezoid" or "simpson", got ${String(rule)}.`,
    );
  }
  // From a normal fitted to the pilot (see ReferenceFamily), not a Student-t.
  const pooling = {
    ...LOG_POOLING,
    referenceRuns: resolveReferenceRuns(options, where),
    referenceFamily: "normal" as const,
  };
  return ladderToPrecision("path", pooling, model, options, PATH_DEFAULTS, where, (record) =>
    integrateLadder(record, rule, where),
  );
}

/**
 * One run's integral: the islands' estimates (with log Z(β_1) added when the integral starts at β_1),
 * the discretisation error as the error the runs share, and the ladder's diagnostics.
 */
function integrateLadder(record: LadderRecord, rule: QuadratureRule, where: string) {
  const betas = record.betas;
  const moments = nodeMoments(record);
  const warnings: string[] = [];

  // E_prior[log L] from the prior draws: when some are −∞ or their lower tail is too heavy, the
  // integral starts at β_1 and log Z(β_1) = log E₀[L^{β_1}] comes from stepping-stone's first rung.
  const tail = priorLogLikelihoodTail(record.draws[0][0]);
  const first = tail > PRIOR_TAIL_K ? 1 : 0;
  const islandLogZ = pathIslands(record, moments, rule, first);
  // The first rung, log E₀[L^β_1], from all the prior draws at once (an island whose prior draws all
  // have zero likelihood has no integral of its own, and drops out of the islands' mean).
  let firstRung = { logZ: 0, stdErr: 0 };
  if (first === 1) {
    firstRung = logWeightSummary(
      Float64Array.from(record.draws[0][0], (l) => betas[1] * l),
      where,
    );
    warnings.push(
      (tail === Number.POSITIVE_INFINITY
        ? "some prior draws have log L = −Infinity, so E_prior[log L] = −∞"
        : `the prior draws' log likelihoods have a heavy lower tail (Pareto k̂ = ${tail.toFixed(2)} > ${PRIOR_TAIL_K}): ` +
          "E_prior[log L] is infinite or has an infinite variance") +
        `; the integral starts at β_1 = ${betas[1]} and log Z(β_1) = log E_prior[L^β_1] is estimated by importance sampling.`,
    );
  }
  // Each island's log Z with the first rung's, so that islands of runs with and without one compare.
  for (let g = 0; g < islandLogZ.length; g++) islandLogZ[g] += firstRung.logZ;
  const islands = combineIslands(islandLogZ, "sum");

  // The same rule on the half ladder (every other temperature, keeping β = 1) for the discretisation error.
  const index: number[] = [];
  for (let k = first; k < betas.length; k++) index.push(k);
  const half = index.filter((_, i) => i % 2 === 0);
  if (half[half.length - 1] !== betas.length - 1) half.push(betas.length - 1);
  const pooled = (nodes: number[]) =>
    integrate(
      nodes.map((k) => betas[k]),
      nodes.map((k) => moments.pooledMeans[k]),
      nodes.map((k) => moments.pooledVariances[k]),
      rule,
    ) + firstRung.logZ;
  const halfLadderEstimate = pooled(half);
  const order = rule === "trapezoid" || half.length < 3 ? 2 : 4;
  const discretisationError = Math.abs(pooled(index) - halfLadderEstimate) / (2 ** order - 1);
  return {
    estimate: {
      ...islands,
      stdErr: Math.hypot(islands.stdErr, firstRung.stdErr),
      warnings: [...islands.warnings, ...warnings],
    },
    reasons: [],
    shared: {
      stdErr: discretisationError,
      what: "discretisation error (from the half ladder)",
      remedy: "use more temperatures (a higher targetEss)",
    },
    extra: {
      scheme: "ladder" as const,
      rule,
      ladder: betas,
      meanLogLikelihood: Array.from(moments.pooledMeans),
      varianceLogLikelihood: Array.from(moments.pooledVariances),
      priorTailK: Number.isFinite(tail) ? tail : null,
      halfLadderEstimate,
      discretisationError,
    },
  };
}

function randomScheme(
  model: BayesModel,
  options: PathRandomOptions,
  where: string,
  start: number,
): PathSamplingResult {
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
    method: "path",
    logZ: mean,
    stdErr: sd / Math.sqrt(n),
    nLikelihoodEvals: sample.nLikelihoodEvals,
    seconds: secondsSince(start),
    unreliable: [
      "the random-temperature scheme treats its warm-started draws as independent, so its standard error is too small; " +
        'use the default scheme "ladder".',
    ],
    warnings: [
      ...(sample.divergences > 0
        ? [
            `${sample.divergences} of the chains' kept transitions diverged: the power posteriors have regions they cannot follow.`,
          ]
        : []),
      ...nonFiniteChecks(sample.nonFinite, sample.nonFinite, n, "prior draws").warnings,
    ],
    diagnostics: {
      scheme: "random" as const,
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
