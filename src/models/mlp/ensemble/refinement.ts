/**
 * The refinement of the ensemble approximation: stochastic gradient ascent (Adam, reparameterised
 * antithetic draws) on the ELBO in q(w)'s mean and Cholesky factor, started at the App. C fixed point.
 */
import { OccamError } from "../../../errors.js";
import { lowerTriMatVec, lowerTriTransposeMatVec } from "../../../math/linalg.js";
import type { Rng } from "../../../random/rng.js";
import type { BayesianMlp, GammaPrior } from "../bayesian.js";
import { GROUP_COUNT } from "../network.js";
import type { SumOfSquares } from "../sum-of-squares.js";
import { chooseInitialScale, collapsedElbo } from "./collapsed-elbo.js";
import type { ensembleMlp } from "./fit.js";
import type { EnsembleSettings } from "./options.js";

/**
 * Adam's decay rates of the first and second moments (β₂ = 0.99 rather than 0.999: the gradients'
 * scale changes by orders of magnitude while q(w) shrinks from the App. C start), and its ε.
 */
const ADAM_BETA1 = 0.9;
const ADAM_BETA2 = 0.99;
const ADAM_EPSILON = 1e-8;
/** Slowest weight of the running average of S at the draws (a window of about 50 steps). */
const S_AVERAGE_MIN_WEIGHT = 0.02;

/** The refined q: the mean and Cholesky factor of q(w), q(τ), q(α_k), the starting scale and the ELBO trace. */
export interface RefinedQ {
  readonly mean: Float64Array;
  readonly C: Float64Array;
  readonly noise: GammaPrior;
  readonly groups: readonly GammaPrior[];
  readonly initialScale: number;
  readonly elboTrace: number[];
}

/**
 * The refinement's state and scratch, made once: q(w)'s mean `m` and factor `C` (updated in place),
 * the whitened gradients, Adam's moments, each weight's ᾱ, and the buffers of the draws.
 */
interface Workspace {
  readonly W: number;
  readonly m: Float64Array;
  readonly C: Float64Array;
  readonly eps: Float64Array;
  readonly d: Float64Array;
  readonly wPlus: Float64Array;
  readonly wMinus: Float64Array;
  readonly gPlus: Float64Array;
  readonly gMinus: Float64Array;
  readonly gradM: Float64Array;
  readonly gradC: Float64Array;
  readonly step: Float64Array;
  readonly m1M: Float64Array;
  readonly m2M: Float64Array;
  readonly m1C: Float64Array;
  readonly m2C: Float64Array;
  readonly alphaOf: Float64Array;
}

function workspace(m: Float64Array, C: Float64Array, W: number): Workspace {
  return {
    W,
    m,
    C,
    eps: new Float64Array(W),
    d: new Float64Array(W),
    wPlus: new Float64Array(W),
    wMinus: new Float64Array(W),
    gPlus: new Float64Array(W),
    gMinus: new Float64Array(W),
    gradM: new Float64Array(W),
    gradC: new Float64Array(W * W),
    step: new Float64Array(W),
    m1M: new Float64Array(W),
    m2M: new Float64Array(W),
    m1C: new Float64Array(W * W),
    m2C: new Float64Array(W * W),
    alphaOf: new Float64Array(W),
  };
}

/**
 * Stochastic gradient ascent on the ELBO in (w̄, C) with q(τ), q(α_k) at their optimal Gamma forms
 * (see {@link ensembleMlp}). With those forms the ELBO collapses to
 * const − a_τ log(r + ½ E_q[S]) − Σ_k a_k log(r_k + ½ E_q‖w_k‖²) + Σ_i log C_ii,
 * a_τ = s + N·O/2 and a_k = s_k + W_k/2, whose gradient is the one in {@link ensembleMlp}'s TSDoc
 * with τ̄ = a_τ/(r + ½ E_q[S]) and ᾱ_k = a_k/(r_k + ½ E_q‖w_k‖²).
 */
