/**
 * Tempering from a fitted reference instead of the prior (the reference distribution of Fan et al.'s
 * generalised stepping-stone, 2011): a Student-t (or a normal) fitted to an earlier run's posterior
 * stands in for the prior, and the likelihood becomes p(θ) L(θ) / q(θ), so that the tempered
 * path runs from q to the posterior. Z = ∫ q · pL/q dθ is unchanged, and the information to cross is
 * KL(posterior ‖ q), nats where the prior's can be thousands: on an elliptical posterior the run is a
 * single importance sampling step.
 */
import type { ContinuousMultivariateDistribution } from "../../distributions/distribution.js";
import { multivariateNormal } from "../../distributions/multivariate-normal.js";
import { multivariateStudentT } from "../../distributions/multivariate-student-t.js";
import { OccamError } from "../../errors.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { cloudShape, measureCloud } from "./cloud.js";
import type { TemperingRun, TemperingSettings } from "./engine.js";
import type { Precision } from "./precision.js";

/**
 * The Student-t reference's degrees of freedom: tails heavier than a posterior's, so that p L / q stays
 * bounded where the fit is narrow; on the 50-dimensional correlated Gaussian a run of 2048 particles
 * from it still needs only two temperatures.
 */
export const REFERENCE_DOF = 5;

/** The option of the estimators whose further runs may start from a reference: smc, stepping-stone, path, chaining. */
export interface ReferenceRunOptions {
  /**
   * Whether the runs after a first, pilot run from the prior may temper from a Student-t (for `path`
   * and `chaining`'s geometric bridges a normal) fitted to its posterior instead (see
   * `temperingToPrecision`): far fewer temperatures where the posterior is near elliptical; where it
   * is not (separated modes), runs from the prior go on. Not with a fixed `ladder` or the model's own
   * kernel (nor, for `smc`, with `countRunSpread`).
   * @defaultValue true
   */
  referenceRuns?: boolean;
}

/** `options.referenceRuns`, checked, with its default (true). */
export function resolveReferenceRuns(options: ReferenceRunOptions, where: string): boolean {
  const referenceRuns = options.referenceRuns ?? true;
  if (typeof referenceRuns !== "boolean") {
    throw new OccamError(
      "invalid-argument",
      `${where}: referenceRuns must be true or false, got ${String(referenceRuns)}.`,
    );
  }
  return referenceRuns;
}

/**
 * A reference's family. "student-t" (ν = {@link REFERENCE_DOF}) for the estimators that average ratios
 * (pL/q)^Δβ, which its heavy tails keep bounded; "normal" for path sampling, which integrates
 * E_β[log pL/q] over β: from a Student-t, log q spreads at small β as widely as its tails (on the
 * 50-dimensional box-bounded Gaussian the runs from it came out a nat high, ±0.45), from a normal it
 * does not (−149.780 against −149.787, ±0.012 a run).
 */
export type ReferenceFamily = "student-t" | "normal";

/** A fitted reference: a density with its gradient, and draws. */
export type Reference = ContinuousMultivariateDistribution;

/**
 * The reference of `family` with the posterior's mean as location and its covariance as scale
 * matrix, both pooled over the run's last stages (see `PooledPosterior`); from its final cloud (see
 * `measureCloud`) when no stage was moved.
 */
export function fitReference(
  run: Pick<TemperingRun, "cloud" | "logW" | "posterior">,
  family: ReferenceFamily,
): Reference {
  let shape = run.posterior.shape();
  if (shape === undefined) {
    const d = run.cloud.dim;
    shape = cloudShape(d);
    measureCloud(run.cloud, run.logW, shape, new Float64Array(d * d));
  }
  return family === "normal"
    ? multivariateNormal({ mean: shape.mean, choleskyL: shape.cholesky })
    : multivariateStudentT({ dof: REFERENCE_DOF, location: shape.mean, choleskyL: shape.cholesky });
}

/**
 * `model` with `reference` q as its prior and p(θ) L(θ) / q(θ) as its likelihood: the same evidence,
 * reached from q. Gradients where the model has them. One evaluation of its likelihood is one of the
 * model's.
 */
export function referenceModel(model: BayesModel, reference: Reference): BayesModel {
  const d = model.dim;
  const logLikelihood = (theta: Float64Array): number => {
    const logPrior = model.logPrior(theta);
    // Where the prior is zero so is the integrand, whatever the likelihood there.
    if (logPrior === Number.NEGATIVE_INFINITY) return logPrior;
    return logPrior + model.logLikelihood(theta) - reference.logPdf(theta);
  };
  const wrapped: BayesModel = {
    dim: d,
    logPrior: (theta: Float64Array) => reference.logPdf(theta),
    logLikelihood,
    samplePrior: (rng: Rng) => reference.sample(rng),
    ...(model.hmcTargetAccept === undefined ? {} : { hmcTargetAccept: model.hmcTargetAccept }),
  };
  const { gradLogPrior, gradLogLikelihood } = model;
  if (gradLogPrior === undefined || gradLogLikelihood === undefined) return wrapped;
  const priorGrad = new Float64Array(d);
  const likelihoodGrad = new Float64Array(d);
  return {
    ...wrapped,
    gradLogPrior: (theta, grad) => reference.gradLogPdf(theta, grad),
    gradLogLikelihood(theta, grad) {
      const logPrior = gradLogPrior.call(model, theta, priorGrad);
      if (logPrior === Number.NEGATIVE_INFINITY) {
        // As logLikelihood: the model's likelihood is not asked outside the prior's support.
        grad.fill(0);
        return logPrior;
      }
      const logL = gradLogLikelihood.call(model, theta, likelihoodGrad);
      const logQ = reference.gradLogPdf(theta, grad);
      for (let i = 0; i < d; i++) grad[i] = priorGrad[i] + likelihoodGrad[i] - grad[i];
      return logPrior + logL - logQ;
    },
  };
}

/**
 * The first run when the runs after it may start from a reference: a pilot of a quarter of the islands,
 * each as large as a full run's. It gives the reference its fit and the runs from the reference
 * their cross-check; its own precision is not needed, and a full first run was most of the cost (on
 * the 50-dimensional box 5.2 million of `path`'s 5.5 million evaluations). Where the reference's runs
 * are left out, the pilot is pooled with the full runs from the prior: its islands are theirs in size.
 * No pilot (a full first run) when it would have fewer than 4 islands, too few to check each other,
 * or when `maxParticles` leaves no room for two full runs after it.
 */
export function pilot(
  settings: TemperingSettings,
  precision: Precision,
): { particles: number; islands: number } {
  const islands = Math.round(settings.islands / PILOT_SHARE);
  const particles = Math.round((settings.particles * islands) / settings.islands);
  const room = particles + 2 * settings.particles <= precision.maxParticles;
  return islands >= MIN_PILOT_ISLANDS && room ? { particles, islands } : settings;
}

/** A pilot's share of a full run's islands is one in this many. */
const PILOT_SHARE = 4;
/** The fewest islands of a pilot. */
const MIN_PILOT_ISLANDS = 4;
