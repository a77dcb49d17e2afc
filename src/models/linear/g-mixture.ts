/**
 * Mixtures of g-priors (Liang et al. 2008, JASA 103, 410–423): the linear model with k inputs and an
 * intercept, y = α1 + Xβ + ε, ε ~ N(0, σ²I), p(α, σ²) ∝ 1/σ², β | g, σ² ~ N(0, g σ² (XcᵀXc)⁻¹) (Xc the
 * centred inputs) and g ~ π(g), against the intercept-only model. Given g the Bayes factor is Liang et
 * al.'s eq. 5, so with x = R² and c = 1 − x
 *
 *   J_m(x) = ∫₀^∞ (g/(1+g))^m (1 + g)^((n−1−k)/2) (1 + g c)^(−(n−1)/2) π(g) dg,
 *
 * J₀ is the Bayes factor and J_m/J₀ = E[(g/(1+g))^m | y], the posterior moments of the shrinkage factor
 * that scales the least-squares coefficients (E[β | y] = E[g/(1+g) | y] β̂).
 *
 * Each J_m is absolutely monotone in x on [0, 1): its q-th derivative,
 *   J_m^(q)(x) = (b)_q ∫ (g/(1+g))^m (g/(1+gc))^q (1 + g)^a (1 + gc)^(−b) π(g) dg  (b = (n−1)/2, (b)_q rising),
 * is the integral of a positive function. `g-table.ts` uses this to bound interpolation errors.
 *
 * The integrals are computed in log space on u = log g by adaptive Gauss–Kronrod quadrature on a finite
 * interval whose ends come from bounds on the tails (see {@link gMixtureLogIntegral}).
 */
import { OccamError } from "../../errors.js";
import { LOG_PI } from "../../math/constants.js";
import { logistic, softplus } from "../../math/logspace.js";
import { adaptiveGaussKronrod, peakPanelBreaks } from "../../math/quadrature.js";
import { logGammaRatio } from "../../math/special.js";

/**
 * A prior density π(g) of a mixture of g-priors, written for u = log g: P(u) = log π(eᵘ) + u is the log
 * density of u. The quadrature needs its first two derivatives and two bounds, which every prior here
 * provides in closed form.
 */
export interface GMixingDensity {
  /** P(u) = log π(eᵘ) + u. */
  logDensity(u: number): number;
  /** P′(u). */
  slope(u: number): number;
  /** P″(u). */
  curvature(u: number): number;
  /** P is increasing on (−∞, increasingBelow]. */
  readonly increasingBelow: number;
  /** P(u) ≤ rightIntercept + rightSlope · u for every u, with rightSlope < 0 … see {@link gMixtureLogIntegral}. */
  readonly rightIntercept: number;
  readonly rightSlope: number;
}

/**
 * Zellner–Siow: g ~ InverseGamma(shape ½, scale s = r²n/2), as R's BayesFactor (`regressionBF`, `lmBF`)
 * uses it: P(u) = ½ log s − ½ log π − u/2 − s e^(−u).
 */
export function zellnerSiowDensity(n: number, r: number): GMixingDensity {
  const s = (r * r * n) / 2;
  const constant = 0.5 * Math.log(s) - 0.5 * LOG_PI;
  return {
    logDensity: (u) => constant - 0.5 * u - s * Math.exp(-u),
    slope: (u) => -0.5 + s * Math.exp(-u),
    curvature: (u) => -s * Math.exp(-u),
    increasingBelow: Math.log(2 * s),
    rightIntercept: constant,
    rightSlope: -0.5,
  };
}

/**
 * Liang et al.'s hyper-g prior, π(g) = (a − 2)/2 · (1 + g)^(−a/2) (a > 2; a = 3 by default in BAS), or
 * with `perN` the hyper-g/n prior π(g) = (a − 2)/(2n) · (1 + g/n)^(−a/2), whose prior mass moves with n
 * so that the Bayes factor is consistent. P(u) = log π + u with sp(u) = log(1 + eᵘ):
 *   hyper-g:   log((a−2)/2) − (a/2) sp(u) + u,   hyper-g/n: log((a−2)/(2n)) − (a/2) sp(u − log n) + u.
 */
