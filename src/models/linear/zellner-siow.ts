/**
 * The Zellner–Siow mixture of g-priors for linear regression (Liang et al. 2008, JASA 103, 410–423),
 * as R's BayesFactor computes it in `regressionBF`, `lmBF` and `linearReg.R2stat`: the model with k
 * inputs and an intercept, y = α1 + Xβ + ε, ε ~ N(0, σ²I), with p(α, σ²) ∝ 1/σ², β | g, σ² ~
 * N(0, g σ² (XcᵀXc)⁻¹) (Xc: the centred inputs) and g ~ InverseGamma(shape 1/2, scale r²n/2), is
 * compared with the intercept-only model by
 *
 *   BF = ∫₀^∞ (1 + g)^((n−1−k)/2) [1 + g(1 − R²)]^(−(n−1)/2) π(g) dg,
 *   π(g) = (r²n/2)^(1/2) / Γ(1/2) · g^(−3/2) · exp(−r²n / (2g)).
 *
 * BayesFactor's `integrand.regression` uses exactly this prior: `dinvgamma(g, shape = .5, scale =
 * rscaleSqr * N / 2)`; r = 1 is Liang et al.'s original Zellner–Siow prior and BayesFactor's default
 * `rscaleCont = "medium"` is r = √2/4.
 *
 * The integral is computed in log space on u = log g, where the integrand is smooth with a
 * double-exponential left tail and an exponential right tail (rate (k + 1)/2), by globally adaptive
 * Gauss–Kronrod (7–15) quadrature on a finite interval chosen from rigorous bounds on the tails.
 */
import { OccamError } from "../../errors.js";
import { choleskyInPlace, solveLower } from "../../math/linalg.js";
import { checkR2Statistics } from "./g-prior.js";

/** BayesFactor's default prior scale for continuous covariates, `rscaleCont = "medium"`: √2/4. */
export const ZELLNER_SIOW_MEDIUM_SCALE = Math.SQRT2 / 4;

/** Options of {@link zellnerSiowBayesFactor} and {@link zellnerSiowLogBayesFactor}. */
export interface ZellnerSiowOptions {
  /**
   * The prior scale r: g ~ InverseGamma(1/2, r² n / 2). 1 is Liang et al.'s Zellner–Siow prior.
   * @defaultValue √2/4 ≈ 0.3536, BayesFactor's `rscaleCont = "medium"`
   */
  rScale?: number;
  /**
   * Relative accuracy requested of the integral (so roughly the absolute accuracy of log BF).
   * @defaultValue 1e-11
   */
  relTol?: number;
}

/** The result of {@link zellnerSiowBayesFactor}. */
export interface ZellnerSiowResult {
  /** log BF of the k-input model against the intercept-only model, in nats. */
  readonly logBF: number;
  /** Estimated absolute error of logBF (the quadrature's error estimate relative to the integral). */
  readonly error: number;
  /** log g at the integrand's peak (the posterior mode of log g). */
  readonly logGMode: number;
  /** Number of integrand evaluations. */
  readonly evaluations: number;
}

interface Filled {
  rScale: number;
  relTol: number;
}

function fillOptions(options: ZellnerSiowOptions): Filled {
  const rScale = options.rScale ?? ZELLNER_SIOW_MEDIUM_SCALE;
  const relTol = options.relTol ?? 1e-11;
  if (!(Number.isFinite(rScale) && rScale > 0)) {
    throw new OccamError(
      "invalid-argument",
      `zellnerSiowBayesFactor: rScale must be a finite number greater than 0, got ${rScale}; BayesFactor's defaults are √2/4 ("medium"), 1/2 ("wide") and √2/2 ("ultrawide").`,
    );
  }
  if (!(Number.isFinite(relTol) && relTol >= 1e-14 && relTol < 1)) {
    throw new OccamError(
      "invalid-argument",
      `zellnerSiowBayesFactor: relTol must be in [1e-14, 1), got ${relTol}.`,
    );
  }
  return { rScale, relTol };
}

