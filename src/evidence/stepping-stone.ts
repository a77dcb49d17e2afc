/**
 * Stepping-stone sampling (Xie, Lewis, Fan, Kuo & Chen 2011, Systematic Biology 60(2)) and the
 * importance-sampling ratio machinery it shares with Barber & Bishop's chaining.
 */
import { effectiveSampleSize } from "../diagnostics/ess.js";
import { OccamError } from "../errors.js";
import { kishEss, logMeanExp } from "../math/logspace.js";
import type { BayesModel } from "../model/model.js";
import { paretoKHat } from "./importance-sampling.js";
import {
  type PowerPosteriorOptions,
  type PowerPosteriorSample,
  resolvePowerPosteriorOptions,
  samplePowerPosteriors,
  temperatureLabel,
} from "./power-posterior.js";
import { checkModel, type EvidenceResult, evidenceResult, resolveRng, secondsSince } from "./result.js";
import { validateLadder } from "./schedule.js";
import {
  type AdaptiveLadder,
  type AdaptiveLadderOptions,
  adaptiveLadder,
  adaptiveSummary,
  resolveAdaptiveLadderOptions,
} from "./tempered-smc.js";

/**
 * Which draws estimate each ratio r_k = Z_{β_{k+1}} / Z_{β_k}:
 * - `"lower"`: draws at β_k, r_k = E_{β_k}[L^{β_{k+1} − β_k}] (stepping-stone; Barber & Bishop eq. 4);
 * - `"both"`: draws at both ends, the geometric bridge r_k = E_{β_k}[L^{Δ/2}] / E_{β_{k+1}}[L^{−Δ/2}]
 *   (Meng & Wong 1996 with α = the geometric mean of the two densities): the same first-order variance
 *   for short rungs, much less skewed weights for long ones.
 */
export type RatioEnds = "lower" | "both";

/** One rung k → k + 1 of a ladder estimate. */
export interface RungEstimate {
  /** β_k, the lower end. */
  readonly from: number;
  /** β_{k+1}, the upper end. */
  readonly to: number;
  /** The estimate of log r_k = log Z_{β_{k+1}} − log Z_{β_k}. */
  readonly logRatio: number;
  /**
   * Kish's effective sample size fraction (Σw)² / (n Σw²) of the lower end's importance weights
   * L^{Δ} (for "both", of L^{Δ/2}): near 0 means the rung is too long.
   */
  readonly weightEssFraction: number;
  /**
   * Pareto k̂ of the upper tail of the same weights ({@link paretoKHat}): above 0.7 their variance is
   * probably infinite and the delta-method standard error meaningless.
   */
  readonly paretoK: number;
  /**
   * The error scale added (in quadrature) to the standard error for this rung because its weights
   * degenerate (ESS fraction below {@link SHORT_RUNG_FRACTION} or k̂ above {@link RUNG_PARETO_K}); 0
   * for a healthy rung. See {@link ladderRatioEstimate}.
   */
  readonly inflation: number;
}

/** The result of {@link ladderRatioEstimate}. */
export interface LadderRatioEstimate {
  readonly logZ: number;
  readonly stdErr: number;
  readonly rungs: readonly RungEstimate[];
  /** Per temperature: the effective sample size of the draws' influence on log Z (see below). */
  readonly influenceEss: Float64Array;
  /** The delta-method standard error alone, before the inflation of degenerate rungs. */
  readonly deltaStdErr: number;
}

function meanOf(values: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return sum / values.length;
}

/** Rungs whose weights' Pareto k̂ exceeds this are treated as degenerate. */
export const RUNG_PARETO_K = 0.7;

/**
 * How far log mean w lies from its log-normal value mean(log w) + var(log w)/2 (over the positive
 * weights). For log-normal weights with σ² ≫ 1, a sample mean misses the rare huge weights that carry
 * E[w] and falls short by about this much; for well-behaved weights it is small.
 */
export function lognormalDiscrepancy(logW: Float64Array, logMean: number): number {
  let n = 0;
  let mean = 0;
  for (let i = 0; i < logW.length; i++) {
    if (logW[i] === Number.NEGATIVE_INFINITY) continue;
    n++;
    mean += (logW[i] - mean) / n;
  }
  if (n < 2) return Number.POSITIVE_INFINITY;
  let ss = 0;
  for (let i = 0; i < logW.length; i++) if (logW[i] > Number.NEGATIVE_INFINITY) ss += (logW[i] - mean) ** 2;
  // log mean over the positive weights only (zero weights lower both alike).
  const logMeanPositive = logMean + Math.log(logW.length / n);
  return Math.abs(logMeanPositive - (mean + ss / (n - 1) / 2));
}

