import { OccamError } from "../errors.js";

/**
 * Unconstrained minimisation by L-BFGS with a strong-Wolfe line search, and numerical Hessians by
 * central differences — what a Laplace approximation needs: the mode and the curvature there.
 */

/** An objective: returns f(x) and writes ∇f(x) into `grad`. */
export type Objective = (x: Float64Array, grad: Float64Array) => number;

/** Options of {@link minimize}. */
export interface MinimizeOptions {
  /**
   * Stop (converged) when the largest absolute gradient component is at most this.
   * @defaultValue 1e-6
   */
  gradTolerance?: number;
  /**
   * Stop (converged) when an iteration lowers f by at most this fraction of max(|f|, 1): the
   * objective has stopped changing at the precision asked. This locates the minimiser only to about
   * √(2 · functionTolerance · max(|f|, 1) / λ) along a direction of curvature λ; set it to 0 to stop on
   * the gradient alone (for minimisers wanted to full precision).
   * @defaultValue 1e-12
   */
  functionTolerance?: number;
  /**
   * Maximum number of L-BFGS iterations (accepted steps).
   * @defaultValue 1000
   */
  maxIterations?: number;
  /**
   * Maximum number of objective evaluations, line searches included.
   * @defaultValue 20 * maxIterations
   */
  maxEvaluations?: number;
  /**
   * Number of correction pairs kept to approximate the inverse Hessian.
   * @defaultValue 10
   */
  memory?: number;
}

/** What {@link minimize} returns. */
export interface MinimizeResult {
  /** The final point (the minimiser when `converged`). */
  readonly x: Float64Array;
  /** f at `x`. */
  readonly value: number;
  /** ∇f at `x`. */
  readonly gradient: Float64Array;
  /** Accepted steps taken. */
  readonly iterations: number;
  /** Objective (and gradient) evaluations made. */
  readonly evaluations: number;
  /** True when a convergence test (gradient or function change) was met. */
  readonly converged: boolean;
  /** Why the iteration stopped. */
  readonly message: string;
}

interface ResolvedMinimizeOptions {
  gradTolerance: number;
  functionTolerance: number;
  maxIterations: number;
  maxEvaluations: number;
  memory: number;
}

function resolveMinimizeOptions(options: MinimizeOptions): ResolvedMinimizeOptions {
  const gradTolerance = options.gradTolerance ?? 1e-6;
  const functionTolerance = options.functionTolerance ?? 1e-12;
  const maxIterations = options.maxIterations ?? 1000;
  const maxEvaluations = options.maxEvaluations ?? 20 * maxIterations;
  const memory = options.memory ?? 10;
  if (!(gradTolerance >= 0 && Number.isFinite(gradTolerance))) {
    throw new OccamError(
      "invalid-argument",
      `minimize: gradTolerance must be finite and ≥ 0, got ${gradTolerance}.`,
    );
  }
  if (!(functionTolerance >= 0 && Number.isFinite(functionTolerance))) {
    throw new OccamError(
      "invalid-argument",
      `minimize: functionTolerance must be finite and ≥ 0, got ${functionTolerance}.`,
    );
  }
  for (const [name, value] of [
    ["maxIterations", maxIterations],
    ["maxEvaluations", maxEvaluations],
    ["memory", memory],
  ] as const) {
    if (!(Number.isInteger(value) && value >= 1)) {
      throw new OccamError("invalid-argument", `minimize: ${name} must be an integer ≥ 1, got ${value}.`);
    }
  }
  return { gradTolerance, functionTolerance, maxIterations, maxEvaluations, memory };
}

// Wolfe constants of Nocedal & Wright (2006), §3.1: sufficient decrease c1, curvature c2 (quasi-Newton).
const C1 = 1e-4;
const C2 = 0.9;
const MAX_LINE_SEARCH = 40;

function maxAbs(v: Float64Array): number {
  let m = 0;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i]);
    if (a > m) m = a;
  }
  return m;
}

function dotn(a: Float64Array, b: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

function allFinite(v: Float64Array): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
}

