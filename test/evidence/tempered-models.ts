/**
 * Test support for the tempered evidence estimators (not a test file): the gaussian-mean model with
 * an exact power-posterior kernel, the exact E_β[log L], a model whose likelihood turns NaN, and the
 * check of runs from a fitted reference.
 */
import { expect } from "vitest";
import type { EvidenceEstimate } from "../../src/evidence/result.js";
import type { PooledDiagnostics } from "../../src/evidence/tempering/precision.js";
import { type BayesModel, tempered } from "../../src/model/model.js";
import { type GaussianMeanModel, gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import type { Rng } from "../../src/random/rng.js";
import type { Kernel, PositionState, StepInfo } from "../../src/samplers/kernel.js";
import { expectAccurate } from "../support/assertions.js";

/** The gaussian-mean test model of dimension d (n = 20, σ = 1, prior N(0, 1)), data from seed 3. */
export function testModel(d: number): GaussianMeanModel {
  return gaussianMeanModel({ dim: d, n: 20, seed: 3 });
}

/** Mean and sd of the power posterior p(μ) L(μ)^β of the gaussian-mean model (isotropic Gaussian). */
export function powerPosterior(model: GaussianMeanModel, beta: number): { mean: Float64Array; sd: number } {
  const { n, dim: d, data, sigma, priorSd, priorMean } = model;
  const ybar = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) ybar[j] += data[i * d + j] / n;
  const precision = 1 / priorSd ** 2 + (beta * n) / sigma ** 2;
  const variance = 1 / precision;
  const mean = new Float64Array(d);
  for (let j = 0; j < d; j++)
    mean[j] = variance * (priorMean / priorSd ** 2 + (beta * n * ybar[j]) / sigma ** 2);
  return { mean, sd: Math.sqrt(variance) };
}

/** E_β[log L(μ)] in closed form: log L is quadratic in μ and the power posterior Gaussian. */
export function expectedLogLikelihood(model: GaussianMeanModel, beta: number): number {
  const { mean, sd } = powerPosterior(model, beta);
  // log L(μ) = log L(m) − (n / 2σ²)‖μ − m‖² + ∇ log L(m)·(μ − m): average over μ ~ N(m, sd² I).
  const atMean = model.logLikelihood(mean);
  return atMean - (model.n / (2 * model.sigma ** 2)) * model.dim * sd * sd;
}

/** Var_β[log L(μ)] in closed form: for μ ~ N(m, s² I), ‖μ − ȳ‖² has variance 4s²‖m − ȳ‖² + 2d·s⁴. */
export function logLikelihoodVariance(model: GaussianMeanModel, beta: number): number {
  const { mean, sd } = powerPosterior(model, beta);
  const { n, dim: d, data, sigma } = model;
  let distance = 0;
  for (let j = 0; j < d; j++) {
    let ybar = 0;
    for (let i = 0; i < n; i++) ybar += data[i * d + j] / n;
    distance += (mean[j] - ybar) ** 2;
  }
  const c = n / (2 * sigma ** 2);
  return c * c * (4 * sd * sd * distance + 2 * d * sd ** 4);
}

/** A kernel that draws independently from the exact power posterior at β (a perfect Gibbs step). */
export function exactPowerPosteriorKernel(
  model: GaussianMeanModel,
  beta: number,
): Kernel<PositionState, StepInfo> {
  const { mean, sd } = powerPosterior(model, beta);
  const target = tempered(model, beta);
  const d = model.dim;
  return {
    init(position: Float64Array): PositionState {
      return { position: Float64Array.from(position), logDensity: target.logDensity(position) };
    },
    step(rng: Rng) {
      const position = new Float64Array(d);
      for (let j = 0; j < d; j++) position[j] = mean[j] + sd * rng.normal();
      return {
        state: { position, logDensity: target.logDensity(position) },
        info: { accepted: true, acceptProbability: 1, evaluations: 1 },
      };
    },
  };
}

/** The test model with `powerPosteriorKernel`, recording every β it is asked for. */
export function modelWithExactKernel(d: number): GaussianMeanModel & { readonly betasAsked: number[] } {
  const base = testModel(d);
  const betasAsked: number[] = [];
  return {
    ...base,
    betasAsked,
    powerPosteriorKernel(beta: number) {
      betasAsked.push(beta);
      return exactPowerPosteriorKernel(base, beta) as Kernel<unknown, unknown>;
    },
  };
}

