/**
 * The ensemble (variational) approximation of the Bayesian network (Fabricius thesis §6.3.4 and
 * Appendix C): q(w, τ, α) = q(w) q(τ) Π_k q(α_k) with q(w) Gaussian and q(τ), q(α_k) Gamma, found by
 * iterating the mean-field equations C.7–C.11; its predictive distribution; and the evidence by
 * importance sampling from q (thesis eqs. 6.65–6.66).
 */
import gammaln from "@stdlib/math-base-special-gammaln";
import { OccamError } from "../../errors.js";
import { paretoKHat } from "../../evidence/importance-sampling.js";
import { type EvidenceResult, evidenceResult, logWeightSummary, meanAndSd } from "../../evidence/result.js";
import {
  invertFromCholesky,
  logDetFromCholesky,
  solveLower,
  solveLowerTranspose,
} from "../../math/linalg.js";
import { minimize } from "../../math/optimize.js";
import { createRng } from "../../random/rng.js";
import type { BayesianMlp, GammaPrior, MlpHyperparameters } from "./bayesian.js";
import { mlpEnergyHessian, mlpSymmetryLogFactor, ridgedCholesky } from "./evidence-framework.js";
import { randomWeights } from "./network.js";

const LOG_2PI = Math.log(2 * Math.PI);

/** Options of {@link ensembleMlp}. */
export interface EnsembleMlpOptions {
  /**
   * Maximum iterations of the mean-field updates.
   * @defaultValue 100
   */
  iterations?: number;
  /**
   * Convergence: stop when the log of every mean precision changes by less than this.
   * @defaultValue 1e-6
   */
  tolerance?: number;
  /**
   * L-BFGS iterations per update of q(w).
   * @defaultValue 500
   */
  maxIterations?: number;
  /** Seed of the random starting weights. @defaultValue 0 */
  seed?: number;
  /** Starting weights (length W), e.g. the evidence framework's mode. */
  initialWeights?: Float64Array;
  /**
   * Starting mean precisions (e.g. the evidence framework's τ and α_k); by default their conditional
   * means given the starting weights.
   */
  initialHyper?: MlpHyperparameters;
  /**
   * The Hessian that makes Σ⁻¹: "exact" (the thesis's C.7) or "gauss-newton" (β τ JᵀJ + diag α,
   * positive definite everywhere). The exact Hessian of a network has directions of negative or
   * near-zero curvature, along which q(w) becomes far wider than the posterior and the importance
   * weights collapse (on the robot arm with 8 hidden units the ELBO fell to −10⁵).
   * @defaultValue "gauss-newton"
   */
  hessian?: "exact" | "gauss-newton";
}

/** The fitted ensemble approximation q(w) q(τ) Π_k q(α_k). */
export interface EnsembleMlpFit {
  /** The model it approximates. */
  readonly model: BayesianMlp;
  /** Mean w̄ of q(w). */
  readonly mean: Float64Array;
  /**
   * Lower Cholesky factor L of the precision Σ⁻¹ = A (W × W row-major): Σ = L⁻ᵀ L⁻¹, so a draw is
   * w̄ + L⁻ᵀ z with z standard normal.
   */
  readonly precisionCholesky: Float64Array;
  /** q(τ) = Gamma(shape, rate). */
  readonly noise: GammaPrior;
  /** q(α_k) = Gamma(shape, rate), in layout order. */
  readonly groups: readonly GammaPrior[];
  /** Iterations run. */
  readonly iterations: number;
  /** Whether the mean precisions converged. */
  readonly converged: boolean;
  /** Ridge added to A at the end (0 when it was positive definite). */
  readonly ridge: number;
}

/**
 * Fits the ensemble approximation at the posterior (θ = 1) by the thesis's iteration (App. C.2):
 *
 * 1. q(w) = N(w̄, Σ): w̄ minimises E_w(w) = ½ τ̄ S(w) + ½ Σ ᾱ_k ‖w_k‖² (eq. C.4; L-BFGS, warm-started,
 *    finds the fixed point of the thesis's Newton step C.8) and Σ⁻¹ = A = ∇²E_w(w̄) (C.7; by default
 *    its Gauss–Newton form, see `hessian`; a ridge is added if it is not positive definite);
 * 2. q(α_k) = Gamma(s_k + W_k/2, r_k + ½ (‖w̄_k‖² + Tr_k Σ)) (C.9, rate form);
 * 3. q(τ) = Gamma(s + N·O/2, r + ½ E_q[S]) with E_q[S] ≈ S(w̄) + ½ Tr(∇²S Σ) =
 *    S(w̄) + (W − Σ_k ᾱ_k Tr_k Σ)/τ̄ (C.11; the thesis prints a stray τ inside the trace term and N
 *    for N·O, errata corrected here; ½∇²S = (A − diag ᾱ)/τ̄ by construction of A),
 *
 * repeated until the means τ̄ = shape/rate and ᾱ_k converge. At convergence the fixed point coincides
 * with MacKay's re-estimation (γ_k = W_k − ᾱ_k Tr_k Σ): the difference is that q keeps the
 * hyperparameters' spread, which the importance sampler below needs.
 */