/** log(1 + eˣ) without overflow. */
function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

// Gauss–Kronrod 7–15 nodes and weights on [−1, 1] (QUADPACK qk15, rounded to doubles): Kronrod abscissae xk[0..7]
// (xk[7] = 0), the Gauss points are xk[1], xk[3], xk[5], xk[7].
const XK = [
  0.9914553711208126, 0.9491079123427585, 0.8648644233597691, 0.7415311855993945, 0.5860872354676911,
  0.4058451513773972, 0.20778495500789848, 0,
];
const WK = [
  0.022935322010529224, 0.06309209262997856, 0.10479001032225019, 0.14065325971552592, 0.1690047266392679,
  0.19035057806478542, 0.20443294007529889, 0.20948214108472782,
];
const WG = [0.1294849661688697, 0.27970539148927664, 0.3818300505051189, 0.4179591836734694];

/** The log integrand on u = log g and its derivative, for fixed (R², n, k, r). */
class LogIntegrand {
  readonly a: number; // (n − 1 − k)/2
  readonly b: number; // (n − 1)/2
  readonly logC: number; // log(1 − R²)
  readonly s: number; // r² n / 2, the inverse-gamma scale
  readonly constant: number; // ½ log s − ½ log π
  evaluations = 0;

  constructor(r2: number, n: number, k: number, rScale: number) {
    this.a = 0.5 * (n - 1 - k);
    this.b = 0.5 * (n - 1);
    this.logC = Math.log1p(-r2);
    this.s = (rScale * rScale * n) / 2;
    this.constant = 0.5 * Math.log(this.s) - 0.5 * Math.log(Math.PI);
  }

  /**
   * log of the integrand in u: a·log(1 + g) − b·log(1 + g(1 − R²)) + log π(g) + u, where
   * log π(g) + u = ½ log s − ½ log π − ½u − s e^(−u) (the inverse-gamma density times the Jacobian g).
   */
  value(u: number): number {
    this.evaluations++;
    return (
      this.a * softplus(u) -
      this.b * softplus(u + this.logC) +
      this.constant -
      0.5 * u -
      this.s * Math.exp(-u)
    );
  }

  /** d²/du² of {@link value}: a·σ'(u) − b·σ'(u + log c) − s/g, with σ' = σ(1 − σ) of the logistic σ. */
  secondDerivative(u: number): number {
    const p = logistic(u);
    const q = logistic(u + this.logC);
    return this.a * p * (1 - p) - this.b * q * (1 - q) - this.s * Math.exp(-u);
  }