export function hyperGDensity(a: number, n: number, perN: boolean): GMixingDensity {
  const shift = perN ? Math.log(n) : 0;
  const constant = Math.log((a - 2) / 2) - shift;
  return {
    logDensity: (u) => constant - 0.5 * a * softplus(u - shift) + u,
    slope: (u) => 1 - 0.5 * a * logistic(u - shift),
    curvature: (u) => {
      const p = logistic(u - shift);
      return -0.5 * a * p * (1 - p);
    },
    // P′ = 1 − (a/2)σ(u − shift) > 0 while σ < 2/a.
    increasingBelow: shift + Math.log(2 / (a - 2)),
    // sp(x) ≥ x, so P(u) ≤ constant + (a/2) shift + (1 − a/2) u.
    rightIntercept: constant + 0.5 * a * shift,
    rightSlope: 1 - 0.5 * a,
  };
}

/** How far (in nats) below the peak the integration interval ends: e^(−60) ≈ 1e-26 of the peak. */
const TAIL_DROP = 60;

/** The log integrand φ(u) of J_m^(q) on u = log g, with its derivatives and tail bounds. */
export class GMixtureIntegrand {
  readonly a: number; // (n − 1 − k)/2
  readonly b: number; // (n − 1)/2
  readonly x: number; // R²
  readonly lc: number; // log(1 − x)
  readonly c: number; // 1 − x
  readonly constant: number; // log (b)_q
  evaluations = 0;
  /** sp(u + log c) at the u of the last {@link value} call, for a caller that needs it as well. */
  lastSoftplus = 0;

  constructor(
    readonly mix: GMixingDensity,
    x: number,
    n: number,
    readonly k: number,
    readonly m: number,
    readonly q: number,
  ) {
    this.a = 0.5 * (n - 1 - k);
    this.b = 0.5 * (n - 1);
    this.x = x;
    this.lc = Math.log1p(-x);
    this.c = 1 - x;
    this.constant = q === 0 ? 0 : logGammaRatio(this.b, q);
  }

  /**
   * φ(u) = a sp(u) − b sp(u + log c) + P(u) + m (u − sp(u)) + q (u − sp(u + log c)) + log (b)_q, written
   * as −a d(u) − (b − a) sp(u + log c) + … with d = sp(u + log c) − sp(u) = log(1 − x σ(u)) computed
   * directly: a and b are about n/2, so subtracting a sp(u) from b sp(u + log c) would lose the digits of
   * the difference (at n = 2·10⁶ the rounding error reached 1e-9 of the integrand).
   */
  value(u: number): number {
    this.evaluations++;
    const s1 = softplus(u + this.lc);
    this.lastSoftplus = s1;
    const xs = this.x * logistic(u);
    // 1 − xσ(u) = (e^(−u) + c)/(e^(−u) + 1): the quotient form keeps its digits when xσ is near 1.
    const d = xs <= 0.5 ? Math.log1p(-xs) : Math.log(Math.exp(-u) + this.c) - Math.log1p(Math.exp(-u));
    // u − sp(u) = −sp(−u).
    const shrinkage = this.m === 0 ? 0 : -this.m * softplus(-u);
    return (
      -this.a * d -
      (this.b - this.a) * s1 +
      this.mix.logDensity(u) +
      shrinkage +
      this.q * (u - s1) +
      this.constant
    );
  }

  /**
   * The rounding error of {@link value} near the peak relative to the integrand, which bounds the
   * accuracy any quadrature of e^φ can reach: a few ulps of the largest term, a|log c| + |P| + |log (b)_q|.
   */
  roundingFloor(peak: number): number {
    return 8 * Number.EPSILON * (1 + Math.abs(peak) + this.a * Math.abs(this.lc) + Math.abs(this.constant));
  }

  slope(u: number): number {
    const p0 = logistic(u);
    const p1 = logistic(u + this.lc);
    return this.a * p0 - this.b * p1 + this.mix.slope(u) + this.m * (1 - p0) + this.q * (1 - p1);
  }

  curvature(u: number): number {
    const p0 = logistic(u);
    const p1 = logistic(u + this.lc);
    const d0 = p0 * (1 - p0);
    const d1 = p1 * (1 - p1);
    return (this.a - this.m) * d0 - (this.b + this.q) * d1 + this.mix.curvature(u);
  }

  /**
   * An upper bound of φ that increases on (−∞, mix.increasingBelow]: (1 + g)^a (1 + gc)^(−b) ≤ c^(−a)
   * (as (1 + g)/(1 + gc) ≤ 1/c and a ≤ b), (g/(1+g))^m ≤ 1 and g/(1 + gc) ≤ g.
   */
  leftBound(u: number): number {
    return -this.a * this.lc + this.mix.logDensity(u) + this.q * u + this.constant;
  }

