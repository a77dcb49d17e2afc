import { effectiveSampleSize } from "../diagnostics/ess.js";
import { HALF_LOG_2PI } from "../math/constants.js";
import type { LogDensity } from "../model/model.js";
import { createRng, type Rng } from "../random/rng.js";
import { buildGaussianGibbsUpdates } from "../samplers/gaussian-gibbs.js";
import { buildGibbsKernel } from "../samplers/gibbs.js";
import { buildHmcKernel } from "../samplers/hmc.js";
import { importanceSample } from "../samplers/importance.js";
import type { Kernel, PositionState, StepInfo } from "../samplers/kernel.js";
import { buildMalaKernel } from "../samplers/mala.js";
import { buildRandomWalkKernel } from "../samplers/random-walk.js";
import { runChain } from "../samplers/run.js";

/** The samplers compared on the correlated Gaussians, by their names in the output. */
export type SamplerName = "gibbs" | "metropolis" | "langevin" | "hmc";

/** One sampler's run on one correlated Gaussian. */
export interface GaussianRow {
  rho: number;
  sampler: SamplerName;
  /** Density or gradient evaluations spent on the kept draws (a Gibbs conditional draw counts as one). */
  evaluations: number;
  mean: [number, number];
  covariance: [[number, number], [number, number]];
  acceptanceRate: number;
  /** Effective sample size of each coordinate's mean. */
  ess: [number, number];
  /** The smaller ESS per 1000 evaluations: the cost of an independent draw. */
  essPer1000Evaluations: number;
}

/** One importance-sampling estimate of log ∫ exp(−x²/2) dx = ½ log 2π. */
export interface ImportanceRow {
  proposalVariance: number;
  samples: number;
  logZ: number;
  stdErr: number;
}

/** The result of `occam reproduce samplers`. */
export interface SamplersExperiment {
  experiment: "samplers";
  seed: number;
  /** Evaluations each sampler is given on each Gaussian. */
  budget: number;
  gaussians: GaussianRow[];
  /** The exact log normalising constant, ½ log 2π. */
  exactLogZ: number;
  importance: ImportanceRow[];
}

/** Options of {@link runSamplersExperiment}. */
export interface SamplersExperimentOptions {
  /** @defaultValue 1 */
  seed?: number;
  /**
   * A smaller evaluation budget (20 000 instead of 200 000) for a fast look.
   * @defaultValue false
   */
  quick?: boolean;
  /** Called before each sampler run with what comes next. */
  onProgress?: (step: string) => void;
}

const RHOS = [0.8, 0.99] as const;
const SAMPLERS: readonly SamplerName[] = ["gibbs", "metropolis", "langevin", "hmc"];
const PROPOSAL_VARIANCES = [2, 1e4] as const;
const SAMPLE_SIZES = [10, 100, 1000, 10_000, 100_000] as const;
/** Iterations run before the kept draws, from the mode, to forget the start; not counted in the budget. */
const BURN_IN = 200;

/**
 * The experiments of thesis chapter 4 and section 5.1.1: a zero-mean 2-D Gaussian with unit variances
 * and correlation ρ = 0.8 and 0.99 sampled by Gibbs, Metropolis, Langevin and hybrid Monte Carlo on
 * the same budget of evaluations, with the thesis's settings (4.4.2, 4.4.4): a Metropolis proposal
 * with isotropic variance equal to the smallest eigenvalue 1 − ρ; Langevin and HMC with step size
 * 1.5 σ_min; HMC with σ_max/σ_min leapfrog steps. Then importance sampling of the normalising constant
 * of exp(−x²/2) from Gaussian proposals of variance 2 and 10^4 as the sample size grows.
 */
export function runSamplersExperiment(options: SamplersExperimentOptions = {}): SamplersExperiment {
  const seed = options.seed ?? 1;
  const budget = options.quick ? 20_000 : 200_000;
  const rng = createRng(seed);
  const [gaussianRng, importanceRng] = rng.split(2);
  const streams = gaussianRng.split(RHOS.length * SAMPLERS.length);
  const gaussians: GaussianRow[] = [];
  RHOS.forEach((rho, i) => {
    SAMPLERS.forEach((sampler, j) => {
      options.onProgress?.(`rho = ${rho}, ${sampler}`);
      gaussians.push(sampleCorrelatedGaussian(rho, sampler, budget, streams[i * SAMPLERS.length + j]));
    });
  });
  return {
    experiment: "samplers",
    seed,
    budget,
    gaussians,
    exactLogZ: HALF_LOG_2PI,
    importance: importanceExperiment(importanceRng),
  };
}