  /**
   * Every g > 0 where d/du {@link value} = a·g/(1+g) − b·cg/(1+cg) − ½ + s/g vanishes. Multiplied by
   * g(1 + g)(1 + cg) > 0 it is the cubic P(g) = c₃g³ + c₂g² + c₁g + c₀ with c₃ = c(a − b − ½) < 0 and
   * c₀ = s > 0; its positive roots are found by bracketed Newton on the (at most three) intervals
   * where P is monotone.
   */
  stationaryPoints(): number[] {
    const c = Math.exp(this.logC);
    const c3 = c * (this.a - this.b - 0.5);
    const c2 = this.a - this.b * c - 0.5 * (1 + c) + this.s * c;
    const c1 = this.s * (1 + c) - 0.5;
    const c0 = this.s;
    // Cauchy's bound on the roots, and the roots of P' = 3c₃g² + 2c₂g + c₁ that split (0, bound).
    const bound = 1 + Math.max(Math.abs(c2), Math.abs(c1), Math.abs(c0)) / Math.abs(c3);
    const ends = [0];
    const disc = c2 * c2 - 3 * c3 * c1;
    if (disc > 0) {
      const sq = Math.sqrt(disc);
      // Both roots of the quadratic without cancellation: q = −(c₂ + sign(c₂)√disc).
      const qq = -(c2 + (c2 >= 0 ? sq : -sq));
      for (const r of [qq / (3 * c3), c1 / qq]) if (r > 0 && r < bound) ends.push(r);
    }
    ends.push(bound);
    ends.sort((x, y) => x - y);
    const poly = (g: number) => ((c3 * g + c2) * g + c1) * g + c0;
    const slope = (g: number) => (3 * c3 * g + 2 * c2) * g + c1;
    const roots: number[] = [];
    for (let i = 0; i + 1 < ends.length; i++) {
      let lo = ends[i];
      let hi = ends[i + 1];
      let pLo = poly(lo);
      const pHi = poly(hi);
      if (pLo === 0 && lo > 0) roots.push(lo);
      if (!(pLo * pHi < 0)) continue;
      let g = 0.5 * (lo + hi);
      for (let it = 0; it < 200; it++) {
        const pg = poly(g);
        if (pg === 0) break;
        if (pg * pLo > 0) {
          lo = g;
          pLo = pg;
        } else hi = g;
        const next = g - pg / slope(g);
        // Newton inside the bracket, else bisection; stop at machine precision.
        const candidate = next > lo && next < hi ? next : 0.5 * (lo + hi);
        if (Math.abs(candidate - g) <= 1e-15 * g) {
          g = candidate;
          break;
        }
        g = candidate;
      }
      roots.push(g);
    }
    return roots;
  }

  /**
   * An upper bound of {@link value} valid for every u: the likelihood ratio (1+g)^a (1+gc)^(−b) is at
   * most c^(−b) (as (1+g)/(1+gc) ≤ 1/c and a ≤ b), so value(u) ≤ −b log c + prior part.
   */
  leftBound(u: number): number {
    return -this.b * this.logC + this.constant - 0.5 * u - this.s * Math.exp(-u);
  }

  /**
   * For u ≥ 0 (g ≥ 1), log(1+g) ≤ u + log 2 and log(1+gc) ≥ u + log c, so
   * value(u) ≤ rightIntercept − (k + 1)/2 · u, with slope −(b − a) − ½ = −(k + 1)/2.
   */
  get rightIntercept(): number {
    return this.a * Math.LN2 - this.b * this.logC + this.constant;
  }

  get rightSlope(): number {
    return this.b - this.a + 0.5;
  }
}

