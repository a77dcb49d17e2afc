import { OccamError } from "../errors.js";
import { LOG_2PI } from "../math/constants.js";
import { cholesky, logDetFromCholesky } from "../math/linalg.js";
import {
  type MinimizeOptions,
  type MinimizeResult,
  minimize,
  numericalHessian,
  type Objective,
} from "../math/optimize.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import { isFiniteVector } from "../samplers/accept.js";
import { checkCount, checkModel, type RandomOptions, resolveRng, showPoint } from "./checks.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";

const WHERE = "laplace";
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

/** Why every Laplace result is unreliable as an error bar. */
export const LAPLACE_NOTE =
  "Laplace's method is a deterministic approximation with no error bar: stdErr = 0 because there is no Monte Carlo " +
  "error, not because the estimate is exact. Its error is asymptotic, O(1/n) in log Z for n observations; it is exact " +
  "only for a Gaussian posterior and misses every mode but one. Check it against a sampled estimate.";

/** One run of the mode search. */
export interface LaplaceStart {
  readonly value: number;
  readonly converged: boolean;
  readonly iterations: number;
}

/** Diagnostics of {@link laplace}. */
export interface LaplaceDiagnostics {
  /** The mode, on the model's own scale. */
  readonly mode: readonly number[];
  readonly logPosteriorAtMode: number;
  readonly logDetNegHessian: number;
  readonly hessian: "numerical (gradients)" | "numerical (values)" | "user";
  readonly modeGiven: boolean;
  readonly converged: boolean;
  readonly optimizerMessage: string;
  /** Each start of the mode search: −(log p + log L) where it ended. */
  readonly starts: readonly LaplaceStart[];
}

/** The result of {@link laplace}. */
export type LaplaceResult = EvidenceEstimate<"laplace", LaplaceDiagnostics>;

/**
 * Evidence by Laplace's method (seed 002 option 1, the asymptotic approximation):
 * log Z ≈ log p(θ*) + log L(θ*) + (d/2) log 2π − ½ log det(−H), where θ* maximises log p + log L and
 * H is the Hessian there.
 *
 * The mode is found by L-BFGS from `starts` prior draws (model gradients when both `gradLogPrior`
 * and `gradLogLikelihood` exist, central differences otherwise), keeping the best; the Hessian by
 * central differences or the `hessian` function. A model with `bounds` is approximated on its
 * unbounded scale (unless a `hessian` function is given, which works on the model's own scale), where
 * a mode cannot sit on a wall. `stdErr` is 0: the error is the approximation's (asymptotic, not
 * statistical), so every result is marked unreliable — a first look, to be checked by a sampled
 * estimate. When the starts end at modes of different height, the warnings say so.
 *
 * Throws `not-positive-definite` when −H is not positive definite (the point is not a maximum),
 * `non-finite` for NaN or +Infinity log densities, and `invalid-argument` when no start has a finite
 * log density.
 */
export function laplace(given: BayesModel, options: LaplaceOptions = {}): LaplaceResult {
  const start = performance.now();
  checkModel(given, WHERE);
  const view = unbounded(given, WHERE);
  // A user's Hessian is on the model's own scale: then so is the whole approximation.
  const onOwnScale = typeof options.hessian === "function" || view.identity;
  const model = onOwnScale ? given : view.model;
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
  const objectives = laplaceObjectives(model);
  const { negLogPost, objective, hasGradients } = objectives;

  let mode: Float64Array;
  let best: MinimizeResult | undefined;
  let runs: LaplaceStart[] = [];
  if (options.mode !== undefined) {
    const givenMode = options.mode;
    if (!(givenMode instanceof Float64Array) || givenMode.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${WHERE}: mode must be a Float64Array of length ${d} (model.dim).`,
      );
    }
    for (let j = 0; j < d; j++) {
      if (!Number.isFinite(givenMode[j])) {
        throw new OccamError("non-finite", `${WHERE}: mode[${j}] is ${givenMode[j]}.`);
      }
    }
    mode = onOwnScale ? Float64Array.from(givenMode) : view.toUnbounded(givenMode);
  } else {
    ({ best, runs } = searchMode(model, objective, starts, options));
    mode = Float64Array.from(best.x);
  }

  const logPost = -negLogPost(mode);
  if (!Number.isFinite(logPost)) {
    throw new OccamError(
      "non-finite",
      `${WHERE}: log p(θ) + log L(θ) is ${logPost} at the mode ${showPoint(mode)}; the mode must be inside the support.`,
    );
  }

  const A = negativeHessian(hessianOption, objectives, mode, d);
  const L = choleskyAtMode(A, d, mode);
  const logDet = logDetFromCholesky(L, d);
  const logZ = logPost + 0.5 * d * LOG_2PI - 0.5 * logDet;
  const converged = best === undefined ? true : best.converged;
  const warnings: string[] = [];
  if (!converged)
    warnings.push(`the mode search did not converge (${best?.message}); the approximation may be poor.`);
  const heights = runs.filter((r) => r.converged).map((r) => r.value);
  if (heights.length > 1 && Math.max(...heights) - Math.min(...heights) > 1) {
    warnings.push(
      `the ${runs.length} starts of the mode search ended at modes whose log posteriors differ by ` +
        `${(Math.max(...heights) - Math.min(...heights)).toFixed(1)} nats: the posterior has several modes, and Laplace's method sees one.`,
    );
  }
  return evidenceResult({
    method: "laplace",
    logZ,
    stdErr: 0,
    nLikelihoodEvals: objectives.evaluations(),
    seconds: secondsSince(start),
    unreliable: [LAPLACE_NOTE],
    warnings,
    diagnostics: {
      mode: Array.from(onOwnScale ? mode : view.toBounded(mode)),
      logPosteriorAtMode: logPost,
      logDetNegHessian: logDet,
      hessian:
        hessianOption === "numerical"
          ? hasGradients
            ? "numerical (gradients)"
            : "numerical (values)"
          : "user",
      modeGiven: options.mode !== undefined,
      converged,
      optimizerMessage: best?.message ?? "mode given",
      starts: runs,
    },
  });
}

