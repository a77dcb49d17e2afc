/**
 * The one-dimensional integration and Gaussian-tail helpers the hard problems' references are built
 * from. They run once, when a problem is constructed, so clarity matters more than speed here; the
 * models' own log densities do not use them.
 */

import { OccamError } from "../../errors.js";
import { HALF_LOG_2PI } from "../../math/constants.js";
import { logSumExp } from "../../math/logspace.js";
import { erfc } from "../../math/stdlib.js";

const SQRT2 = Math.SQRT2;

/** A quadrature rule: ∫ f ≈ Σ_i exp(logWeights[i]) f(nodes[i]). */
export interface QuadratureRule {
  readonly nodes: Float64Array;
  /** log of the (positive) weights, so that an integrand carried as a log never leaves log space. */
  readonly logWeights: Float64Array;
}

const legendreCache = new Map<number, { nodes: Float64Array; weights: Float64Array }>();

/**
 * The n-point Gauss–Legendre rule on [−1, 1]: nodes by Newton's method on P_n from the Chebyshev-like
 * guesses cos(π(i − ¼)/(n + ½)), which converge for every n; weights 2 / ((1 − x²) P_n'(x)²).
 */
export function gaussLegendre(n: number): { readonly nodes: Float64Array; readonly weights: Float64Array } {
  if (!(Number.isInteger(n) && n >= 1 && n <= 1000)) {
    throw new OccamError(
      "invalid-argument",
      `gaussLegendre: order must be an integer in [1, 1000], got ${n}.`,
    );
  }
  const cached = legendreCache.get(n);
  if (cached !== undefined) return cached;
  const nodes = new Float64Array(n);
  const weights = new Float64Array(n);
  for (let i = 0; i < Math.ceil(n / 2); i++) {
    let x = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    let dp = 0;
    for (let iter = 0; iter < 100; iter++) {
      // P_n(x) and P_n'(x) by the three-term recurrence.
      let p0 = 1;
      let p1 = x;
      for (let k = 2; k <= n; k++) {
        const p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      // After the loop p1 = P_n and p0 = P_{n−1} (also for n = 1, where the loop does not run).
      dp = (n * (x * p1 - p0)) / (x * x - 1);
      const step = p1 / dp;
      x -= step;
      if (Math.abs(step) < 1e-16) break;
    }
    nodes[i] = -x;
    nodes[n - 1 - i] = x;
    const w = 2 / ((1 - x * x) * dp * dp);
    weights[i] = w;
    weights[n - 1 - i] = w;
  }
  const rule = { nodes, weights };
  legendreCache.set(n, rule);
  return rule;
}

/**
 * Composite Gauss–Legendre over consecutive segments [breaks[s], breaks[s + 1]], each cut into
 * `panels` equal panels of `order` points. Breakpoints go where the integrand has a kink or a steep
 * step, so that every panel integrates a smooth function.
 */
export function compositeGaussLegendre(
  breaks: readonly number[],
  panels: number,
  order: number,
): QuadratureRule {
  if (breaks.length < 2) {
    throw new OccamError("invalid-argument", "compositeGaussLegendre: need at least two breakpoints.");
  }
  for (let s = 0; s + 1 < breaks.length; s++) {
    if (!(breaks[s] < breaks[s + 1] && Number.isFinite(breaks[s]) && Number.isFinite(breaks[s + 1]))) {
      throw new OccamError(
        "invalid-argument",
        `compositeGaussLegendre: breakpoints must be finite and increasing, got ${breaks.join(", ")}.`,
      );
    }
  }
  const { nodes: x, weights: w } = gaussLegendre(order);
  const count = (breaks.length - 1) * panels * order;
  const nodes = new Float64Array(count);
  const logWeights = new Float64Array(count);
  let k = 0;
  for (let s = 0; s + 1 < breaks.length; s++) {
    const width = (breaks[s + 1] - breaks[s]) / panels;
    for (let p = 0; p < panels; p++) {
      const mid = breaks[s] + (p + 0.5) * width;
      const half = 0.5 * width;
      for (let i = 0; i < order; i++) {
        nodes[k] = mid + half * x[i];
        logWeights[k] = Math.log(half * w[i]);
        k++;
      }
    }
  }
  return { nodes, logWeights };
}

/**
 * The trapezoidal rule with step h on [a, a + n h]. For an integrand that is analytic in a strip
 * |Im x| < c around the real axis and negligible at both ends, its error falls like e^{−2πc/h}
 * (Trefethen & Weideman 2014, SIAM Review 56(3)), faster than any fixed-order rule.
 */
export function trapezoid(a: number, h: number, n: number): QuadratureRule {
  const nodes = new Float64Array(n + 1);
  const logWeights = new Float64Array(n + 1);
  for (let i = 0; i <= n; i++) {
    nodes[i] = a + i * h;
    logWeights[i] = Math.log(i === 0 || i === n ? 0.5 * h : h);
  }
  return { nodes, logWeights };
}

/** log ∫ f and the f-weighted mean of g: what an evidence and an information need. */
export interface LogIntegral {
  /** log ∫ f, from the rule. */
  readonly logIntegral: number;
  /** ∫ f g / ∫ f (NaN when no g was given). */
  readonly mean: number;
}

/**
 * log ∫ exp(logF(x)) dx by `rule`, accumulated in log space (so integrands like e^{243} or e^{−800} are
 * handled), and the weighted mean of `g` under the normalised integrand when `g` is given.
 */
export function logIntegrate(
  rule: QuadratureRule,
  logF: (x: number) => number,
  g?: (x: number) => number,
): LogIntegral {
  const n = rule.nodes.length;
  const terms = new Float64Array(n);
  for (let i = 0; i < n; i++) terms[i] = rule.logWeights[i] + logF(rule.nodes[i]);
  const logIntegral = logSumExp(terms);
  if (g === undefined) return { logIntegral, mean: Number.NaN };
  let mean = 0;
  for (let i = 0; i < n; i++) {
    const share = Math.exp(terms[i] - logIntegral);
    if (share > 0) mean += share * g(rule.nodes[i]);
  }
  return { logIntegral, mean };
}

/** The standard normal density φ(z). */
export function normalDensity(z: number): number {
  return Math.exp(-0.5 * z * z - HALF_LOG_2PI);
}

/**
 * log(Φ(b) − Φ(a)) for a < b, the standard normal mass of [a, b], without cancellation: by the
 * upper tails erfc when the interval lies right of 0, the lower tails when it lies left, and
 * log1p(−tails) when it straddles 0 (where the mass is near 1 and its log near 0).
 */
export function logNormalInterval(a: number, b: number): number {
  if (!(a < b)) return Number.NEGATIVE_INFINITY;
  if (a >= 0) return Math.log(0.5 * (erfc(a / SQRT2) - erfc(b / SQRT2)));
  if (b <= 0) return Math.log(0.5 * (erfc(-b / SQRT2) - erfc(-a / SQRT2)));
  return Math.log1p(-0.5 * erfc(-a / SQRT2) - 0.5 * erfc(b / SQRT2));
}

/**
 * E[z²] for z standard normal truncated to [a, b]: 1 + (a φ(a) − b φ(b)) / (Φ(b) − Φ(a)). (With
 * infinite ends the products a φ(a) are taken as 0.)
 */
export function truncatedNormalSecondMoment(a: number, b: number): number {
  const ta = Number.isFinite(a) ? a * normalDensity(a) : 0;
  const tb = Number.isFinite(b) ? b * normalDensity(b) : 0;
  return 1 + (ta - tb) / Math.exp(logNormalInterval(a, b));
}