/**
 * The one-dimensional test model (with gradients) whose log likelihood and gradient are NaN where
 * |θ| > 3, as a user's model overflows far from its mass: 0.27 % of the prior, and no posterior mass
 * (the posterior is N(−1.09, 0.22²), 8.6 sds from −3). Its log evidence is the test model's to 1e-6.
 */
export function overflowingModel(): GaussianMeanModel {
  const base = testModel(1);
  const far = (theta: Float64Array) => Math.abs(theta[0]) > 3;
  return {
    ...base,
    logLikelihood: (theta) => (far(theta) ? Number.NaN : base.logLikelihood(theta)),
    gradLogLikelihood: (theta, grad) => {
      if (!far(theta)) return base.gradLogLikelihood(theta, grad);
      grad.fill(Number.NaN);
      return Number.NaN;
    },
  };
}

/**
 * The test model without gradients whose log likelihood is NaN from its `failAt`-th call on (so a run
 * fails part-way, at a temperature that depends on `failAt`).
 */
export function failingModel(d: number, failAt: number): BayesModel {
  const base = testModel(d);
  let calls = 0;
  return {
    dim: d,
    logPrior: (theta) => base.logPrior(theta),
    samplePrior: (rng) => base.samplePrior(rng),
    logLikelihood: (theta) => (++calls >= failAt ? Number.NaN : base.logLikelihood(theta)),
  };
}

/** The test model without gradients (so "auto" chooses the random walk). */
export function gradientFreeModel(d: number): BayesModel & { exactLogEvidence(): number } {
  const base = testModel(d);
  return {
    dim: d,
    logPrior: (theta) => base.logPrior(theta),
    samplePrior: (rng) => base.samplePrior(rng),
    logLikelihood: (theta) => base.logLikelihood(theta),
    exactLogEvidence: () => base.exactLogEvidence(),
  };
}

/**
 * The d = 1 test model with the likelihood cut to zero above the posterior mean m: prior draws above m
 * have log L = −∞, and the evidence is exactly half the untruncated one (the posterior is Gaussian).
 */
export function truncatedModel(): BayesModel & { exactLogEvidence(): number } {
  const base = testModel(1);
  const m = base.posterior().mean[0];
  return {
    dim: 1,
    logPrior: (t) => base.logPrior(t),
    samplePrior: (rng) => base.samplePrior(rng),
    logLikelihood: (t) => (t[0] > m ? Number.NEGATIVE_INFINITY : base.logLikelihood(t)),
    exactLogEvidence: () => base.exactLogEvidence() - Math.LN2,
  };
}

/**
 * Checks an estimator's runs from a reference fitted to its first run, on the 10-dimensional test
 * model (by default with 512 particles and a target of 0.03 nats): the first run, a pilot from the
 * prior with a quarter of the particles, is their cross-check and not pooled; at least `minRuns` from
 * the reference follow, with the full particles, each at under an eighth of what a full first run
 * costs (they take 0.6–4 %; a run past a quarter is stopped and left out, so a bound at the cap could
 * not fail); the result is accurate; and
 * with `referenceRuns: false` every run starts from the prior at more than `fewerBy` times the cost.
 * Returns the result, for the estimator's own checks.
 */
export function expectReferenceRuns<D extends PooledDiagnostics>(
  estimate: (
    model: BayesModel,
    options: { particles: number; seed: number; targetStdErr: number; referenceRuns?: boolean },
  ) => EvidenceEstimate<string, D>,
  minRuns: number,
  { particles = 512, targetStdErr = 0.03, fewerBy = 2 } = {},
): EvidenceEstimate<string, D> {
  const model = testModel(10);
  const options = { particles, seed: 4, targetStdErr };
  const r = estimate(model, options);
  const runs = r.diagnostics.runs;
  expect([runs[0].start, runs[0].particles, runs[0].pooled]).toEqual(["prior", particles / 4, false]);
  expect(runs.length).toBeGreaterThanOrEqual(1 + minRuns);
  for (const run of runs.slice(1)) {
    expect([run.start, run.particles, run.pooled]).toEqual(["reference", particles, true]);
    // The pilot has a quarter of the particles: a full first run costs four of it.
    expect(run.evaluations).toBeLessThan((4 * runs[0].evaluations) / 8);
  }
  expect(r.stdErr).toBeLessThanOrEqual(targetStdErr);
  expect(r.reliable).toBe(true);
  expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  const fromPrior = estimate(model, { ...options, referenceRuns: false });
  expect(fromPrior.diagnostics.runs.every((run) => run.start === "prior")).toBe(true);
  expect(r.nLikelihoodEvals).toBeLessThan(fromPrior.nLikelihoodEvals / fewerBy);
  return r;
}