/** What the mode search and the Hessian minimise: −(log p + log L), its gradient, and a count of likelihood calls. */
interface LaplaceObjectives {
  /** −(log p + log L), +Infinity outside the support (the minimiser then shortens its step). */
  readonly negLogPost: (x: Float64Array) => number;
  /** −(log p + log L) with its gradient, the model's or by central differences. */
  readonly objective: Objective;
  /** Whether the model has both gradients (and `objective` uses them). */
  readonly hasGradients: boolean;
  /** Likelihood evaluations made so far. */
  evaluations(): number;
}

/**
 * The objectives of the mode search: −(log p + log L) and, with its gradient, the model's when it has
 * `gradLogPrior` and `gradLogLikelihood`, central differences (one-sided at the support's edge)
 * otherwise. Throws `non-finite` for a NaN or +Infinity log density.
 */
function laplaceObjectives(model: BayesModel): LaplaceObjectives {
  const d = model.dim;
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
  return { negLogPost, objective, hasGradients, evaluations: () => evals };
}

/**
 * The mode search: L-BFGS from prior draws until `starts` runs have been made (a draw where the
 * objective or its gradient is not finite is passed over, at most 10·starts draws), keeping the best.
 * Throws an `OccamError` when the model cannot sample its prior or no draw can start.
 */
function searchMode(
  model: BayesModel,
  objective: Objective,
  starts: number,
  options: LaplaceOptions,
): { best: MinimizeResult; runs: LaplaceStart[] } {
  const d = model.dim;
  let best: MinimizeResult | undefined;
  const runs: LaplaceStart[] = [];
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
    // A draw where the log density or its gradient is not finite (a model that overflows far out,
    // where prior draws may land) cannot start L-BFGS: the next draw is tried.
    if (!(Number.isFinite(objective(x0, grad)) && isFiniteVector(grad))) continue;
    const run = minimize(objective, x0, options.optimizer);
    runs.push({ value: run.value, converged: run.converged, iterations: run.iterations });
    if (best === undefined || run.value < best.value) best = run;
  }
  if (best === undefined) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: none of ${attempts} prior draws has a finite log prior + log likelihood and gradient, so the mode search ` +
        "cannot start; give a starting mode ({ mode }).",
    );
  }
  return { best, runs };
}

/**
 * A = −H at the mode, the Hessian of −(log p + log L): by central differences of the gradient (or of
 * the value, for a model without gradients), or the negative of the user's Hessian, checked.
 */
function negativeHessian(
  hessianOption: "numerical" | ((theta: Float64Array) => Float64Array),
  { negLogPost, objective, hasGradients }: LaplaceObjectives,
  mode: Float64Array,
  d: number,
): Float64Array {
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
  return A;
}

/** The Cholesky factor of −H at the mode; throws `not-positive-definite`, saying why, when it has none. */
function choleskyAtMode(A: Float64Array, d: number, mode: Float64Array): Float64Array {
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
  return L;
}
