/**
 * Stepping-stone sampling (Xie, Lewis, Fan, Kuo & Chen 2011, Systematic Biology 60(2)) on the
 * tempering engine.
 */
import type { BayesModel } from "../model/model.js";
import { checkModel, type RandomOptions } from "./checks.js";
import type { EvidenceEstimate } from "./result.js";
import type { TemperingDefaults, TemperingOptions } from "./tempering/estimates.js";
import { type RungSummary, ratioRun } from "./tempering/ladder.js";
import {
  ladderToPrecision,
  type PooledDiagnostics,
  PRODUCT_POOLING,
  type PrecisionOptions,
} from "./tempering/precision.js";
import { type ReferenceRunOptions, resolveReferenceRuns } from "./tempering/reference.js";

/** Options of {@link steppingStone}: the engine's, with stepping-stone's defaults. */
export interface SteppingStoneOptions
  extends RandomOptions,
    TemperingOptions,
    PrecisionOptions,
    ReferenceRunOptions {}

/**
 * Stepping-stone's defaults: 1024 particles, rungs that keep 70 % of the ESS, sweeps until a
 * thousandth of the start's memory is left. Each rung's ratio is an average over draws that should
 * be at β_k; a cloud lagging behind β_k biases it low, as for `smc`: on a 50-dimensional box-bounded
 * Gaussian, sweeps that stopped at decorrelation gave errors of mean −0.08 nats over five seeds, and
 * with `memoryLeft` 0.001 of mean −0.004, at twice the evaluations.
 */
export const STEPPING_STONE_DEFAULTS: TemperingDefaults = {
  particles: 1024,
  sweeps: "auto",
  memoryLeft: 0.001,
  targetEss: 0.7,
  draws: 8,
  resample: "always",
  finalSweeps: false,
  independence: true,
};

/**
 * Stepping-stone's diagnostics: the engine's of its last pooled run and every run's summary, and each
 * rung's ratio and weights in that last run.
 */
export interface SteppingStoneDiagnostics extends PooledDiagnostics {
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
 * Precision: unless `particles` is given, further independent runs of `particles` follow
 * until the pooled standard error is at most `targetStdErr` (0.05 nats), as for `temperedSmc`; no
 * further run follows a rung with heavy-tailed weights or moves that stalled or diverged, and runs
 * that disagree beyond their standard errors have it scaled by their Birge ratio. As for
 * `temperedSmc` (`referenceRuns`), the first run is a pilot and the rungs of the runs after it start
 * from a Student-t fitted to its posterior instead of from the prior (Fan, Wu, Chen, Kuo & Lewis 2011,
 * the generalised stepping-stone): where the posterior is near elliptical it needs a few rungs
 * instead of dozens.
 *
 * @example
 * const result = steppingStone(model, { particles: 2048, seed: 1 });
 */
export function steppingStone(model: BayesModel, options: SteppingStoneOptions = {}): SteppingStoneResult {
  const where = "steppingStone";
  checkModel(model, where);
  return ladderToPrecision(
    "stepping-stone",
    { ...PRODUCT_POOLING, referenceRuns: resolveReferenceRuns(options, where) },
    model,
    options,
    STEPPING_STONE_DEFAULTS,
    where,
    (record) => {
      const { rungs, ...run } = ratioRun(record, "lower", PRODUCT_POOLING.kind);
      return { ...run, extra: { rungs } };
    },
  );
}