export function ensembleMlp(model: BayesianMlp, options: EnsembleMlpOptions = {}): EnsembleMlpFit {
  const where = "ensembleMlp";
  const iterations = options.iterations ?? 100;
  const tolerance = options.tolerance ?? 1e-6;
  const maxIterations = options.maxIterations ?? 500;
  const hessian = options.hessian ?? "gauss-newton";
  if (hessian !== "exact" && hessian !== "gauss-newton") {
    throw new OccamError(
      "invalid-argument",
      `${where}: hessian must be "exact" or "gauss-newton", got ${String(hessian)}.`,
    );
  }
  for (const [v, name] of [
    [iterations, "iterations"],
    [maxIterations, "maxIterations"],
  ] as const) {
    if (!(Number.isInteger(v) && v >= 1)) {
      throw new OccamError("invalid-argument", `${where}: ${name} must be an integer ≥ 1, got ${v}.`);
    }
  }
  if (!(tolerance > 0 && Number.isFinite(tolerance))) {
    throw new OccamError("invalid-argument", `${where}: tolerance must be finite and > 0, got ${tolerance}.`);
  }
  const { network, sumOfSquares: ss, weightCount: W, noisePrior, groupPriors } = model;
  const groups = network.groups;
  const nValues = model.data.n * model.data.outputs;
  if (options.initialWeights !== undefined && options.initialWeights.length !== W) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: initialWeights must have length ${W}, got ${options.initialWeights.length}.`,
    );
  }
  let w: Float64Array =
    options.initialWeights !== undefined
      ? Float64Array.from(options.initialWeights)
      : randomWeights(network, createRng(options.seed ?? 0));
  const noiseShape = noisePrior.shape + 0.5 * nValues;
  let noiseRate = noisePrior.rate + 0.5 * ss.value(w);
  const groupShape = groupPriors.map((g, k) => g.shape + 0.5 * groups[k].length);
  const groupRate = groupPriors.map((g, k) => {
    let sq = 0;
    for (let j = groups[k].offset; j < groups[k].offset + groups[k].length; j++) sq += w[j] * w[j];
    return g.rate + 0.5 * sq;
  });
  const hyper = options.initialHyper;
  if (hyper !== undefined) {
    if (!(hyper.noisePrecision > 0) || hyper.groupPrecisions.length !== 4) {
      throw new OccamError(
        "invalid-argument",
        `${where}: initialHyper must hold noisePrecision > 0 and 4 groupPrecisions.`,
      );
    }
    noiseRate = noiseShape / hyper.noisePrecision;
    for (let k = 0; k < 4; k++) groupRate[k] = groupShape[k] / hyper.groupPrecisions[k];
  }
  let converged = false;
  let it = 0;
  let L: Float64Array = new Float64Array(0);
  let ridge = 0;
  for (it = 1; it <= iterations; it++) {
    const tau = noiseShape / noiseRate;
    const alpha = groupShape.map((s, k) => s / groupRate[k]);
    const r = minimize(
      (x, g) => {
        const s = ss.gradient(x, g);
        let e = 0.5 * tau * s;
        for (let j = 0; j < W; j++) g[j] *= 0.5 * tau;
        for (let k = 0; k < 4; k++) {
          const { offset, length } = groups[k];
          for (let j = offset; j < offset + length; j++) {
            e += 0.5 * alpha[k] * x[j] * x[j];
            g[j] += alpha[k] * x[j];
          }
        }
        return e;
      },
      w,
      { maxIterations, gradTolerance: 1e-9 },
    );
    w = r.x;
    const chol = ridgedCholesky(mlpEnergyHessian(model, w, tau, alpha, 1, hessian), W, where);
    L = chol.L;
    ridge = chol.ridge;
    const cov = invertFromCholesky(L, W);
    let change = 0;
    let weighted = 0;
    for (let k = 0; k < 4; k++) {
      const { offset, length } = groups[k];
      let tr = 0;
      let sq = 0;
      for (let j = offset; j < offset + length; j++) {
        tr += cov[j * W + j];
        sq += w[j] * w[j];
      }
      weighted += alpha[k] * tr;
      const rate = groupPriors[k].rate + 0.5 * (sq + tr);
      change = Math.max(change, Math.abs(Math.log(rate / groupRate[k])));
      groupRate[k] = rate;
    }
    const expectedS = ss.value(w) + Math.max(0, W - weighted) / tau;
    const rate = noisePrior.rate + 0.5 * expectedS;
    change = Math.max(change, Math.abs(Math.log(rate / noiseRate)));
    noiseRate = rate;
    if (!(Number.isFinite(noiseRate) && groupRate.every(Number.isFinite))) {
      throw new OccamError("non-finite", `${where}: a precision's rate is not finite; standardise the data.`);
    }
    if (change < tolerance) {
      converged = true;
      break;
    }
  }
  return Object.freeze({
    model,
    mean: w,
    precisionCholesky: L,
    noise: Object.freeze({ shape: noiseShape, rate: noiseRate }),
    groups: Object.freeze(groupShape.map((shape, k) => Object.freeze({ shape, rate: groupRate[k] }))),
    iterations: Math.min(it, iterations),
    converged,
    ridge,
  });
}

