/**
 * Temperature sweeps of the Bayesian network in a chosen direction — from the prior up (θ = 0 → 1) or
 * from the posterior down (θ = 1 → 0) — each temperature's chain starting where the previous one
 * ended, as in the Fabricius thesis §6.3.6, and the evidence from one sweep by path sampling (thesis
 * eqs. 6.73–6.74 on a ladder) and by chaining (Barber & Bishop, seed 001). Run in both directions,
 * the two estimates differ when the chains latch onto the mode they came from: the hysteresis of the
 * thesis's Figures 6.20–6.22.
 */
import { effectiveSampleSize } from "../../diagnostics/ess.js";
import { OccamError } from "../../errors.js";
import { ratioTerm } from "../../evidence/tempering/ladder.js";
import { quadratureWeights } from "../../evidence/tempering/quadrature.js";
import { validateLadder } from "../../evidence/tempering/schedule.js";
import { createRng, type Rng } from "../../random/rng.js";
import type { HmcWarmupOptions } from "../../samplers/hmc.js";
import type { BayesianMlp } from "./bayesian.js";
import { optimizedStart, sampleBayesianMlp } from "./sampling.js";

/** Options of {@link sweepTemperatures}. */
export interface TemperatureSweepOptions {
  /** The inverse temperatures, strictly increasing from 0 to 1 (the sweep visits them in `direction`). */
  ladder: ArrayLike<number>;
  /** "up": prior → posterior; "down": posterior → prior. */
  direction: "up" | "down";
  /**
   * Warm-up sweeps at each temperature (step size re-adapted from the previous temperature's).
   * @defaultValue 30
   */
  warmupPerTemperature?: number;
  /**
   * Kept Gibbs + HMC sweeps at each temperature.
   * @defaultValue 30
   */
  drawsPerTemperature?: number;
  /**
   * Direction "down": warm-up sweeps at θ = 1 before the sweep starts (the thesis's burn-in).
   * @defaultValue 500
   */
  burnIn?: number;
  /**
   * Draws at the starting end: independent prior draws at θ = 0 ("up"), or posterior draws after
   * the burn-in ("down"; also returned for prediction). At θ = 0 both directions use independent prior
   * draws, which are exact.
   * @defaultValue 200
   */
  endDraws?: number;
  /** HMC settings of the weights (merged over the model's defaults). */
  hmc?: Omit<HmcWarmupOptions, "target">;
  /** Seed. @defaultValue 0 */
  seed?: number;
  /** Generator (instead of `seed`). */
  rng?: Rng;
  /** Told which temperature is being sampled. */
  onTemperature?: (index: number, beta: number) => void;
}

/** Draws of one temperature of a sweep. */
export interface SweepTemperature {
  readonly beta: number;
  /** log L at each kept draw (the U of eq. 6.74). */
  readonly logLikelihood: Float64Array;
  /** Effective sample size of the trace (the number of draws for exact prior draws). */
  readonly ess: number;
  /** Mean HMC acceptance (NaN for exact prior draws). */
  readonly acceptanceRate: number;
  /** Mean noise standard deviation τ^(−1/2) of the draws. */
  readonly noiseSd: number;
}

/** A sweep's draws, in ladder order (increasing β), whatever the direction. */
export interface TemperatureSweep {
  readonly direction: "up" | "down";
  readonly ladder: Float64Array;
  readonly temperatures: readonly SweepTemperature[];
  /** Posterior draws at θ = 1: the last temperature going up, the burn-in's draws going down. */
  readonly posterior: ReturnType<typeof sampleBayesianMlp>;
  /** Gradient and likelihood evaluations. */
  readonly evaluations: number;
  readonly seconds: number;
}

function count(value: number, name: string, min: number): number {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new OccamError(
      "invalid-argument",
      `sweepTemperatures: ${name} must be an integer ≥ ${min}, got ${value}.`,
    );
  }
  return value;
}