  /**
   * For u ≥ 0, sp(u) ≤ u + log 2 and sp(u + log c) ≥ u + log c, so φ(u) ≤ rightIntercept + rightSlope·u
   * with slope a − b + P's right slope = −k/2 + P's right slope < 0.
   */
  get rightIntercept(): number {
    return this.a * Math.LN2 - (this.b + this.q) * this.lc + this.mix.rightIntercept + this.constant;
  }

  get rightSlope(): number {
    return this.a - this.b + this.mix.rightSlope;
  }

  /**
   * A local maximum of φ by safeguarded Newton on φ′, which is positive far left (P′ → +∞ or a positive
   * limit there) and negative far right (the right slope): bracket, then Newton inside the bracket.
   */
  mode(): number {
    let lo = -1;
    let hi = 1;
    for (let step = 2; this.slope(lo) <= 0 && lo > -800; step *= 2) lo -= step;
    for (let step = 2; this.slope(hi) >= 0 && hi < 800; step *= 2) hi += step;
    let u = 0.5 * (lo + hi);
    for (let it = 0; it < 200; it++) {
      const d = this.slope(u);
      if (d === 0) return u;
      if (d > 0) lo = u;
      else hi = u;
      const c = this.curvature(u);
      const next = c < 0 ? u - d / c : Number.NaN;
      const candidate = next > lo && next < hi ? next : 0.5 * (lo + hi);
      if (Math.abs(candidate - u) <= 1e-13 * (1 + Math.abs(u))) return candidate;
      u = candidate;
    }
    return u;
  }
}

/** The result of {@link gMixtureLogIntegral}. */
export interface GMixtureIntegral {
  /** log J_m^(q)(x). */
  readonly logValue: number;
  /** The quadrature's error estimate relative to the integral (≈ the absolute error of logValue). */
  readonly error: number;
  /** log g at the integrand's peak (for q = m = 0: the posterior mode of log g). */
  readonly logGMode: number;
  /** Number of integrand evaluations. */
  readonly evaluations: number;
}

/**
 * log J_m^(q)(x) (see the module comment): the Bayes factor (m = q = 0), the unnormalised posterior
 * moments of the shrinkage factor (m ≥ 1) and their derivatives in x = R² (q ≥ 1), by adaptive
 * Gauss–Kronrod quadrature in u = log g to relative accuracy relTol.
 *
 * The interval: the highest point found (a local maximum by Newton, then the best of a scan of the
 * interval, so a second mode cannot be missed by more than the scan's spacing) sets a floor 60 nats
 * below it; the left end is where an increasing upper bound of the integrand falls below the floor, the
 * right end where a linear upper bound does (see {@link GMixtureIntegrand}), so the neglected tails hold at
 * most about e^(−60) of the peak's height. The accuracy asked is relTol, or the integrand's rounding error
 * when that is larger (n of millions: a few 1e-10), and the error returned is at least that. Throws an
 * `internal` OccamError if the quadrature fails.
 */
export function gMixtureLogIntegral(
  mix: GMixingDensity,
  x: number,
  n: number,
  k: number,
  m: number,
  q: number,
  relTol: number,
): GMixtureIntegral {
  const f = new GMixtureIntegrand(mix, x, n, k, m, q);
  const { mode, peak, left, right } = locatePeak(f);
  const width = 1 / Math.sqrt(Math.max(-f.curvature(mode), 1e-300));
  const breaks = peakPanelBreaks(left, right, mode, width);
  // No quadrature beats the integrand's own rounding: ask for at most that accuracy, and report it.
  const floor = f.roundingFloor(peak);
  const result = adaptiveGaussKronrod(
    (u) => Math.exp(f.value(u) - peak),
    breaks,
    Math.max(relTol, floor),
    "mixture of g-priors",
  );
  const integral = result.integral;
  const error = Math.max(result.error, floor * integral);
  if (!(integral > 0 && Number.isFinite(integral))) {
    throw new OccamError(
      "internal",
      `gMixtureLogIntegral: the integral over g evaluated to ${integral} (R² = ${x}, n = ${n}, k = ${k}); please report this.`,
    );
  }
  return {
    logValue: peak + Math.log(integral),
    error: error / integral,
    logGMode: mode,
    evaluations: f.evaluations,
  };
}

