/**
 * Adaptive tempered sequential Monte Carlo (as PyMC's `sample_smc` and blackjax's
 * `adaptive_tempered_smc`), on the tempering engine.
 */
import { OccamError } from "../errors.js";
import { Draws } from "../model/draws.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import { checkModel, type RandomOptions, resolveRng } from "./checks.js";
import type { EvidenceEstimate } from "./result.js";
import { islandStart, type ParticleCloud } from "./tempering/cloud.js";
import { runTempering } from "./tempering/engine.js";
import {
  combineIslands,
  resolveTemperingOptions,
  type TemperingDefaults,
  type TemperingOptions,
} from "./tempering/estimates.js";
import {
  type PooledDiagnostics,
  type Pooling,
  PRODUCT_POOLING,
  type PrecisionOptions,
  resolvePrecision,
  temperingToPrecision,
} from "./tempering/precision.js";
import { type ReferenceRunOptions, referenceModel, resolveReferenceRuns } from "./tempering/reference.js";

/** Options of {@link temperedSmc}: the engine's, with tempered SMC's defaults. */
export interface TemperedSmcOptions
  extends RandomOptions,
    TemperingOptions,
    PrecisionOptions,
    ReferenceRunOptions {
  /**
   * At least two independent runs of `particles`, and the standard error scaled by their spread ratio
   * whenever it exceeds 1: for posteriors where one run's islands, which share its temperatures and
   * step sizes, spread less than independent runs do. With `targetStdErr` "none" (the default when
   * `particles` is given) exactly two, unless the first fails its checks or its islands disagree:
   * then that run alone, flagged.
   * @defaultValue false
   */
  countRunSpread?: boolean;
}

/**
 * Tempered SMC's defaults: 2048 particles, steps that keep half the ESS, sweeps until a thousandth of
 * the start's memory is left: its estimate is a product of every temperature's incremental weights,
 * which a cloud lagging behind the temperatures biases low.
 */
export const SMC_DEFAULTS: TemperingDefaults = {
  particles: 2048,
  sweeps: "auto",
  memoryLeft: 0.001,
  targetEss: 0.5,
  draws: 0,
  resample: "always",
  finalSweeps: false,
  independence: true,
};

/** The result of {@link temperedSmc}. */
export type TemperedSmcResult = EvidenceEstimate<"smc", PooledDiagnostics>;

/**
 * Evidence by adaptive tempered sequential Monte Carlo (Del Moral, Doucet & Jasra 2006; the
 * adaptive temperatures of Jasra et al. 2011). N particles start from the prior; at each stage the
 * next β is found by bisection so that the step's conditional ESS is `targetEss` · N, every particle
 * is reweighted by L^{β' − β}, each island's log Z grows by the log of its mean weight, the particles
 * are resampled within their islands and moved by MCMC sweeps in the metric of the cloud's
 * covariance (HMC with gradients, else random-walk Metropolis, or the model's exact kernel), until
 * the particles have forgotten where the stage's moves began and, extrapolated from how fast they
 * forgot, all but a thousandth of the lag behind the new temperature is gone (`memoryLeft`).
 *
 * Estimate and standard error: each of the G islands (32 by default) is an independent SMC run given
 * the shared temperatures and tuning, with Ẑ_g unbiased for Z; the estimate is log mean Ẑ_g and the
 * standard error the delta method's sd(Ẑ_g/mean)/√G, scaled by t_{0.975, G−1}/1.96 because the spread
 * is itself estimated from G values. It includes every correlation within a run. The result is
 * marked unreliable when the islands disagree by more than a nat (their mean is then carried by a
 * few), or when the moves barely moved the particles at some temperature.
 *
 * Precision: unless `particles` is given, while the standard error exceeds `targetStdErr` (0.05 nats)
 * further independent runs follow. The first run is then a pilot of a quarter of the particles (see
 * `temperingToPrecision`), and the runs after it temper from a Student-t (ν = 5) fitted to its
 * posterior instead of from the prior (`referenceRuns`; the reference distribution of Fan et
 * al.'s generalised stepping-stone): the likelihood becomes p L / q, Z is unchanged, and the
 * information to cross falls from the prior's to KL(posterior ‖ q). On the Pima logistic regression
 * (5 parameters) a run from the prior needs 14 temperatures (150 000 evaluations for 2048 particles);
 * from the reference, one temperature and 2048 evaluations give 0.011 nats. The runs of whichever
 * start spent fewer evaluations per unit of variance go on and are pooled (on the eggbox's many
 * modes, the prior's); the other start's estimate cross-checks them. Runs from the prior after the
 * first are of what the target still needs when that is fewer than `particles` (a run of 2048 at
 * 0.06 nats is followed by one of 1088); runs from the reference are of `particles`. Runs are pooled
 * with each run's mean Ẑ weighted by its particles, the delta method's standard error and
 * Welch–Satterthwaite's degrees of freedom; no further run follows one whose moves stalled or
 * diverged (a run from the reference that does, or that passes a quarter of what a full run costs,
 * is left out instead, and the runs from the prior go on; so are all the runs from the reference
 * when the two starts' estimates disagree), and runs that disagree beyond their standard errors
 * have it scaled by their Birge ratio √(χ²/(k − 1)). Easy problems stop after the pilot and one run
 * from the reference.
 * With `countRunSpread`, at least two runs are pooled and their spread counts: on a one-hidden-layer
 * network's posterior (iris) single runs of 256 particles were 0.2 nats low on average, two of seven
 * beyond 2.9 standard errors, where pairs of them pooled so were at most 1.33 from it.
 *
 * A model with `bounds` is sampled on the unbounded scale (see `unbounded`); log Z is unchanged.
 *
 * @example
 * const result = temperedSmc(model, { particles: 4096, seed: 1 });
 */
