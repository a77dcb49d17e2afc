/**
 * MacKay's evidence framework for the Bayesian network (Barber & Bishop §4, seed 001; MacKay 1992):
 * the weights' posterior at fixed hyperparameters is replaced by a Gaussian at its mode, the
 * hyperparameters are re-estimated by maximising their (Gaussian-approximated) evidence, and the
 * model's log evidence is the Gaussian integral over the weights times a Gaussian approximation of
 * the hyperparameters' posterior in log space (their eq. 11).
 */

import { gammaLogDensityOfLog } from "../../distributions/gamma.js";
import { OccamError } from "../../errors.js";
import { type EvidenceEstimate, evidenceResult } from "../../evidence/result.js";
import { LOG_2PI } from "../../math/constants.js";
import { choleskyInPlace, invertFromCholesky, logDetFromCholesky } from "../../math/linalg.js";
import { minimize, numericalHessian, type Objective } from "../../math/optimize.js";
import { gammaln } from "../../math/stdlib.js";
import { createRng } from "../../random/rng.js";
import type { BayesianMlp } from "./bayesian.js";
import { GROUP_COUNT, randomWeights } from "./network.js";

/**
 * The Hessian of E(w) = ½ β τ S(w) + ½ Σ_k α_k ‖w_k‖² (the negative log of the weights' power
 * posterior at fixed τ and α, up to a constant), W × W row-major: central differences of the
 * backpropagated gradient of S, symmetrised, plus the diagonal α_k. Exact up to rounding for the
 * quadratic part; the difference step is ε^(1/3) relative. With `kind: "gauss-newton"` the data
 * term is the outer-product approximation β τ JᵀJ instead (positive semi-definite).
 */
export function mlpEnergyHessian(
  model: BayesianMlp,
  w: Float64Array,
  noisePrecision: number,
  groupPrecisions: ArrayLike<number>,
  beta = 1,
  kind: "exact" | "gauss-newton" = "exact",
): Float64Array {
  const W = model.weightCount;
  const ss = model.sumOfSquares;
  const c = 0.5 * beta * noisePrecision;
  const A =
    kind === "exact"
      ? numericalHessian((x, g) => {
          const s = ss.gradient(x, g);
          for (let j = 0; j < W; j++) g[j] *= c;
          return c * s;
        }, w)
      : gaussNewton(model, w, 2 * c);
  const groups = model.network.groups;
  for (let k = 0; k < GROUP_COUNT; k++) {
    const { offset, length } = groups[k];
    for (let j = offset; j < offset + length; j++) A[j * W + j] += groupPrecisions[k];
  }
  return A;
}

/**
 * The Gauss–Newton (outer-product) approximation c · JᵀJ of the Hessian of (c/2) S(w), with
 * J = ∂f/∂w over every case and output by central differences of the forward pass (2W passes).
 * Positive semi-definite by construction: it drops the residual-weighted second derivatives of f.
 */
function gaussNewton(model: BayesianMlp, w0: Float64Array, c: number): Float64Array {
  const { network, data } = model;
  const W = network.size;
  const m = data.n * data.outputs;
  const J = new Float64Array(W * m); // J[j][c]: column j of the Jacobian, contiguous
  const up = new Float64Array(m);
  const down = new Float64Array(m);
  const w = Float64Array.from(w0);
  for (let j = 0; j < W; j++) {
    const h = 6e-6 * Math.max(1, Math.abs(w[j]));
    const wj = w[j];
    w[j] = wj + h;
    network.predict(w, data.X, data.n, up);
    w[j] = wj - h;
    network.predict(w, data.X, data.n, down);
    w[j] = wj;
    for (let r = 0; r < m; r++) J[j * m + r] = (up[r] - down[r]) / (2 * h);
  }
  const A = new Float64Array(W * W);
  for (let i = 0; i < W; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let r = 0; r < m; r++) s += J[i * m + r] * J[j * m + r];
      A[i * W + j] = c * s;
      A[j * W + i] = c * s;
    }
  }
  return A;
}

