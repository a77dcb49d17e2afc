import { cappedEss, effectiveSampleSize } from "../diagnostics/ess.js";
import { OccamError } from "../errors.js";
import { LOG_2PI } from "../math/constants.js";
import { solveLower } from "../math/linalg.js";
import { logAddExp, logSumExp } from "../math/logspace.js";
import { Draws } from "../model/draws.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import { standardNormals } from "../random/variates.js";
import { checkCount, checkLogValue, checkModel, type RandomOptions, resolveRng } from "./checks.js";
import { fitGaussian, type PosteriorDrawsInput, posteriorDraws, unboundedDraws } from "./draws-input.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";
import { logWeightSummary } from "./weights.js";

const WHERE = "bridgeSampling";

/** Options of {@link bridgeSampling}. */
export interface BridgeSamplingOptions extends RandomOptions {
  /**
   * Posterior draws (a Draws store from a sampler, or an array of Float64Array draws). Required: the
   * first half of each chain fits the proposal, the second half enters the bridge.
   */
  draws: PosteriorDrawsInput;
  /**
   * "normal": a multivariate normal proposal fitted to the first half of the draws. "warp3": Meng &
   * Schilling's (2002) warp-III, which standardises the posterior with the same mean and covariance
   * and symmetrises it about the origin (matching mean, covariance and skewness to a standard normal).
   * @defaultValue "normal"
   */
  method?: "normal" | "warp3";
  /**
   * Number of proposal draws N2.
   * @defaultValue the number of posterior draws in the bridge (the second halves)
   */
  samples?: number;
  /**
   * Stop the fixed-point iteration when the relative change of the estimate Ẑ is at most this.
   * @defaultValue 1e-10
   */
  tolerance?: number;
  /**
   * Maximum number of fixed-point iterations.
   * @defaultValue 1000
   */
  maxIterations?: number;
}

/** Diagnostics of {@link bridgeSampling}. */
export interface BridgeDiagnostics {
  readonly variant: "normal" | "warp3";
  readonly iterations: number;
  readonly converged: boolean;
  /** Frühwirth-Schnatter's relative mean-squared error of Ẑ, and its two sides. */
  readonly re2: number;
  readonly re2Proposal: number;
  readonly re2Posterior: number;
  /** The effective sample size N_eff of the bridge draws, and of f2 over the chains. */
  readonly neff: number;
  readonly essF2: number;
  readonly posteriorDraws: number;
  readonly fitDraws: number;
  readonly proposalDraws: number;
}

/** The result of {@link bridgeSampling}. */
export type BridgeSamplingResult = EvidenceEstimate<"bridge" | "bridge-warp3", BridgeDiagnostics>;

interface ResolvedBridgeOptions {
  method: "normal" | "warp3";
  samples: number | undefined;
  tolerance: number;
  maxIterations: number;
}

function resolveBridgeOptions(options: BridgeSamplingOptions): ResolvedBridgeOptions {
  const method = options.method ?? "normal";
  const tolerance = options.tolerance ?? 1e-10;
  const maxIterations = options.maxIterations ?? 1000;
  if (method !== "normal" && method !== "warp3") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: method must be "normal" or "warp3", got ${String(method)}.`,
    );
  }
  if (options.samples !== undefined) checkCount(options.samples, "samples", WHERE, 2);
  if (!(Number.isFinite(tolerance) && tolerance > 0)) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: tolerance must be a finite number > 0, got ${tolerance}.`,
    );
  }
  checkCount(maxIterations, "maxIterations", WHERE, 1);
  return { method, samples: options.samples, tolerance, maxIterations };
}

/** The outcome of the bridge fixed point and its error measures for one set of log ratios. */
interface BridgeRun {
  logZ: number;
  iterations: number;
  converged: boolean;
  /** Approximate relative mean-squared error of Ẑ (Frühwirth-Schnatter 2004). */
  re2: number;
  /** Proposal-side and posterior-side terms of re2. */
  re2Proposal: number;
  re2Posterior: number;
  /** Effective sample size of f2 over the posterior draws (capped at N1). */
  essF2: number;
}