function logistic(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** How far (in nats) below the peak the integration interval ends: e^(−60) ≈ 1e-26 of the peak. */
const TAIL_DROP = 60;

/**
 * The Zellner–Siow Bayes factor of a linear model with k inputs (plus an intercept) against the
 * intercept-only model, from the coefficient of determination R² of the k-input model and n
 * observations, with g ~ InverseGamma(1/2, r² n/2) as in R's BayesFactor (`regressionBF`, `lmBF`,
 * `linearReg.R2stat`). Throws an `invalid-argument` OccamError for R² outside [0, 1), k > n − 2 or a
 * bad option, and an `internal` one if the quadrature does not reach the requested accuracy.
 *
 * @example
 * zellnerSiowBayesFactor(0.6813, 30, 1).logBF; // ≈ 12.9425, as BayesFactor::linearReg.R2stat(30, 1, 0.6813)$bf
 */
export function zellnerSiowBayesFactor(
  r2: number,
  n: number,
  k: number,
  options: ZellnerSiowOptions = {},
): ZellnerSiowResult {
  checkR2Statistics(r2, n, k, "zellnerSiowBayesFactor");
  const { rScale, relTol } = fillOptions(options);
  const f = new LogIntegrand(r2, n, k, rScale);

  // 1. The highest stationary point of the log integrand. Multiplied by g(1 + g)(1 + cg) > 0, the
  //    stationarity equation is a cubic in g (Liang et al. eq. A.3), so there are one or three
  //    stationary points and all of them are found without scanning.
  let mode = Number.NaN;
  let peak = Number.NEGATIVE_INFINITY;
  for (const g of f.stationaryPoints()) {
    const u = Math.log(g);
    const v = f.value(u);
    if (v > peak) {
      peak = v;
      mode = u;
    }
  }
  if (!Number.isFinite(peak)) {
    throw new OccamError(
      "internal",
      `zellnerSiowBayesFactor: no peak of the integrand over g was found (R² = ${r2}, n = ${n}, k = ${k}); please report this.`,
    );
  }

  // 2. The interval outside which the integrand is below e^(peak − TAIL_DROP), from the bounds.
  const [left, right] = integrationRange(f, peak);

  // 3. Globally adaptive Gauss–Kronrod on [left, right] of exp(f(u) − peak), starting from panels
  //    scaled by the peak's width (from the curvature) and widening geometrically into the tails, so
  //    the long exponential right tail costs a few panels rather than one per unit of u.
  const width = 1 / Math.sqrt(Math.max(-f.secondDerivative(mode), 1e-300));
  const breaks = panelBreaks(left, right, mode, width);
  const { integral, error } = adaptiveGaussKronrod((u) => Math.exp(f.value(u) - peak), breaks, relTol);
  if (!(integral > 0 && Number.isFinite(integral))) {
    throw new OccamError(
      "internal",
      `zellnerSiowBayesFactor: the integral over g evaluated to ${integral} (R² = ${r2}, n = ${n}, k = ${k}); please report this.`,
    );
  }
  return Object.freeze({
    logBF: peak + Math.log(integral),
    error: error / integral,
    logGMode: mode,
    evaluations: f.evaluations,
  });
}

/** log BF of {@link zellnerSiowBayesFactor}: the Zellner–Siow Bayes factor against the intercept-only model. */
export function zellnerSiowLogBayesFactor(
  r2: number,
  n: number,
  k: number,
  options: ZellnerSiowOptions = {},
): number {
  return zellnerSiowBayesFactor(r2, n, k, options).logBF;
}

function integrationRange(f: LogIntegrand, peak: number): [number, number] {
  const floor = peak - TAIL_DROP;
  // Left: leftBound is increasing on (−∞, log 2s); walk left from there until it is below the floor,
  // then bisect. Beyond that point the bound, hence the integrand, is below e^floor and falls
  // double-exponentially.
  const top = Math.log(2 * f.s);
  let a = top;
  let width = 1;
  while (f.leftBound(a) > floor) {
    a = top - width;
    width *= 2;
  }
  let b = top;
  for (let i = 0; i < 100 && b - a > 1e-6; i++) {
    const mid = 0.5 * (a + b);
    if (f.leftBound(mid) > floor) b = mid;
    else a = mid;
  }
  // Right: for u ≥ 0 the integrand is below e^(rightIntercept − (k+1)u/2); the neglected tail is at most
  // e^floor · 2/(k + 1).
  const right = Math.max(0, (f.rightIntercept - floor) / f.rightSlope, a + 1);
  return [a, right];
}

/**
 * Panel ends on [left, right]: mode ± width·{0, 1, 2, 4, 8, …}, doubling into each tail, clipped to the
 * interval, so the peak gets panels of its own width and the tails a few geometrically wider ones.
 */
function panelBreaks(left: number, right: number, mode: number, width: number): number[] {
  const centre = Math.min(Math.max(mode, left), right);
  const below: number[] = [];
  for (let d = width; centre - d > left; d *= 2) below.push(centre - d);
  const above: number[] = [];
  for (let d = width; centre + d < right; d *= 2) above.push(centre + d);
  const breaks = [left, ...below.reverse(), centre, ...above, right];
  return breaks.filter((x, i) => i === 0 || x > breaks[i - 1]);
}

const MAX_PANELS = 4000;
/**
 * Scratch for the panels of {@link adaptiveGaussKronrod}, shared by every call (the code is
 * synchronous): allocating it per call made garbage collection a fifth of the all-subsets time.
 */
const PANELS = {
  lo: new Float64Array(MAX_PANELS),
  hi: new Float64Array(MAX_PANELS),
  val: new Float64Array(MAX_PANELS),
  err: new Float64Array(MAX_PANELS),
  out: new Float64Array(2),
};

/**
 * Globally adaptive Gauss–Kronrod 7–15 integration of a smooth h over the panels between consecutive
 * `breaks` (increasing), bisecting the panel with the largest error estimate |K15 − G7| until the summed
 * estimate is below relTol · |integral|.
 */
function adaptiveGaussKronrod(
  h: (x: number) => number,
  breaks: readonly number[],
  relTol: number,
): { integral: number; error: number } {
  const { lo, hi, val, err, out } = PANELS;
  let count = 0;
  for (let i = 0; i + 1 < breaks.length; i++) {
    const x0 = breaks[i];
    const x1 = breaks[i + 1];
    gk15(h, x0, x1, out);
    lo[count] = x0;
    hi[count] = x1;
    val[count] = out[0];
    err[count] = out[1];
    count++;
  }
  for (;;) {
    let integral = 0;
    let error = 0;
    let worst = 0;
    for (let i = 0; i < count; i++) {
      integral += val[i];
      error += err[i];
      if (err[i] > err[worst]) worst = i;
    }
    if (error <= relTol * Math.abs(integral)) return { integral, error };
    if (count + 1 >= MAX_PANELS || !Number.isFinite(integral)) {
      throw new OccamError(
        "internal",
        `zellnerSiowBayesFactor: the quadrature did not reach relative accuracy ${relTol} (estimate ${integral}, error ${error}); loosen relTol or report this.`,
      );
    }
    const mid = 0.5 * (lo[worst] + hi[worst]);
    const end = hi[worst];
    gk15(h, lo[worst], mid, out);
    hi[worst] = mid;
    val[worst] = out[0];
    err[worst] = out[1];
    gk15(h, mid, end, out);
    lo[count] = mid;
    hi[count] = end;
    val[count] = out[0];
    err[count] = out[1];
    count++;
  }
}

/** One Gauss–Kronrod 7–15 panel: out[0] = the Kronrod estimate, out[1] = |Kronrod − Gauss|. */
function gk15(h: (x: number) => number, a: number, b: number, out: Float64Array): void {
  const centre = 0.5 * (a + b);
  const half = 0.5 * (b - a);
  const fc = h(centre);
  let kronrod = WK[7] * fc;
  let gauss = WG[3] * fc;
  for (let j = 0; j < 7; j++) {
    const dx = half * XK[j];
    const sum = h(centre - dx) + h(centre + dx);
    kronrod += WK[j] * sum;
    if (j % 2 === 1) gauss += WG[(j - 1) / 2] * sum;
  }
  out[0] = kronrod * half;
  out[1] = Math.abs((kronrod - gauss) * half);
}

/**
 * The coefficient of determination R² of the least-squares regression of y on the columns `columns`
 * of the n × p row-major X plus an intercept: R² = b̃ᵀ(X̃ᵀX̃)⁻¹b̃ / ỹᵀỹ with X̃, ỹ centred and b̃ = X̃ᵀỹ,
 * via the Cholesky factor of the centred cross-product matrix. An empty `columns` gives 0.
 * Throws `invalid-argument` for bad indices, `invalid-data` for a constant y, and
 * `not-positive-definite` (naming the columns) when the chosen columns are collinear.
 */
export function rSquared(
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
  columns: ArrayLike<number>,
): number {
  if (!(Number.isInteger(n) && n >= 2 && Number.isInteger(p) && p >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `rSquared: need integers n ≥ 2 and p ≥ 0, got n = ${n}, p = ${p}.`,
    );
  }
  if (X.length !== n * p || y.length !== n) {
    throw new OccamError(
      "dimension-mismatch",
      `rSquared: X has length ${X.length} and y length ${y.length}; expected n·p = ${n * p} and n = ${n}.`,
    );
  }
  const k = columns.length;
  for (let j = 0; j < k; j++) {
    const c = columns[j];
    if (!(Number.isInteger(c) && c >= 0 && c < p)) {
      throw new OccamError(
        "invalid-argument",
        `rSquared: column index ${c} is not an integer in [0, ${p - 1}].`,
      );
    }
    for (let l = 0; l < j; l++) {
      if (columns[l] === c) {
        throw new OccamError(
          "invalid-argument",
          `rSquared: column index ${c} is listed twice; list each column once.`,
        );
      }
    }
  }
  if (k > n - 2) {
    throw new OccamError(
      "invalid-argument",
      `rSquared: ${k} columns need at least ${k + 2} observations, got n = ${n}.`,
    );
  }
  let yMean = 0;
  for (let i = 0; i < n; i++) yMean += y[i];
  yMean /= n;
  let tss = 0;
  for (let i = 0; i < n; i++) tss += (y[i] - yMean) ** 2;
  if (!(tss > 0)) {
    throw new OccamError(
      "invalid-data",
      "rSquared: y is constant, so R² is undefined; check the target column.",
    );
  }
  if (k === 0) return 0;
  const means = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    let m = 0;
    for (let i = 0; i < n; i++) m += X[i * p + columns[j]];
    means[j] = m / n;
  }
  // Centred cross-products (two-pass: centring before multiplying keeps the precision that
  // Σxy − n x̄ȳ would lose for inputs with large means).
  const A = new Float64Array(k * k);
  const bvec = new Float64Array(k);
  const row = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < k; j++) row[j] = X[i * p + columns[j]] - means[j];
    const dy = y[i] - yMean;
    for (let j = 0; j < k; j++) {
      bvec[j] += row[j] * dy;
      for (let l = 0; l <= j; l++) A[j * k + l] += row[j] * row[l];
    }
  }
  try {
    choleskyInPlace(A, k);
  } catch (error) {
    if (error instanceof OccamError && error.code === "not-positive-definite") {
      throw new OccamError(
        "not-positive-definite",
        `rSquared: the columns [${Array.from(columns).join(", ")}] are collinear (with each other or the intercept), so their cross-product matrix is singular; drop one of them.`,
      );
    }
    throw error;
  }
  const z = solveLower(A, k, bvec);
  let ess = 0;
  for (let j = 0; j < k; j++) ess += z[j] * z[j];
  return ess / tss;
}

