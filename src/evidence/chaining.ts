/**
 * Chaining (Barber & Bishop 1997, "Bayesian model comparison by Monte Carlo chaining", NIPS 9; seed
 * 001): the evidence as a product of ratios along a chain of distributions from the prior to the
 * posterior, each ratio by importance sampling, on the tempering engine.
 */
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { checkModel, type RandomOptions } from "./checks.js";
import type { EvidenceEstimate } from "./result.js";
import type { TemperingDefaults, TemperingOptions } from "./tempering/estimates.js";
import { type RungSummary, ratioRun } from "./tempering/ladder.js";
import {
  LOG_POOLING,
  ladderToPrecision,
  type PooledDiagnostics,
  type Pooling,
  PRODUCT_POOLING,
  type PrecisionOptions,
} from "./tempering/precision.js";
import { type ReferenceRunOptions, resolveReferenceRuns } from "./tempering/reference.js";

/**
 * Which draws estimate each link's ratio Z_{λ_{k+1}} / Z_{λ_k}: `"lower"`, those of the lower end,
 * E_{λ_k}[L^Δ] (Barber & Bishop's eq. 4); `"both"`, those of both ends, the geometric bridge
 * E_{λ_k}[L^{Δ/2}] / E_{λ_{k+1}}[L^{−Δ/2}] (Meng & Wong 1996 with the geometric mean of the two
 * densities): the same first-order variance for short links, much less skewed weights for long ones.
 */
export type RatioEnds = "lower" | "both";

/** Options of {@link chaining}: the engine's, with chaining's defaults, and the ends of each link. */
export interface ChainingOptions
  extends RandomOptions,
    TemperingOptions,
    PrecisionOptions,
    ReferenceRunOptions {
  /**
   * Which draws estimate each link's ratio (see {@link RatioEnds}).
   * @defaultValue "both"
   */
  ends?: RatioEnds;
}

/**
 * Chaining's defaults: 1024 particles, links that keep half the ESS, sweeps until a thousandth of the
 * start's memory is left. Each link's ratio is an average over draws that should be at its ends; a
 * cloud lagging behind the temperatures biases it low: on a 50-dimensional Gaussian with a correlated
 * posterior (ρ = 0.9) and a Gaussian prior, single runs whose sweeps stopped at decorrelation had
 * islands' mean log Z −0.118 nats from the exact value over twelve seeds, and with `memoryLeft` 0.001
 * +0.001 (errors' sd 0.088 against a mean standard error of 0.076), at 1.5 times the evaluations.
 */
export const CHAINING_DEFAULTS: TemperingDefaults = {
  particles: 1024,
  sweeps: "auto",
  memoryLeft: 0.001,
  targetEss: 0.5,
  draws: 8,
  resample: "always",
  finalSweeps: true,
  independence: true,
};

/**
 * Chaining's diagnostics: the engine's of its last pooled run and every run's summary, which ends,
 * and each link of that last run.
 */
export interface ChainingDiagnostics extends PooledDiagnostics {
  readonly ends: RatioEnds;
  readonly rungs: readonly RungSummary[];
}

/** The result of {@link chaining}. */
export type ChainingResult = EvidenceEstimate<"chaining", ChainingDiagnostics>;

/**
 * Evidence by chaining (Barber & Bishop 1997). With E(λ, w) = λ q(w) + E₀(w) (eq. 9: q the negative
 * log likelihood, E₀ the negative log prior), the distributions are the power posteriors p(w) L(w)^λ
 * and p(D | M) = Π_k Z_{λ_{k+1}} / Z_{λ_k} (eq. 5), each ratio by importance sampling (eq. 4).
 * Barber & Bishop used 18 intermediate distributions sampled by hybrid Monte Carlo without saying how
 * they were spaced; occam places the λ adaptively (each link keeps half the ESS; give `ladder` for
 * the paper's fixed chain, e.g. powerLadder(19, 4)) and samples them with the tempering engine's
 * population of chains (HMC in the cloud's metric for a model with gradients). By default each
 * link's ratio is the geometric bridge of its two ends; `ends: "lower"` is the paper's form, the same
 * estimator as stepping-stone sampling.
 *
 * The standard error is the spread of the islands' estimates (see `steppingStone`). With the paper's
 * lower ends each island's product of ratios estimates Z without bias, and the islands are averaged
 * on Z's scale. A geometric bridge is a ratio of two averages whose two ends have equal relative
 * variances: with λ_{k+½} = (λ_k + λ_{k+1})/2, each draw's is E_{λ_k}[L^Δ] / E_{λ_k}[L^{Δ/2}]² − 1 =
 * E_{λ_{k+1}}[L^{−Δ}] / E_{λ_{k+1}}[L^{−Δ/2}]² − 1 = Z_{λ_k} Z_{λ_{k+1}} / Z_{λ_{k+½}}² − 1. With as
 * many effective draws at each end, the two averages' log biases cancel to second order, and an
 * island's log Z is without bias where its value is not; so with both ends the islands' log Z are
 * averaged, as path sampling's: averaged on Z's scale they came out e^{sd²/2} high, +0.084 nats for
 * islands that spread by 0.4. Unreliable when a link's weights have Pareto k̂ > 0.7, when the islands
 * disagree by more than a nat, or when the moves barely moved at some temperature.
 *
 * Precision: unless `particles` is given, further independent runs of `particles` follow until the
 * pooled standard error is at most `targetStdErr` (0.05 nats), as for `steppingStone`; with both ends
 * at least two, their spread counted, as `pathSampling`'s (single runs' errors had sd 0.088 against a
 * mean standard error of 0.076 on the 50-dimensional Gaussian above). As theirs, the first run is a
 * pilot and the runs after it start from a reference fitted to it (`referenceRuns`): with both ends a
 * normal, as `pathSampling`'s, with lower ends a Student-t, as `steppingStone`'s. On the
 * 50-dimensional box-bounded Gaussian a result then costs 1.0 million evaluations instead of 11
 * million. Both ends' sweeps go on until a thousandth of the start's memory is left; `memoryLeft:
 * "none"` with `particles` gives the single run that stops at decorrelation.
 *
 * @example
 * const result = chaining(model, { ladder: powerLadder(19, 4), ends: "lower", seed: 1 });
 */
export function chaining(model: BayesModel, options: ChainingOptions = {}): ChainingResult {
  const where = "chaining";
  checkModel(model, where);
  const ends = options.ends ?? "both";
  if (ends !== "lower" && ends !== "both") {
    throw new OccamError(
      "invalid-argument",
      `${where}: ends must be "lower" or "both", got ${String(ends)}.`,
    );
  }
  const referenceRuns = resolveReferenceRuns(options, where);
  // From a normal with geometric bridges, as path's runs; with lower ends, stepping-stone's Student-t.
  const pooling: Pooling =
    ends === "both"
      ? { ...LOG_POOLING, referenceRuns, referenceFamily: "normal" }
      : { ...PRODUCT_POOLING, referenceRuns };
  return ladderToPrecision(
    "chaining",
    pooling,
    model,
    options,
    { ...CHAINING_DEFAULTS, finalSweeps: ends === "both" },
    where,
    (record) => {
      const { rungs, ...run } = ratioRun(record, ends, pooling.kind);
      return { ...run, extra: { ends, rungs } };
    },
  );
}
