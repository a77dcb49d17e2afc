/**
 * The cross-kernel harness: every sampler on Gaussian targets of increasing difficulty, checked by the
 * same rule — each coordinate's sample mean within 4 MCSE of the truth (MCSE = sd/√ESS) and its sample
 * variance within 4 standard errors (≈ σ²√(2/ESS of the squared deviations)).
 *
 * Targets: d = 1; d = 2 with ρ = 0.8; d = 10 with a random rotation of eigenvalues log-spaced in
 * [1, 10]; d = 50 with a random rotation of eigenvalues log-spaced in [1, 100] (condition number 100).
 * The rotations are fixed-seed and dense, so no coordinate is aligned with an eigenvector: coordinate-
 * wise samplers (Gibbs, the diagonal mass matrix of HMC) see the full correlation.
 */
import { describe, expect, it } from "vitest";
import { effectiveSampleSize } from "../../src/diagnostics/ess.js";
import { symmetricEigenvalues } from "../../src/math/linalg.js";
import type { Rng } from "../../src/random/rng.js";
import { createRng } from "../../src/random/rng.js";
import { buildGaussianGibbsUpdates } from "../../src/samplers/gaussian-gibbs.js";
import { buildGibbsKernel } from "../../src/samplers/gibbs.js";
import { hmcWarmup } from "../../src/samplers/hmc.js";
import { importanceSample } from "../../src/samplers/importance.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "../../src/samplers/kernel.js";
import { malaWarmup } from "../../src/samplers/mala.js";
import { randomWalkWarmup } from "../../src/samplers/random-walk.js";
import { buildRejectionKernel } from "../../src/samplers/rejection.js";
import { runChain } from "../../src/samplers/run.js";
import {
  failures,
  type GaussianTarget,
  gaussianTarget,
  inflatedProposal,
  type MomentCheck,
  momentChecks,
  randomRotation,
  rotatedCovariance,
} from "./targets.js";

function logSpaced(d: number, lo: number, hi: number): Float64Array {
  return Float64Array.from({ length: d }, (_, i) => (d === 1 ? lo : lo * (hi / lo) ** (i / (d - 1))));
}

function randomMean(d: number, seed: number): Float64Array {
  const rng = createRng(seed);
  return Float64Array.from({ length: d }, () => 2 * rng.normal());
}

interface Case {
  name: string;
  target: GaussianTarget;
  /** Largest standard deviation after scaling each coordinate to unit variance (what a diagonal metric sees). */
  whitenedSdMax: number;
}

function makeCase(name: string, mean: Float64Array, covariance: Float64Array): Case {
  const d = mean.length;
  const corr = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++)
      corr[i * d + j] = covariance[i * d + j] / Math.sqrt(covariance[i * d + i] * covariance[j * d + j]);
  }
  const eig = symmetricEigenvalues(corr, d);
  return { name, target: gaussianTarget(mean, covariance), whitenedSdMax: Math.sqrt(eig[d - 1]) };
}

const cases: Case[] = [
  makeCase("d=1", new Float64Array([1.5]), new Float64Array([4])),
  makeCase("d=2 rho=0.8", new Float64Array([1, -1]), new Float64Array([1, 0.8, 0.8, 1])),
  makeCase(
    "d=10 cond=10",
    randomMean(10, 10),
    rotatedCovariance(logSpaced(10, 1, 10), randomRotation(10, 11)),
  ),
  makeCase(
    "d=50 cond=100",
    randomMean(50, 50),
    rotatedCovariance(logSpaced(50, 1, 100), randomRotation(50, 51)),
  ),
];

/** How long each MCMC kernel runs on a target of dimension d: draws kept per chain, thinning, warm-up. */
interface Budget {
  draws: number;
  thin: number;
  warmup: number;
}

type AnyKernel = Kernel<PositionState, StepInfo> | Adaptation<PositionState, StepInfo>;

interface Sampler {
  name: string;
  /** Returns the z-scores of every coordinate's mean and variance. */
  run(c: Case, seed: number): MomentCheck[];
}

function trueVariances(t: GaussianTarget): Float64Array {
  return Float64Array.from(t.sd, (s) => s * s);
}

/** An MCMC sampler checked through runChain with two chains started one standard deviation off the mean. */
function mcmc(name: string, build: (c: Case) => AnyKernel, budget: (d: number) => Budget): Sampler {
  return {
    name,
    run(c, seed) {
      const t = c.target;
      const { draws, thin, warmup } = budget(t.dim);
      const result = runChain((_chain) => build(c), {
        draws,
        thin,
        warmup,
        chains: 2,
        seed,
        initial: (rng: Rng) => Float64Array.from(t.mean, (m, j) => m + t.sd[j] * rng.normal()),
      });
      return momentChecks((j) => result.chains(j), t.dim, t.mean, trueVariances(t));
    },
  };
}