/**
 * Evidence by bridge sampling with Meng & Wong's (1996) optimal bridge function, as in Gronau et al.'s
 * R package bridgesampling (2017, 2020).
 *
 * With posterior draws split per chain into a first half (fits the proposal g: mean m and covariance
 * LLᵀ) and a second half θ_1…θ_N1, and N2 draws θ̃_j ~ g, let l1_i = log q(θ_i) − log g(θ_i) and
 * l2_j = log q(θ̃_j) − log g(θ̃_j), q = p L the unnormalised posterior. The estimate is the fixed point
 * of
 *   Ẑ ← [ (1/N2) Σ_j e^{l2_j} / (s1 e^{l2_j} + s2 Ẑ) ] / [ (1/N1) Σ_i 1 / (s1 e^{l1_i} + s2 Ẑ) ],
 * s1 = N_eff / (N_eff + N2), s2 = N2 / (N_eff + N2), N_eff the median effective sample size of the
 * bridge draws' coordinates, iterated in log space from Ẑ = ½ e^{median(l1)}. With `method: "warp3"`
 * the posterior is standardised (z = L⁻¹(θ − m)) and symmetrised, q̃(z) = |L| [q(m + Lz) + q(m − Lz)]/2,
 * and bridged to a standard normal (Meng & Schilling 2002).
 *
 * Error: the approximate relative mean-squared error of Frühwirth-Schnatter (2004, eq. 13),
 * re2 = Var_g(f1)/(N2 E_g[f1]²) + Var_post(f2)/(ESS(f2) E_post[f2]²), f1 = p̂/(s1 p̂ + s2 g) at the
 * proposal draws and f2 = g/(s1 p̂ + s2 g) at the posterior draws (p̂ = q/Ẑ); the posterior term is
 * corrected for autocorrelation by the effective sample size of f2 over the chains (in place of the
 * package's spectral density at zero). stdErr = √re2 (the delta method: Var(log Ẑ) ≈ re2); re2 and
 * the coefficient of variation cv = √re2 are in `diagnostics`. Unlike the package, warp3 gets the
 * same error measure, computed on its warped log ratios.
 *
 * Throws an `OccamError` when draws are missing or too few (fewer than max(2(d + 2), 20), or fewer
 * than 8 per chain), of the wrong length or non-finite, when the first half's covariance is singular,
 * and when a log density is NaN or +Infinity (naming the draw) or −Infinity at a posterior draw.
 */