/** The minimiser of the cubic through (a, fa, da) and (b, fb, db), or NaN when it has none. */
function cubicMinimizer(a: number, fa: number, da: number, b: number, fb: number, db: number): number {
  const d1 = da + db - (3 * (fa - fb)) / (a - b);
  const disc = d1 * d1 - da * db;
  if (!(disc >= 0)) return Number.NaN;
  const d2 = Math.sign(b - a) * Math.sqrt(disc);
  return b - ((b - a) * (db + d2 - d1)) / (db - da + 2 * d2);
}

/**
 * Minimises f by L-BFGS (Nocedal & Wright 2006, Alg. 7.4 and 7.5) with a line search that enforces
 * the strong Wolfe conditions by bracketing and cubic-interpolation zoom (Alg. 3.5 and 3.6).
 *
 * A trial point where f is +Infinity (outside a support) is treated as a step too long and the
 * step is shortened. Throws `non-finite` when f is NaN or −Infinity anywhere, or f or its
 * gradient is not finite at the starting point.
 *
 * @example
 * const r = minimize((x, g) => { g[0] = 2 * (x[0] - 3); return (x[0] - 3) ** 2; }, new Float64Array([0]));
 * // r.x ≈ [3], r.converged === true
 */
export function minimize(f: Objective, x0: Float64Array, options: MinimizeOptions = {}): MinimizeResult {
  const o = resolveMinimizeOptions(options);
  const n = x0.length;
  if (n < 1) throw new OccamError("invalid-argument", "minimize: x0 must have at least one component.");
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(x0[i])) {
      throw new OccamError("invalid-argument", `minimize: x0[${i}] is ${x0[i]}; the start must be finite.`);
    }
  }
  let x = Float64Array.from(x0);
  let g = new Float64Array(n);
  let xNew = new Float64Array(n);
  let gNew = new Float64Array(n);
  const xTrial = new Float64Array(n);
  const gTrial = new Float64Array(n);
  const d = new Float64Array(n);
  const history = new LbfgsHistory(o.memory, n);
  let evaluations = 0;

  const evaluate = (at: Float64Array, grad: Float64Array): number => {
    evaluations++;
    const v = f(at, grad);
    if (Number.isNaN(v) || v === Number.NEGATIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `minimize: the objective returned ${v} at x = [${Array.from(at).join(", ")}]; ` +
          "it must be finite (or +Infinity outside its support).",
      );
    }
    return v;
  };

  let fx = evaluate(x, g);
  if (!Number.isFinite(fx) || !allFinite(g)) {
    throw new OccamError(
      "non-finite",
      `minimize: the objective or its gradient is not finite at the starting point (f = ${fx}); start inside the support.`,
    );
  }

  const result = (iterations: number, converged: boolean, message: string): MinimizeResult => ({
    x,
    value: fx,
    gradient: g,
    iterations,
    evaluations,
    converged,
    message,
  });

  if (maxAbs(g) <= o.gradTolerance) return result(0, true, "gradient below tolerance at the start");

  // Line-search state: the step returned is always the best point found ("lo"), stored in xNew, gNew.
  let fLo = 0;
  const trial = (alpha: number): { f: number; slope: number } => {
    for (let i = 0; i < n; i++) xTrial[i] = x[i] + alpha * d[i];
    const v = evaluate(xTrial, gTrial);
    if (!Number.isFinite(v)) return { f: v, slope: Number.NaN };
    if (!allFinite(gTrial)) {
      throw new OccamError(
        "non-finite",
        `minimize: the gradient is not finite at x = [${Array.from(xTrial).join(", ")}] where f = ${v}.`,
      );
    }
    return { f: v, slope: dotn(gTrial, d, n) };
  };
  const keep = (v: number): void => {
    fLo = v;
    xNew.set(xTrial);
    gNew.set(gTrial);
  };

  let iterations = 0;
  let fresh = true; // no curvature pairs: use a scaled steepest-descent step
  while (iterations < o.maxIterations) {
    if (evaluations >= o.maxEvaluations) {
      return result(iterations, false, `reached maxEvaluations (${o.maxEvaluations})`);
    }
    history.direction(g, d);
    let slope0 = dotn(g, d, n);
    if (!(slope0 < 0)) {
      // Not a descent direction (a poor curvature history): restart from steepest descent.
      history.stored = 0;
      for (let i = 0; i < n; i++) d[i] = -g[i];
      slope0 = dotn(g, d, n);
      fresh = true;
    }
    const alpha0 = fresh ? Math.min(1, 1 / Math.sqrt(dotn(g, g, n))) : 1;
    const alpha = strongWolfeLineSearch(trial, keep, alpha0, fx, slope0);
    if (alpha === 0) {
      if (history.stored > 0 || !fresh) {
        history.stored = 0;
        fresh = true;
        continue;
      }
      return result(
        iterations,
        false,
        "line search found no decrease along steepest descent: the objective is not smooth at the " +
          "precision asked, or the gradient is wrong",
      );
    }
    if (history.push(x, xNew, g, gNew)) fresh = false;
    const fPrev = fx;
    [x, xNew] = [xNew, x];
    [g, gNew] = [gNew, g];
    fx = fLo;
    iterations++;
    if (maxAbs(g) <= o.gradTolerance) return result(iterations, true, "gradient below tolerance");
    if (
      o.functionTolerance > 0 &&
      fPrev - fx <= o.functionTolerance * Math.max(Math.abs(fPrev), Math.abs(fx), 1)
    ) {
      return result(iterations, true, "relative change of f below functionTolerance");
    }
  }
  return result(iterations, false, `reached maxIterations (${o.maxIterations})`);
}

