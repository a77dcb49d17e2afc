/**
 * Stepping-stone sampling (Xie, Lewis, Fan, Kuo & Chen 2011, Systematic Biology 60(2)) on the
 * tempering engine.
 */
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

/** Options of {@link steppingStone}: the engine's, with stepping-stone's defaults. */
export interface SteppingStoneOptions extends RandomOptions, TemperingOptions {}

/** Stepping-stone's defaults: 1024 particles, rungs that keep 70 % of the ESS, sweeps until decorrelated. */
export const STEPPING_STONE_DEFAULTS: TemperingDefaults = {
  particles: 1024,
  sweeps: "auto",
  targetEss: 0.7,
  draws: 8,
  resample: "always",
  finalSweeps: false,
};

/** Stepping-stone's diagnostics: the engine's, and each rung's ratio and weights. */
export interface SteppingStoneDiagnostics extends TemperingDiagnostics {
  readonly rungs: readonly RungSummary[];
}

/** The result of {@link steppingStone}. */
export type SteppingStoneResult = EvidenceEstimate<"stepping-stone", SteppingStoneDiagnostics>;

/**
 * Evidence by stepping-stone sampling (Xie et al. 2011): along a ladder 0 = β_0 < … < β_K = 1,
 * log Z = Σ_k log E_{β_k}[L^{β_{k+1} − β_k}], each expectation an importance-sampling average over
 * draws from the power posterior at β_k, in log space.
 *
 * The draws come from the tempering engine: a population of chains, carried from temperature to
 * temperature by resampling (within islands) and moved at each temperature by MCMC sweeps in the
 * metric of the cloud's covariance (HMC with gradients, else random-walk Metropolis, or the model's
 * exact kernel) until they have forgotten where they started; every state of every sweep at β_k is a
 * draw at β_k, so a population of N particles and S sweeps gives N·S draws per rung. A population,
 * unlike one chain per temperature, keeps every mode it has found in proportion, which a single
 * chain at a high temperature cannot. The ladder is adaptive by default: each next β keeps the
 * step's conditional ESS at `targetEss` of the particles (0.7: short rungs); `ladder` fixes one.
 *
 * The standard error is the spread of the islands' estimates (each island's draws give their own
 * Ẑ_g; the estimate is log mean Ẑ_g), which includes the autocorrelation of the sweeps and the
 * correlation between temperatures; it is scaled by t_{0.975, G−1}/1.96. Unreliable when a rung's
 * weights have Pareto k̂ > 0.7, when the islands disagree by more than a nat, or when the moves
 * barely moved at some temperature.
 *
 * @example
 * const result = steppingStone(model, { particles: 2048, seed: 1 });
 */
export function steppingStone(model: BayesModel, options: SteppingStoneOptions = {}): SteppingStoneResult {
  const start = performance.now();
  const where = "steppingStone";
  checkModel(model, where);
  const target = unbounded(model, where).model;
  const settings = resolveTemperingOptions(target, options, STEPPING_STONE_DEFAULTS, where);
  const { observer, record } = recordLadder(settings.particles, settings.islands);
  const run = runTempering(target, resolveRng(options, where), settings, where, observer);
  const { islandLogZ, rungs } = ratioIslands(record, "lower");
  const estimate = combineIslands(islandLogZ, "product");
  return temperingResult("stepping-stone", start, run, settings, estimate, { rungs }, rungReasons(rungs));
}