/** A Cholesky factor of a symmetric matrix, with a ridge added when it was not positive definite. */
export interface RidgedCholesky {
  /** Lower-triangular factor of A + ridge · I, row-major. */
  readonly L: Float64Array;
  /** The ridge added (0 when A was positive definite). */
  readonly ridge: number;
}

/**
 * Cholesky factor of the symmetric W × W matrix `A`; when A is not positive definite (a saddle, or a
 * mode not fully converged), a ridge ρ I is added, ρ growing from 1e-8 · mean|A_jj| by factors of 10,
 * and reported. Throws `not-positive-definite` when even ρ = mean|A_jj| fails.
 */
export function ridgedCholesky(A: Float64Array, W: number, where: string): RidgedCholesky {
  let scale = 0;
  for (let j = 0; j < W; j++) scale += Math.abs(A[j * W + j]) / W;
  if (!(scale > 0 && Number.isFinite(scale))) {
    throw new OccamError(
      "non-finite",
      `${where}: the Hessian's diagonal is ${scale}; it must be finite and positive.`,
    );
  }
  for (let ridge = 0; ridge <= scale; ridge = ridge === 0 ? 1e-8 * scale : ridge * 10) {
    const L = Float64Array.from(A);
    for (let j = 0; j < W; j++) L[j * W + j] += ridge;
    try {
      choleskyInPlace(L, W);
      return { L, ridge };
    } catch (error) {
      if (!(error instanceof OccamError)) throw error;
    }
  }
  throw new OccamError(
    "not-positive-definite",
    `${where}: the Hessian of the weights' energy is far from positive definite (not a mode); the optimiser did not converge — give more iterations.`,
  );
}

/** Options of {@link evidenceFramework}. */
export interface EvidenceFrameworkOptions {
  /**
   * Independent random starts; the one with the highest log evidence is kept (MacKay's practice:
   * different starts find different modes).
   * @defaultValue 3
   */
  restarts?: number;
  /**
   * Re-estimation cycles (weights optimised, hyperparameters re-estimated) per start.
   * @defaultValue 50
   */
  cycles?: number;
  /**
   * Convergence: stop when every log hyperparameter changes by less than this in a cycle.
   * @defaultValue 1e-5
   */
  tolerance?: number;
  /**
   * L-BFGS iterations per cycle.
   * @defaultValue 500
   */
  maxIterations?: number;
  /** Seed of the random starts. @defaultValue 0 */
  seed?: number;
  /** Starting weights (length W) for the first start, instead of random ones. */
  initialWeights?: Float64Array;
}

/** The evidence framework's fit at one start. */
export interface EvidenceFrameworkFit {
  /** The weights at the mode w*. */
  readonly weights: Float64Array;
  /** The re-estimated noise precision τ. */
  readonly noisePrecision: number;
  /** The re-estimated group precisions α_k, in layout order. */
  readonly groupPrecisions: Float64Array;
  /** Well-determined parameters of each group, γ_k = W_k − α_k Tr_k(A⁻¹). */
  readonly gammas: Float64Array;
  /** Total γ = Σ γ_k. */
  readonly gamma: number;
  /** log p(D | M) with the Gamma hyperpriors (see {@link evidenceFramework}). */
  readonly logEvidence: number;
  /** Barber & Bishop's eq. (11): flat hyperpriors, no hyperprior density. */
  readonly logEvidenceEq11: number;
  /** log p(D | α, τ): the Gaussian integral over the weights. */
  readonly logEvidenceGivenHyper: number;
  /** Cycles run. */
  readonly cycles: number;
  /** Whether the hyperparameters converged. */
  readonly converged: boolean;
  /** Ridge added to the Hessian at the end (0 when it was positive definite). */
  readonly ridge: number;
}

interface Resolved {
  restarts: number;
  cycles: number;
  tolerance: number;
  maxIterations: number;
  seed: number;
}