/**
 * The L-BFGS curvature history: the newest `m` pairs (s, y) = (x_{k+1} − x_k, ∇f_{k+1} − ∇f_k) in a
 * circular buffer with ρ = 1/sᵀy, and the two-loop recursion that applies the inverse-Hessian
 * approximation they define (Nocedal & Wright 2006, Alg. 7.4).
 */
class LbfgsHistory {
  private readonly sHist: Float64Array;
  private readonly yHist: Float64Array;
  private readonly rho: Float64Array;
  private readonly alphaTmp: Float64Array;
  /** Pairs held (at most m); set to 0 to forget them all. */
  stored = 0;
  /** Index of the next slot to write in the circular history. */
  private head = 0;

  constructor(
    private readonly m: number,
    private readonly n: number,
  ) {
    this.sHist = new Float64Array(m * n);
    this.yHist = new Float64Array(m * n);
    this.rho = new Float64Array(m);
    this.alphaTmp = new Float64Array(m);
  }

  /** Two-loop recursion: writes d = −H g with H₀ = (sᵀy / yᵀy) I from the newest pair. */
  direction(g: Float64Array, d: Float64Array): void {
    const { m, n, sHist, yHist, rho, alphaTmp, stored, head } = this;
    for (let i = 0; i < n; i++) d[i] = -g[i];
    for (let k = 0; k < stored; k++) {
      const j = (head - 1 - k + m) % m;
      const a = rho[j] * dotn(sHist.subarray(j * n, j * n + n), d, n);
      alphaTmp[j] = a;
      for (let i = 0; i < n; i++) d[i] -= a * yHist[j * n + i];
    }
    if (stored > 0) {
      const j = (head - 1 + m) % m;
      const yj = yHist.subarray(j * n, j * n + n);
      const gamma = 1 / (rho[j] * dotn(yj, yj, n));
      for (let i = 0; i < n; i++) d[i] *= gamma;
    }
    for (let k = stored - 1; k >= 0; k--) {
      const j = (head - 1 - k + m) % m;
      const b = rho[j] * dotn(yHist.subarray(j * n, j * n + n), d, n);
      const coef = alphaTmp[j] - b;
      for (let i = 0; i < n; i++) d[i] += coef * sHist[j * n + i];
    }
  }

  /**
   * Writes the pair s = xNew − x, y = gNew − g into the next slot and keeps it only when sᵀy > 0 (so
   * the inverse-Hessian approximation stays positive definite); returns whether it was kept.
   */
  push(x: Float64Array, xNew: Float64Array, g: Float64Array, gNew: Float64Array): boolean {
    const { m, n, sHist, yHist, head } = this;
    let sy = 0;
    let yy = 0;
    for (let i = 0; i < n; i++) {
      const si = xNew[i] - x[i];
      const yi = gNew[i] - g[i];
      sHist[head * n + i] = si;
      yHist[head * n + i] = yi;
      sy += si * yi;
      yy += yi * yi;
    }
    if (sy > 1e-12 * yy && yy > 0) {
      this.rho[head] = 1 / sy;
      this.head = (head + 1) % m;
      if (this.stored < m) this.stored++;
      return true;
    }
    return false;
  }
}

