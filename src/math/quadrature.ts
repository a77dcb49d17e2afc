/**
 * Globally adaptive Gauss–Kronrod (7–15) quadrature of a smooth function over a union of panels, as
 * QUADPACK's qag does: the panel with the largest error estimate |K15 − G7| is bisected until the
 * summed estimate is below the requested relative accuracy.
 */
import { OccamError } from "../errors.js";

// Gauss–Kronrod 7–15 nodes and weights on [−1, 1] (QUADPACK qk15, rounded to doubles): Kronrod abscissae
// XK[0..7] (XK[7] = 0); the Gauss points are XK[1], XK[3], XK[5], XK[7].
const XK = [
  0.9914553711208126, 0.9491079123427585, 0.8648644233597691, 0.7415311855993945, 0.5860872354676911,
  0.4058451513773972, 0.20778495500789848, 0,
];
const WK = [
  0.022935322010529224, 0.06309209262997856, 0.10479001032225019, 0.14065325971552592, 0.1690047266392679,
  0.19035057806478542, 0.20443294007529889, 0.20948214108472782,
];
const WG = [0.1294849661688697, 0.27970539148927664, 0.3818300505051189, 0.4179591836734694];

const MAX_PANELS = 4000;
/**
 * Scratch for the panels, shared by every call (the code is synchronous): allocating it per call made
 * garbage collection a fifth of the time of an all-subsets Zellner–Siow run.
 */
const PANELS = {
  lo: new Float64Array(MAX_PANELS),
  hi: new Float64Array(MAX_PANELS),
  val: new Float64Array(MAX_PANELS),
  err: new Float64Array(MAX_PANELS),
  out: new Float64Array(2),
};

/** The result of {@link adaptiveGaussKronrod}. */
export interface QuadratureResult {
  /** The Kronrod estimate of the integral. */
  readonly integral: number;
  /** The summed |K15 − G7| estimates of the panels: an estimate, not a bound, of the absolute error. */
  readonly error: number;
}

/**
 * ∫ h over [breaks[0], breaks[last]], starting from the panels between consecutive `breaks`
 * (increasing) and bisecting the panel with the largest error estimate until the summed estimate is at
 * most relTol·|integral|. Throws an `internal` OccamError naming `where` if 4000 panels do not reach it.
 *
 * @example
 * adaptiveGaussKronrod(Math.exp, [0, 1], 1e-12, "example").integral; // e − 1
 */