const samplers: Sampler[] = [
  mcmc(
    "gibbs",
    (c) =>
      buildGibbsKernel({
        dim: c.target.dim,
        updates: buildGaussianGibbsUpdates({ mean: c.target.mean, covariance: c.target.covariance }),
      }) as AnyKernel,
    (d) => ({ draws: d <= 2 ? 2000 : 3000, thin: d >= 50 ? 2 : 1, warmup: 200 }),
  ),
  mcmc(
    "random-walk",
    (c) => randomWalkWarmup({ target: c.target }) as AnyKernel,
    (d) => ({
      draws: d >= 50 ? 4000 : 5000,
      thin: d <= 2 ? 2 : d <= 10 ? 10 : 40,
      warmup: d >= 50 ? 5000 : 2000,
    }),
  ),
  mcmc(
    "mala",
    (c) => malaWarmup({ target: c.target }) as AnyKernel,
    (d) => ({ draws: 4000, thin: d <= 2 ? 1 : d <= 10 ? 3 : 6, warmup: 2000 }),
  ),
  mcmc(
    "hmc",
    // A quarter period of the widest direction the diagonal metric leaves, jittered against resonance.
    (c) =>
      hmcWarmup({
        target: c.target,
        trajectoryLength: (Math.PI / 2) * c.whitenedSdMax,
        stepsJitter: 0.2,
      }) as AnyKernel,
    () => ({ draws: 1000, thin: 1, warmup: 1000 }),
  ),
  mcmc(
    "rejection",
    // Proposal N(μ, c²Σ) with c² = 1 + 1/d: π/q ≤ c^d exactly, and the acceptance (1 + 1/d)^{−d/2} ≥ 0.6.
    (c) => {
      const d = c.target.dim;
      const scale = Math.sqrt(1 + 1 / d);
      return buildRejectionKernel({
        target: c.target,
        proposal: inflatedProposal(c.target, scale),
        logBound: d * Math.log(scale),
      }) as AnyKernel;
    },
    () => ({ draws: 2000, thin: 1, warmup: 0 }),
  ),
  {
    name: "importance",
    // Self-normalised moments with Kish's ESS in place of the MCMC ESS; proposal N(μ, c²Σ), c² = 1 + 2/d.
    run(c, seed) {
      const t = c.target;
      const d = t.dim;
      const n = 4000;
      const r = importanceSample(createRng(seed), {
        logTarget: t,
        proposal: inflatedProposal(t, Math.sqrt(1 + 2 / d)),
        samples: n,
      });
      const checks: MomentCheck[] = [];
      for (let j = 0; j < d; j++) {
        const m = r.mean[j];
        let variance = 0;
        for (let k = 0; k < n; k++) variance += r.normalizedWeights[k] * (r.samples[k * d + j] - m) ** 2;
        const v = t.sd[j] ** 2;
        checks.push({
          coordinate: j,
          meanZ: (m - t.mean[j]) / Math.sqrt(v / r.ess),
          varianceZ: (variance - v) / (v * Math.sqrt(2 / r.ess)),
          ess: r.ess,
          essOfSquares: r.ess,
        });
      }
      // The estimate of log ∫π (= 0 for a normalised target) must agree too.
      if (!(Math.abs(r.logNormalizer) < 4 * r.stdErr)) {
        checks.push({
          coordinate: -1,
          meanZ: r.logNormalizer / r.stdErr,
          varianceZ: 0,
          ess: r.ess,
          essOfSquares: r.ess,
        });
      }
      return checks;
    },
  },
];

const grid = samplers.flatMap((s, i) =>
  cases.map((c, k) => [s.name, c.name, s, c, 1000 + 10 * i + k] as const),
);

describe("sampler harness: Gaussian targets", () => {
  it.each(grid)("%s on %s: means and variances within 4 MCSE", (_kernel, _target, sampler, c, seed) => {
    const checks = sampler.run(c, seed);
    expect(failures(checks)).toEqual([]);
    // A check is only as good as its ESS: insist on enough effective draws for the normal approximation.
    const minEss = Math.min(...checks.map((x) => Math.min(x.ess, x.essOfSquares)));
    expect(minEss).toBeGreaterThan(100);
  });

  it("the checks can fail: a sampler of the wrong variance is caught", () => {
    // Exact draws from N(μ, 1.1²Σ) instead of N(μ, Σ) on the d = 10 target.
    const t = cases[2].target;
    const proposal = inflatedProposal(t, 1.1);
    const rng = createRng(7);
    const n = 4000;
    const chains = [new Float64Array(n * t.dim)];
    const x = new Float64Array(t.dim);
    for (let k = 0; k < n; k++) {
      proposal.sample(rng, x);
      chains[0].set(x, k * t.dim);
    }
    const perCoordinate = (j: number) => [
      Float64Array.from({ length: n }, (_, k) => chains[0][k * t.dim + j]),
    ];
    const checks = momentChecks(perCoordinate, t.dim, t.mean, trueVariances(t));
    expect(failures(checks).length).toBeGreaterThan(0);
    expect(effectiveSampleSize(perCoordinate(0))).toBeGreaterThan(n / 2);
  });
});
