/**
 * Temperature ladders: the one schedule type shared by every tempered evidence estimator (chaining,
 * stepping-stone, path sampling, annealed importance sampling, tempered SMC). A ladder lists inverse
 * temperatures β of the power posteriors p(θ) L(θ)^β, from the prior (β = 0) to the posterior (β = 1).
 */
import { OccamError } from "../../errors.js";
import type { Rng } from "../../random/rng.js";

/**
 * A temperature ladder: a Float64Array of inverse temperatures β_0 = 0 < β_1 < … < β_K = 1, strictly
 * increasing. Made by {@link powerLadder}, {@link linearLadder} or {@link validateLadder}; estimators
 * copy it, so changing the array afterwards does not affect a result.
 */
export type TemperatureSchedule = Float64Array;

function checkRungs(n: number, where: string): void {
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the number of rungs n must be an integer ≥ 1 (the ladder has n + 1 temperatures), got ${n}.`,
    );
  }
}

/**
 * The power ladder β_i = (i/n)^exponent, i = 0…n (n + 1 temperatures, n rungs), which puts most
 * temperatures near β = 0, where E_β[log L] changes fastest. Exponent 5 is Friel & Pettitt's (2008)
 * choice; Xie et al. (2011) use quantiles of Beta(α, 1), i.e. exponent 1/α (α = 0.3: about 3.3).
 *
 * @example
 * powerLadder(4, 2); // [0, 0.0625, 0.25, 0.5625, 1]
 */
export function powerLadder(n: number, exponent = 5): TemperatureSchedule {
  checkRungs(n, "powerLadder");
  if (!(Number.isFinite(exponent) && exponent > 0)) {
    throw new OccamError(
      "invalid-argument",
      `powerLadder: exponent must be a finite number > 0, got ${exponent}.`,
    );
  }
  const betas = new Float64Array(n + 1);
  for (let i = 1; i < n; i++) betas[i] = (i / n) ** exponent;
  betas[n] = 1;
  // A large exponent with many rungs can underflow the first rungs to 0 (or repeat a value).
  return validateLadder(betas);
}

/**
 * Splits every rung [β_k, β_{k+1}] of a ladder into `m` rungs: evenly from β_k = 0 (where the power
 * posterior leaves the prior), geometrically elsewhere, β_k (β_{k+1}/β_k)^{j/m}, which follows an
 * adaptive ladder's own spacing (roughly geometric: the spread of log L under p_β falls like 1/β once
 * the likelihood dominates). Each new rung's ratio L^{Δβ} has about 1/m of the old one's log-variance.
 *
 * @example
 * refineLadder([0, 0.01, 1], 2); // [0, 0.005, 0.01, 0.1, 1]
 */
export function refineLadder(ladder: ArrayLike<number>, m: number): TemperatureSchedule {
  const base = validateLadder(ladder, "refineLadder: ladder");
  if (!(Number.isInteger(m) && m >= 1)) {
    throw new OccamError("invalid-argument", `refineLadder: m must be an integer ≥ 1, got ${m}.`);
  }
  const K = base.length - 1;
  const out: number[] = [0];
  for (let k = 0; k < K; k++) {
    const a = base[k];
    const b = base[k + 1];
    for (let j = 1; j < m; j++) {
      const beta = a === 0 ? (b * j) / m : a * (b / a) ** (j / m);
      // Rounding can only matter for rungs a few ulps long: keep the ladder strictly increasing.
      if (beta > out[out.length - 1] && beta < b) out.push(beta);
    }
    out.push(b);
  }
  return Float64Array.from(out);
}

/** The evenly spaced ladder β_i = i/n, i = 0…n. */
export function linearLadder(n: number): TemperatureSchedule {
  checkRungs(n, "linearLadder");
  const betas = new Float64Array(n + 1);
  for (let i = 1; i < n; i++) betas[i] = i / n;
  betas[n] = 1;
  return betas;
}

/**
 * Checks a user's ladder and returns it as a new {@link TemperatureSchedule}: at least two entries,
 * every entry a finite number, the first exactly 0, the last exactly 1, strictly increasing. Throws
 * an `OccamError` that names the offending entry.
 */
export function validateLadder(betas: ArrayLike<number>, where = "temperature ladder"): TemperatureSchedule {
  if (betas === null || typeof betas !== "object" || typeof betas.length !== "number") {
    throw new OccamError(
      "invalid-argument",
      `${where}: must be an array of inverse temperatures from 0 to 1, e.g. powerLadder(32, 4).`,
    );
  }
  const n = betas.length;
  if (n < 2) {
    throw new OccamError(
      "invalid-argument",
      `${where}: needs at least two temperatures (0 and 1), got ${n}.`,
    );
  }
  for (let i = 0; i < n; i++) {
    if (typeof betas[i] !== "number" || !Number.isFinite(betas[i])) {
      throw new OccamError(
        "invalid-argument",
        `${where}: entry ${i} is ${betas[i]}; every β must be a finite number.`,
      );
    }
  }
  if (betas[0] !== 0) {
    throw new OccamError(
      "invalid-argument",
      `${where}: entry 0 is ${betas[0]} but a ladder must start at exactly 0 (the prior).`,
    );
  }
  if (betas[n - 1] !== 1) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the last entry (${n - 1}) is ${betas[n - 1]} but a ladder must end at exactly 1 (the posterior).`,
    );
  }
  for (let i = 1; i < n; i++) {
    if (!(betas[i] > betas[i - 1])) {
      throw new OccamError(
        "invalid-argument",
        `${where}: entry ${i} (${betas[i]}) is not greater than entry ${i - 1} (${betas[i - 1]}); β must increase strictly.`,
      );
    }
  }
  return Float64Array.from(betas);
}

