import { linearRegressionData } from "../data/generators/linear.js";
import { OccamError } from "../errors.js";
import { EVIDENCE_METHODS, type EvidenceMethod, estimateEvidence } from "../evidence/estimate.js";
import { samplePosterior } from "../evidence/posterior-sampling.js";
import type { BayesModel } from "../model/model.js";
import { gaussianMeanModel } from "../models/gaussian-mean/index.js";
import { nigRegression } from "../models/linear/index.js";
import { mixture2dModel } from "../models/mixture-2d/index.js";
import { createRng } from "../random/rng.js";

/** The problems of `occam reproduce estimators`, each with an exact log Z. */
export type EstimatorProblem =
  | "gaussian-mean-d1"
  | "gaussian-mean-d10"
  | "gaussian-mean-d50"
  | "linear-nig"
  | "mixture-2d";

/** The estimators, by their names in the output. */
export type EstimatorName = EvidenceMethod;

/** One estimator on one problem. `logZ` and `stdErr` are null when the estimator failed (see `error`). */
export interface EstimatorRow {
  problem: EstimatorProblem;
  method: EstimatorName;
  logZ: number | null;
  stdErr: number | null;
  exact: number;
  /** logZ − exact. */
  error: number | null;
  /** error / stdErr; null when the estimator reports no statistical error (Laplace) or failed. */
  z: number | null;
  /** Whether the estimator trusts its own error bar (false when it failed). */
  reliable: boolean;
  /** Why not, when it does not: the estimator's first warning. */
  warning: string | null;
  nLikelihoodEvals: number;
  seconds: number;
  /** Why the estimator gave no number, when it did not. */
  failure?: string;
}

/** The result of `occam reproduce estimators`. */
export interface EstimatorsExperiment {
  experiment: "estimators";
  seed: number;
  quick: boolean;
  results: EstimatorRow[];
}

/** Options of {@link runEstimatorsExperiment}. */
export interface EstimatorsExperimentOptions {
  /** @defaultValue 1 */
  seed?: number;
  /** Fewer draws, particles and temperatures. @defaultValue false */
  quick?: boolean;
  /** Only these problems. @defaultValue all */
  problems?: readonly EstimatorProblem[];
  /** Only these methods. @defaultValue all */
  methods?: readonly EstimatorName[];
  /** Called before each problem and method with what comes next. */
  onProgress?: (step: string) => void;
}

const PROBLEMS: Readonly<Record<EstimatorProblem, (seed: number) => BayesModel>> = {
  "gaussian-mean-d1": (seed) => gaussianMeanModel({ dim: 1, n: 20, seed }),
  "gaussian-mean-d10": (seed) => gaussianMeanModel({ dim: 10, n: 20, seed }),
  "gaussian-mean-d50": (seed) => gaussianMeanModel({ dim: 50, n: 20, seed }),
  // Bayesian linear regression with an intercept and four inputs (two irrelevant), NIG prior; exact
  // log Z by Everson eq. 17 (with the corrected β*).
  "linear-nig": (seed) => {
    const data = linearRegressionData({
      n: 100,
      p: 5,
      weights: [1, 2, -1, 0, 0],
      noiseSd: 0.5,
      intercept: true,
      seed,
    });
    return nigRegression({ X: data.X, y: data.y, n: data.n, p: data.p, v: 10, a: 2, b: 1 });
  },
  // Barber and Bishop's check: an unnormalised mixture of two non-isotropic Gaussians, exact log Z = 3.
  "mixture-2d": () => mixture2dModel(),
};

/**
 * Every evidence estimator on problems whose log Z is exact: a conjugate Gaussian mean in 1, 10 and 50
 * dimensions, Bayesian linear regression under the Normal–Inverse-Gamma prior, and Barber and Bishop's
 * mixture of two non-isotropic Gaussians. Methods that need posterior draws share one set per problem. An estimator that fails
 * on a problem (as prior Monte Carlo can in high dimension) is reported with its reason, not dropped.
 */
export function runEstimatorsExperiment(options: EstimatorsExperimentOptions = {}): EstimatorsExperiment {
  const seed = options.seed ?? 1;
  const quick = options.quick ?? false;
  const problems = options.problems ?? (Object.keys(PROBLEMS) as EstimatorProblem[]);
  const methods = options.methods ?? EVIDENCE_METHODS;
  const results: EstimatorRow[] = [];
  const problemStreams = createRng(seed).split(problems.length);
  problems.forEach((problem, p) => {
    const model = PROBLEMS[problem](seed);
    const exact = model.exactLogEvidence?.();
    if (exact === undefined)
      throw new OccamError("internal", `problem ${problem} has no exact log evidence.`);
    const [posteriorRng, ...methodStreams] = problemStreams[p].split(methods.length + 1);
    const posterior = samplePosterior(model, {
      rng: posteriorRng,
      draws: quick ? 1000 : 2500,
      warmup: quick ? 500 : 1000,
    });
    methods.forEach((method, m) => {
      options.onProgress?.(`${problem}, ${method}`);
      const methodSeed = Math.floor(methodStreams[m].uniform() * 0xffffffff);
      const start = performance.now();
      try {
        const r = estimateEvidence(model, {
          method,
          seed: methodSeed,
          draws: posterior.draws,
          settings: settingsFor(method, quick),
        });
        const error = r.logZ - exact;
        results.push({
          problem,
          method,
          logZ: r.logZ,
          stdErr: r.stdErr,
          exact,
          error,
          z: r.stdErr > 0 && Number.isFinite(r.stdErr) ? error / r.stdErr : null,
          reliable: r.reliable,
          warning: r.reliable ? null : (r.warnings[0] ?? null),
          nLikelihoodEvals: r.nLikelihoodEvals,
          seconds: r.seconds,
        });
      } catch (e) {
        if (!(e instanceof OccamError)) throw e;
        results.push({
          problem,
          method,
          logZ: null,
          stdErr: null,
          exact,
          error: null,
          z: null,
          reliable: false,
          warning: null,
          nLikelihoodEvals: 0,
          seconds: (performance.now() - start) / 1000,
          failure: e.message,
        });
      }
    });
  });
  return { experiment: "estimators", seed, quick, results };
}

/** Smaller runs in quick mode; the estimators' defaults otherwise. */
function settingsFor(method: EstimatorName, quick: boolean): object {
  if (!quick) return {};
  switch (method) {
    case "stepping-stone":
    case "chaining":
    case "path":
    case "smc":
      return { particles: 512 };
    case "ais":
      return { particles: 256 };
    case "nested":
      return { livePoints: 200 };
    default:
      return {};
  }
}