/**
 * log Z = Σ_k log r_k over a full ladder (β from 0 to 1), each ratio by importance sampling from the
 * draws of {@link samplePowerPosteriors}, computed with logMeanExp (Xie et al.'s "max" trick).
 *
 * Standard error by the delta method, with autocorrelated draws accounted for: log Z is a sum over
 * temperatures j of terms ±log mean_i w_ij, each a function of temperature j's chain alone; to first
 * order the error of temperature j's terms is the mean of the influence values
 * φ_i = Σ_terms ± w_i / w̄ (w̄ the mean weight), so Var ≈ Σ_j var(φ) / ESS(φ), with ESS the effective
 * sample size of the φ trace (the number of draws for the exact prior draws). Chains at different
 * temperatures are treated as independent (each is warmed up after its warm start). With "both" a
 * temperature's draws enter two rungs, and φ combines them, so their covariance is counted.
 *
 * Degenerate rungs: where a term's importance weights have a Kish ESS fraction below
 * {@link SHORT_RUNG_FRACTION} or a Pareto k̂ above {@link RUNG_PARETO_K}, the delta method is not to
 * be trusted (its variance estimate comes from the same few dominant weights and is far too small),
 * and the estimate is biased low (it misses the rare large weights). There an error scale is added in
 * quadrature to the standard error, and reported per rung as `inflation`: the distance from the
 * estimate up to a bound of the term. log E_β[e^{sℓ}] is convex in s with slope E[ℓ] under the
 * power posterior it reaches, so log Z_{β'}/Z_β ≤ (β' − β) E_{β'}[log L]; where the draws at the
 * rung's other end exist, that bound (with their mean log likelihood) is used; else (the last rung
 * of stepping-stone) the distance to the log-normal value mean(log w) + var(log w)/2 of the weights.
 * At least the term's own delta-method error is added. This turns a confident wrong answer into a
 * visibly uncertain one; the rung warnings say where to add temperatures.
 *
 * `sample` must hold the temperatures β_0 … β_{K−1} of `ladder` ("lower"; draws at β = 1 are not
 * needed) or all of β_0 … β_K ("both").
 */