export function refineEnsemble(
  model: BayesianMlp,
  mean0: Float64Array,
  C0: Float64Array,
  o: EnsembleSettings,
  rng: Rng,
  where: string,
): RefinedQ {
  const { sumOfSquares: ss, weightCount: W, noisePrior } = model;
  const elbo = collapsedElbo(model);
  const { aTau, aK, rK, groupOf } = elbo;
  const m = Float64Array.from(mean0);
  const start = chooseInitialScale(model, elbo, m, C0, rng, where);
  const initialScale = start.initialScale;

  const C = new Float64Array(W * W);
  for (let i = 0; i < W; i++) {
    for (let j = 0; j <= i; j++) C[i * W + j] = initialScale * C0[i * W + j];
  }
  const ws = workspace(m, C, W);
  const { alphaOf } = ws;
  const sq = new Float64Array(GROUP_COUNT);
  const alpha = new Float64Array(GROUP_COUNT);
  const pairs = o.drawsPerStep / 2;
  const traceEvery = o.steps / 20;
  const elboTrace: number[] = [];
  let expectedS = start.expectedS;
  let beta1Power = 1;
  let beta2Power = 1;
  const logRate = Math.log(o.finalLearningRate / o.learningRate);
  // Below the diagonal of δ the steps are scaled by 2/√W. Adam moves every coordinate by about the
  // step size even when its gradient is pure noise, and W(W − 1)/2 such moves change C by about √W
  // times the step size (in operator norm) each step: for W = 82, unscaled, they lower the ELBO by
  // hundreds of nats in the first hundred steps.
  const offScale = Math.min(1, 2 / Math.sqrt(W));
  for (let t = 0; t <= o.steps; t++) {
    // q(α_k) exactly from (w̄, C), q(τ) from the running E_q[S].
    const logDetC = groupMoments(ws, groupOf, sq);
    if (t >= elboTrace.length * traceEvery) elboTrace.push(elbo.value(expectedS, sq, logDetC));
    if (t === o.steps) break;
    for (let k = 0; k < GROUP_COUNT; k++) alpha[k] = aK[k] / (rK[k] + 0.5 * sq[k]);
    for (let i = 0; i < W; i++) alphaOf[i] = alpha[groupOf[i]];
    const tau = aTau / (noisePrior.rate + 0.5 * expectedS);
    const dataScale = (-0.5 * tau) / o.drawsPerStep;

    const sumS = dataGradients(ws, ss, rng, dataScale, pairs);
    const meanS = sumS / o.drawsPerStep;
    if (!Number.isFinite(meanS)) {
      throw new OccamError(
        "non-finite",
        `${where}: the sum of squares at a draw from q(w) is ${meanS} at step ${t}; lower learningRate.`,
      );
    }
    expectedS += Math.max(1 / (t + 1), S_AVERAGE_MIN_WEIGHT) * (meanS - expectedS);
    priorAndEntropyGradients(ws, dataScale);

    const lr = o.learningRate * Math.exp((logRate * t) / o.steps);
    beta1Power *= ADAM_BETA1;
    beta2Power *= ADAM_BETA2;
    adamStep(ws, lr, beta1Power, beta2Power, offScale);
  }
  const noise = Object.freeze({ shape: aTau, rate: noisePrior.rate + 0.5 * expectedS });
  const groupsQ = Object.freeze(aK.map((shape, k) => Object.freeze({ shape, rate: rK[k] + 0.5 * sq[k] })));
  if (!(Number.isFinite(noise.rate) && groupsQ.every((g) => Number.isFinite(g.rate)))) {
    throw new OccamError("non-finite", `${where}: the refined q has a non-finite rate; lower learningRate.`);
  }
  return { mean: m, C, noise, groups: groupsQ, initialScale, elboTrace };
}

/** Writes E_q‖w_k‖² = ‖w̄_k‖² + ‖rows k of C‖_F² of each group into `sq` and returns Σ log C_ii. */
function groupMoments(ws: Workspace, groupOf: Int32Array, sq: Float64Array): number {
  const { W, m, C } = ws;
  sq.fill(0);
  let logDetC = 0;
  for (let i = 0; i < W; i++) {
    let r = 0;
    const row = i * W;
    for (let j = 0; j <= i; j++) r += C[row + j] * C[row + j];
    sq[groupOf[i]] += m[i] * m[i] + r;
    logDetC += Math.log(C[row + i]);
  }
  return logDetC;
}

/**
 * The data terms of the gradients in whitened coordinates (w̄ + C u, C (I + δ)) at u = 0, δ = 0, from
 * `pairs` antithetic pairs w̄ ± Cε: the sum of ∇S into `gradM` (scaled later) and the lower triangle
 * of Cᵀ ∂/∂C, scaled by `dataScale`, into `gradC`. Returns the sum of S over the draws.
 */
