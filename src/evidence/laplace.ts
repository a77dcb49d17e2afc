import { OccamError } from "../errors.js";
import { cholesky, logDetFromCholesky } from "../math/linalg.js";
import { type MinimizeOptions, type MinimizeResult, minimize, numericalHessian } from "../math/optimize.js";
import type { BayesModel } from "../model/model.js";
import {
  checkCount,
  checkModel,
  type EvidenceResult,
  evidenceResult,
  type RandomOptions,
  resolveRng,
  secondsSince,
  showPoint,
} from "./result.js";

const WHERE = "laplace";
const LOG_TWO_PI = Math.log(2 * Math.PI);
// Central-difference step ε^(1/3): balances truncation error O(h²) against rounding O(ε/h).
const FD_STEP = 2 ** (-52 / 3);

/** Options of {@link laplace}. */
export interface LaplaceOptions extends RandomOptions {
  /**
   * The mode of log p(θ) + log L(θ), when known: the search is skipped and the curvature is taken
   * there.
   */
  mode?: Float64Array;
  /**
   * The Hessian of log p(θ) + log L(θ): "numerical" (central differences of the gradient, or of the
   * value when the model has no gradients), or a function returning it at θ as a row-major d × d
   * matrix (negative definite at a maximum).
   * @defaultValue "numerical"
   */
  hessian?: "numerical" | ((theta: Float64Array) => Float64Array);
  /**
   * Number of prior draws the mode search starts from; the best mode found is kept.
   * @defaultValue 4
   */
  starts?: number;
  /** Options passed to the L-BFGS minimiser (`minimize`). @defaultValue {} */
  optimizer?: MinimizeOptions;
}

/** The note every Laplace result carries in `diagnostics.note`. */
export const LAPLACE_NOTE =
  "Laplace's method is a deterministic approximation: stdErr = 0 because there is no Monte Carlo error, " +
  "not because the estimate is exact. Its error is asymptotic, O(1/n) in log Z for n observations, and " +
  "it is exact only for a Gaussian posterior.";

/**
 * Evidence by Laplace's method (seed 002 option 1, the asymptotic approximation):
 * log Z ≈ log p(θ*) + log L(θ*) + (d/2) log 2π − ½ log det(−H), where θ* maximises log p + log L and
 * H is the Hessian there.
 *
 * The mode is found by L-BFGS from `starts` prior draws (model gradients when both `gradLogPrior`
 * and `gradLogLikelihood` exist, central differences otherwise), keeping the best; the Hessian by
 * central differences or the `hessian` function. `stdErr` is 0: the error is the approximation's
 * (asymptotic, not statistical), as `diagnostics.note` says.
 *
 * Throws `not-positive-definite` when −H is not positive definite (the point is not a maximum),
 * `non-finite` for NaN or +Infinity log densities, and `invalid-argument` when no start has a finite
 * log density.
 */