export function ladderRatioEstimate(
  sample: PowerPosteriorSample,
  ladder: Float64Array,
  ends: RatioEnds,
  where: string,
): LadderRatioEstimate {
  const K = ladder.length - 1;
  const temps = sample.temperatures;
  const needed = ends === "lower" ? K : K + 1;
  if (temps.length !== needed) {
    throw new OccamError(
      "internal",
      `${where}: expected draws at ${needed} temperatures, got ${temps.length}.`,
    );
  }
  const n = temps[0].logLikelihood.length;
  const logW = new Float64Array(n);
  const phi = new Float64Array(n);
  const rungs: RungEstimate[] = [];
  const influenceEss = new Float64Array(needed);
  let logZ = 0;
  let variance = 0;
  let inflationVariance = 0;
  const logNumerators = new Float64Array(K);
  // The inflation of the last term added (0 for healthy weights).
  let termInflation = 0;
  let termParetoK = Number.NaN;

  // Adds ±w/w̄ of weights e^{scale · ℓ} to phi, returns log mean w. `far`: the draws at the rung's
  // other end, if sampled, whose mean log likelihood bounds the term (see the doc comment).
  const addTerm = (
    ell: Float64Array,
    scale: number,
    sign: number,
    label: string,
    far: Float64Array | undefined,
  ): number => {
    for (let i = 0; i < n; i++) {
      // 0 · (−∞) must be 0: an unweighted draw has weight 1.
      logW[i] = scale === 0 ? 0 : scale * ell[i];
    }
    const logMean = logMeanExp(logW);
    if (!(logMean > Number.NEGATIVE_INFINITY && logMean < Number.POSITIVE_INFINITY)) {
      throw new OccamError(
        "non-finite",
        `${where}: the importance weights at ${label} are ${logMean === Number.NEGATIVE_INFINITY ? "all zero" : "not finite"} ` +
          "(every draw has zero likelihood, or a log likelihood overflowed); use more temperatures near β = 0 or check the model.",
      );
    }
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const v = Math.exp(logW[i] - logMean);
      phi[i] += sign * v;
      ss += (v - 1) ** 2;
    }
    const essFraction = kishEss(logW) / n;
    termParetoK = paretoKHat(logW);
    termInflation = 0;
    if (essFraction < SHORT_RUNG_FRACTION || termParetoK > RUNG_PARETO_K) {
      // The term's own delta-method error (independent draws), as a floor of the inflation.
      const own = Math.sqrt(ss / Math.max(1, n - 1) / n);
      const bound = far === undefined ? Number.NaN : scale * meanOf(far);
      const distance = Number.isFinite(bound) ? bound - logMean : lognormalDiscrepancy(logW, logMean);
      termInflation = Math.max(own, distance);
      inflationVariance += termInflation ** 2;
    }
    return logMean;
  };

  for (let j = 0; j < needed; j++) {
    const ell = temps[j].logLikelihood;
    const label = temperatureLabel(ladder, j);
    phi.fill(0);
    let terms = 0;
    if (j < K) {
      const delta = ladder[j + 1] - ladder[j];
      const scale = ends === "lower" ? delta : delta / 2;
      logNumerators[j] = addTerm(ell, scale, 1, label, temps[j + 1]?.logLikelihood);
      logZ += logNumerators[j];
      rungs.push({
        from: ladder[j],
        to: ladder[j + 1],
        logRatio: logNumerators[j],
        weightEssFraction: kishEss(logW) / logW.length,
        paretoK: termParetoK,
        inflation: termInflation,
      });
      terms++;
    }
    if (ends === "both" && j > 0) {
      const delta = ladder[j] - ladder[j - 1];
      const logDen = addTerm(ell, -delta / 2, -1, label, temps[j - 1].logLikelihood);
      logZ -= logDen;
      const rung = rungs[j - 1];
      rungs[j - 1] = {
        ...rung,
        logRatio: rung.logRatio - logDen,
        inflation: Math.hypot(rung.inflation, termInflation),
      };
      terms++;
    }
    if (terms === 0) continue;
    let ess: number;
    if (temps[j].exact) {
      ess = n;
    } else {
      ess = n >= 8 ? effectiveSampleSize([phi]) : Number.NaN;
      // A constant φ (weights all equal) contributes no variance whatever its ESS.
      if (Number.isNaN(ess)) ess = n;
    }
    influenceEss[j] = ess;
    let mean = 0;
    for (let i = 0; i < n; i++) mean += phi[i];
    mean /= n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (phi[i] - mean) ** 2;
    variance += ss / Math.max(1, n - 1) / ess;
  }
  return {
    logZ,
    stdErr: Math.sqrt(variance + inflationVariance),
    rungs: Object.freeze(rungs),
    influenceEss,
    deltaStdErr: Math.sqrt(variance),
  };
}

/** Options of {@link steppingStone}. */
export interface SteppingStoneOptions extends PowerPosteriorOptions {
  /**
   * The temperature ladder, from 0 to 1, strictly increasing (checked by {@link validateLadder}).
   * Without one, an adaptive ladder ({@link adaptiveLadder}, option `adaptive`): a pilot SMC run's
   * stages, each split into 2.
   * @defaultValue the adaptive ladder
   */
  ladder?: ArrayLike<number>;
  /**
   * Without `ladder`: how the adaptive ladder is found.
   * @defaultValue `{ particles: 200, targetEss: 0.5, refine: 2 }`
   */
  adaptive?: AdaptiveLadderOptions;
}

/** Stepping-stone's default ladder: each stage of the adaptive pilot split into this many rungs. */
export const STEPPING_STONE_REFINE = 2;

/** Rungs whose Kish weight ESS fraction falls below this are reported in `diagnostics.warnings`. */
export const SHORT_RUNG_FRACTION = 0.1;

/** Warnings about rungs whose importance weights degenerate. */
export function rungWarnings(rungs: readonly RungEstimate[]): string[] {
  const warnings: string[] = [];
  for (const r of rungs) {
    if (r.weightEssFraction < SHORT_RUNG_FRACTION || r.paretoK > RUNG_PARETO_K) {
      warnings.push(
        `rung β ${r.from} → ${r.to}: importance weights have an ESS fraction of ${r.weightEssFraction.toFixed(3)} ` +
          `and a Pareto k̂ of ${r.paretoK.toFixed(2)}; the delta-method standard error is unreliable there ` +
          `(${r.inflation.toPrecision(3)} nats added to the standard error): add temperatures between these two.`,
      );
    }
  }
  return warnings;
}

