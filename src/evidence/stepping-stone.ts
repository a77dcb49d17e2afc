/**
 * Stepping-stone sampling (Xie, Lewis, Fan, Kuo & Chen 2011, Systematic Biology 60(2)) and the
 * importance-sampling ratio machinery it shares with Barber & Bishop's chaining.
 */
import { effectiveSampleSize } from "../diagnostics/ess.js";
import { OccamError } from "../errors.js";
import { kishEss, logMeanExp } from "../math/logspace.js";
import type { BayesModel } from "../model/model.js";
import {
  type PowerPosteriorOptions,
  type PowerPosteriorSample,
  resolvePowerPosteriorOptions,
  samplePowerPosteriors,
  temperatureLabel,
} from "./power-posterior.js";
import { type EvidenceResult, evidenceResult, secondsSince } from "./result.js";
import { powerLadder, validateLadder } from "./schedule.js";

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
}

/** The result of {@link ladderRatioEstimate}. */
export interface LadderRatioEstimate {
  readonly logZ: number;
  readonly stdErr: number;
  readonly rungs: readonly RungEstimate[];
  /** Per temperature: the effective sample size of the draws' influence on log Z (see below). */
  readonly influenceEss: Float64Array;
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
  const logNumerators = new Float64Array(K);

  // Adds ±w/w̄ of weights e^{scale · ℓ} to phi, returns log mean w.
  const addTerm = (ell: Float64Array, scale: number, sign: number, label: string): number => {
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
    for (let i = 0; i < n; i++) phi[i] += sign * Math.exp(logW[i] - logMean);
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
      logNumerators[j] = addTerm(ell, scale, 1, label);
      logZ += logNumerators[j];
      rungs.push({
        from: ladder[j],
        to: ladder[j + 1],
        logRatio: logNumerators[j],
        weightEssFraction: kishEss(logW) / logW.length,
      });
      terms++;
    }
    if (ends === "both" && j > 0) {
      const delta = ladder[j] - ladder[j - 1];
      const logDen = addTerm(ell, -delta / 2, -1, label);
      logZ -= logDen;
      const rung = rungs[j - 1];
      rungs[j - 1] = { ...rung, logRatio: rung.logRatio - logDen };
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
  return { logZ, stdErr: Math.sqrt(variance), rungs: Object.freeze(rungs), influenceEss };
}

/** Options of {@link steppingStone}. */
export interface SteppingStoneOptions extends PowerPosteriorOptions {
  /**
   * The temperature ladder, from 0 to 1, strictly increasing (checked by {@link validateLadder}).
   * @defaultValue powerLadder(32, 4)
   */
  ladder?: ArrayLike<number>;
}

/** Rungs whose Kish weight ESS fraction falls below this are reported in `diagnostics.warnings`. */
export const SHORT_RUNG_FRACTION = 0.1;

/** Warnings about rungs whose importance weights degenerate. */
export function rungWarnings(rungs: readonly RungEstimate[]): string[] {
  const warnings: string[] = [];
  for (const r of rungs) {
    if (r.weightEssFraction < SHORT_RUNG_FRACTION) {
      warnings.push(
        `rung β ${r.from} → ${r.to}: importance weights have an ESS fraction of ${r.weightEssFraction.toFixed(3)}; ` +
          "the delta-method standard error is unreliable there: add temperatures between these two.",
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
 * method of {@link ladderRatioEstimate}.
 *
 * Diagnostics: the ladder, per rung the log ratio and the weights' ESS fraction, per temperature the
 * ESS of the log likelihood and the acceptance rate, the kernel, and warnings for rungs whose
 * weights degenerate (there the standard error is too small).
 *
 * @example
 * const result = steppingStone(model, { ladder: powerLadder(32, 4), drawsPerTemperature: 2000, seed: 1 });
 */
export function steppingStone(model: BayesModel, options: SteppingStoneOptions = {}): EvidenceResult {
  const start = performance.now();
  const where = "steppingStone";
  const ladder =
    options.ladder === undefined ? powerLadder(32, 4) : validateLadder(options.ladder, `${where}: ladder`);
  const resolved = resolvePowerPosteriorOptions(options, where, { minDraws: 2 });
  const K = ladder.length - 1;
  const sample = samplePowerPosteriors(model, ladder.subarray(0, K), options, where, resolved);
  const estimate = ladderRatioEstimate(sample, ladder, "lower", where);
  return evidenceResult({
    method: "stepping-stone",
    logZ: estimate.logZ,
    stdErr: estimate.stdErr,
    nLikelihoodEvals: sample.nLikelihoodEvals,
    seconds: secondsSince(start),
    diagnostics: ladderDiagnostics(sample, ladder, estimate),
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
    logLikelihoodEss: temps.map((t) => t.ess),
    influenceEss: Array.from(estimate.influenceEss),
    acceptanceRates: temps.map((t) => t.acceptanceRate),
    warnings: rungWarnings(estimate.rungs),
  };
}
