/**
 * The maximum of a smooth function of a few variables by Newton's method on finite differences, for
 * densities whose derivatives would cost more to write than 2d² + 2d evaluations per step (the scales
 * of a model's random terms, say).
 */
import { OccamError } from "../errors.js";
import { cholesky, choleskyInPlace, choleskySolve } from "./linalg.js";
import { numericalHessian } from "./optimize.js";

/** The most Newton steps {@link maximizeByNewton} takes. */
const MAX_NEWTON_STEPS = 100;
/** Step of the finite differences (the variables are on log and atanh scales, of order 1). */
const DIFFERENCE_STEP = 1e-3;
/** The longest step, in the variables' units: far from the maximum the quadratic model is poor. */
const MAX_STEP = 2;

/**
 * The maximum of f from `start`: Newton steps on central differences, damped where −∇²f is not positive
 * definite, at most MAX_STEP long and halved until f rises. Returns the maximiser, the Cholesky factor
 * of −∇²f there and f there. Throws a `non-finite` OccamError (naming `where`) when f is not finite at
 * `start`, when −∇²f is not positive definite at the end, or after MAX_NEWTON_STEPS steps.
 */
export function maximizeByNewton(
  f: (x: Float64Array) => number,
  start: Float64Array,
  where: string,
): { mode: Float64Array; L: Float64Array; value: number } {
  const d = start.length;
  const x = Float64Array.from(start);
  const trial = new Float64Array(d);
  const gradient = new Float64Array(d);
  const step = new Float64Array(d);
  let value = f(x);
  if (!Number.isFinite(value)) {
    throw new OccamError("non-finite", `${where}: the log density is ${value} at its starting point.`);
  }
  const negative = (point: Float64Array) => -f(point);
  for (let iteration = 0; iteration < MAX_NEWTON_STEPS; iteration++) {
    for (let a = 0; a < d; a++) {
      trial.set(x);
      trial[a] = x[a] + DIFFERENCE_STEP;
      const up = f(trial);
      trial[a] = x[a] - DIFFERENCE_STEP;
      gradient[a] = (up - f(trial)) / (2 * DIFFERENCE_STEP);
    }
    const negHessian = numericalHessian(negative, x, { useGradient: false, relativeStep: DIFFERENCE_STEP });
    choleskySolve(dampedCholesky(negHessian, d), d, gradient, step);
    let decrement = 0;
    for (let a = 0; a < d; a++) decrement += gradient[a] * step[a];
    const length = Math.hypot(...step);
    let scale = length > MAX_STEP ? MAX_STEP / length : 1;
    let next = Number.NEGATIVE_INFINITY;
    if (decrement >= 1e-10) {
      for (let halving = 0; halving < 40; halving++, scale /= 2) {
        for (let a = 0; a < d; a++) trial[a] = x[a] + scale * step[a];
        next = f(trial);
        if (next >= value) break;
      }
    }
    if (!(next >= value)) return { mode: x, L: choleskyOrThrow(negHessian, d, where), value };
    x.set(trial);
    value = next;
  }
  throw new OccamError(
    "non-finite",
    `${where}: Newton's method did not find the maximum in ${MAX_NEWTON_STEPS} steps.`,
  );
}

/** The Cholesky factor of A + λI with the least λ in 0, 10⁻⁶·max|A_ii|, ten times that, … that is positive definite. */
function dampedCholesky(A: Float64Array, d: number): Float64Array {
  let maxDiagonal = 0;
  for (let a = 0; a < d; a++) maxDiagonal = Math.max(maxDiagonal, Math.abs(A[a * d + a]));
  for (let lambda = 0; ; lambda = lambda === 0 ? 1e-6 * Math.max(1, maxDiagonal) : lambda * 10) {
    const damped = Float64Array.from(A);
    for (let a = 0; a < d; a++) damped[a * d + a] += lambda;
    try {
      return choleskyInPlace(damped, d);
    } catch (error) {
      if (!(error instanceof OccamError) || !Number.isFinite(lambda)) throw error;
    }
  }
}

/** −∇²f's Cholesky factor at the maximum, or a clear error where it is not positive definite. */
function choleskyOrThrow(negHessian: Float64Array, d: number, where: string): Float64Array {
  try {
    return cholesky(negHessian, d);
  } catch {
    throw new OccamError(
      "non-finite",
      `${where}: the log density has no proper maximum (its curvature there is not negative definite).`,
    );
  }
}