/** One model of {@link zellnerSiowAllSubsets}. */
export interface SubsetBayesFactor {
  /** The input column indices of the model, increasing. */
  readonly columns: readonly number[];
  /** R² of the model. */
  readonly r2: number;
  /** log BF against the intercept-only model. */
  readonly logBF: number;
}

/**
 * Zellner–Siow log Bayes factors against the intercept-only model for every non-empty subset of the
 * p inputs (as BayesFactor's `regressionBF(..., whichModels = "all")`), ordered by the subset's
 * bit mask (bit j set ⇔ column j included). Throws `invalid-argument` for p > 20.
 */
export function zellnerSiowAllSubsets(
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
  options: ZellnerSiowOptions = {},
): SubsetBayesFactor[] {
  if (!(Number.isInteger(p) && p >= 1 && p <= 20)) {
    throw new OccamError(
      "invalid-argument",
      `zellnerSiowAllSubsets: p must be an integer in [1, 20] (2^p − 1 models), got ${p}.`,
    );
  }
  const results: SubsetBayesFactor[] = [];
  for (let mask = 1; mask < 1 << p; mask++) {
    const columns: number[] = [];
    for (let j = 0; j < p; j++) if (mask & (1 << j)) columns.push(j);
    const r2 = rSquared(X, y, n, p, columns);
    const logBF = zellnerSiowLogBayesFactor(r2, n, columns.length, options);
    results.push(Object.freeze({ columns: Object.freeze(columns), r2, logBF }));
  }
  return results;
}
