import { essPerParameter } from "../diagnostics/ess.js";
import { rhatPerParameter } from "../diagnostics/rhat.js";
import { OccamError } from "../errors.js";
import type { Draws } from "../model/draws.js";
import { type BayesModel, tempered } from "../model/model.js";
import { buildHmcKernel } from "../samplers/hmc.js";
import type { Kernel, PositionState, StepInfo } from "../samplers/kernel.js";
import { buildRandomWalkKernel } from "../samplers/random-walk.js";
import { runChain } from "../samplers/run.js";
import { type PowerPosteriorKernelChoice, resolveKernelKind } from "./power-posterior.js";
import { checkCount, type RandomOptions, resolveRng } from "./result.js";

/** Options of {@link samplePosterior}. */
export interface PosteriorSamplingOptions extends RandomOptions {
  /**
   * The kernel: `"auto"` takes the model's exact `powerPosteriorKernel(1)` when it has one, else HMC
   * when it has gradients, else adaptive random-walk Metropolis.
   * @defaultValue "auto"
   */
  kernel?: PowerPosteriorKernelChoice;
  /** @defaultValue 4 */
  chains?: number;
  /** Warm-up iterations per chain. @defaultValue 1000 */
  warmup?: number;
  /** Kept draws per chain. @defaultValue 2000 */
  draws?: number;
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
  /** Warnings for the user: chains that disagree, few effective draws, divergences. */
  readonly warnings: readonly string[];
}

/** R-hat above this means the chains have not mixed (Vehtari et al. 2021 recommend 1.01 for final work). */
const RHAT_WARNING = 1.05;

/**
 * Draws from the posterior p(θ | D) ∝ p(θ) L(θ) by several chains started at prior draws, for the
 * estimators that need posterior draws when the user has none of their own.
 */
export function samplePosterior(model: BayesModel, options: PosteriorSamplingOptions = {}): PosteriorSample {
  const where = "samplePosterior";
  const chains = options.chains ?? 4;
  const warmup = options.warmup ?? 1000;
  const perChain = options.draws ?? 2000;
  checkCount(chains, "chains", where, 1);
  checkCount(warmup, "warmup", where, 0);
  checkCount(perChain, "draws", where, 10);
  const rng = resolveRng(options, where);
  const kind = resolveKernelKind(model, options.kernel ?? "auto", where);
  const target = tempered(model, 1);
  const makeKernel = (): Kernel<PositionState, StepInfo> => {
    switch (kind) {
      case "model":
        return model.powerPosteriorKernel?.(1) as Kernel<PositionState, StepInfo>;
      case "user":
        return (options.kernel as (beta: number) => Kernel<PositionState, StepInfo>)(1);
      case "hmc":
        // A quarter period of a unit Gaussian in the adapted metric, jittered against periodicity.
        return buildHmcKernel({ target, trajectoryLength: Math.PI / 2, stepSizeJitter: 0.2 });
      default:
        return buildRandomWalkKernel({ target });
    }
  };
  const draws = runChain(() => makeKernel(), {
    chains,
    warmup,
    draws: perChain,
    rng,
    names: model.names,
    initial: (chainRng) => model.samplePrior(chainRng),
  });
  let evaluations = 0;
  let divergences = 0;
  for (const s of draws.stats) {
    evaluations += s.evaluations + s.warmupEvaluations;
    divergences += s.divergences;
  }
  const maxRhat = chains > 1 ? Math.max(...rhatPerParameter(draws)) : Number.NaN;
  const minEss = Math.min(...essPerParameter(draws));
  if (!(minEss > 0)) {
    throw new OccamError(
      "non-finite",
      `${where}: the posterior draws do not move (ESS ${minEss}); the sampler is stuck. Check the model's scale or give draws.`,
    );
  }
  const warnings: string[] = [];
  if (maxRhat > RHAT_WARNING) {
    warnings.push(
      `chains disagree (max split R-hat ${maxRhat.toFixed(3)}): run longer or check for multiple modes`,
    );
  }
  if (minEss < 100) warnings.push(`only ${minEss.toFixed(0)} effective posterior draws: run longer`);
  if (divergences > 0)
    warnings.push(`${divergences} divergent trajectories: the posterior has regions HMC cannot follow`);
  return { draws, kernel: kind, maxRhat, minEss, divergences, nLikelihoodEvals: evaluations, warnings };
}
