/**
 * occam: Bayesian model comparison. Everything a user imports comes from this module.
 * @packageDocumentation
 */

export * from "./data/csv.js";
export { holdOut, kFolds } from "./data/folds.js";
export { eversonData } from "./data/generators/everson.js";
export { linearRegressionData } from "./data/generators/linear.js";
export { robotArm, robotArmData } from "./data/generators/robot-arm.js";
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
export {
  type AnnealedImportanceSamplingOptions,
  annealedImportanceSampling,
} from "./evidence/annealed-importance-sampling.js";
export { type BridgeSamplingOptions, bridgeSampling } from "./evidence/bridge-sampling.js";
export { type ChainingOptions, chaining } from "./evidence/chaining.js";
export {
  type CompareEstimatorsOptions,
  compareEstimators,
  type EstimatePair,
  type EstimatorComparison,
} from "./evidence/compare.js";
export {
  type CrossValidatedEvidenceOptions,
  type CrossValidationForm,
  crossValidatedEvidence,
  isSubsettable,
  type SubsettableModel,
} from "./evidence/cross-validated.js";
export { type EntropyEvidenceOptions, entropyEvidence } from "./evidence/entropy.js";
export {
  type EstimateEvidenceOptions,
  EVIDENCE_METHODS,
  type EvidenceMethod,
  type EvidenceMethodSettings,
  type EvidenceResult,
  estimateEvidence,
  type MethodDiagnostics,
} from "./evidence/estimate.js";
export { type HarmonicMeanOptions, harmonicMean } from "./evidence/harmonic-mean.js";
export {
  type ImportanceProposal,
  type ImportanceSamplingOptions,
  importanceSampling,
} from "./evidence/importance-sampling.js";
export { type LaplaceOptions, laplace } from "./evidence/laplace.js";
export { type PathSamplingOptions, pathSampling } from "./evidence/path-sampling.js";
export {
  type PosteriorSample,
  type PosteriorSamplingOptions,
  samplePosterior,
} from "./evidence/posterior-sampling.js";
export { type PriorMonteCarloOptions, priorMonteCarlo } from "./evidence/prior-monte-carlo.js";
export type { EvidenceEstimate, PosteriorDrawsInput } from "./evidence/result.js";
export { type SteppingStoneOptions, steppingStone } from "./evidence/stepping-stone.js";
export { type TemperedSmcOptions, temperedSmc } from "./evidence/tempered-smc.js";
export {
  type PowerPosteriorKernelChoice,
  type PowerPosteriorOptions,
  samplePowerPosteriors,
} from "./evidence/tempering/power-posterior.js";
export * from "./evidence/tempering/schedule.js";
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
export { type GaussianMeanModel, gaussianMeanModel } from "./models/gaussian-mean/index.js";
export {
  fitLinearMl,
  gPriorLogBayesFactor,
  type IndependentPrecisionModel,
  type IndependentPrecisionOptions,
  independentPrecisionRegression,
  type LinearMlFit,
  ML_CRITERIA,
  type MlCriterion,
  type NigRegressionModel,
  type NigRegressionOptions,
  nigRegression,
  rSquared,
  scoreMlSubsets,
  selectMl,
  ZELLNER_SIOW_MEDIUM_SCALE,
  zellnerSiowAllSubsets,
  zellnerSiowBayesFactor,
  zellnerSiowLogBayesFactor,
} from "./models/linear/index.js";
export { type Mixture2dModel, mixture2dModel } from "./models/mixture-2d/index.js";
export * from "./models/mixture-classifier/index.js";
export * from "./models/mlp/index.js";
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
export * from "./samplers/mixture.js";
export * from "./samplers/random-walk.js";
export * from "./samplers/rejection.js";
export * from "./samplers/run.js";
export * from "./selection/average.js";
export * from "./selection/compare.js";
export {
  type CompareLinearOptions,
  compareLinearModels,
  LINEAR_ESTIMATORS,
  LINEAR_PRIORS,
  type LinearComparison,
  type LinearEstimator,
  type LinearModelRow,
  type LinearPrior,
} from "./selection/linear.js";
export * from "./selection/subsets.js";