function resolve(options: EvidenceFrameworkOptions, where: string): Resolved {
  const restarts = options.restarts ?? 3;
  const cycles = options.cycles ?? 50;
  const tolerance = options.tolerance ?? 1e-5;
  const maxIterations = options.maxIterations ?? 500;
  const seed = options.seed ?? 0;
  for (const [v, name] of [
    [restarts, "restarts"],
    [cycles, "cycles"],
    [maxIterations, "maxIterations"],
  ] as const) {
    if (!(Number.isInteger(v) && v >= 1)) {
      throw new OccamError("invalid-argument", `${where}: ${name} must be an integer ≥ 1, got ${v}.`);
    }
  }
  if (!(tolerance > 0 && Number.isFinite(tolerance))) {
    throw new OccamError("invalid-argument", `${where}: tolerance must be finite and > 0, got ${tolerance}.`);
  }
  return { restarts, cycles, tolerance, maxIterations, seed };
}

/** log(H!) + H log 2: the number of equivalent modes (hidden-unit permutations and sign flips). */
export function mlpSymmetryLogFactor(hidden: number): number {
  return gammaln(hidden + 1) + hidden * Math.LN2;
}

/** Σ A_jj over j in [offset, offset + length) of the W × W matrix A, summed in order. */
export function diagonalSumAt(A: Float64Array, W: number, offset: number, length: number): number {
  let tr = 0;
  for (let j = offset; j < offset + length; j++) tr += A[j * W + j];
  return tr;
}

/** Σ w_j² over j in [offset, offset + length), summed in order. */
export function squaredNormAt(w: Float64Array, offset: number, length: number): number {
  let sq = 0;
  for (let j = offset; j < offset + length; j++) sq += w[j] * w[j];
  return sq;
}

/**
 * The energy E(w) = ½ τ S(w) + ½ Σ_k α_k ‖w_k‖², whose minimum is the weights' mode at (τ, α), as an
 * objective for `minimize` (its gradient written into `g`). `alpha` is read at every call: pass a copy
 * when the caller goes on to change it.
 */
export function mlpEnergy(model: BayesianMlp, tau: number, alpha: ArrayLike<number>): Objective {
  const { sumOfSquares: ss, weightCount: W } = model;
  const groups = model.network.groups;
  return (x, g) => {
    const s = ss.gradient(x, g);
    let e = 0.5 * tau * s;
    for (let j = 0; j < W; j++) g[j] *= 0.5 * tau;
    for (let k = 0; k < GROUP_COUNT; k++) {
      const { offset, length } = groups[k];
      for (let j = offset; j < offset + length; j++) {
        e += 0.5 * alpha[k] * x[j] * x[j];
        g[j] += alpha[k] * x[j];
      }
    }
    return e;
  };
}

/**
 * The hyperparameters' terms of the log evidence at (τ, α) with γ_k (γ their sum): a Gaussian
 * approximation of their posterior in u = log α_k, log τ, with MacKay's error bars σ²(log α_k) = 2/γ_k
 * and σ²(log τ) = 2/(N·O − γ) plus the Gamma hyperpriors' curvature r e^u (`hyper`), and Barber &
 * Bishop's eq. 11 form, the error bars alone (`eq11Hyper`).
 */
function hyperparameterTerms(
  model: BayesianMlp,
  tau: number,
  alpha: Float64Array,
  gammas: Float64Array,
  gamma: number,
): { hyper: number; eq11Hyper: number } {
  const { noisePrior, groupPriors } = model;
  const nValues = model.data.n * model.data.outputs;
  let hyper = gammaLogDensityOfLog(Math.log(tau), noisePrior.shape, noisePrior.rate);
  let eq11Hyper = 0.5 * Math.log(2 / (nValues - gamma));
  const curvTau = 0.5 * (nValues - gamma) + noisePrior.rate * tau;
  hyper += 0.5 * (LOG_2PI - Math.log(curvTau));
  for (let k = 0; k < GROUP_COUNT; k++) {
    hyper += gammaLogDensityOfLog(Math.log(alpha[k]), groupPriors[k].shape, groupPriors[k].rate);
    const g = Math.max(gammas[k], 1e-12);
    hyper += 0.5 * (LOG_2PI - Math.log(0.5 * g + groupPriors[k].rate * alpha[k]));
    eq11Hyper += 0.5 * Math.log(2 / g);
  }
  return { hyper, eq11Hyper };
}

