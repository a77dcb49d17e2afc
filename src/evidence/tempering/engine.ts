/**
 * The tempering engine every tempered evidence method runs on (tempered SMC, stepping-stone,
 * path sampling, chaining, annealed importance sampling): a cloud of particles carried from the
 * prior (β = 0) to the posterior (β = 1) through the power posteriors p(θ) L(θ)^β, by reweighting,
 * resampling and MCMC moves tuned from the cloud itself (Del Moral, Doucet & Jasra 2006; PyMC's
 * `sample_smc`, blackjax's `adaptive_tempered_smc`).
 *
 * The particles are split into islands that resample only among themselves (Vergé, Dubarry,
 * Del Moral & Moulines 2015), so each island is an independent run given the shared ladder and
 * tuning, and the spread of the islands' estimates is a standard error that includes every
 * correlation inside a run: between the states of one chain, between temperatures, and through
 * resampling. Estimators watch the run through a {@link TemperingObserver}.
 */

import { OccamError } from "../../errors.js";
import { logSumExp } from "../../math/logspace.js";
import { centredProducts } from "../../math/moments.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import {
  type CloudShape,
  cloudShape,
  islandStart,
  LikelihoodCounter,
  measureCloud,
  type ParticleCloud,
  PooledPosterior,
  priorCloud,
  reorderCloud,
  resampleIslands,
} from "./cloud.js";
import {
  addOutcome,
  type IndependencePhase,
  IndependenceState,
  independencePhase,
  unmovedFraction,
} from "./independence-phase.js";
import {
  type CloudMove,
  hmcSweep,
  initialStepSize,
  kernelSweep,
  MoveScratch,
  maxStepSize,
  modelKernel,
  randomWalkSweep,
  type SweepOutcome,
  targetAcceptance,
} from "./moves.js";
import { conditionalEss, nextTemperature } from "./schedule.js";

/** Settings of one run of the engine (resolved by the estimator that runs it). */
export interface TemperingSettings {
  /** Particles N in all. */
  readonly particles: number;
  /** Islands G: the particles are split into G groups that resample only among themselves. */
  readonly islands: number;
  /** A fixed ladder from 0 to 1, or undefined: each next β chosen so that the step keeps `targetEss`. */
  readonly ladder: Float64Array | undefined;
  /** Adaptive ladder: the conditional ESS of each step, as a fraction of N. */
  readonly targetEss: number;
  /**
   * "always": resample after each reweighting; "never": carry the weights (annealed importance
   * sampling, whose particles must stay independent).
   */
  readonly resample: "always" | "never";
  /** The MCMC move. */
  readonly move: CloudMove;
  /** MCMC sweeps per stage, or "auto": until the particles have forgotten the stage's start (see {@link autoSweeps}). */
  readonly sweeps: number | "auto";
  /**
   * "auto" sweeps: the fraction of the start's memory to leave, extrapolated from how fast it
   * decays; undefined: stop as soon as the log likelihoods have decorrelated (see {@link autoSweeps}).
   */
  readonly memoryLeft: number | undefined;
  /** Further sweeps per stage whose states are the stage's draws (see {@link TemperingObserver}). */
  readonly draws: number;
  /** The most sweeps "auto" may take. */
  readonly maxSweeps: number;
  /** Also sweep at β = 1 (for draws from the posterior itself). */
  readonly finalSweeps: boolean;
  /** Stop with an error after this many stages. */
  readonly maxStages: number;
  /**
   * The likelihood evaluations the run may spend: once they are spent, the remaining temperatures are
   * crossed by reweighting and resampling alone, and the run says so (see {@link TemperingRun.budgetSpentAt}).
   * Infinity for no limit.
   */
  readonly maxEvaluations?: number;
  /**
   * A fixed step size (HMC, whitened units) or scale (random walk) instead of the one tuned after
   * every sweep towards the move's target acceptance (transitional MCMC's 0.2).
   */
  readonly fixedStepSize?: number;
  /** HMC's target acceptance in place of the model's `hmcTargetAccept` (or 0.8 without one). */
  readonly hmcTargetAccept?: number;
  /**
   * Try independence proposals from a Student-t fitted to the other islands first at each temperature,
   * and make the move's own sweeps only where they do not mix the particles (see {@link independencePhase}).
   */
  readonly independence?: boolean;
}