/**
 * Samples the power posteriors p(w, τ, α) L^θ of a {@link BayesianMlp} at every θ of `ladder`,
 * visiting them in `direction`, each chain (Gibbs for τ and α, HMC for the weights; the model's
 * `powerPosteriorKernel`) starting at the last state of the previous temperature, with the HMC step
 * size and mass matrix carried over and re-adapted in a short warm-up. "up" starts from independent
 * prior draws at θ = 0; "down" starts at an optimised point, burns in at θ = 1 and keeps `endDraws`
 * posterior draws there, then walks down. At θ = 0 both use exact prior draws.
 */
export function sweepTemperatures(model: BayesianMlp, options: TemperatureSweepOptions): TemperatureSweep {
  const where = "sweepTemperatures";
  const start = performance.now();
  const ladder = validateLadder(options.ladder, `${where}: ladder`);
  const direction = options.direction;
  if (direction !== "up" && direction !== "down") {
    throw new OccamError(
      "invalid-argument",
      `${where}: direction must be "up" or "down", got ${String(direction)}.`,
    );
  }
  const warmup = count(options.warmupPerTemperature ?? 30, "warmupPerTemperature", 0);
  const draws = count(options.drawsPerTemperature ?? 30, "drawsPerTemperature", 2);
  const burnIn = count(options.burnIn ?? 500, "burnIn", 0);
  const endDraws = count(options.endDraws ?? 200, "endDraws", 2);
  const rng = options.rng ?? createRng(options.seed ?? 0);
  const K = ladder.length - 1;
  const streams = rng.split(K + 2);
  const temps: (SweepTemperature | undefined)[] = new Array(K + 1);
  let evaluations = 0;

  const priorDraws = (r: Rng): { t: SweepTemperature; last: Float64Array } => {
    const ell = new Float64Array(endDraws);
    let last = model.samplePrior(r);
    let noise = 0;
    for (let i = 0; i < endDraws; i++) {
      last = model.samplePrior(r);
      ell[i] = model.logLikelihood(last);
      noise += Math.exp(-0.5 * last[model.hyperOffset]) / endDraws;
      evaluations++;
    }
    return {
      t: { beta: 0, logLikelihood: ell, ess: endDraws, acceptanceRate: Number.NaN, noiseSd: noise },
      last,
    };
  };
  const summarise = (d: ReturnType<typeof sampleBayesianMlp>, beta: number): SweepTemperature => {
    let noise = 0;
    for (let i = 0; i < d.nDraws; i++) noise += 1 / Math.sqrt(d.noisePrecision[i]) / d.nDraws;
    const ess = d.nDraws >= 8 ? effectiveSampleSize([d.logLikelihood]) : d.nDraws;
    return {
      beta,
      logLikelihood: d.logLikelihood,
      ess: Number.isFinite(ess) ? ess : d.nDraws,
      acceptanceRate: d.acceptanceRate,
      noiseSd: noise,
    };
  };

  let position: Float64Array;
  let hmc: Omit<HmcWarmupOptions, "target"> = { ...(options.hmc ?? {}) };
  let posterior: ReturnType<typeof sampleBayesianMlp> | undefined;
  const order: number[] = [];
  if (direction === "up") {
    const p = priorDraws(streams[0]);
    temps[0] = p.t;
    position = p.last;
    for (let k = 1; k <= K; k++) order.push(k);
  } else {
    options.onTemperature?.(K, 1);
    const init = optimizedStart(model, streams[0]);
    posterior = sampleBayesianMlp(model, {
      beta: 1,
      draws: endDraws,
      warmup: burnIn,
      initial: init,
      rng: streams[1],
      hmc,
    });
    evaluations += posterior.evaluations;
    temps[K] = summarise(posterior, 1);
    position = posterior.lastPosition;
    hmc = { ...hmc, stepSize: posterior.stepSize, inverseMassMatrix: posterior.inverseMassMatrix };
    for (let k = K - 1; k >= 1; k--) order.push(k);
  }
  for (const k of order) {
    const beta = ladder[k];
    options.onTemperature?.(k, beta);
    // The mass matrix is carried, not re-estimated: a warm-up of a few dozen sweeps cannot estimate it.
    const d = sampleBayesianMlp(model, {
      beta,
      draws: k === K ? endDraws : draws,
      warmup,
      initial: position,
      rng: streams[k + 1],
      hmc: { ...hmc, adaptMetric: false },
    });
    evaluations += d.evaluations;
    temps[k] = summarise(d, beta);
    position = d.lastPosition;
    hmc = { ...hmc, stepSize: d.stepSize, inverseMassMatrix: d.inverseMassMatrix };
    if (k === K) posterior = d;
  }
  if (direction === "down") temps[0] = priorDraws(streams[K + 1]).t;
  return Object.freeze({
    direction,
    ladder,
    temperatures: Object.freeze(temps as SweepTemperature[]),
    posterior: posterior as ReturnType<typeof sampleBayesianMlp>,
    evaluations,
    seconds: (performance.now() - start) / 1000,
  });
}