export function bridgeSampling(given: BayesModel, options: BridgeSamplingOptions): BridgeSamplingResult {
  const start = performance.now();
  checkModel(given, WHERE);
  // On the unbounded scale, where a bounded posterior is closer to the normal proposal.
  const view = unbounded(given, WHERE);
  const model = view.model;
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${WHERE}: options with { draws } are required.`);
  }
  const o = resolveBridgeOptions(options);
  const d = model.dim;
  const all = unboundedDraws(view, posteriorDraws(options.draws, d, WHERE, Math.max(2 * (d + 2), 20), 8));
  const rng = resolveRng(options, WHERE);
  const { nChains, nDraws } = all;
  const nFitPer = Math.floor(nDraws / 2);
  const nIterPer = nDraws - nFitPer;
  const N1 = nChains * nIterPer;
  const N2 = o.samples ?? N1;

  // Proposal: mean and covariance of the first halves.
  const { fit, iter } = chainHalves(all, nFitPer);
  const { mean: m, L } = fitGaussian(fit, WHERE, "that fit the proposal");
  let logDetL = 0;
  for (let j = 0; j < d; j++) logDetL += Math.log(L[j * d + j]);
  const logNormStd = -0.5 * d * LOG_2PI; // log φ(z) = logNormStd − ½‖z‖²

  let evals = 0;
  const logTarget = (x: Float64Array, kind: string, index: number, allowMinusInfinity: boolean): number => {
    const lp = checkLogValue(model.logPrior(x), "logPrior", WHERE, kind, index, x, allowMinusInfinity);
    if (lp === Number.NEGATIVE_INFINITY) return lp;
    evals++;
    return (
      lp + checkLogValue(model.logLikelihood(x), "logLikelihood", WHERE, kind, index, x, allowMinusInfinity)
    );
  };

  const warp = o.method === "warp3";
  const theta = new Float64Array(d);
  const other = new Float64Array(d);
  const z = new Float64Array(d);
  // Warp-III's bridge ratios carry log|L| − log 2 (the Jacobian of z ↦ m + Lz and the ½ of the mixture).
  const warpShift = logDetL - Math.LN2;

  // Posterior side: l1_i at the second halves, in chain order (for the ESS of f2).
  const l1 = new Float64Array(N1);
  for (let i = 0; i < N1; i++) {
    theta.set(iter.values.subarray(i * d, (i + 1) * d));
    // z = L⁻¹(θ − m); ‖z‖² gives both log g(θ) and log φ(z).
    for (let a = 0; a < d; a++) z[a] = theta[a] - m[a];
    solveLower(L, d, z, z);
    let q = 0;
    for (let a = 0; a < d; a++) q += z[a] * z[a];
    const drawIndex = Math.floor(i / nIterPer) * nDraws + nFitPer + (i % nIterPer);
    const lq = logTarget(theta, "posterior draw", drawIndex, false);
    if (warp) {
      for (let a = 0; a < d; a++) other[a] = 2 * m[a] - theta[a];
      const lqReflected = logTarget(other, "reflected posterior draw", drawIndex, true);
      l1[i] = warpShift + logAddExp(lq, lqReflected) - (logNormStd - 0.5 * q);
    } else {
      l1[i] = lq - (logNormStd - logDetL - 0.5 * q);
    }
  }

  // Proposal side: N2 draws θ̃ = m + Lz with z ~ N(0, I) (warp3 bridges in z space).
  const l2 = new Float64Array(N2);
  for (let j = 0; j < N2; j++) {
    const q = standardNormals(rng, z, d);
    reflectedPair(m, L, z, d, theta, other);
    const lq = logTarget(theta, "proposal draw", j, true);
    if (warp) {
      const lqReflected = logTarget(other, "reflected proposal draw", j, true);
      l2[j] = warpShift + logAddExp(lq, lqReflected) - (logNormStd - 0.5 * q);
    } else {
      l2[j] = lq - (logNormStd - logDetL - 0.5 * q);
    }
  }

  // N_eff: median ESS of the bridge draws' coordinates, as bridgesampling does.
  const essMedian = median(essPerCoordinate(iter).filter((v) => !Number.isNaN(v)));
  const neff = Number.isNaN(essMedian) ? N1 : Math.min(essMedian, N1);

  const pooled = iterateBridge(
    l1,
    l2,
    neff,
    nChains,
    nIterPer,
    o,
    new Float64Array(N1),
    new Float64Array(N2),
  );
  const unreliable: string[] = [];
  if (!pooled.converged) {
    unreliable.push(
      `the bridge iteration did not reach tolerance ${o.tolerance} in ${o.maxIterations} iterations; ` +
        'use more draws or method: "warp3".',
    );
  }
  return evidenceResult({
    method: o.method === "normal" ? "bridge" : "bridge-warp3",
    logZ: pooled.logZ,
    stdErr: Math.sqrt(pooled.re2),
    nLikelihoodEvals: evals,
    seconds: secondsSince(start),
    unreliable,
    diagnostics: {
      variant: o.method,
      iterations: pooled.iterations,
      converged: pooled.converged,
      re2: pooled.re2,
      re2Proposal: pooled.re2Proposal,
      re2Posterior: pooled.re2Posterior,
      neff,
      essF2: pooled.essF2,
      posteriorDraws: N1,
      fitDraws: fit.size,
      proposalDraws: N2,
    },
  });
}

/** θ = m + Lz and its reflection through m, m − Lz (L lower triangular, d × d). */
function reflectedPair(
  m: Float64Array,
  L: Float64Array,
  z: Float64Array,
  d: number,
  theta: Float64Array,
  reflected: Float64Array,
): void {
  for (let a = 0; a < d; a++) {
    let s = 0;
    for (let b = 0; b <= a; b++) s += L[a * d + b] * z[b];
    theta[a] = m[a] + s;
    reflected[a] = m[a] - s;
  }
}

/** Each chain's first `nFirst` draws, and the rest, as two stores of as many chains. */
function chainHalves(all: Draws, nFirst: number): { fit: Draws; iter: Draws } {
  const { dim: d, nChains, nDraws, values } = all;
  const nRest = nDraws - nFirst;
  const fit = new Draws({ dim: d, nChains, nDraws: nFirst });
  const iter = new Draws({ dim: d, nChains, nDraws: nRest });
  for (let c = 0; c < nChains; c++) {
    const base = c * nDraws * d;
    fit.values.set(values.subarray(base, base + nFirst * d), c * nFirst * d);
    iter.values.set(values.subarray(base + nFirst * d, base + nDraws * d), c * nRest * d);
  }
  return { fit, iter };
}

/** The effective sample size of each coordinate of the draws, over their chains. */
function essPerCoordinate(draws: Draws): number[] {
  const ess: number[] = [];
  for (let j = 0; j < draws.dim; j++) ess.push(effectiveSampleSize(draws.chains(j)));
  return ess;
}

/**
 * Meng & Wong's fixed point in log space, then Frühwirth-Schnatter's error measure. l1 is in chain
 * order (nChains blocks of nPer) so that the ESS of f2 sees the chains.
 */
function iterateBridge(
  l1: Float64Array,
  l2: Float64Array,
  neff: number,
  nChains: number,
  nPer: number,
  o: ResolvedBridgeOptions,
  scratch1: Float64Array,
  scratch2: Float64Array,
): BridgeRun {
  const N1 = l1.length;
  const N2 = l2.length;
  const logS1 = Math.log(neff / (neff + N2));
  const logS2 = Math.log(N2 / (neff + N2));
  const { logR, iterations, converged } = bridgeFixedPoint(
    l2,
    l1,
    logS1,
    logS2,
    Math.log(0.5) + median(Array.from(l1)),
    o,
    scratch2.subarray(0, N2),
    scratch1.subarray(0, N1),
    (value, iteration) =>
      `${WHERE}: the bridge estimate became ${value} at iteration ${iteration}: every proposal draw has zero ` +
      'posterior density; the proposal misses the posterior (use more draws or method: "warp3").',
  );

  // f1 = p̂/(s1 p̂ + s2 g) at proposal draws, f2 = g/(s1 p̂ + s2 g) at posterior draws, with
  // p̂/g = e^{l − log Ẑ}; both lie in [0, 1/s1] and [0, 1/s2], so nothing overflows.
  const s1 = Math.exp(logS1);
  const s2 = Math.exp(logS2);
  const f1 = scratch2.subarray(0, N2);
  for (let j = 0; j < N2; j++) f1[j] = 1 / (s1 + s2 * Math.exp(logR - l2[j]));
  const chains: Float64Array[] = [];
  for (let c = 0; c < nChains; c++) {
    const chain = new Float64Array(nPer);
    for (let t = 0; t < nPer; t++) chain[t] = 1 / (s1 * Math.exp(l1[c * nPer + t] - logR) + s2);
    chains.push(chain);
  }
  const { mean: mean1, variance: var1 } = meanVariance([f1]);
  const { mean: mean2, variance: var2 } = meanVariance(chains);
  const essF2 = cappedEss(chains, N1);
  const re2Proposal = var1 / (N2 * mean1 * mean1);
  const re2Posterior = var2 / (essF2 * mean2 * mean2);
  return {
    logZ: logR,
    iterations,
    converged,
    re2: re2Proposal + re2Posterior,
    re2Proposal,
    re2Posterior,
    essF2,
  };
}

/**
 * Meng & Wong's fixed point in log space, shared by {@link bridgeSampling} and {@link bridgeRatio}:
 *   r ← [(1/N_num) Σ_num e^{l}/(s₁ e^{l} + s₂ r)] / [(1/N_den) Σ_den 1/(s₁ e^{l} + s₂ r)],
 * `numerator` and `denominator` the log density ratios at the two sides' draws, until the relative
 * change |r_new − r_old| / r_new (bridgesampling's criterion "r") is at most the tolerance. The last
 * iteration's log summands are left in `tNumerator` and `tDenominator`; a non-finite estimate throws
 * `non-finite` with the message `failure` writes.
 */
function bridgeFixedPoint(
  numerator: Float64Array,
  denominator: Float64Array,
  logS1: number,
  logS2: number,
  start: number,
  o: { readonly tolerance: number; readonly maxIterations: number },
  tNumerator: Float64Array,
  tDenominator: Float64Array,
  failure: (value: number, iteration: number) => string,
): { logR: number; iterations: number; converged: boolean } {
  const logSizeRatio = Math.log(denominator.length / numerator.length);
  let logR = start;
  let iterations = 0;
  while (iterations < o.maxIterations) {
    iterations++;
    const shift = logS2 + logR;
    for (let j = 0; j < numerator.length; j++)
      tNumerator[j] = numerator[j] - logAddExp(logS1 + numerator[j], shift);
    for (let i = 0; i < denominator.length; i++) tDenominator[i] = -logAddExp(logS1 + denominator[i], shift);
    const next = logSizeRatio + logSumExp(tNumerator) - logSumExp(tDenominator);
    if (!Number.isFinite(next)) throw new OccamError("non-finite", failure(next, iterations));
    const change = Math.abs(-Math.expm1(logR - next));
    logR = next;
    if (change <= o.tolerance) return { logR, iterations, converged: true };
  }
  return { logR, iterations, converged: false };
}

/** Mean and variance (n − 1 denominator, two passes) of all values of the given arrays. */
function meanVariance(arrays: readonly Float64Array[]): { mean: number; variance: number } {
  let n = 0;
  let sum = 0;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++) sum += a[i];
    n += a.length;
  }
  const mean = sum / n;
  let ss = 0;
  for (const a of arrays) for (let i = 0; i < a.length; i++) ss += (a[i] - mean) ** 2;
  return { mean, variance: ss / (n - 1) };
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const h = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[h] : 0.5 * (sorted[h - 1] + sorted[h]);
}

/** The result of {@link bridgeRatio}. */
export interface BridgeRatio {
  /** log(Z_B / Z_A). */
  readonly logRatio: number;
  /** Frühwirth-Schnatter's relative mean-squared error of the ratio, both sides' MCMC ESS accounted. */
  readonly re2: number;
  readonly iterations: number;
  readonly converged: boolean;
  /** Kish's (Σt)²/Σt² of the bridge's summands at A's draws and at B's: how many draws each side's mean rests on. */
  readonly kishA: number;
  readonly kishB: number;
  /** The largest summand's share of its side's sum, at A's draws and at B's. */
  readonly maxShareA: number;
  readonly maxShareB: number;
}

/**
 * The ratio of the normalising constants of two unnormalised densities q_A and q_B = q_A e^{l} by
 * Meng & Wong's (1996) optimal bridge, from draws of both: `lA` holds l = log q_B − log q_A at the
 * draws of p_A, `lB` at the draws of p_B, each as one array per chain. The fixed point is
 *   r ← [ (1/N_A) Σ_A e^{l}/(s_B e^{l} + s_A r) ] / [ (1/N_B) Σ_B 1/(s_B e^{l} + s_A r) ],
 * s_A, s_B the two sides' shares of the effective sample sizes (MCMC ESS of the l traces), and the
 * error is Frühwirth-Schnatter's (2004) relative MSE with each side's variance over its own ESS.
 *
 * Used for the chain rule p(D_g | D_1 … D_{g−1}) = Z_B/Z_A with p_A the posterior given folds
 * 1 … g − 1 and p_B that given folds 1 … g (l the log likelihood of fold g): unlike the one-sided
 * average of e^{l} over p_A, which rests on the few draws of p_A that p_B favours, the bridge uses
 * both posteriors and needs only that they overlap.
 */
export function bridgeRatio(
  lA: readonly Float64Array[],
  lB: readonly Float64Array[],
  tolerance = 1e-10,
  maxIterations = 1000,
): BridgeRatio {
  const flatA = concat(lA);
  const flatB = concat(lB);
  const NA = flatA.length;
  const NB = flatB.length;
  const essA = cappedEss(lA, NA);
  const essB = cappedEss(lB, NB);
  const logSB = Math.log(essB / (essA + essB));
  const logSA = Math.log(essA / (essA + essB));
  const tA = new Float64Array(NA);
  const tB = new Float64Array(NB);
  // A start between the one-sided estimates' scales: the median of l over B's draws.
  const { logR, iterations, converged } = bridgeFixedPoint(
    flatA,
    flatB,
    logSB,
    logSA,
    median(Array.from(flatB)),
    { tolerance, maxIterations },
    tA,
    tB,
    (value, iteration) =>
      `bridgeRatio: the bridge estimate became ${value} at iteration ${iteration}; the two densities do not overlap.`,
  );
  // Summands at the fixed point (as logs in tA, tB), for the Kish sizes; and f1 = p̂_B/(s_B p̂_B + s_A p_A)
  // at A's draws, f2 = p_A/(s_B p̂_B + s_A p_A) at B's, bounded by 1/s_B and 1/s_A.
  const shift = logSA + logR;
  for (let j = 0; j < NA; j++) tA[j] = flatA[j] - logAddExp(logSB + flatA[j], shift);
  for (let i = 0; i < NB; i++) tB[i] = -logAddExp(logSB + flatB[i], shift);
  // Kish's size of each side's summands, and the largest summand's share of their sum.
  const kA = logWeightSummary(tA, "bridgeRatio");
  const kB = logWeightSummary(tB, "bridgeRatio");
  const sA = Math.exp(logSA);
  const sB = Math.exp(logSB);
  const f1 = lA.map((c) => c.map((l) => 1 / (sB + sA * Math.exp(logR - l))));
  const f2 = lB.map((c) => c.map((l) => 1 / (sB * Math.exp(l - logR) + sA)));
  const side = (f: Float64Array[], N: number) => {
    const { mean, variance } = meanVariance(f);
    return variance / (cappedEss(f, N) * mean * mean);
  };
  return {
    logRatio: logR,
    re2: side(f1, NA) + side(f2, NB),
    iterations,
    converged,
    kishA: kA.ess,
    kishB: kB.ess,
    maxShareA: kA.maxWeightShare,
    maxShareB: kB.maxWeightShare,
  };
}

function concat(chains: readonly Float64Array[]): Float64Array {
  let n = 0;
  for (const c of chains) n += c.length;
  const out = new Float64Array(n);
  let o = 0;
  for (const c of chains) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