/**
 * At the weights' mode w for (τ, α): the Hessian A = ∇²E(w), its ridged Cholesky factor, and for each
 * weight group the number of well-determined parameters γ_k = W_k − α_k Tr_k(A⁻¹) (into `gammas`) and
 * ‖w_k‖² (into `squares`); returns the factor, its ridge and γ = Σ γ_k summed in group order.
 */
function wellDetermined(
  model: BayesianMlp,
  w: Float64Array,
  tau: number,
  alpha: Float64Array,
  gammas: Float64Array,
  squares: Float64Array,
  where: string,
): { L: Float64Array; ridge: number; gamma: number } {
  const W = model.weightCount;
  const { L, ridge } = ridgedCholesky(mlpEnergyHessian(model, w, tau, alpha), W, where);
  const inv = invertFromCholesky(L, W);
  let gamma = 0;
  for (let k = 0; k < GROUP_COUNT; k++) {
    const { offset, length } = model.network.groups[k];
    const tr = diagonalSumAt(inv, W, offset, length);
    squares[k] = squaredNormAt(w, offset, length);
    // γ_k ∈ [0, W_k] when the data term's Hessian is positive semi-definite; where it is not (the
    // exact Hessian of a network can have negative curvature directions) it is clamped.
    gammas[k] = Math.min(length, Math.max(0, length - alpha[k] * tr));
    gamma += gammas[k];
  }
  return { L, ridge, gamma };
}

/**
 * Fits the evidence framework from one start: alternately (1) minimise
 * E(w) = ½ τ S(w) + ½ Σ α_k ‖w_k‖² by L-BFGS (warm-started) and (2) re-estimate, with
 * A = ∇²E(w*) and γ_k = W_k − α_k Tr_k(A⁻¹) (clamped to [0, W_k]), γ = Σ γ_k (Barber & Bishop eq. 10, with the Gamma
 * hyperpriors' terms, which is the maximum of p(D | α, τ) p(log α, log τ)):
 * α_k = (γ_k + 2 s_k) / (‖w_k‖² + 2 r_k), τ = (N·O − γ + 2 s) / (S(w*) + 2 r).
 */