/** What an estimator sees of a run. */
export interface TemperingObserver {
  /** Draws at β: the prior cloud at β = 0, then the cloud after each of the `draws` sweeps at each later β. */
  draws(beta: number, cloud: ParticleCloud): void;
}

/** One stage of a run: the step to its β and the moves there. */
export interface TemperingStage {
  readonly beta: number;
  /** The conditional ESS of the step to this β, as a fraction of N. */
  readonly essFraction: number;
  readonly resampled: boolean;
  /** MCMC sweeps made at this β (0 at β = 1 unless `finalSweeps`). */
  readonly sweeps: number;
  /** Mean acceptance probability of the sweeps; NaN when there were none. */
  readonly acceptanceRate: number;
  /** The move's step size (HMC, whitened units) or scale (random walk) at the end of the stage. */
  readonly stepSize: number;
  /** Divergent HMC trajectories at this β: energy errors above the threshold. */
  readonly divergences: number;
  /** Moves stopped where the model returned NaN or +∞ or a non-finite gradient, at this β. */
  readonly modelFailures: number;
  /** The cloud's (weighted) mean log likelihood at the end of the stage: an estimate of E_β[log L]. */
  readonly meanLogLikelihood: number;
  /** The independence sweeps tried at this β, if any (see `TemperingSettings.independence`). */
  readonly independent?: { sweeps: number; acceptanceRate: number; unmoved: number; mixed: boolean };
  /** The fraction of particles that no move of this stage moved. */
  readonly unmoved: number;
  /** The HMC probe made where independence proposals mixed the particles (see {@link PROBE_STRIDE}). */
  readonly probe?: { trajectories: number; divergences: number };
}

/** The outcome of one run. */
export interface TemperingRun {
  readonly stages: readonly TemperingStage[];
  /**
   * Per island, the log of the product over stages of the island's mean incremental weight: each
   * island's tempered-SMC estimate of log Z (unbiased for Z given the ladder and tuning).
   */
  readonly islandLogZ: Float64Array;
  /** The particles' log weights at the end (0 after a final resampling; the AIS weights when never resampled). */
  readonly logW: Float64Array;
  /** The final cloud, at β = 1. */
  readonly cloud: ParticleCloud;
  /** The posterior's shape pooled over the last stages' clouds (see {@link PooledPosterior}). */
  readonly posterior: PooledPosterior;
  /** Likelihood (or likelihood-gradient) evaluations. */
  readonly evaluations: number;
  /** Proposals that fell where the prior is zero: a wall the model did not declare in `bounds`. */
  readonly outOfSupport: number;
  /** Prior draws whose log likelihood was NaN or +∞, weighed as zero likelihood. */
  readonly nonFinite: number;
  /** The β at which `maxEvaluations` ran out, when it did: the particles were not moved after it. */
  readonly budgetSpentAt?: number;
}

/**
 * Runs the engine: N prior draws, then stages until β = 1. At each stage the next β is taken from
 * the ladder or found by bisection so that the conditional ESS of the step is `targetEss` · N; every
 * particle's weight is multiplied by L^{β' − β} and each island's mean incremental weight enters its
 * log Z; the cloud's weighted mean and covariance set the moves' metric; the particles are resampled
 * within their islands (as `resample` says) and moved by sweeps of the MCMC move, whose step size is
 * tuned after each sweep towards the move's target acceptance.
 */