export function laplace(model: BayesModel, options: LaplaceOptions = {}): EvidenceResult {
  const start = performance.now();
  checkModel(model, WHERE);
  const d = model.dim;
  const starts = options.starts ?? 4;
  checkCount(starts, "starts", WHERE, 1);
  const hessianOption = options.hessian ?? "numerical";
  if (hessianOption !== "numerical" && typeof hessianOption !== "function") {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: hessian must be "numerical" or a function θ ↦ Hessian, got ${String(hessianOption)}.`,
    );
  }
  const { gradLogPrior, gradLogLikelihood } = model;
  const hasGradients = gradLogPrior !== undefined && gradLogLikelihood !== undefined;
  let evals = 0;

  const checkValue = (value: number, what: string, x: Float64Array): void => {
    if (Number.isNaN(value) || value === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${WHERE}: model.${what} is ${value} at ${showPoint(x)} during the mode search; it must be finite or −Infinity.`,
      );
    }
  };

  // −(log p + log L), +Infinity outside the support (the minimiser then shortens its step).
  const negLogPost = (x: Float64Array): number => {
    const lp = model.logPrior(x);
    checkValue(lp, "logPrior", x);
    if (lp === Number.NEGATIVE_INFINITY) return Number.POSITIVE_INFINITY;
    evals++;
    const ll = model.logLikelihood(x);
    checkValue(ll, "logLikelihood", x);
    return ll === Number.NEGATIVE_INFINITY ? Number.POSITIVE_INFINITY : -(lp + ll);
  };

  const scratch = new Float64Array(d);
  const probe = new Float64Array(d);
  const objective =
    gradLogPrior !== undefined && gradLogLikelihood !== undefined
      ? (x: Float64Array, grad: Float64Array): number => {
          const lp = gradLogPrior.call(model, x, grad);
          checkValue(lp, "gradLogPrior", x);
          if (lp === Number.NEGATIVE_INFINITY) return Number.POSITIVE_INFINITY;
          evals++;
          const ll = gradLogLikelihood.call(model, x, scratch);
          checkValue(ll, "gradLogLikelihood", x);
          if (ll === Number.NEGATIVE_INFINITY) return Number.POSITIVE_INFINITY;
          for (let j = 0; j < d; j++) grad[j] = -(grad[j] + scratch[j]);
          return -(lp + ll);
        }
      : (x: Float64Array, grad: Float64Array): number => {
          const f0 = negLogPost(x);
          if (!Number.isFinite(f0)) return f0;
          // Central differences, one-sided where a neighbour falls outside the support.
          probe.set(x);
          for (let j = 0; j < d; j++) {
            const h = x[j] + FD_STEP * Math.max(Math.abs(x[j]), 1) - x[j];
            probe[j] = x[j] + h;
            const fp = negLogPost(probe);
            probe[j] = x[j] - h;
            const fm = negLogPost(probe);
            probe[j] = x[j];
            if (Number.isFinite(fp) && Number.isFinite(fm)) grad[j] = (fp - fm) / (2 * h);
            else if (Number.isFinite(fp)) grad[j] = (fp - f0) / h;
            else if (Number.isFinite(fm)) grad[j] = (f0 - fm) / h;
            else grad[j] = 0;
          }
          return f0;
        };

  let mode: Float64Array;
  let best: MinimizeResult | undefined;
  const runs: { value: number; converged: boolean; iterations: number }[] = [];
  if (options.mode !== undefined) {
    const given = options.mode;
    if (!(given instanceof Float64Array) || given.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${WHERE}: mode must be a Float64Array of length ${d} (model.dim).`,
      );
    }
    for (let j = 0; j < d; j++) {
      if (!Number.isFinite(given[j])) {
        throw new OccamError("non-finite", `${WHERE}: mode[${j}] is ${given[j]}.`);
      }
    }
    mode = Float64Array.from(given);
  } else {
    if (typeof model.samplePrior !== "function") {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: the mode search starts from model.samplePrior draws; give it or a mode.`,
      );
    }
    const rng = resolveRng(options, WHERE);
    const grad = new Float64Array(d);
    let attempts = 0;
    while (runs.length < starts && attempts < 10 * starts) {
      attempts++;
      const x0 = model.samplePrior(rng);
      if (!(x0 instanceof Float64Array) || x0.length !== d) {
        throw new OccamError(
          "dimension-mismatch",
          `${WHERE}: model.samplePrior must return a Float64Array of length ${d} (model.dim).`,
        );
      }
      if (!Number.isFinite(objective(x0, grad))) continue;
      const run = minimize(objective, x0, options.optimizer);
      runs.push({ value: run.value, converged: run.converged, iterations: run.iterations });
      if (best === undefined || run.value < best.value) best = run;
    }
    if (best === undefined) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: none of ${attempts} prior draws has a finite log prior + log likelihood, so the mode search ` +
          "cannot start; give a starting mode ({ mode }).",
      );
    }
    mode = Float64Array.from(best.x);
  }

  const logPost = -negLogPost(mode);
  if (!Number.isFinite(logPost)) {
    throw new OccamError(
      "non-finite",
      `${WHERE}: log p(θ) + log L(θ) is ${logPost} at the mode ${showPoint(mode)}; the mode must be inside the support.`,
    );
  }

  // A = −H, the Hessian of −(log p + log L).
  let A: Float64Array;
  if (hessianOption === "numerical") {
    // Without model gradients, difference the values alone: the finite-difference gradient objective
    // would cost 2d more evaluations at each of the ~2d² points.
    A = hasGradients
      ? numericalHessian(objective, mode, { useGradient: true })
      : numericalHessian((x) => negLogPost(x), mode, { useGradient: false });
  } else {
    const H = hessianOption(Float64Array.from(mode));
    if (!(H instanceof Float64Array) || H.length !== d * d) {
      throw new OccamError(
        "dimension-mismatch",
        `${WHERE}: the hessian function must return a row-major ${d} × ${d} Float64Array (length ${d * d}).`,
      );
    }
    A = new Float64Array(d * d);
    for (let i = 0; i < d * d; i++) {
      if (!Number.isFinite(H[i])) {
        throw new OccamError("non-finite", `${WHERE}: the hessian function returned ${H[i]} at entry ${i}.`);
      }
      A[i] = -H[i];
    }
  }
  let L: Float64Array;
  try {
    L = cholesky(A, d);
  } catch (error) {
    if (error instanceof OccamError && error.code === "not-positive-definite") {
      throw new OccamError(
        "not-positive-definite",
        `${WHERE}: the negative Hessian of log p(θ) + log L(θ) at ${showPoint(mode)} is not positive definite, ` +
          "so the point is not a maximum (a saddle, a flat direction or a minimum): the Laplace approximation " +
          "does not apply. Check the mode search (diagnostics of more starts), the model's identifiability, or " +
          `reparametrise. (${error.message})`,
      );
    }
    throw error;
  }
  const logDet = logDetFromCholesky(L, d);
  const logZ = logPost + 0.5 * d * LOG_TWO_PI - 0.5 * logDet;
  const converged = best === undefined ? true : best.converged;
  const diagnostics: Record<string, unknown> = {
    note: LAPLACE_NOTE,
    mode: Array.from(mode),
    logPosteriorAtMode: logPost,
    logDetNegHessian: logDet,
    hessian:
      hessianOption === "numerical"
        ? hasGradients
          ? "numerical (gradients)"
          : "numerical (values)"
        : "user",
    gradients: hasGradients ? "model" : "finite differences",
    modeGiven: options.mode !== undefined,
    converged,
    optimizerMessage: best?.message ?? "mode given",
    starts: runs,
  };
  if (!converged) {
    diagnostics.warning = `the mode search did not converge (${best?.message}); the approximation may be poor.`;
  }
  return evidenceResult({
    method: "laplace",
    logZ,
    stdErr: 0,
    nLikelihoodEvals: evals,
    seconds: secondsSince(start),
    diagnostics,
  });
}