function fitOnce(model: BayesianMlp, w0: Float64Array, o: Resolved, where: string): EvidenceFrameworkFit {
  const { network, sumOfSquares: ss, weightCount: W, noisePrior, groupPriors } = model;
  const groups = network.groups;
  const nValues = model.data.n * model.data.outputs;
  let w: Float64Array = Float64Array.from(w0);
  // Start from the conditional means given the starting weights, as optimizedStart does.
  let tau = (noisePrior.shape + 0.5 * nValues) / (noisePrior.rate + 0.5 * ss.value(w));
  const alpha = new Float64Array(GROUP_COUNT);
  for (let k = 0; k < GROUP_COUNT; k++) {
    const { offset, length } = groups[k];
    alpha[k] =
      (groupPriors[k].shape + 0.5 * length) / (groupPriors[k].rate + 0.5 * squaredNormAt(w, offset, length));
  }
  const gammas = new Float64Array(GROUP_COUNT);
  const squares = new Float64Array(GROUP_COUNT);
  let converged = false;
  let cycle = 0;
  let L: Float64Array = new Float64Array(0);
  let ridge = 0;
  for (cycle = 1; cycle <= o.cycles; cycle++) {
    const r = minimize(mlpEnergy(model, tau, Float64Array.from(alpha)), w, {
      maxIterations: o.maxIterations,
      gradTolerance: 1e-9,
    });
    w = r.x;
    const mode = wellDetermined(model, w, tau, alpha, gammas, squares, where);
    L = mode.L;
    ridge = mode.ridge;
    const gamma = mode.gamma;
    let change = 0;
    for (let k = 0; k < GROUP_COUNT; k++) {
      const next = (gammas[k] + 2 * groupPriors[k].shape) / (squares[k] + 2 * groupPriors[k].rate);
      change = Math.max(change, Math.abs(Math.log(next / alpha[k])));
      alpha[k] = next;
    }
    const nextTau = (nValues - gamma + 2 * noisePrior.shape) / (ss.value(w) + 2 * noisePrior.rate);
    change = Math.max(change, Math.abs(Math.log(nextTau / tau)));
    tau = nextTau;
    for (const v of [tau, ...alpha]) {
      if (!(Number.isFinite(v) && v > 0)) {
        throw new OccamError(
          "non-finite",
          `${where}: a re-estimated precision is ${v}; the data are badly scaled — standardise them.`,
        );
      }
    }
    if (change < o.tolerance) {
      converged = true;
      break;
    }
  }
  cycle = Math.min(cycle, o.cycles);
  // The evidence at the final hyperparameters: the mode and Hessian once more at the final (τ, α).
  const mode = wellDetermined(model, w, tau, alpha, gammas, squares, where);
  L = mode.L;
  ridge = mode.ridge;
  const gamma = mode.gamma;
  let priorEnergy = 0;
  let logPriorNorm = 0;
  for (let k = 0; k < GROUP_COUNT; k++) {
    priorEnergy += 0.5 * alpha[k] * squares[k];
    logPriorNorm += 0.5 * groups[k].length * Math.log(alpha[k]);
  }
  const s = ss.value(w);
  const logDetA = logDetFromCholesky(L, W);
  // log ∫ L(w, τ) p(w | α) dw ≈ log L(w*) + log p(w* | α) + (W/2) log 2π − ½ log|A|; the 2π of the
  // prior's normalisation cancels the Gaussian integral's.
  const logGivenHyper =
    0.5 * nValues * (Math.log(tau) - LOG_2PI) - 0.5 * tau * s - priorEnergy + logPriorNorm - 0.5 * logDetA;
  const symmetry = mlpSymmetryLogFactor(network.hidden);
  const { hyper, eq11Hyper } = hyperparameterTerms(model, tau, alpha, gammas, gamma);
  return Object.freeze({
    weights: w,
    noisePrecision: tau,
    groupPrecisions: Float64Array.from(alpha),
    gammas: Float64Array.from(gammas),
    gamma,
    logEvidence: logGivenHyper + hyper + symmetry,
    logEvidenceEq11: logGivenHyper + eq11Hyper + symmetry,
    logEvidenceGivenHyper: logGivenHyper,
    cycles: cycle,
    converged,
    ridge,
  });
}