/**
 * A line search for the strong Wolfe conditions by bracketing and cubic-interpolation zoom (Nocedal &
 * Wright 2006, Alg. 3.5 and 3.6), from f0 and slope0 at step 0 and a first trial step alpha0.
 * `trial(α)` evaluates f and its slope at step α (f = +∞ outside the support, then a step too long);
 * `keep(f)` records the latest trial as the best point. Returns the accepted step length (> 0) or 0
 * when no step lowered f.
 */
function strongWolfeLineSearch(
  trial: (alpha: number) => { f: number; slope: number },
  keep: (v: number) => void,
  alpha0: number,
  f0: number,
  slope0: number,
): number {
  let aPrev = 0;
  let fPrev = f0;
  let sPrev = slope0;
  let alpha = alpha0;
  let lo = 0;
  let hi = 0;
  let fLoLs = f0;
  let sLo = slope0;
  let fHi = 0;
  let sHi = 0;
  let bracketed = false;
  let evals = 0;
  for (; evals < MAX_LINE_SEARCH; evals++) {
    const t = trial(alpha);
    if (!Number.isFinite(t.f) || t.f > f0 + C1 * alpha * slope0 || (evals > 0 && t.f >= fPrev)) {
      lo = aPrev;
      fLoLs = fPrev;
      sLo = sPrev;
      hi = alpha;
      fHi = t.f;
      sHi = t.slope;
      bracketed = true;
      break;
    }
    if (Math.abs(t.slope) <= -C2 * slope0) {
      keep(t.f);
      return alpha;
    }
    keep(t.f);
    if (t.slope >= 0) {
      lo = alpha;
      fLoLs = t.f;
      sLo = t.slope;
      hi = aPrev;
      fHi = fPrev;
      sHi = sPrev;
      bracketed = true;
      break;
    }
    aPrev = alpha;
    fPrev = t.f;
    sPrev = t.slope;
    alpha *= 2;
  }
  if (!bracketed) return aPrev;
  // Zoom: lo always satisfies sufficient decrease and has the lowest f seen in the bracket.
  for (; evals < MAX_LINE_SEARCH; evals++) {
    const width = hi - lo;
    let a = Number.NaN;
    if (Number.isFinite(fHi) && Number.isFinite(sHi)) a = cubicMinimizer(lo, fLoLs, sLo, hi, fHi, sHi);
    // Safeguard: keep the trial well inside the bracket, else bisect.
    const inner = 0.1 * Math.abs(width);
    const left = Math.min(lo, hi) + inner;
    const right = Math.max(lo, hi) - inner;
    if (!(a >= left && a <= right)) a = lo + 0.5 * width;
    if (Math.abs(width) <= 1e-16 * Math.max(1, Math.abs(lo))) break;
    const t = trial(a);
    if (!Number.isFinite(t.f) || t.f > f0 + C1 * a * slope0 || t.f >= fLoLs) {
      hi = a;
      fHi = t.f;
      sHi = t.slope;
    } else {
      keep(t.f);
      if (Math.abs(t.slope) <= -C2 * slope0) return a;
      if (t.slope * (hi - lo) >= 0) {
        hi = lo;
        fHi = fLoLs;
        sHi = sLo;
      }
      lo = a;
      fLoLs = t.f;
      sLo = t.slope;
    }
  }
  // Strong Wolfe not met within the budget: accept the best decrease found, if any.
  return lo;
}

/** Options of {@link numericalHessian}. */
export interface NumericalHessianOptions {
  /**
   * Difference the gradient that `f` writes (central differences, n pairs of gradient calls). When
   * false, second differences of f alone are used (about 2n² calls) and `grad` may be ignored by `f`.
   * @defaultValue true
   */
  useGradient?: boolean;
  /**
   * Step for coordinate j is relativeStep · max(|x_j|, 1).
   * @defaultValue ε^(1/3) ≈ 6e-6 with gradients, ε^(1/4) ≈ 1.2e-4 without (ε = 2^−52)
   */
  relativeStep?: number;
}

