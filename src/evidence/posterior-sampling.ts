import { essPerParameter } from "../diagnostics/ess.js";
import { rhatPerParameter } from "../diagnostics/rhat.js";
import { OccamError } from "../errors.js";
import { cholesky } from "../math/linalg.js";
import { lowerScatter, mirrorLower, rowMean } from "../math/moments.js";
import { chisquareQuantile } from "../math/stdlib.js";
import { Draws } from "../model/draws.js";
import { type BayesModel, tempered } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import type { Rng } from "../random/rng.js";
import { hmcWarmup } from "../samplers/hmc.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "../samplers/kernel.js";
import { nutsWarmup } from "../samplers/nuts.js";
import { randomWalkWarmup } from "../samplers/random-walk.js";
import { runChain } from "../samplers/run.js";
import { checkCount, type RandomOptions, resolveRng } from "./checks.js";
import type { ParticleCloud } from "./tempering/cloud.js";
import { runTempering } from "./tempering/engine.js";
import { MAX_DIVERGENT_FRACTION } from "./tempering/estimates.js";
import { resolveCloudMove } from "./tempering/moves.js";
import { type PowerPosteriorKernelChoice, resolveKernelKind } from "./tempering/power-posterior.js";

/** Options of {@link samplePosterior}. */
export interface PosteriorSamplingOptions extends RandomOptions {
  /**
   * The kernel: `"auto"` takes the model's exact `powerPosteriorKernel(1)` when it has one, else NUTS
   * when it has gradients, else adaptive random-walk Metropolis. `"hmc"` is static HMC, as the
   * tempered methods run it.
   * @defaultValue "auto"
   */
  kernel?: PosteriorKernelChoice;
  /**
   * Chains, each started at its own particle of the tempered run (or prior draw), as many as Stan
   * runs. A posterior with separated modes shows as chains that disagree, or, when all chains land
   * in one mode (two equal modes: probability 2⁻³), as tempered particles no chain went near.
   * @defaultValue 4
   */
  chains?: number;
  /** Warm-up iterations per chain. @defaultValue 1000 */
  warmup?: number;
  /** Kept draws per chain. @defaultValue 1000 */
  draws?: number;
  /**
   * Where the chains start: "tempered", at particles of a small tempered SMC run (128 particles),
   * which finds the posterior's modes in proportion to their mass, so that chains land in every mode
   * worth finding, and which then checks that the chains went everywhere it found mass; or "prior", at
   * prior draws (a chain falls into whichever mode's basin it starts in, and a small mode's basin can
   * be tiny).
   * @defaultValue "tempered"
   */
  starts?: "tempered" | "prior";
}

/** The posterior chains' kernel: the power-posterior choices, and NUTS (the default with gradients). */
export type PosteriorKernelChoice = PowerPosteriorKernelChoice | "nuts";

/** Which kernel a posterior choice resolves to, checking the model supports it. */
function resolvePosteriorKernel(
  model: BayesModel,
  choice: PosteriorKernelChoice,
  where: string,
): "model" | "nuts" | "hmc" | "random-walk" | "user" {
  if (
    choice === "nuts" &&
    !(typeof model.gradLogPrior === "function" && typeof model.gradLogLikelihood === "function")
  ) {
    throw new OccamError(
      "invalid-argument",
      `${where}: kernel "nuts" needs model.gradLogPrior and model.gradLogLikelihood; give them or use "random-walk".`,
    );
  }
  if (choice === "nuts" || choice === "auto") {
    const kind = resolveKernelKind(model, choice === "nuts" ? "hmc" : "auto", where);
    return kind === "hmc" ? "nuts" : kind;
  }
  return resolveKernelKind(model, choice, where);
}

/** Posterior draws with the convergence checks every estimator that uses them should report. */
export interface PosteriorSample {
  readonly draws: Draws;
  readonly kernel: string;
  /** The largest split R-hat over parameters. */
  readonly maxRhat: number;
  /** The smallest ESS over parameters. */
  readonly minEss: number;
  readonly divergences: number;
  /** Likelihood (or likelihood-gradient) evaluations, warm-up included. */
  readonly nLikelihoodEvals: number;
  /** Seconds spent, the tempered run included. */
  readonly seconds: number;
  /** Why the draws cannot be trusted to represent the posterior: chains that disagree, few effective draws. */
  readonly unreliable: readonly string[];
  /** Other things to know: divergent trajectories. */
  readonly warnings: readonly string[];
}