export function runTempering(
  model: BayesModel,
  rng: Rng,
  settings: TemperingSettings,
  where: string,
  observer?: TemperingObserver,
): TemperingRun {
  const counter = new LikelihoodCounter(model, where);
  const { particles: N, islands: G, ladder, move } = settings;
  const d = model.dim;
  const cloud = priorCloud(model, N, rng, counter);
  observer?.draws(0, cloud);
  const logW = new Float64Array(N);
  const incW = new Float64Array(N);
  const islandLogZ = new Float64Array(G);
  const index = new Int32Array(N);
  const scratch = new Float64Array(N * d);
  const scratchN = new Float64Array(N);
  const shape = cloudShape(d);
  const work = new Float64Array(d * d);
  const posterior = new PooledPosterior(N, d);
  const context: StageContext = {
    model,
    cloud,
    shape,
    move,
    maxSweeps: settings.maxSweeps,
    memoryLeft: settings.memoryLeft,
    fixedStepSize: settings.fixedStepSize !== undefined,
    hmcTargetAccept: settings.hmcTargetAccept ?? model.hmcTargetAccept,
    rng,
    counter,
    where,
    startLogLikelihood: new Float64Array(N),
    startLogPrior: new Float64Array(N),
    scratch: new MoveScratch(d),
    maxEvaluations: settings.maxEvaluations ?? Number.POSITIVE_INFINITY,
    independence:
      settings.independence === true && move !== "model" ? new IndependenceState(G, d) : undefined,
    logQ: new Float64Array(N),
    movedFlags: new Uint8Array(N),
  };
  let stepSize = settings.fixedStepSize ?? initialStepSize(move, d);
  const stages: TemperingStage[] = [];
  let beta = 0;
  let budgetSpentAt: number | undefined;

  for (let stage = 1; beta < 1; stage++) {
    if (stage > settings.maxStages) {
      throw new OccamError(
        "invalid-argument",
        `${where}: ${settings.maxStages} stages did not reach β = 1 (stopped at β = ${beta}); the likelihood ` +
          "may have an extreme range: raise maxStages or lower targetEss.",
      );
    }
    const next =
      ladder !== undefined
        ? ladder[stage]
        : nextTemperature(logW, cloud.logLikelihood, beta, settings.targetEss * N);
    const delta = next - beta;
    for (let i = 0; i < N; i++) incW[i] = logW[i] + (delta === 0 ? 0 : delta * cloud.logLikelihood[i]);
    addIslandIncrements(incW, logW, islandLogZ, next, counter, where);
    const essFraction = conditionalEss(logW, cloud.logLikelihood, delta) / N;
    logW.set(incW);
    try {
      measureCloud(cloud, logW, shape, work);
      context.independence?.islandShapes.measure(cloud, logW);
    } catch (error) {
      throw new OccamError("non-finite", `${where} at β = ${next}: ${(error as Error).message}`);
    }
    const policy = settings.resample;
    // A particle of zero weight (a prior draw where the likelihood is zero) is resampled away, or,
    // never resampled (annealed importance sampling), kept at weight 0 and no longer moved.
    const resample = policy === "always";
    if (resample) {
      resampleIslands(logW, G, rng, index);
      reorderCloud(cloud, index, scratch, scratchN);
      logW.fill(0);
    }

    // Moves at β' (none at β = 1 unless asked: they would not change an estimate), then the draws;
    // none once the budget is spent.
    if (budgetSpentAt === undefined && counter.evaluations >= context.maxEvaluations) budgetSpentAt = beta;
    const final = (next === 1 && !settings.finalSweeps) || budgetSpentAt !== undefined;
    const outcome = moveStage(
      context,
      next,
      final ? 0 : settings.sweeps,
      final ? 0 : settings.draws,
      stepSize,
      observer,
    );
    stepSize = outcome.stepSize;
    if (outcome.sweeps > 0) posterior.add(cloud, logW, next);
    stages.push(stageRecord(next, essFraction, resample, outcome, context, logW));
    beta = next;
  }
  return {
    stages,
    islandLogZ,
    logW,
    cloud,
    posterior,
    evaluations: counter.evaluations,
    outOfSupport: counter.outOfSupport,
    nonFinite: counter.nonFinite,
    ...(budgetSpentAt === undefined ? {} : { budgetSpentAt }),
  };
}

/**
 * Adds each island's log mean incremental weight (log-sum-exp of the new weights `incW` less the old
 * `logW`, over its particles) to its log Z at β = `next`. An island whose every particle has zero
 * likelihood estimates Z by 0 (unbiasedly, if rarely): it stays at −∞ and its particles no longer move.
 * Throws when an island's weights overflow, or when every island is at −∞.
 */