/** log density of N(0, [[1, ρ], [ρ, 1]]) up to a constant, with its gradient. */
function correlatedGaussian(rho: number): LogDensity {
  const c = 1 / (1 - rho * rho);
  return {
    dim: 2,
    logDensity: (x) => -0.5 * c * (x[0] * x[0] - 2 * rho * x[0] * x[1] + x[1] * x[1]),
    gradLogDensity: (x, g) => {
      g[0] = -c * (x[0] - rho * x[1]);
      g[1] = -c * (x[1] - rho * x[0]);
      return -0.5 * c * (x[0] * x[0] - 2 * rho * x[0] * x[1] + x[1] * x[1]);
    },
  };
}

function sampleCorrelatedGaussian(rho: number, sampler: SamplerName, budget: number, rng: Rng): GaussianRow {
  const target = correlatedGaussian(rho);
  // Eigenvalues of the covariance are 1 ± ρ.
  const sdMin = Math.sqrt(1 - rho);
  const sdMax = Math.sqrt(1 + rho);
  let kernel: Kernel<PositionState, StepInfo>;
  let costPerIteration: number;
  switch (sampler) {
    case "gibbs":
      // Gibbs needs no density evaluations; each conditional draw counts as one evaluation instead.
      kernel = buildGibbsKernel({
        dim: 2,
        updates: buildGaussianGibbsUpdates({
          mean: new Float64Array(2),
          covariance: Float64Array.of(1, rho, rho, 1),
        }),
      });
      costPerIteration = 2;
      break;
    case "metropolis":
      kernel = buildRandomWalkKernel({ target, scale: sdMin });
      costPerIteration = 1;
      break;
    case "langevin":
      kernel = buildMalaKernel({ target, stepSize: 1.5 * sdMin });
      costPerIteration = 1;
      break;
    case "hmc": {
      const steps = Math.round(sdMax / sdMin);
      // The thesis keeps the number of steps fixed (no jitter), which also keeps the budget exact.
      kernel = buildHmcKernel({
        target,
        stepSize: 1.5 * sdMin,
        steps,
        stepsJitter: 0,
      });
      costPerIteration = steps;
      break;
    }
  }
  const iterations = Math.floor(budget / costPerIteration);
  const draws = runChain(kernel, { draws: iterations, warmup: BURN_IN, rng, initial: new Float64Array(2) });
  const mean = draws.mean();
  const cov = draws.covariance();
  const ess: [number, number] = [effectiveSampleSize(draws.chains(0)), effectiveSampleSize(draws.chains(1))];
  const evaluations = sampler === "gibbs" ? iterations * costPerIteration : draws.stats[0].evaluations;
  return {
    rho,
    sampler,
    evaluations,
    mean: [mean[0], mean[1]],
    covariance: [
      [cov[0], cov[1]],
      [cov[2], cov[3]],
    ],
    acceptanceRate: draws.stats[0].acceptanceRate,
    ess,
    essPer1000Evaluations: (1000 * Math.min(ess[0], ess[1])) / evaluations,
  };
}

function importanceExperiment(rng: Rng): ImportanceRow[] {
  const rows: ImportanceRow[] = [];
  const streams = rng.split(PROPOSAL_VARIANCES.length * SAMPLE_SIZES.length);
  PROPOSAL_VARIANCES.forEach((variance, i) => {
    const sd = Math.sqrt(variance);
    const logNorm = -HALF_LOG_2PI - 0.5 * Math.log(variance);
    const proposal = {
      dim: 1,
      sample: (r: Rng, out: Float64Array) => {
        out[0] = sd * r.normal();
        return out;
      },
      logPdf: (x: Float64Array) => logNorm - (0.5 * x[0] * x[0]) / variance,
    };
    SAMPLE_SIZES.forEach((samples, j) => {
      const result = importanceSample(streams[i * SAMPLE_SIZES.length + j], {
        logTarget: (x: Float64Array) => -0.5 * x[0] * x[0],
        proposal,
        samples,
      });
      rows.push({ proposalVariance: variance, samples, logZ: result.logNormalizer, stdErr: result.stdErr });
    });
  });
  return rows;
}