/**
 * The Hessian of f at x by central differences, as a symmetric row-major n × n matrix: of the
 * gradient (column j = (∇f(x + h e_j) − ∇f(x − h e_j)) / 2h, then symmetrised) or, with
 * `useGradient: false`, second differences of f. Exact up to rounding for quadratics. Throws
 * `non-finite` when f or the gradient is not finite at a difference point.
 */
export function numericalHessian(
  f: Objective,
  x: Float64Array,
  options: NumericalHessianOptions = {},
): Float64Array {
  const useGradient = options.useGradient ?? true;
  const relativeStep = options.relativeStep ?? (useGradient ? 2 ** (-52 / 3) : 2 ** (-52 / 4));
  if (!(relativeStep > 0 && Number.isFinite(relativeStep))) {
    throw new OccamError(
      "invalid-argument",
      `numericalHessian: relativeStep must be finite and > 0, got ${relativeStep}.`,
    );
  }
  const n = x.length;
  if (n < 1)
    throw new OccamError("invalid-argument", "numericalHessian: x must have at least one component.");
  const h = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    if (!Number.isFinite(x[j])) {
      throw new OccamError(
        "invalid-argument",
        `numericalHessian: x[${j}] is ${x[j]}; the point must be finite.`,
      );
    }
    // Make x ± h exactly representable so the divisor is the step actually taken.
    const step = relativeStep * Math.max(Math.abs(x[j]), 1);
    h[j] = x[j] + step - x[j];
  }
  const point = Float64Array.from(x);
  const grad = new Float64Array(n);
  const hess = new Float64Array(n * n);

  const value = (where: string): number => {
    grad.fill(Number.NaN);
    const v = f(point, grad);
    if (!Number.isFinite(v)) {
      throw new OccamError(
        "non-finite",
        `numericalHessian: f is ${v} at ${where}; the point must be inside the support.`,
      );
    }
    if (useGradient) {
      for (let i = 0; i < n; i++) {
        if (!Number.isFinite(grad[i])) {
          throw new OccamError(
            "non-finite",
            `numericalHessian: gradient component ${i} is ${grad[i]} at ${where}` +
              (Number.isNaN(grad[i])
                ? " (did f write the gradient? pass useGradient: false if it does not)"
                : "") +
              ".",
          );
        }
      }
    }
    return v;
  };

  if (useGradient) {
    const gPlus = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      point[j] = x[j] + h[j];
      value(`x + h e_${j}`);
      gPlus.set(grad);
      point[j] = x[j] - h[j];
      value(`x − h e_${j}`);
      point[j] = x[j];
      for (let i = 0; i < n; i++) hess[i * n + j] = (gPlus[i] - grad[i]) / (2 * h[j]);
    }
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < i; j++) {
        const s = 0.5 * (hess[i * n + j] + hess[j * n + i]);
        hess[i * n + j] = s;
        hess[j * n + i] = s;
      }
    }
    return hess;
  }

  const f0 = value("x");
  for (let i = 0; i < n; i++) {
    point[i] = x[i] + h[i];
    const fp = value(`x + h e_${i}`);
    point[i] = x[i] - h[i];
    const fm = value(`x − h e_${i}`);
    point[i] = x[i];
    hess[i * n + i] = (fp - 2 * f0 + fm) / (h[i] * h[i]);
    for (let j = 0; j < i; j++) {
      point[i] = x[i] + h[i];
      point[j] = x[j] + h[j];
      const fpp = value(`x + h e_${i} + h e_${j}`);
      point[j] = x[j] - h[j];
      const fpm = value(`x + h e_${i} − h e_${j}`);
      point[i] = x[i] - h[i];
      const fmm = value(`x − h e_${i} − h e_${j}`);
      point[j] = x[j] + h[j];
      const fmp = value(`x − h e_${i} + h e_${j}`);
      point[i] = x[i];
      point[j] = x[j];
      const s = (fpp - fpm - fmp + fmm) / (4 * h[i] * h[j]);
      hess[i * n + j] = s;
      hess[j * n + i] = s;
    }
  }
  return hess;
}