/** R-hat above this means the chains have not mixed (Vehtari et al. 2021 recommend 1.01 for final work). */
const RHAT_WARNING = 1.05;

/**
 * Split R-hat, over the first quarter of the draws, above which the chains stop there. The between-chain
 * spread of chains that mix falls at best as 1 / draws, so R-hat² − 1 could fall four-fold by the end,
 * from 1.25² − 1 to 1.07² − 1, still above the 1.05 that marks the draws unreliable. Chains that would
 * pass that check on 100 parameters carry some 50 effective draws per half-chain by the end, 12 by the
 * quarter, where an R-hat of 1.25 on any of them arises by chance in about 2 runs in a million (R-hat²
 * − 1 ≈ χ²₇ / (7 × 12) over the eight half-chains' means).
 */
const DECISIVE_RHAT = 1.25;

/** Fewer effective draws than this (the smallest over parameters) make the draws unreliable. */
const MIN_POSTERIOR_ESS = 100;

/** NUTS's tree depth limit for posterior chains (Stan's default). */
const NUTS_MAX_TREE_DEPTH = 10;

/** Particles of the tempered run the chains start from. */
const PILOT_PARTICLES = 128;

/**
 * The fraction of the tempered pilot's particles the chains' draws leave uncovered above which the
 * chains missed posterior mass: a pilot particle is uncovered when its Mahalanobis distance from the
 * draws (their mean and covariance) exceeds the 99.9 % quantile of χ²_d and every draw's own.
 */
const MAX_UNCOVERED = 0.05;

/**
 * Draws from the posterior p(θ | D) ∝ p(θ) L(θ) by several chains, for the estimators that need
 * posterior draws when the user has none of their own. The chains start at particles of a small
 * tempered SMC run ("several modes found"), or at prior draws (`starts: "prior"`). A model with
 * `bounds` is sampled on its unbounded scale (see `unbounded`); the draws are returned on the model's
 * own scale. The draws are marked unreliable when the chains disagree (split R-hat above 1.05: chains
 * in different modes, or not mixed), carry fewer than 100 effective draws, diverge on more than 0.1 %
 * of their HMC trajectories (a region they cannot follow), or leave more than 5 % of the tempered
 * run's particles uncovered (a mode no chain reached). Chains whose split R-hat over the first quarter
 * of their draws already exceeds 1.25 (more than more draws could mend) stop there, keeping at least
 * four draws per parameter, and the reason says so.
 */
