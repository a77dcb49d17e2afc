import { OccamError } from "../errors.js";
import type { Rng } from "./rng.js";

/**
 * Random variates built on an {@link Rng}: Dirichlet, categorical, multivariate normal, Student-t,
 * uniform ranges and permutations. The primitive normal, gamma and beta variates are the Rng's own
 * (from @stdlib); these functions only combine them. Every function that returns a vector takes an
 * optional `out` buffer so that a sampler step can draw without allocating.
 */

function outBuffer(out: Float64Array | undefined, length: number, where: string): Float64Array {
  if (out === undefined) return new Float64Array(length);
  if (out.length !== length) {
    throw new OccamError("dimension-mismatch", `${where}: out has length ${out.length}, expected ${length}.`);
  }
  return out;
}

function checkAlpha(alpha: ArrayLike<number>, where: string): void {
  if (alpha.length < 1)
    throw new OccamError("invalid-argument", `${where}: alpha must have at least one entry.`);
  for (let i = 0; i < alpha.length; i++) {
    const a = alpha[i];
    if (!(a > 0 && Number.isFinite(a))) {
      throw new OccamError("invalid-argument", `${where}: alpha[${i}] must be finite and > 0, got ${a}.`);
    }
  }
}

/**
 * log G for G ~ Gamma(shape, 1), accurate for any shape > 0. For shape < 1 a Gamma variate can be
 * so small that it underflows to 0 (for shape 1e-3 about half of all draws are below 1e-308), so it
 * is drawn as log G = log G' + log(U) / shape with G' ~ Gamma(shape + 1) and U ~ Uniform(0, 1]
 * (Marsaglia & Tsang 2000, §6), which never leaves the log scale.
 */
export function logGammaVariate(rng: Rng, shape: number): number {
  if (shape >= 1) return Math.log(rng.gamma(shape));
  if (!(shape > 0)) {
    throw new OccamError("invalid-argument", `logGammaVariate: shape must be finite and > 0, got ${shape}.`);
  }
  return Math.log(rng.gamma(shape + 1)) + Math.log(1 - rng.uniform()) / shape;
}

/** Fills r with log G_i, G_i ~ Gamma(α_i), shifted by their maximum (so the largest is 0); returns Σ e^{r_i}. */
function shiftedLogGammas(rng: Rng, alpha: ArrayLike<number>, r: Float64Array): number {
  const k = alpha.length;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < k; i++) {
    const v = logGammaVariate(rng, alpha[i]);
    r[i] = v;
    if (v > max) max = v;
  }
  // Shifting first keeps the normalisation exact to a few ulps even when every log G is near −1000.
  let sum = 0;
  for (let i = 0; i < k; i++) {
    r[i] -= max;
    sum += Math.exp(r[i]);
  }
  return sum;
}

/**
 * The logarithms of a Dirichlet(α) draw, log p_i, written to `out`. Unlike {@link dirichlet} it keeps
 * components that underflow in linear scale (tiny α give draws like [0, −900, −4000]).
 */
export function logDirichlet(rng: Rng, alpha: ArrayLike<number>, out?: Float64Array): Float64Array {
  checkAlpha(alpha, "logDirichlet");
  const r = outBuffer(out, alpha.length, "logDirichlet");
  const logSum = Math.log(shiftedLogGammas(rng, alpha, r));
  for (let i = 0; i < r.length; i++) r[i] -= logSum;
  return r;
}

/**
 * A Dirichlet(α) draw: G_i ~ Gamma(α_i) normalised by their sum. When some α_i < 1 the Gammas are
 * drawn and normalised in log space (see {@link logGammaVariate}), so tiny concentrations give a
 * valid point of the simplex (one component ≈ 1, the rest ≈ 0) and never an all-zero vector.
 */
export function dirichlet(rng: Rng, alpha: ArrayLike<number>, out?: Float64Array): Float64Array {
  checkAlpha(alpha, "dirichlet");
  const k = alpha.length;
  const r = outBuffer(out, k, "dirichlet");
  let minAlpha = Number.POSITIVE_INFINITY;
  for (let i = 0; i < k; i++) if (alpha[i] < minAlpha) minAlpha = alpha[i];
  if (minAlpha < 1) {
    const sum = shiftedLogGammas(rng, alpha, r);
    for (let i = 0; i < k; i++) r[i] = Math.exp(r[i]) / sum;
    return r;
  }
  let sum = 0;
  for (let i = 0; i < k; i++) {
    const g = rng.gamma(alpha[i]);
    r[i] = g;
    sum += g;
  }
  for (let i = 0; i < k; i++) r[i] /= sum;
  return r;
}

/**
 * An index i drawn with probability w_i / Σ w, for non-negative finite weights `weights` (they need
 * not sum to 1). Throws `invalid-argument` for a negative or non-finite weight or an all-zero vector.
 */
export function categorical(rng: Rng, weights: ArrayLike<number>): number {
  const k = weights.length;
  let total = 0;
  for (let i = 0; i < k; i++) {
    const w = weights[i];
    if (!(w >= 0 && w < Number.POSITIVE_INFINITY)) {
      throw new OccamError("invalid-argument", `categorical: weight ${i} must be finite and ≥ 0, got ${w}.`);
    }
    total += w;
  }
  if (!(total > 0)) {
    throw new OccamError("invalid-argument", "categorical: the weights are all zero (or there are none).");
  }
  const u = rng.uniform() * total;
  let cumulative = 0;
  let last = 0;
  for (let i = 0; i < k; i++) {
    const w = weights[i];
    if (w === 0) continue;
    cumulative += w;
    last = i;
    if (u < cumulative) return i;
  }
  // Rounding can leave u just above the accumulated total: the last positive weight takes it.
  return last;
}