function checkK(k: number, where: string): void {
  if (!(Number.isFinite(k) && k < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: k must be a finite number < 1 (the density (1 − k) θ^−k must be normalisable), got ${k}.`,
    );
  }
}

/**
 * The thesis's sampling density of inverse temperatures (Fabricius, eq. 5.31, corrected):
 * p(θ) = (1 − k) θ^−k on [0, 1], k < 1. The thesis prints θ^−k / (1 − k), which does not integrate
 * to 1; ∫₀¹ θ^−k dθ = 1 / (1 − k), so the normalised density is (1 − k) θ^−k.
 */
export function temperatureDensity(theta: number, k = 0.9): number {
  checkK(k, "temperatureDensity");
  if (!(theta >= 0 && theta <= 1)) return 0;
  return (1 - k) * theta ** -k;
}

/**
 * `n` inverse temperatures drawn independently from p(θ) = (1 − k) θ^−k on [0, 1]
 * ({@link temperatureDensity}) by the inverse CDF θ = u^{1/(1−k)}, u ~ U(0, 1), returned sorted
 * in increasing order (the thesis samples them in that order, warm-starting each from the last).
 * k = 0.9 gave the thesis the lowest variance among 0, 0.5, 0.9 and 0.99.
 */
export function randomTemperatures(n: number, rng: Rng, k = 0.9): Float64Array {
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new OccamError("invalid-argument", `randomTemperatures: n must be an integer ≥ 1, got ${n}.`);
  }
  checkK(k, "randomTemperatures");
  const out = new Float64Array(n);
  const power = 1 / (1 - k);
  for (let i = 0; i < n; i++) {
    // 1 − u lies in (0, 1], so θ > 0 and p(θ) is finite (u = 0 would give θ = 0 and p = ∞ for k > 0).
    out[i] = (1 - rng.uniform()) ** power;
  }
  out.sort();
  return out;
}

/**
 * The conditional effective sample size of the step β → β + Δ (Zhou, Johansen & Aston 2016): with
 * normalised current weights W_i = e^{logW_i}/Σe^{logW} and incremental weights w_i = L_i^Δ,
 * N (Σ W_i w_i)² / Σ W_i w_i², the number of particles the step keeps worth of information. With equal
 * current weights it is Kish's ESS of the incremental weights. A log likelihood of −∞ gives weight 0.
 */
export function conditionalEss(logW: Float64Array, ell: Float64Array, delta: number): number {
  const current = currentWeights(logW);
  return conditionalEssGiven(logW, ell, delta, current.max, current.sum);
}

/** The largest log weight and Σ_i e^{logW_i − max}: the part of {@link conditionalEss} that Δ leaves alone. */
function currentWeights(logW: Float64Array): { max: number; sum: number } {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < logW.length; i++) max = Math.max(max, logW[i]);
  let sum = 0;
  for (let i = 0; i < logW.length; i++) sum += Math.exp(logW[i] - max);
  return { max, sum };
}

/**
 * {@link conditionalEss} given the current weights' largest log and scaled sum, computed once for the
 * many Δ a bisection tries (it spends a quarter of a tempered-SMC run here).
 */
function conditionalEssGiven(
  logW: Float64Array,
  ell: Float64Array,
  delta: number,
  maxW: number,
  s0: number,
): number {
  const n = ell.length;
  // Σ W_i w_i and Σ W_i w_i², each as a sum scaled by its largest term.
  let max1 = Number.NEGATIVE_INFINITY;
  let max2 = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const inc = delta === 0 ? 0 : delta * ell[i];
    max1 = Math.max(max1, logW[i] + inc);
    max2 = Math.max(max2, logW[i] + 2 * inc);
  }
  if (max1 === Number.NEGATIVE_INFINITY) return 0;
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const inc = delta === 0 ? 0 : delta * ell[i];
    s1 += Math.exp(logW[i] + inc - max1);
    s2 += Math.exp(logW[i] + 2 * inc - max2);
  }
  return ((n * s1 * s1) / (s0 * s2)) * Math.exp(2 * max1 - maxW - max2);
}

/**
 * The next inverse temperature: the β' in (β, 1] at which the conditional ESS ({@link conditionalEss})
 * of the step equals `target` (a number of particles), found by bisection (it decreases in β'); 1
 * when even β' = 1 keeps it above the target.
 */
export function nextTemperature(logW: Float64Array, ell: Float64Array, beta: number, target: number): number {
  const { max, sum } = currentWeights(logW);
  if (conditionalEssGiven(logW, ell, 1 - beta, max, sum) >= target) return 1;
  let lo = 0;
  let hi = 1 - beta;
  for (let it = 0; it < 100 && hi - lo > 1e-14 * hi; it++) {
    const mid = 0.5 * (lo + hi);
    if (conditionalEssGiven(logW, ell, mid, max, sum) >= target) lo = mid;
    else hi = mid;
  }
  // lo keeps the ESS at or above the target. It is 0 only when no positive step keeps it (fewer
  // particles than the target have a positive likelihood): then take a tiny step, which gives the
  // zero-likelihood particles zero weight so that resampling removes them.
  const step = lo > 0 ? lo : Math.max(hi, 1e-12 * beta);
  return Math.min(1, beta + step);
}