export function samplePosterior(given: BayesModel, options: PosteriorSamplingOptions = {}): PosteriorSample {
  const where = "samplePosterior";
  const start = performance.now();
  const view = unbounded(given, where);
  const model = view.model;
  const chains = options.chains ?? 4;
  const warmup = options.warmup ?? 1000;
  const perChain = options.draws ?? 1000;
  const starts = options.starts ?? "tempered";
  checkCount(chains, "chains", where, 1);
  checkCount(warmup, "warmup", where, 0);
  checkCount(perChain, "draws", where, 10);
  if (starts !== "tempered" && starts !== "prior") {
    throw new OccamError(
      "invalid-argument",
      `${where}: starts must be "tempered" or "prior", got ${String(starts)}.`,
    );
  }
  const [pilotRng, chainRng] = resolveRng(options, where).split(2);
  const kind = resolvePosteriorKernel(model, options.kernel ?? "auto", where);
  const pilot = starts === "tempered" ? temperedPilot(model, pilotRng, where) : undefined;
  // Without gradients the random walk proposes in the metric of the pilot's particles, so that the
  // parameters' scales and correlations do not matter (PyMC's SMC kernel does the same).
  const metric = kind === "random-walk" && pilot !== undefined ? cloudCovariance(pilot.cloud) : undefined;
  // Chains that disagree decisively by the first quarter of their draws stop there, keeping at least four
  // draws per parameter, so that estimators fit to the draws (bridge sampling's proposal) still can be.
  const checkpoint =
    chains > 1 ? Math.max(Math.ceil(perChain / 4), 10, Math.ceil((4 * model.dim) / chains)) : perChain;
  const sampled = runChain(() => posteriorKernel(model, kind, options.kernel, metric), {
    chains,
    warmup,
    draws: perChain,
    rng: chainRng,
    names: model.names,
    initial: (r) => (pilot === undefined ? model.samplePrior(r) : pilotParticle(pilot, r)),
    ...(checkpoint < perChain
      ? {
          earlyStop: {
            afterDraws: checkpoint,
            stop: (d: Draws) => Math.max(...rhatPerParameter(d)) > DECISIVE_RHAT,
          },
        }
      : {}),
  });
  const stoppedEarly = sampled.nDraws < perChain;
  const draws = view.identity ? sampled : boundedDraws(sampled, view.toBounded);
  let evaluations = pilot?.evaluations ?? 0;
  let divergences = 0;
  let transitions = 0;
  let treeDepthLimited = 0;
  for (const s of sampled.stats) {
    evaluations += s.evaluations + s.warmupEvaluations;
    divergences += s.divergences;
    treeDepthLimited += s.treeDepthLimited ?? 0;
  }
  transitions = chains * sampled.nDraws;
  const maxRhat = chains > 1 ? Math.max(...rhatPerParameter(sampled)) : Number.NaN;
  const minEss = Math.min(...essPerParameter(sampled));
  if (!(minEss > 0)) {
    throw new OccamError(
      "non-finite",
      `${where}: the posterior draws do not move (ESS ${minEss}); the sampler is stuck. Check the model's scale or give draws.`,
    );
  }
  const unreliable: string[] = [];
  if (maxRhat > RHAT_WARNING) {
    unreliable.push(
      `the ${chains} posterior chains disagree (max split R-hat ${maxRhat.toFixed(3)}${stoppedEarly ? `, when they were stopped after ${sampled.nDraws} of their ${perChain} draws` : ""}): the posterior has separated ` +
        "modes or the chains have not mixed, so the draws cannot stand for it; use smc, stepping-stone or path, which " +
        "temper from the prior.",
    );
  }
  if (minEss < MIN_POSTERIOR_ESS) {
    unreliable.push(
      `only ${minEss.toFixed(0)} effective posterior draws: run the chains longer (more draws: the draws option, or --draws).`,
    );
  }
  if (divergences > MAX_DIVERGENT_FRACTION * transitions) {
    unreliable.push(
      kind === "nuts" || kind === "hmc"
        ? `${divergences} of ${transitions} ${kind === "nuts" ? "NUTS" : "HMC"} trajectories diverged: the posterior has ` +
            "regions the chains cannot follow (a funnel's neck, a sharp curve), whose mass the draws may miss."
        : `${divergences} of ${transitions} of the chains' proposals diverged (the model returned NaN or +Infinity there): ` +
            "the posterior has regions the chains cannot enter, whose mass the draws may miss.",
    );
  }
  const warnings: string[] = [];
  if (treeDepthLimited > 0) {
    warnings.push(
      `${treeDepthLimited} of ${transitions} NUTS trajectories stopped at the maximum tree depth (${NUTS_MAX_TREE_DEPTH}): ` +
        "the chains moved less far than they could; the draws are valid, their ESS says how many they are worth.",
    );
  }
  if (pilot !== undefined) {
    const uncovered = uncoveredFraction(pilot.cloud, sampled);
    if (uncovered > MAX_UNCOVERED) {
      unreliable.push(
        `a tempered run from the prior put ${(100 * uncovered).toFixed(0)} % of its particles where no posterior chain went: ` +
          "the chains missed a mode; use smc, stepping-stone or path.",
      );
    }
  }
  return {
    draws,
    kernel: kind,
    maxRhat,
    minEss,
    divergences,
    nLikelihoodEvals: evaluations,
    seconds: (performance.now() - start) / 1000,
    unreliable,
    warnings,
  };
}

/** The MCMC kernel of the posterior chains, or the warm-up that tunes it. */
function posteriorKernel(
  model: BayesModel,
  kind: ReturnType<typeof resolvePosteriorKernel>,
  choice: PosteriorKernelChoice | undefined,
  covariance: Float64Array | undefined,
): Kernel<PositionState, StepInfo> | Adaptation<PositionState, StepInfo> {
  switch (kind) {
    case "nuts":
      return nutsWarmup({
        target: tempered(model, 1),
        maxTreeDepth: NUTS_MAX_TREE_DEPTH,
        ...(model.hmcTargetAccept === undefined ? {} : { targetAccept: model.hmcTargetAccept }),
      });
    case "model":
      return model.powerPosteriorKernel?.(1) as Kernel<PositionState, StepInfo>;
    case "user":
      return (choice as (beta: number) => Kernel<PositionState, StepInfo>)(1);
    case "hmc":
      // A quarter period of a unit Gaussian in the adapted metric, jittered against periodicity.
      return hmcWarmup({
        target: tempered(model, 1),
        trajectoryLength: model.hmcTrajectoryLength ?? Math.PI / 2,
        stepSizeJitter: 0.2,
        ...(model.hmcMaxSteps === undefined ? {} : { maxSteps: model.hmcMaxSteps }),
        ...(model.hmcTargetAccept === undefined ? {} : { targetAccept: model.hmcTargetAccept }),
      });
    default:
      return randomWalkWarmup({
        target: tempered(model, 1),
        ...(covariance === undefined ? {} : { covariance }),
      });
  }
}