/** Where an integrand's mass lies: its highest point found and the interval outside which it is negligible. */
export interface PeakLocation {
  readonly mode: number;
  readonly peak: number;
  readonly left: number;
  readonly right: number;
}

/**
 * The highest point of φ (a local maximum by Newton, then the best of a scan of the interval, so a
 * second mode cannot be missed by more than the scan's spacing) and the interval outside which φ is
 * more than 60 nats below it (see {@link gMixtureLogIntegral}).
 */
export function locatePeak(f: GMixtureIntegrand): PeakLocation {
  let mode = f.mode();
  let peak = f.value(mode);
  let [left, right] = integrationRange(f, Math.min(mode, f.mix.increasingBelow), peak);
  const scan = 48;
  for (let i = 0; i <= scan; i++) {
    const u = left + ((right - left) * i) / scan;
    const v = f.value(u);
    if (v > peak) {
      peak = v;
      mode = u;
    }
  }
  [left, right] = integrationRange(f, Math.min(mode, f.mix.increasingBelow), peak);
  if (!Number.isFinite(peak)) {
    throw new OccamError(
      "internal",
      `mixture of g-priors: no finite peak of the integrand over g (log(1 − R²) = ${f.lc}, k = ${f.k}); please report this.`,
    );
  }
  return { mode, peak, left, right };
}

function integrationRange(f: GMixtureIntegrand, top: number, peak: number): [number, number] {
  const floor = peak - TAIL_DROP;
  // Left: leftBound increases up to `top`; walk left until it is below the floor, then bisect.
  let a = top;
  for (let width = 1; f.leftBound(a) > floor; width *= 2) a = top - width;
  let b = top;
  for (let i = 0; i < 100 && b - a > 1e-6; i++) {
    const mid = 0.5 * (a + b);
    if (f.leftBound(mid) > floor) b = mid;
    else a = mid;
  }
  // Right: for u ≥ 0 the integrand is below e^(rightIntercept + rightSlope·u).
  const right = Math.max(0, (f.rightIntercept - floor) / -f.rightSlope, a + 1);
  return [a, right];
}

/** Trapezoids per panel of {@link gShrinkageQuantiles}. */
const QUANTILE_STEPS = 32;

/**
 * The posterior quantiles of the shrinkage factor s = g/(1 + g) of a subset with k columns and R² = x,
 * at probabilities (j + ½)/count for j < count: nodes of equal weight that stand for the posterior of g
 * in a predictive, a mixture over g of Student-t's (see `gPriorsFamily`). The posterior density of
 * u = log g is tabulated on the panels {@link gMixtureLogIntegral} integrates over (its peak's width
 * near the mode, doubling into the tails, 60 nats of tail left out), each cut into 32 trapezoids, and
 * its CDF is interpolated linearly.
 */
export function gShrinkageQuantiles(
  mix: GMixingDensity,
  x: number,
  n: number,
  k: number,
  count: number,
): Float64Array {
  const f = new GMixtureIntegrand(mix, x, n, k, 0, 0);
  const { mode, peak, left, right } = locatePeak(f);
  const width = 1 / Math.sqrt(Math.max(-f.curvature(mode), 1e-300));
  const breaks = peakPanelBreaks(left, right, mode, width);
  const nodes = (breaks.length - 1) * QUANTILE_STEPS + 1;
  const u = new Float64Array(nodes);
  const cdf = new Float64Array(nodes);
  u[0] = breaks[0];
  let previous = Math.exp(f.value(u[0]) - peak);
  for (let p = 0, i = 1; p < breaks.length - 1; p++) {
    for (let j = 1; j <= QUANTILE_STEPS; j++, i++) {
      u[i] = breaks[p] + ((breaks[p + 1] - breaks[p]) * j) / QUANTILE_STEPS;
      const density = Math.exp(f.value(u[i]) - peak);
      cdf[i] = cdf[i - 1] + 0.5 * (previous + density) * (u[i] - u[i - 1]);
      previous = density;
    }
  }
  const total = cdf[nodes - 1];
  const out = new Float64Array(count);
  for (let j = 0, i = 1; j < count; j++) {
    const target = ((j + 0.5) / count) * total;
    while (cdf[i] < target) i++;
    const t = (target - cdf[i - 1]) / (cdf[i] - cdf[i - 1]);
    out[j] = logistic(u[i - 1] + t * (u[i] - u[i - 1]));
  }
  return out;
}
