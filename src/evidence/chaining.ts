/**
 * Chaining (Barber & Bishop 1997, "Bayesian model comparison by Monte Carlo chaining", NIPS 9; seed
 * 001): the evidence as a product of ratios along a chain of distributions from the prior to the
 * posterior, each ratio by importance sampling, on the tempering engine.
 */
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import { checkModel, type EvidenceEstimate, type RandomOptions, resolveRng } from "./result.js";
import { runTempering } from "./tempering/engine.js";
import {
  combineIslands,
  resolveTemperingOptions,
  type TemperingDefaults,
  type TemperingDiagnostics,
  type TemperingOptions,
  temperingResult,
} from "./tempering/estimates.js";
import { type RungSummary, ratioIslands, recordLadder, rungReasons } from "./tempering/ladder.js";

/**
 * Which draws estimate each link's ratio Z_{λ_{k+1}} / Z_{λ_k}: `"lower"`, those of the lower end,
 * E_{λ_k}[L^Δ] (Barber & Bishop's eq. 4); `"both"`, those of both ends, the geometric bridge
 * E_{λ_k}[L^{Δ/2}] / E_{λ_{k+1}}[L^{−Δ/2}] (Meng & Wong 1996 with the geometric mean of the two
 * densities): the same first-order variance for short links, much less skewed weights for long ones.
 */
export type RatioEnds = "lower" | "both";

/** Options of {@link chaining}: the engine's, with chaining's defaults, and the ends of each link. */
export interface ChainingOptions extends RandomOptions, TemperingOptions {
  /**
   * Which draws estimate each link's ratio (see {@link RatioEnds}).
   * @defaultValue "both"
   */
  ends?: RatioEnds;
}

/** Chaining's defaults: 1024 particles, links that keep half the ESS, sweeps until decorrelated. */
export const CHAINING_DEFAULTS: TemperingDefaults = {
  particles: 1024,
  sweeps: "auto",
  targetEss: 0.5,
  draws: 8,
  resample: "always",
  finalSweeps: true,
};

/** Chaining's diagnostics: the engine's, which ends, and each link. */
export interface ChainingDiagnostics extends TemperingDiagnostics {
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
 * The standard error is the spread of the islands' estimates (see `steppingStone`). Unreliable when a
 * link's weights have Pareto k̂ > 0.7, when the islands disagree by more than a nat, or when the
 * moves barely moved at some temperature.
 *
 * @example
 * const result = chaining(model, { ladder: powerLadder(19, 4), ends: "lower", seed: 1 });
 */
export function chaining(model: BayesModel, options: ChainingOptions = {}): ChainingResult {
  const start = performance.now();
  const where = "chaining";
  checkModel(model, where);
  const ends = options.ends ?? "both";
  if (ends !== "lower" && ends !== "both") {
    throw new OccamError(
      "invalid-argument",
      `${where}: ends must be "lower" or "both", got ${String(ends)}.`,
    );
  }
  const target = unbounded(model, where).model;
  const settings = resolveTemperingOptions(
    target,
    options,
    { ...CHAINING_DEFAULTS, finalSweeps: ends === "both" },
    where,
  );
  const { observer, record } = recordLadder(settings.particles, settings.islands);
  const run = runTempering(target, resolveRng(options, where), settings, where, observer);
  const { islandLogZ, rungs } = ratioIslands(record, ends);
  const estimate = combineIslands(islandLogZ, "product");
  return temperingResult("chaining", start, run, settings, estimate, { ends, rungs }, rungReasons(rungs));
}