function dataGradients(ws: Workspace, ss: SumOfSquares, rng: Rng, dataScale: number, pairs: number): number {
  const { W, m, C, eps, d, wPlus, wMinus, gPlus, gMinus, gradM, gradC } = ws;
  gradM.fill(0);
  for (let i = 0; i < W; i++) gradC.fill(0, i * W, i * W + i + 1);
  let sumS = 0;
  for (let p = 0; p < pairs; p++) {
    for (let j = 0; j < W; j++) eps[j] = rng.normal();
    lowerTriMatVec(C, W, eps, d);
    for (let j = 0; j < W; j++) {
      wPlus[j] = m[j] + d[j];
      wMinus[j] = m[j] - d[j];
    }
    sumS += ss.gradient(wPlus, gPlus) + ss.gradient(wMinus, gMinus);
    for (let i = 0; i < W; i++) {
      gradM[i] += gPlus[i] + gMinus[i];
      gPlus[i] -= gMinus[i];
    }
    lowerTriTransposeMatVec(C, W, gPlus, gMinus); // Cᵀ (∇S(w̄ + Cε) − ∇S(w̄ − Cε))
    for (let i = 0; i < W; i++) {
      const v = dataScale * gMinus[i];
      const row = i * W;
      for (let j = 0; j <= i; j++) gradC[row + j] += v * eps[j];
    }
  }
  return sumS;
}

/**
 * Completes the whitened gradients: Cᵀ (dataScale · Σ∇S − ᾱ∘w̄) for the mean, and for C the prior's
 * term −Cᵀ diag(ᾱ) C (lower triangle, exact) and the entropy's I.
 */
function priorAndEntropyGradients(ws: Workspace, dataScale: number): void {
  const { W, m, C, gradM, gradC, alphaOf } = ws;
  for (let i = 0; i < W; i++) gradM[i] = dataScale * gradM[i] - alphaOf[i] * m[i];
  lowerTriTransposeMatVec(C, W, gradM, gradM);
  // The prior's term −Cᵀ diag(ᾱ) C (lower triangle, exact) and the entropy's I.
  for (let k = 0; k < W; k++) {
    const a = alphaOf[k];
    const rowK = k * W;
    for (let i = 0; i <= k; i++) {
      const aki = a * C[rowK + i];
      const row = i * W;
      for (let j = 0; j <= i; j++) gradC[row + j] -= aki * C[rowK + j];
    }
  }
  for (let i = 0; i < W; i++) gradC[i * W + i] += 1;
}

/**
 * Adam ascent on (u, δ), then w̄ ← w̄ + C u and C ← C E with E = I + δ below the diagonal and e^δ_ii
 * on it (so the diagonal stays positive: δ_ii is a step in log C_ii). E overwrites gradC.
 * `beta1Power` and `beta2Power` are β₁ᵗ and β₂ᵗ, this step's included.
 */
function adamStep(ws: Workspace, lr: number, beta1Power: number, beta2Power: number, offScale: number): void {
  const { W, m, C, d, gradM, gradC, step, m1M, m2M, m1C, m2C } = ws;
  const c1 = lr / (1 - beta1Power);
  const c2 = 1 / (1 - beta2Power);
  const c1Off = offScale * c1;
  for (let i = 0; i < W; i++) {
    const g = gradM[i];
    m1M[i] = ADAM_BETA1 * m1M[i] + (1 - ADAM_BETA1) * g;
    m2M[i] = ADAM_BETA2 * m2M[i] + (1 - ADAM_BETA2) * g * g;
    step[i] = (c1 * m1M[i]) / (Math.sqrt(c2 * m2M[i]) + ADAM_EPSILON);
    const row = i * W;
    for (let k = row; k <= row + i; k++) {
      const gc = gradC[k];
      m1C[k] = ADAM_BETA1 * m1C[k] + (1 - ADAM_BETA1) * gc;
      m2C[k] = ADAM_BETA2 * m2C[k] + (1 - ADAM_BETA2) * gc * gc;
      gradC[k] = (c1Off * m1C[k]) / (Math.sqrt(c2 * m2C[k]) + ADAM_EPSILON);
    }
    gradC[row + i] = Math.exp(gradC[row + i] / offScale);
  }
  lowerTriMatVec(C, W, step, d);
  for (let i = 0; i < W; i++) m[i] += d[i];
  // (C E)_ij = Σ_{k=j..i} C_ik E_kj, in place: row by row, j ascending reads only C_ik, k ≥ j.
  for (let i = 0; i < W; i++) {
    const row = i * W;
    for (let j = 0; j <= i; j++) {
      let s = C[row + j] * gradC[j * W + j];
      for (let k = j + 1; k <= i; k++) s += C[row + k] * gradC[k * W + j];
      C[row + j] = s;
    }
  }
}