/**
 * Evidence by stepping-stone sampling (Xie et al. 2011): along a ladder 0 = β_0 < … < β_K = 1,
 * log Z = Σ_k log E_{β_k}[L^{β_{k+1} − β_k}], each expectation an importance-sampling average over
 * the MCMC draws of the power posterior at β_k, computed in log space with logMeanExp. No draws are
 * needed at β = 1. The draws come from {@link samplePowerPosteriors} (exact prior draws at β = 0,
 * then one warm-started chain per temperature); the standard error is the autocorrelation-aware delta
 * method of {@link ladderRatioEstimate}, inflated for rungs whose weights degenerate.
 *
 * The default ladder is adaptive ({@link adaptiveLadder}): a pilot run of adaptive tempered SMC
 * (200 particles, the model's exact kernel where it has one) chooses stages whose incremental weights
 * keep half their ESS, each then split in two, so that every rung's weights keep about 80 % of it;
 * the draws on that ladder are fresh, so the estimate of Z stays unbiased given the ladder. A fixed
 * ladder fails when the prior is much broader than the likelihood: on the wine data (raw inputs,
 * v = 10⁴) the power posterior moves at β ~ 10⁻¹¹ … 10⁻⁴, and powerLadder(32, 4) gave errors up to
 * 46 nats with standard errors of 1; the adaptive ladder stays within 0.4 nats at |z| < 3 there.
 *
 * Diagnostics: the ladder, per rung the log ratio, the weights' ESS fraction and Pareto k̂, per
 * temperature the ESS of the log likelihood and the acceptance rate, the kernel, the adaptive ladder's
 * pilot, and warnings for rungs whose weights degenerate.
 *
 * @example
 * const result = steppingStone(model, { drawsPerTemperature: 2000, seed: 1 });
 */
export function steppingStone(model: BayesModel, options: SteppingStoneOptions = {}): EvidenceResult {
  const start = performance.now();
  const where = "steppingStone";
  const resolved = resolvePowerPosteriorOptions(options, where, { minDraws: 2 });
  let ladder: Float64Array;
  let sampling: PowerPosteriorOptions = options;
  let pilot: AdaptiveLadder | undefined;
  if (options.ladder === undefined) {
    checkModel(model, where);
    const adaptive = resolveAdaptiveLadderOptions(options.adaptive, where);
    const [pilotStream, samplingStream] = resolveRng(options, where).split(2);
    pilot = adaptiveLadder(model, pilotStream, adaptive, STEPPING_STONE_REFINE, where);
    ladder = pilot.ladder;
    // Fresh draws on the ladder: given the ladder, the estimate of Z stays unbiased.
    sampling = { ...options, seed: undefined, rng: samplingStream };
  } else {
    ladder = validateLadder(options.ladder, `${where}: ladder`);
  }
  const K = ladder.length - 1;
  const sample = samplePowerPosteriors(model, ladder.subarray(0, K), sampling, where, resolved);
  const estimate = ladderRatioEstimate(sample, ladder, "lower", where);
  const diagnostics = ladderDiagnostics(sample, ladder, estimate);
  if (pilot !== undefined) diagnostics.adaptiveLadder = adaptiveSummary(pilot);
  return evidenceResult({
    method: "stepping-stone",
    logZ: estimate.logZ,
    stdErr: estimate.stdErr,
    nLikelihoodEvals: sample.nLikelihoodEvals + (pilot?.evaluations ?? 0),
    seconds: secondsSince(start),
    diagnostics,
  });
}

/** The diagnostics the ladder estimators share. */
export function ladderDiagnostics(
  sample: PowerPosteriorSample,
  ladder: Float64Array,
  estimate: LadderRatioEstimate,
): Record<string, unknown> {
  const temps = sample.temperatures;
  return {
    kernel: sample.kernel,
    ladder: Array.from(ladder),
    temperatures: ladder.length,
    drawsPerTemperature: temps[0].logLikelihood.length,
    logRatios: estimate.rungs.map((r) => r.logRatio),
    weightEssFractions: estimate.rungs.map((r) => r.weightEssFraction),
    paretoK: estimate.rungs.map((r) => r.paretoK),
    deltaStdErr: estimate.deltaStdErr,
    logLikelihoodEss: temps.map((t) => t.ess),
    influenceEss: Array.from(estimate.influenceEss),
    acceptanceRates: temps.map((t) => t.acceptanceRate),
    warnings: rungWarnings(estimate.rungs),
  };
}