function addIslandIncrements(
  incW: Float64Array,
  logW: Float64Array,
  islandLogZ: Float64Array,
  next: number,
  counter: LikelihoodCounter,
  where: string,
): void {
  const G = islandLogZ.length;
  const N = logW.length;
  let alive = 0;
  for (let g = 0; g < G; g++) {
    if (islandLogZ[g] === Number.NEGATIVE_INFINITY) continue;
    const a = islandStart(g, G, N);
    const b = islandStart(g + 1, G, N);
    const increment = logSumExp(incW, a, b - a) - logSumExp(logW, a, b - a);
    if (Number.isNaN(increment) || increment === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${where}: the weights of island ${g + 1} overflow at β = ${next}; check the model's log likelihood.`,
      );
    }
    islandLogZ[g] += increment;
    if (islandLogZ[g] > Number.NEGATIVE_INFINITY) alive++;
  }
  if (alive === 0) {
    throw new OccamError(
      "non-finite",
      counter.nonFinite === N
        ? `${where}: model.logLikelihood is NaN or +Infinity at every prior draw; fix the model.`
        : `${where}: every particle has zero likelihood at β = ${next}: the prior draws all missed the likelihood's ` +
            "support; use more particles or check the model.",
    );
  }
}

/** The record of a stage at β = `beta`, after its moves' `outcome`, with the cloud's weights `logW`. */
function stageRecord(
  beta: number,
  essFraction: number,
  resampled: boolean,
  outcome: ReturnType<typeof moveStage>,
  context: StageContext,
  logW: Float64Array,
): TemperingStage {
  return {
    beta,
    essFraction,
    resampled,
    sweeps: outcome.sweeps,
    acceptanceRate: outcome.moved > 0 ? outcome.acceptSum / outcome.moved : Number.NaN,
    stepSize: outcome.stepSize,
    divergences: outcome.divergent,
    modelFailures: outcome.failed,
    meanLogLikelihood: weightedMean(context.cloud.logLikelihood, logW),
    unmoved: outcome.sweeps > 0 ? unmovedFraction(context.movedFlags) : 0,
    ...(outcome.probe === undefined ? {} : { probe: outcome.probe }),
    ...(outcome.independent === undefined
      ? {}
      : {
          independent: {
            sweeps: outcome.independent.sweeps,
            acceptanceRate: outcome.independent.acceptSum / Math.max(1, outcome.independent.moved),
            unmoved: outcome.independent.unmoved,
            mixed: outcome.independent.mixed,
          },
        }),
  };
}

/** What the moves of every stage share. */
interface StageContext {
  readonly model: BayesModel;
  readonly cloud: ParticleCloud;
  readonly shape: CloudShape;
  readonly move: CloudMove;
  readonly maxSweeps: number;
  /** Whether the step size stays as given (no tuning). */
  readonly fixedStepSize: boolean;
  /** HMC's target acceptance where the settings or the model give one. */
  readonly hmcTargetAccept: number | undefined;
  readonly rng: Rng;
  readonly counter: LikelihoodCounter;
  readonly where: string;
  /** "auto" sweeps: the fraction of the start's memory to leave (see {@link autoSweeps}). */
  readonly memoryLeft: number | undefined;
  /** The particles' log likelihoods and log priors where the stage's moves started (for "auto" sweeps). */
  readonly startLogLikelihood: Float64Array;
  readonly startLogPrior: Float64Array;
  readonly scratch: MoveScratch;
  /** The run's budget of likelihood evaluations (see `TemperingSettings.maxEvaluations`). */
  readonly maxEvaluations: number;
  /** Where stages first try independence proposals (see {@link independencePhase}), their state. */
  readonly independence: IndependenceState | undefined;
  /** Each particle's log density under the stage's independence proposal. */
  readonly logQ: Float64Array;
  /** Which particles a move of this stage moved. */
  readonly movedFlags: Uint8Array;
}