/**
 * An index i drawn with probability e^{ℓ_i} / Σ e^{ℓ_j} from unnormalised log weights ℓ, stable for
 * log weights of any magnitude (the maximum is subtracted before exponentiating). −Infinity entries
 * have probability 0; throws for NaN, +Infinity or all −Infinity.
 */
export function categoricalLog(rng: Rng, logWeights: ArrayLike<number>): number {
  const k = logWeights.length;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < k; i++) {
    const v = logWeights[i];
    if (Number.isNaN(v) || v === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "invalid-argument",
        `categoricalLog: log weight ${i} is ${v}; it must be < +Infinity.`,
      );
    }
    if (v > max) max = v;
  }
  if (max === Number.NEGATIVE_INFINITY) {
    throw new OccamError(
      "invalid-argument",
      "categoricalLog: every log weight is −Infinity (or there are none).",
    );
  }
  let total = 0;
  for (let i = 0; i < k; i++) total += Math.exp(logWeights[i] - max);
  const u = rng.uniform() * total;
  let cumulative = 0;
  let last = 0;
  for (let i = 0; i < k; i++) {
    const w = Math.exp(logWeights[i] - max);
    if (w === 0) continue;
    cumulative += w;
    last = i;
    if (u < cumulative) return i;
  }
  return last;
}

/**
 * A draw μ + L z, z ~ N(0, I_n), from the multivariate normal with mean `mean` and covariance L Lᵀ
 * (`choleskyL` row-major lower triangular n × n). Allocation-free with `out`.
 */
export function multivariateNormal(
  rng: Rng,
  mean: ArrayLike<number>,
  choleskyL: Float64Array,
  n: number,
  out?: Float64Array,
): Float64Array {
  if (mean.length !== n || choleskyL.length !== n * n) {
    throw new OccamError(
      "dimension-mismatch",
      `multivariateNormal: mean has length ${mean.length} and choleskyL ${choleskyL.length}; expected ${n} and ${n * n}.`,
    );
  }
  const r = outBuffer(out, n, "multivariateNormal");
  for (let i = 0; i < n; i++) r[i] = rng.normal();
  // r ← L r in place, last row first: row i reads only z_j, j ≤ i, which are not yet overwritten.
  for (let i = n - 1; i >= 0; i--) {
    let s = 0;
    const row = i * n;
    for (let j = 0; j <= i; j++) s += choleskyL[row + j] * r[j];
    r[i] = mean[i] + s;
  }
  return r;
}

/**
 * Fills out[0 … d) with independent N(0, 1) draws, in order, and returns their sum of squares (twice
 * a unit-mass momentum's kinetic energy, or ‖z‖² of a standard normal proposal's draw).
 */
export function standardNormals(rng: Rng, out: Float64Array, d: number): number {
  let sum = 0;
  for (let a = 0; a < d; a++) {
    out[a] = rng.normal();
    sum += out[a] * out[a];
  }
  return sum;
}

/**
 * A standard Student-t variate with `nu` degrees of freedom: Z / √(V/ν), Z ~ N(0, 1), V ~ χ²_ν
 * (V = 2 Gamma(ν/2), drawn on the log scale so that a tiny ν cannot divide by an underflowed 0).
 * `nu` may be +Infinity (a standard normal).
 */
export function studentT(rng: Rng, nu: number): number {
  if (!(nu > 0)) throw new OccamError("invalid-argument", `studentT: nu must be > 0, got ${nu}.`);
  const z = rng.normal();
  if (nu === Number.POSITIVE_INFINITY) return z;
  return z * Math.exp(0.5 * (Math.log(0.5 * nu) - logGammaVariate(rng, 0.5 * nu)));
}

/** A uniform variate on [a, b) for finite a < b. */
export function uniformRange(rng: Rng, a: number, b: number): number {
  if (!(Number.isFinite(a) && Number.isFinite(b) && a < b && Number.isFinite(b - a))) {
    throw new OccamError("invalid-argument", `uniformRange: need finite a < b, got a = ${a}, b = ${b}.`);
  }
  const x = a + (b - a) * rng.uniform();
  // a + (b − a)u can round up to b; keep the interval half-open.
  return x < b ? x : a;
}

/** Shuffles `array` in place (Fisher–Yates) and returns it. */
export function shuffle<T extends { length: number; [i: number]: unknown }>(rng: Rng, array: T): T {
  for (let i = array.length - 1; i > 0; i--) {
    const j = rng.integer(i + 1);
    const t = array[i];
    array[i] = array[j];
    array[j] = t;
  }
  return array;
}

/** A uniformly random permutation of 0, …, n − 1. */
export function permutation(rng: Rng, n: number): Int32Array {
  if (!(Number.isInteger(n) && n >= 0 && n <= 2 ** 31 - 1)) {
    throw new OccamError("invalid-argument", `permutation: n must be a non-negative integer, got ${n}.`);
  }
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  return shuffle(rng, p);
}