/** log of the Gamma(shape, rate) density of e^u times the Jacobian e^u. */
function logGammaOfLog(u: number, g: GammaPrior, norm: number): number {
  return norm + g.shape * u - g.rate * Math.exp(u);
}

/** Options of {@link ensembleEvidence}. */
export interface EnsembleEvidenceOptions {
  /**
   * Draws from q.
   * @defaultValue 2000
   */
  samples?: number;
  /** Seed. @defaultValue 0 */
  seed?: number;
}

/**
 * Evidence by importance sampling from the ensemble approximation (thesis eqs. 6.65–6.66):
 * p(D | M) ≈ (1/N) Σ p(w_i, τ_i, α_i, D) / q(w_i, τ_i, α_i), θ_i ~ q, in log space, on the model's
 * coordinates (log τ, log α_k, with their Jacobians in both p and q). q covers one of the H!·2^H
 * equivalent modes (hidden-unit permutations and sign flips), so log(H!) + H log 2 is added, as for
 * the evidence framework; this over-counts when the mode is itself symmetric (two identical hidden
 * units, or a unit switched off).
 *
 * The standard error is the delta method sd(w/w̄)/√N; check `diagnostics.paretoK` (above 0.7 the
 * weights' variance is probably infinite and the standard error too small). The same draws give the
 * variational lower bound ELBO = E_q[log p(θ, D) − log q(θ)] ≤ log Z (with the same symmetry term)
 * and its standard error, in `diagnostics.elbo` and `diagnostics.elboStdErr`. In expectation the
 * importance estimate lies between the ELBO and log Z (log of a mean is at most the mean of the log).
 */