/** An evidence estimate from one sweep. */
export interface SweepEvidence {
  readonly logZ: number;
  readonly stdErr: number;
}

/**
 * Path sampling from a sweep (thesis eqs. 6.73–6.74 on a ladder): log Z = ∫₀¹ E_θ[log L] dθ by the
 * trapezoid rule over the ladder. (Not the slope-corrected Hermite rule: at θ = 0 the variance of
 * log L under the thesis's vague priors is astronomically large — prior noise levels of 10⁶ — and the
 * correction h²Var/12 would swamp the estimate.) The first rung [0, θ_1] is log E₀[L^θ₁] by importance
 * sampling from the exact prior draws, for the same reason. The standard error propagates each temperature's
 * Monte Carlo error sd/√ESS through the weights; the quadrature's own error is not in it.
 */
export function sweepPathSampling(sweep: TemperatureSweep): SweepEvidence {
  const { ladder, temperatures } = sweep;
  const K = ladder.length - 1;
  const w = quadratureWeights(ladder, "trapezoid");
  // The first rung [0, θ_1] by importance sampling from the exact prior draws, log E₀[L^θ_1], as the
  // first link of chaining: E₀[log L] under vague priors has a tail too heavy to average.
  const prior = temperatures[0].logLikelihood;
  const b1 = ladder[1];
  const first = ratioTerm(prior, b1, prior.length);
  let logZ = first.logRatio;
  let variance = first.variance;
  w[0] = 0;
  w[1] -= b1 / 2;
  for (let k = 1; k <= K; k++) {
    const ell = temperatures[k].logLikelihood;
    const n = ell.length;
    let m = 0;
    for (let i = 0; i < n; i++) m += ell[i] / n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (ell[i] - m) ** 2 / (n - 1);
    logZ += w[k] * m;
    variance += (w[k] * w[k] * v) / Math.max(1, Math.min(n, temperatures[k].ess));
  }
  return { logZ, stdErr: Math.sqrt(variance) };
}

/**
 * Chaining from a sweep (Barber & Bishop eqs. 4–5) over the sub-ladder `chain` (values of the sweep's
 * ladder, from 0 to 1): log Z = Σ_k log Z_{λ_{k+1}}/Z_{λ_k}, each ratio by importance sampling from
 * the draws of the end the sweep came from — going up, the lower end: log mean L^{Δλ}; going down,
 * the upper end: −log mean L^{−Δλ} — so that every ratio uses draws the sweep made before crossing
 * the link. Standard error: the delta method with each temperature's ESS.
 */
export function sweepChaining(sweep: TemperatureSweep, chain: ArrayLike<number>): SweepEvidence {
  const { ladder, temperatures } = sweep;
  const lambdas = validateLadder(chain, "sweepChaining: chain");
  const index: number[] = [];
  for (const l of lambdas) {
    const k = ladder.indexOf(l);
    if (k < 0) {
      throw new OccamError(
        "invalid-argument",
        `sweepChaining: λ = ${l} is not a temperature of the sweep's ladder.`,
      );
    }
    index.push(k);
  }
  let logZ = 0;
  let variance = 0;
  for (let j = 0; j + 1 < index.length; j++) {
    const delta = lambdas[j + 1] - lambdas[j];
    const up = sweep.direction === "up";
    const t = temperatures[up ? index[j] : index[j + 1]];
    const term = ratioTerm(t.logLikelihood, up ? delta : -delta, t.ess);
    logZ += up ? term.logRatio : -term.logRatio;
    variance += term.variance;
  }
  return { logZ, stdErr: Math.sqrt(variance) };
}
