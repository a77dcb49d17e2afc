/**
 * occam: Bayesian model comparison. Everything a user imports comes from this module.
 * @packageDocumentation
 */

export { autocorrelation, autocovariance } from "./diagnostics/autocorrelation.js";
export { effectiveSampleSize, essPerParameter, monteCarloStandardError } from "./diagnostics/ess.js";
export { rhatPerParameter, splitRhat } from "./diagnostics/rhat.js";
export { summarize } from "./diagnostics/summary.js";
export { beta } from "./distributions/beta.js";
export { categorical } from "./distributions/categorical.js";
export { dirichlet } from "./distributions/dirichlet.js";
export type * from "./distributions/distribution.js";
export { gamma } from "./distributions/gamma.js";
export { inverseGamma } from "./distributions/inverse-gamma.js";
export { multivariateNormal, multivariateNormalFromCovariance } from "./distributions/multivariate-normal.js";
export { multivariateStudentT } from "./distributions/multivariate-student-t.js";
export { normal } from "./distributions/normal.js";
export { studentT } from "./distributions/student-t.js";
export { uniform } from "./distributions/uniform.js";
export { OccamError, type OccamErrorCode } from "./errors.js";
export * from "./math/linalg.js";
export * from "./math/logspace.js";
export * from "./math/optimize.js";
export { type ChainStats, Draws } from "./model/draws.js";
export {
  type BayesModel,
  type DefineModelOptions,
  defineModel,
  type LogDensity,
  tempered,
} from "./model/model.js";
export { createRng, type Rng } from "./random/rng.js";
export * as variates from "./random/variates.js";
export { type AcceptDecision, metropolisHastings } from "./samplers/accept.js";
export * from "./samplers/adaptation.js";
export * from "./samplers/gaussian-gibbs.js";
export * from "./samplers/gibbs.js";
export * from "./samplers/hmc.js";
export {
  type ImportanceOptions,
  type ImportanceResult,
  importanceSample,
  type Proposal,
} from "./samplers/importance.js";
export * from "./samplers/integrators.js";
export * from "./samplers/kernel.js";
export * from "./samplers/mala.js";
export * from "./samplers/random-walk.js";
export * from "./samplers/rejection.js";
export * from "./samplers/run.js";