export function adaptiveGaussKronrod(
  h: (x: number) => number,
  breaks: readonly number[],
  relTol: number,
  where: string,
): QuadratureResult {
  const { lo, hi, val, err, out } = PANELS;
  let count = 0;
  for (let i = 0; i + 1 < breaks.length; i++) {
    gk15(h, breaks[i], breaks[i + 1], out);
    lo[count] = breaks[i];
    hi[count] = breaks[i + 1];
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
        `${where}: the quadrature did not reach relative accuracy ${relTol} (estimate ${integral}, error ${error}); please report this.`,
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

/** Storage of {@link adaptiveGaussKronrodVector}, grown as needed and reused (the code is synchronous). */
const VECTOR = {
  lo: new Float64Array(0),
  hi: new Float64Array(0),
  err: new Float64Array(0),
  /** The panels' integrals, panel i at i·dim. */
  val: new Float64Array(0),
  f: new Float64Array(0),
  k: new Float64Array(0),
  g: new Float64Array(0),
};

function vectorStorage(dim: number, maxPanels: number): typeof VECTOR {
  const v = VECTOR;
  if (v.lo.length < maxPanels) {
    v.lo = new Float64Array(maxPanels);
    v.hi = new Float64Array(maxPanels);
    v.err = new Float64Array(maxPanels);
  }
  if (v.val.length < maxPanels * dim) v.val = new Float64Array(maxPanels * dim);
  if (v.f.length < dim) {
    v.f = new Float64Array(dim);
    v.k = new Float64Array(dim);
    v.g = new Float64Array(dim);
  }
  return v;
}

/**
 * One Gauss–Kronrod 7–15 panel of `dim` integrands: writes the Kronrod estimates to val[at … at + dim)
 * and returns the weighted error Σ_j weights[j]·|K15_j − G7_j|.
 */
function gk15Vector(
  h: (x: number, out: Float64Array) => void,
  dim: number,
  a: number,
  b: number,
  weights: Float64Array,
  val: Float64Array,
  at: number,
): number {
  const { f, k, g } = VECTOR;
  const centre = 0.5 * (a + b);
  const half = 0.5 * (b - a);
  h(centre, f);
  for (let j = 0; j < dim; j++) {
    k[j] = WK[7] * f[j];
    g[j] = WG[3] * f[j];
  }
  for (let i = 0; i < 7; i++) {
    const dx = half * XK[i];
    const wk = WK[i];
    h(centre - dx, f);
    if (i % 2 === 1) {
      const wg = WG[(i - 1) / 2];
      for (let j = 0; j < dim; j++) {
        k[j] += wk * f[j];
        g[j] += wg * f[j];
      }
      h(centre + dx, f);
      for (let j = 0; j < dim; j++) {
        k[j] += wk * f[j];
        g[j] += wg * f[j];
      }
    } else {
      for (let j = 0; j < dim; j++) k[j] += wk * f[j];
      h(centre + dx, f);
      for (let j = 0; j < dim; j++) k[j] += wk * f[j];
    }
  }
  let e = 0;
  for (let j = 0; j < dim; j++) {
    val[at + j] = k[j] * half;
    e += weights[j] * Math.abs((k[j] - g[j]) * half);
  }
  return e;
}

/**
 * The vector form of {@link adaptiveGaussKronrod}: `h(x, out)` writes `dim` integrands at x, and the
 * panel with the largest weighted error Σ_j weights[j]·|K15_j − G7_j| is bisected until the summed
 * weighted error is at most `tol`. Writes the integrals to `integral` and returns the weighted error.
 * Meant for a few dozen integrands that share their expensive part (a common factor computed once per
 * point). If `maxPanels` panels do not reach `tol`, returns the error reached: the caller decides.
 * Allocates nothing per panel: the panels live in storage shared by every call.
 */
export function adaptiveGaussKronrodVector(
  h: (x: number, out: Float64Array) => void,
  dim: number,
  breaks: readonly number[],
  weights: Float64Array,
  tol: number,
  integral: Float64Array,
  maxPanels = 400,
): number {
  const { lo, hi, err, val } = vectorStorage(dim, Math.max(maxPanels, breaks.length));
  let count = 0;
  for (let i = 0; i + 1 < breaks.length; i++) {
    lo[count] = breaks[i];
    hi[count] = breaks[i + 1];
    err[count] = gk15Vector(h, dim, breaks[i], breaks[i + 1], weights, val, count * dim);
    count++;
  }
  for (;;) {
    let error = 0;
    let worst = 0;
    for (let i = 0; i < count; i++) {
      error += err[i];
      if (err[i] > err[worst]) worst = i;
    }
    if (error <= tol || !Number.isFinite(error) || count >= maxPanels) {
      integral.fill(0, 0, dim);
      for (let i = 0; i < count; i++) for (let j = 0; j < dim; j++) integral[j] += val[i * dim + j];
      return error;
    }
    // The worst panel becomes its left half; its right half is added at the end.
    const a = lo[worst];
    const b = hi[worst];
    const mid = 0.5 * (a + b);
    hi[worst] = mid;
    err[worst] = gk15Vector(h, dim, a, mid, weights, val, worst * dim);
    lo[count] = mid;
    hi[count] = b;
    err[count] = gk15Vector(h, dim, mid, b, weights, val, count * dim);
    count++;
  }
}

/**
 * Panel ends on [left, right] for a peaked integrand: centre ± width·{0, 1, 2, 4, 8, …}, doubling into
 * each tail, clipped to the interval, so the peak gets panels of its own width and the tails a few
 * geometrically wider ones.
 */
export function peakPanelBreaks(left: number, right: number, centre: number, width: number): number[] {
  const c = Math.min(Math.max(centre, left), right);
  const below: number[] = [];
  for (let d = width; c - d > left; d *= 2) below.push(c - d);
  const above: number[] = [];
  for (let d = width; c + d < right; d *= 2) above.push(c + d);
  const breaks = [left, ...below.reverse(), c, ...above, right];
  return breaks.filter((x, i) => i === 0 || x > breaks[i - 1]);
}