export function ensembleEvidence(fit: EnsembleMlpFit, options: EnsembleEvidenceOptions = {}): EvidenceResult {
  const where = "ensembleEvidence";
  const start = performance.now();
  const samples = options.samples ?? 2000;
  if (!(Number.isInteger(samples) && samples >= 2)) {
    throw new OccamError("invalid-argument", `${where}: samples must be an integer ≥ 2, got ${samples}.`);
  }
  const { model, mean, precisionCholesky: L } = fit;
  const W = model.weightCount;
  const rng = createRng(options.seed ?? 0);
  const logDetA = logDetFromCholesky(L, W);
  const noiseNorm = fit.noise.shape * Math.log(fit.noise.rate) - gammaln(fit.noise.shape);
  const groupNorm = fit.groups.map((g) => g.shape * Math.log(g.rate) - gammaln(g.shape));
  const z = new Float64Array(W);
  const dw = new Float64Array(W);
  const logW = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const x = new Float64Array(model.dim);
    let zz = 0;
    for (let j = 0; j < W; j++) {
      z[j] = rng.normal();
      zz += z[j] * z[j];
    }
    // w = w̄ + L⁻ᵀ z, so (w − w̄)ᵀ A (w − w̄) = zᵀz.
    solveLowerTranspose(L, W, z, dw);
    for (let j = 0; j < W; j++) x[j] = mean[j] + dw[j];
    let logQ = 0.5 * logDetA - 0.5 * W * LOG_2PI - 0.5 * zz;
    const tau = rng.gamma(fit.noise.shape) / fit.noise.rate;
    x[W] = Math.log(tau);
    logQ += logGammaOfLog(x[W], fit.noise, noiseNorm);
    for (let k = 0; k < 4; k++) {
      const a = rng.gamma(fit.groups[k].shape) / fit.groups[k].rate;
      x[W + 1 + k] = Math.log(a);
      logQ += logGammaOfLog(x[W + 1 + k], fit.groups[k], groupNorm[k]);
    }
    logW[i] = model.logPrior(x) + model.logLikelihood(x) - logQ;
    if (Number.isNaN(logW[i]) || logW[i] === Number.POSITIVE_INFINITY) {
      throw new OccamError("non-finite", `${where}: the log weight of draw ${i} is ${logW[i]}.`);
    }
  }
  const symmetry = mlpSymmetryLogFactor(model.network.hidden);
  const summary = logWeightSummary(logW, where);
  const { mean: elbo, sd } = meanAndSd(logW);
  return evidenceResult({
    method: "ensemble importance sampling",
    logZ: summary.logZ + symmetry,
    stdErr: summary.stdErr,
    nLikelihoodEvals: samples,
    seconds: (performance.now() - start) / 1000,
    diagnostics: {
      elbo: elbo + symmetry,
      elboStdErr: sd / Math.sqrt(samples),
      symmetryLogFactor: symmetry,
      paretoK: paretoKHat(logW),
      ess: summary.ess,
      maxWeightShare: summary.maxWeightShare,
      iterations: fit.iterations,
      converged: fit.converged,
      ridge: fit.ridge,
    },
  });
}

/** The ensemble's predictive distribution at new inputs, each n × O row-major. */
export interface EnsemblePredictive {
  readonly n: number;
  readonly outputs: number;
  /** Predictive mean f(x; w̄). */
  readonly mean: Float64Array;
  /** Predictive standard deviation √(g Σ gᵀ + E_q[τ⁻¹]), g = ∂f/∂w at w̄. */
  readonly sd: Float64Array;
}

/**
 * The ensemble's predictive distribution (thesis §6.3.4, "the first approach"): the network output is
 * linearised around w̄, f(x; w) ≈ f(x; w̄) + g(x)ᵀ(w − w̄), so over q(w) it is Gaussian with variance
 * g Σ gᵀ; the noise adds E_q[1/τ] = rate/(shape − 1). Returns the mean f(x; w̄) and the standard
 * deviation. The gradient g is by central differences of the forward pass (2W passes over the inputs).
 */
export function predictEnsembleMlp(fit: EnsembleMlpFit, X: Float64Array, n: number): EnsemblePredictive {
  const where = "predictEnsembleMlp";
  const { network } = fit.model;
  const I = network.inputs;
  const O = network.outputs;
  const W = network.size;
  if (!(Number.isInteger(n) && n >= 1) || !(X instanceof Float64Array) || X.length !== n * I) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: X must be a Float64Array of n·I = ${n}·${I} values.`,
    );
  }
  const mean = new Float64Array(n * O);
  network.predict(fit.mean, X, n, mean);
  const grads = new Float64Array(W * n * O); // grads[j][c]
  const up = new Float64Array(n * O);
  const down = new Float64Array(n * O);
  const w = Float64Array.from(fit.mean);
  for (let j = 0; j < W; j++) {
    const h = 6e-6 * Math.max(1, Math.abs(w[j]));
    const wj = w[j];
    w[j] = wj + h;
    network.predict(w, X, n, up);
    w[j] = wj - h;
    network.predict(w, X, n, down);
    w[j] = wj;
    for (let c = 0; c < n * O; c++) grads[j * n * O + c] = (up[c] - down[c]) / (2 * h);
  }
  const noiseVar =
    fit.noise.shape > 1 ? fit.noise.rate / (fit.noise.shape - 1) : fit.noise.rate / fit.noise.shape;
  const g = new Float64Array(W);
  const v = new Float64Array(W);
  const sd = new Float64Array(n * O);
  for (let c = 0; c < n * O; c++) {
    for (let j = 0; j < W; j++) g[j] = grads[j * n * O + c];
    // g Σ gᵀ = ‖L⁻¹ g‖² since Σ = L⁻ᵀ L⁻¹.
    solveLower(fit.precisionCholesky, W, g, v);
    let s = 0;
    for (let j = 0; j < W; j++) s += v[j] * v[j];
    sd[c] = Math.sqrt(s + noiseVar);
  }
  return Object.freeze({ n, outputs: O, mean, sd });
}