/** A small tempered SMC run from the prior to the posterior, whose particles the chains start from. */
function temperedPilot(
  model: BayesModel,
  rng: Rng,
  where: string,
): { cloud: ParticleCloud; evaluations: number } {
  const run = runTempering(
    model,
    rng,
    {
      particles: PILOT_PARTICLES,
      islands: 2,
      ladder: undefined,
      targetEss: 0.5,
      resample: "always",
      move: resolveCloudMove(model, "auto", where),
      sweeps: "auto",
      draws: 0,
      maxSweeps: 50,
      memoryLeft: undefined,
      // Moves at β = 1 too, so that resampled duplicates part.
      finalSweeps: true,
      maxStages: 10_000,
      independence: true,
    },
    `${where} (the tempered run the chains start from)`,
  );
  return { cloud: run.cloud, evaluations: run.evaluations };
}

/** The covariance of a cloud's (equally weighted) particles, or undefined when it is singular. */
function cloudCovariance(cloud: ParticleCloud): Float64Array | undefined {
  const { n, dim: d, positions } = cloud;
  const mean = rowMean(positions, d, n, new Float64Array(d));
  const covariance = lowerScatter(positions, d, n, mean, new Float64Array(d * d));
  for (let a = 0; a < d; a++) for (let b = 0; b <= a; b++) covariance[a * d + b] /= n - 1;
  mirrorLower(covariance, d);
  try {
    cholesky(covariance, d);
    return covariance;
  } catch {
    return undefined;
  }
}

/** A copy of a randomly chosen particle of the pilot's final cloud. */
function pilotParticle(pilot: { cloud: ParticleCloud }, rng: Rng): Float64Array {
  const { n, dim, positions } = pilot.cloud;
  const i = rng.integer(n);
  return Float64Array.from(positions.subarray(i * dim, (i + 1) * dim));
}

/**
 * The fraction of the pilot's particles farther from the draws than the 99.9 % quantile of χ²_d and
 * than every draw itself, in the Mahalanobis distance of the draws' mean and covariance: near 0 when
 * the draws cover the posterior, the mass of every missed mode when they do not. (The draws' own
 * largest distance keeps a posterior whose tails are heavier than a normal's, such as the funnel of a
 * group sd near zero and its group effects, from looking like a missed mode.)
 */
function uncoveredFraction(cloud: ParticleCloud, draws: Draws): number {
  const d = cloud.dim;
  let L: Float64Array;
  try {
    L = cholesky(draws.covariance(), d);
  } catch {
    return 0;
  }
  const mean = draws.mean();
  const z = new Float64Array(d);
  const distance = (points: Float64Array, i: number): number => {
    let q = 0;
    for (let a = 0; a < d; a++) {
      let v = points[i * d + a] - mean[a];
      for (let b = 0; b < a; b++) v -= L[a * d + b] * z[b];
      z[a] = v / L[a * d + a];
      q += z[a] * z[a];
    }
    return q;
  };
  let limit = chisquareQuantile(0.999, d);
  for (let t = 0; t < draws.size; t++) limit = Math.max(limit, distance(draws.values, t));
  let outside = 0;
  for (let i = 0; i < cloud.n; i++) if (distance(cloud.positions, i) > limit) outside++;
  return outside / cloud.n;
}

/** Draws mapped back from the unbounded scale to the model's own. */
function boundedDraws(
  draws: Draws,
  toBounded: (eta: Float64Array, out: Float64Array) => Float64Array,
): Draws {
  const d = draws.dim;
  const out = new Draws({ dim: d, nChains: draws.nChains, nDraws: draws.nDraws, names: draws.names });
  for (let t = 0; t < draws.size; t++) {
    toBounded(draws.values.subarray(t * d, (t + 1) * d), out.values.subarray(t * d, (t + 1) * d));
  }
  out.logDensity.fill(Number.NaN);
  return out;
}