/**
 * The moves of one stage at β: `sweeps` sweeps (or "auto": as many as {@link autoSweeps} asks), then
 * `draws` sweeps whose states go to the observer. The step size is tuned after each sweep towards the
 * move's target acceptance, log ε += ᾱ − α*.
 */
function moveStage(
  c: StageContext,
  beta: number,
  sweeps: number | "auto",
  draws: number,
  stepSize: number,
  observer: TemperingObserver | undefined,
): SweepOutcome & {
  sweeps: number;
  stepSize: number;
  independent?: IndependencePhase;
  probe?: { trajectories: number; divergences: number };
} {
  const { cloud, move } = c;
  const N = cloud.n;
  const total: SweepOutcome = { moved: 0, acceptSum: 0, divergent: 0, failed: 0 };
  c.movedFlags.fill(0);
  let independent: IndependencePhase | undefined;
  if (c.independence !== undefined && sweeps === "auto" && c.independence.tryNow()) {
    independent = independencePhase(c, c.independence.islandShapes, beta, draws, observer);
    c.independence.record(independent.mixed);
    addOutcome(total, independent);
    if (independent.mixed) {
      if (move !== "hmc") return { ...total, sweeps: independent.sweeps, stepSize, independent };
      const probe = hmcSweep(
        c.model,
        cloud,
        beta,
        c.shape,
        stepSize,
        c.rng,
        c.counter,
        c.scratch,
        c.movedFlags,
        PROBE_STRIDE,
      );
      if (probe.moved > 0 && !c.fixedStepSize) {
        stepSize = Math.min(
          maxStepSize(move),
          stepSize * Math.exp(probe.acceptSum / probe.moved - acceptanceTarget(c, move)),
        );
      }
      return {
        ...total,
        sweeps: independent.sweeps,
        stepSize,
        independent,
        probe: { trajectories: probe.moved, divergences: probe.divergent },
      };
    }
  }
  // A model that says where its posterior's curvature outgrows its bulk's (a neck) asks HMC for a
  // higher acceptance, and so a shorter step, as its chains get (see `BayesModel.hmcTargetAccept`);
  // a caller may ask it for one run, as Stan's users raise adapt_delta where trajectories diverge.
  const alpha = acceptanceTarget(c, move);
  const maxStep = maxStepSize(move);
  let limit = sweeps === "auto" ? c.maxSweeps : sweeps;
  let decided = sweeps !== "auto";
  const kernel = move === "model" && limit + draws > 0 ? modelKernel(c.model, beta, c.where) : undefined;
  let done = 0;
  const likelihoodMemory: number[] = [];
  const priorMemory: number[] = [];
  // The log priors' memory only sets the rate of decay that `memoryLeft` extrapolates.
  const tracksPrior = !decided && c.memoryLeft !== undefined;
  if (!decided) c.startLogLikelihood.set(cloud.logLikelihood);
  if (tracksPrior) c.startLogPrior.set(cloud.logPrior);
  while (done < limit + draws && c.counter.evaluations < c.maxEvaluations) {
    let outcome: SweepOutcome;
    if (move === "hmc") {
      outcome = hmcSweep(c.model, cloud, beta, c.shape, stepSize, c.rng, c.counter, c.scratch, c.movedFlags);
    } else if (move === "random-walk") {
      outcome = randomWalkSweep(cloud, beta, c.shape, stepSize, c.rng, c.counter, c.scratch, c.movedFlags);
    } else {
      outcome = kernelSweep(
        kernel as NonNullable<typeof kernel>,
        cloud,
        beta,
        c.rng,
        c.counter,
        c.movedFlags,
      );
    }
    done++;
    addOutcome(total, outcome);
    if (move !== "model" && outcome.moved > 0 && !c.fixedStepSize) {
      stepSize = Math.min(maxStep, stepSize * Math.exp(outcome.acceptSum / outcome.moved - alpha));
    }
    if (done > limit) observer?.draws(beta, cloud);
    else if (!decided) {
      likelihoodMemory.push(correlation(c.startLogLikelihood, cloud.logLikelihood));
      if (tracksPrior) priorMemory.push(correlation(c.startLogPrior, cloud.logPrior));
      const needed = autoSweeps(likelihoodMemory, priorMemory, N, c.memoryLeft);
      if (needed !== undefined) {
        limit = Math.min(c.maxSweeps, needed);
        decided = true;
      }
    }
  }
  return { ...total, sweeps: done + (independent?.sweeps ?? 0), stepSize, independent };
}