/**
 * Log evidence of a {@link BayesianMlp} by MacKay's evidence framework (Barber & Bishop §4, eqs.
 * 10–11). From each of `restarts` starts (random weights, or `initialWeights` first), the weights'
 * mode w* and the hyperparameters are re-estimated in turn until they converge (see the cycle in the
 * code: γ_k = W_k − α_k Tr_k(A⁻¹), α_k = (γ_k + 2 s_k)/(‖w_k‖² + 2 r_k),
 * τ = (N·O − γ + 2 s)/(S + 2 r), A = ∇²E(w*) the exact Hessian by differences of the gradient). Then
 *
 * log p(D | M) ≈ log p(D | α̂, τ̂) + log p(log α̂, log τ̂) + ½ Σ log(2π σ²_u) + log(H!) + H log 2,
 *
 * with log p(D | α, τ) = (N·O/2) log(τ/2π) − τ S(w*)/2 − Σ α_k ‖w*_k‖²/2 + Σ (W_k/2) log α_k −
 * ½ log|A|, the model's Gamma hyperpriors (with the log Jacobian, as the model's prior has them),
 * σ⁻²(log α_k) = γ_k/2 + r_k α_k and σ⁻²(log τ) = (N·O − γ)/2 + r τ (MacKay's error bars plus the
 * hyperprior's curvature), and the H!·2^H equivalent modes. This is on the same scale as the sampled
 * estimates of the model's log Z. Barber & Bishop's eq. (11) assumes flat hyperpriors and replaces the
 * hyperprior and 2π terms by ½ Σ log(2/γ_k) + ½ log(2/(N − γ)); it is reported in
 * `diagnostics.logEvidenceEq11` (their "2 ln h" is read as h ln 2, the sign flips).
 *
 * The standard error is 0: the approximation is deterministic; its error is not statistical (and can
 * be many nats for a network, whose posterior is far from Gaussian). The spread over restarts is in
 * `diagnostics.restartLogEvidence`.
 *
 * @example
 * const r = evidenceFramework(bayesianMlp(train, { hidden: 8 }), { seed: 1 });
 */
/** Diagnostics of {@link evidenceFramework}. */
export interface EvidenceFrameworkDiagnostics {
  readonly logEvidenceEq11: number;
  readonly logEvidenceGivenHyper: number;
  readonly noisePrecision: number;
  readonly groupPrecisions: readonly number[];
  readonly gammas: readonly number[];
  readonly gamma: number;
  readonly converged: boolean;
  readonly cycles: number;
  readonly ridge: number;
  /** Each restart's log evidence (the best is the estimate). */
  readonly restartLogEvidence: readonly number[];
}

/** The result of {@link evidenceFramework}, with the fit it came from. */
export type EvidenceFrameworkResult = EvidenceEstimate<"evidence-framework", EvidenceFrameworkDiagnostics> & {
  readonly fit: EvidenceFrameworkFit;
};

export function evidenceFramework(
  model: BayesianMlp,
  options: EvidenceFrameworkOptions = {},
): EvidenceFrameworkResult {
  const where = "evidenceFramework";
  const start = performance.now();
  const o = resolve(options, where);
  const W = model.weightCount;
  if (options.initialWeights !== undefined && options.initialWeights.length !== W) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: initialWeights must have length ${W}, got ${options.initialWeights.length}.`,
    );
  }
  const streams = createRng(o.seed).split(o.restarts);
  const fits: EvidenceFrameworkFit[] = [];
  for (let r = 0; r < o.restarts; r++) {
    const w0 =
      r === 0 && options.initialWeights !== undefined
        ? Float64Array.from(options.initialWeights)
        : randomWeights(model.network, streams[r]);
    fits.push(fitOnce(model, w0, o, where));
  }
  let best = 0;
  for (let r = 1; r < fits.length; r++) if (fits[r].logEvidence > fits[best].logEvidence) best = r;
  const fit = fits[best];
  const result = evidenceResult({
    method: "evidence-framework",
    logZ: fit.logEvidence,
    stdErr: 0,
    nLikelihoodEvals: 0,
    seconds: (performance.now() - start) / 1000,
    unreliable: [
      "MacKay's evidence framework is a Gaussian (Laplace) approximation with no error bar; check it against a sampled estimate.",
      ...(fit.converged ? [] : ["the hyperparameter re-estimation did not converge."]),
    ],
    diagnostics: {
      logEvidenceEq11: fit.logEvidenceEq11,
      logEvidenceGivenHyper: fit.logEvidenceGivenHyper,
      noisePrecision: fit.noisePrecision,
      groupPrecisions: Array.from(fit.groupPrecisions),
      gammas: Array.from(fit.gammas),
      gamma: fit.gamma,
      converged: fit.converged,
      cycles: fit.cycles,
      ridge: fit.ridge,
      restartLogEvidence: fits.map((f) => f.logEvidence),
    },
  });
  return Object.freeze({ ...result, fit });
}