export function temperedSmc(model: BayesModel, options: TemperedSmcOptions = {}): TemperedSmcResult {
  return smcRuns(model, options, false, "temperedSmc").result;
}

/**
 * Tempered SMC's evidence together with posterior draws: the last pooled run's particles, moved at β = 1
 * after their final resampling so that copies part, on the model's own scale, island by island
 * (island g is chain g; an island's particles beyond the smallest island's size are left out). For
 * posteriors that a few MCMC chains cannot stand for, such as one with separated modes: the cloud
 * holds each mode in proportion to its mass, as the incremental weights put it there. With
 * `particles` given and without `countRunSpread` (one run), log Z is {@link temperedSmc}'s with the
 * same options. The moves at β = 1 are checked too (stalls, divergences); every run makes them, since
 * which run is the last is known only once it ends. The draws' log densities are the particles'
 * log p(θ) + log L(θ), or NaN for a model with `bounds`.
 */
export function temperedSmcDraws(
  model: BayesModel,
  options: TemperedSmcOptions = {},
): { result: TemperedSmcResult; draws: Draws } {
  const { result, cloud, islands, view } = smcRuns(model, options, true, "temperedSmcDraws");
  const { n, dim, positions } = cloud;
  const perIsland = Math.floor(n / islands);
  const draws = new Draws({ dim, nChains: islands, nDraws: perIsland, names: model.names });
  for (let g = 0; g < islands; g++) {
    // The islands are the cloud's contiguous blocks.
    const from = islandStart(g, islands, n);
    for (let t = 0; t < perIsland; t++) {
      const i = from + t;
      const k = g * perIsland + t;
      view.toBounded(
        positions.subarray(i * dim, (i + 1) * dim),
        draws.values.subarray(k * dim, (k + 1) * dim),
      );
      draws.logDensity[k] = view.identity ? cloud.logPrior[i] + cloud.logLikelihood[i] : Number.NaN;
    }
  }
  return { result, draws };
}

function smcRuns(model: BayesModel, options: TemperedSmcOptions, finalSweeps: boolean, where: string) {
  const start = performance.now();
  checkModel(model, where);
  const view = unbounded(model, where);
  const settings = { ...resolveTemperingOptions(view.model, options, SMC_DEFAULTS, where), finalSweeps };
  const countRunSpread = options.countRunSpread ?? false;
  const precision = resolvePrecision(options, settings.particles, where, countRunSpread ? 2 : 1);
  // With the runs' spread counted, every run starts from the prior, as the calibration of classify's
  // tempered runs assumes.
  const referenceRuns = resolveReferenceRuns(options, where) && !countRunSpread;
  const pooling: Pooling = { ...PRODUCT_POOLING, countRunSpread, sizedRuns: true, referenceRuns };
  const rng = resolveRng(options, where);
  const clouds: ParticleCloud[] = [];
  const result = temperingToPrecision(
    "smc",
    pooling,
    start,
    settings,
    precision,
    (runSettings, reference) => {
      const target = reference === undefined ? view.model : referenceModel(view.model, reference);
      const run = runTempering(target, rng, runSettings, where);
      clouds.push(run.cloud);
      return { run, estimate: combineIslands(run.islandLogZ, "product"), reasons: [], extra: {} };
    },
  );
  // The draws are the last pooled run's: a run left out (one from the reference cut short) may not
  // have moved its particles at β = 1.
  const pooled = result.diagnostics.runs.map((run) => run.pooled);
  const cloud = clouds[pooled.lastIndexOf(true)];
  if (cloud === undefined) throw new OccamError("internal", `${where}: no run was pooled.`);
  // A pilot's islands are fewer than a full run's.
  return { result, cloud, islands: result.diagnostics.islands, view };
}