/** The acceptance the move's step size is tuned towards. */
function acceptanceTarget(c: StageContext, move: CloudMove): number {
  return move === "hmc" && c.hmcTargetAccept !== undefined
    ? c.hmcTargetAccept
    : targetAcceptance(move, c.cloud.dim);
}

/**
 * Where independence proposals mixed a temperature, one in this many particles still makes one HMC
 * trajectory: a probe of the target's geometry (a funnel's neck, which the Student-t never proposes
 * into, makes trajectories diverge) that also keeps the step size tuned.
 */
const PROBE_STRIDE = 16;

/** Pearson's correlation of two equally long arrays (0 when either is constant). */
function correlation(a: Float64Array, b: Float64Array): number {
  const { ab, aa, bb } = centredProducts(a, b);
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/**
 * How many sweeps "auto" makes at one temperature, or undefined while the sweeps so far do not yet
 * tell. `likelihoodMemory[s − 1]` is the correlation, across particles, between each particle's log
 * likelihood at the stage's start and after s sweeps; `priorMemory` the same of the log prior density
 * on the sampled scale (read only with `memoryLeft`).
 *
 * The particles have decorrelated when the log likelihoods' correlation falls below 0.1 (the quantity
 * the next reweighting depends on), or when it has stopped falling (by less than 0.02 over two
 * sweeps): particles in separated modes of different height keep a floor of correlation no local move
 * can remove. At least two sweeps, so that resampled duplicates part.
 *
 * Decorrelated particles are not yet a cloud that has caught up with the temperature: the lag of its
 * mean log likelihood decays at the rate of the slowest memory, and what is left of it at each of some
 * thirty temperatures adds up in log Z. On a 50-dimensional correlated Gaussian under a box prior,
 * stopping at 0.1 (3–7 sweeps) left the mean log likelihood 25–55 nats (0.02–0.04 sd) behind its exact
 * value at the first temperatures and log Z 0.4–0.6 nats low (four runs); twenty sweeps gave −0.22 ±
 * 0.10, −0.03 ± 0.10 and +0.005 ± 0.08 (three runs). With
 * `memoryLeft`, the memory is taken to decay as λ^s, λ the largest c_j^{1/j} over both correlations
 * measured clearly (above 3/√N), and the sweeps go on until λ^s < `memoryLeft`: about twelve there.
 */
export function autoSweeps(
  likelihoodMemory: readonly number[],
  priorMemory: readonly number[],
  particles: number,
  memoryLeft: number | undefined,
): number | undefined {
  const s = likelihoodMemory.length;
  if (s < 2) return undefined;
  const last = likelihoodMemory[s - 1];
  if (last >= 0.1) {
    const floor = s >= 3 && likelihoodMemory[s - 3] - last < 0.02;
    return floor ? s : undefined;
  }
  if (memoryLeft === undefined) return s;
  const clear = 3 / Math.sqrt(particles);
  let rate = 0;
  for (let j = 0; j < s; j++) {
    const memory = Math.max(likelihoodMemory[j], priorMemory[j]);
    if (memory >= clear) rate = Math.max(rate, memory ** (1 / (j + 1)));
  }
  return rate > 0 ? Math.max(s, Math.ceil(Math.log(memoryLeft) / Math.log(rate))) : s;
}

/** The mean of `values` under the weights e^{logW}, over the entries of positive weight. */
function weightedMean(values: Float64Array, logW: Float64Array): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < logW.length; i++) if (logW[i] > max) max = logW[i];
  let total = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const w = Math.exp(logW[i] - max);
    if (w === 0) continue;
    total += w;
    sum += w * values[i];
  }
  return sum / total;
}
