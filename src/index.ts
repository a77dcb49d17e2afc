/**
 * occam: Bayesian model comparison. This module is the public API: what a user calls, and the types
 * of those calls' options and results. Everything else (the tempering engine's parts, the nested
 * sampler's pieces, diagnostics' internals, the model families' maths, numeric kernels) is internal
 * and may change without notice; test/index.test.ts lists the names exported here, so that
 * adding or removing one is a deliberate change.
 *
 * The options and results of calls whose types are not exported are available as
 * `Parameters<typeof f>[1]` and `ReturnType<typeof f>`. An estimator's own settings are also
 * `EvidenceMethodSettings[method]`, and its result is an `EvidenceResult`, whose `diagnostics` are
 * typed once `method` is narrowed.
 * @packageDocumentation
 */

// ---- Models: the contract every method takes, defining one, and its tempered log density.

export { Draws } from "./model/draws.js";
export {
  type BayesModel,
  type DefineModelOptions,
  defineModel,
  type LogDensity,
  tempered,
} from "./model/model.js";

// ---- Evidence: one call, the cross-check of several estimators, each estimator by name (its options
// are `EvidenceMethodSettings[method]` with `seed`, `rng` and `draws`), the ladders the tempered
// methods take, and the posterior draws the draw-based methods use.

export { annealedImportanceSampling } from "./evidence/annealed-importance-sampling.js";
export { bridgeSampling } from "./evidence/bridge-sampling.js";
export { chaining } from "./evidence/chaining.js";
export {
  type CompareEstimatorsOptions,
  CROSS_CHECK_SETTINGS,
  compareEstimators,
  DEFAULT_EVIDENCE_METHODS,
  type EstimatorComparison,
  FALLBACK_EVIDENCE_METHODS,
} from "./evidence/compare.js";
export { crossValidatedEvidence, type SubsettableModel } from "./evidence/cross-validated.js";
export type { PosteriorDrawsInput } from "./evidence/draws-input.js";
export { entropyEvidence } from "./evidence/entropy.js";
export {
  type EstimateEvidenceOptions,
  EVIDENCE_METHODS,
  type EvidenceMethod,
  type EvidenceMethodSettings,
  type EvidenceResult,
  estimateEvidence,
} from "./evidence/estimate.js";
export { harmonicMean } from "./evidence/harmonic-mean.js";
export { importanceSampling } from "./evidence/importance-sampling.js";
export { laplace } from "./evidence/laplace.js";
export { nestedSampling } from "./evidence/nested/nested-sampling.js";
export { pathSampling } from "./evidence/path-sampling.js";
export { samplePosterior } from "./evidence/posterior-sampling.js";
export { priorMonteCarlo } from "./evidence/prior-monte-carlo.js";
export { steppingStone } from "./evidence/stepping-stone.js";
export { temperedSmc } from "./evidence/tempered-smc.js";
export { powerLadder } from "./evidence/tempering/schedule.js";
export { transitionalMcmc } from "./evidence/transitional-mcmc.js";
export { compareEstimatorsInParallel } from "./parallel/evidence.js";

// ---- Comparing models: evidences to posterior probabilities and Bayes factors, Bayesian model
// averaging, and the comparisons of input subsets that `occam compare` runs (linear, and with
// `--family`, generalised linear models).

export {
  type CompareLinearInParallelOptions,
  compareLinearModelsInParallel,
} from "./parallel/compare.js";
export type { ParallelOptions } from "./parallel/run.js";
export { modelAverage } from "./selection/average.js";
export {
  type CompareModelsOptions,
  compareModels,
  type ModelComparison,
  type ModelPrior,
} from "./selection/compare.js";
export { type CompareGlmOptions, compareGlms, type GlmComparison, type GlmPrior } from "./selection/glm.js";
export {
  type CompareLinearOptions,
  compareLinearModels,
  type LinearComparison,
  type LinearModelRow,
  type LinearPrior,
} from "./selection/linear.js";

// ---- Model families: linear and generalised linear models, classifier families (compared by the
// chain-rule evidence of the labels given the inputs), Sykacek's mixture classifier, Bayesian neural
// networks, and the hard-problem suite the estimators are calibrated on.

export {
  buildClassifier,
  type ClassifierFamilyName,
  type ClassifierModel,
  classifierTable,
  encodeClassifierTable,
} from "./models/classifiers/index.js";
export type { StudentTPredictive } from "./models/family.js";
export { glmEvidence } from "./models/glm/evidence.js";
export { type GlmOutcome, glmOutcome } from "./models/glm/family.js";
export { glmGPriorEvidence } from "./models/glm/g-prior.js";
export {
  HARD_PROBLEM_NAMES,
  type HardProblem,
  type HardProblemName,
  hardProblem,
} from "./models/hard-problems/index.js";
export { independentPrecisionRegression, nigRegression } from "./models/linear/index.js";
export {
  type ClassificationData,
  fitMixtureClassifier,
  type MixtureClassifierFit,
  type MixtureClassifierOptions,
} from "./models/mixture-classifier/index.js";
export { type BayesianMlp, bayesianMlp } from "./models/mlp/bayesian.js";
export type { MlpData } from "./models/mlp/data.js";
export { type BayesianMlpFit, type FitBayesianMlpOptions, fitBayesianMlp } from "./models/mlp/fit.js";
export {
  type ClassifierFamilyComparison,
  type CompareClassifierFamiliesOptions,
  compareClassifierFamilies,
} from "./selection/classifier-families.js";

// ---- Sampling: kernels (init + step) built from their parameters, the warm-ups that tune them, the
// integrators HMC takes, running chains, importance sampling.

export { buildGibbsKernel, type GibbsOptions, type GibbsUpdate } from "./samplers/gibbs.js";
export { buildHmcKernel, type HmcOptions, hmcWarmup } from "./samplers/hmc.js";
export { importanceSample, type Proposal } from "./samplers/importance.js";
export { leapfrog, mclachlan, yoshida } from "./samplers/integrators.js";
export type { Kernel } from "./samplers/kernel.js";
export { buildMalaKernel, type MalaOptions, malaWarmup } from "./samplers/mala.js";
export { buildNutsKernel, type NutsOptions, nutsWarmup } from "./samplers/nuts.js";
export {
  buildRandomWalkKernel,
  type RandomWalkOptions,
  randomWalkWarmup,
} from "./samplers/random-walk.js";
export { buildRejectionKernel, type RejectionOptions } from "./samplers/rejection.js";
export { type RunChainOptions, runChain } from "./samplers/run.js";

// ---- Diagnostics of MCMC draws.

export { autocorrelation } from "./diagnostics/autocorrelation.js";
export { effectiveSampleSize, essPerParameter, monteCarloStandardError } from "./diagnostics/ess.js";
export { rhatPerParameter, splitRhat } from "./diagnostics/rhat.js";
export { summarize } from "./diagnostics/summary.js";

// ---- Data: reading tables, model formulas, cross-validation folds.

export {
  type CsvOptions,
  type CsvTable,
  csvColumns,
  type NumericTable,
  type NumericTableOptions,
  numericTable,
  parseCsv,
} from "./data/csv.js";
export { readCsv } from "./data/csv-file.js";
export type { LinearData } from "./data/design.js";
export { holdOut, kFolds } from "./data/folds.js";
export { type Formula, formulaDesign, parseFormula } from "./data/formula.js";

// ---- For writing models: distributions (each naming its parametrisation), log-space arithmetic, the
// seeded random number generator, and the error every check throws.

export { beta } from "./distributions/beta.js";
export { categorical } from "./distributions/categorical.js";
export { dirichlet } from "./distributions/dirichlet.js";
export type {
  ContinuousMultivariateDistribution,
  ContinuousUnivariateDistribution,
  MultivariateDistribution,
  UnivariateDistribution,
} from "./distributions/distribution.js";
export { gamma } from "./distributions/gamma.js";
export { inverseGamma } from "./distributions/inverse-gamma.js";
export { multivariateNormal, multivariateNormalFromCovariance } from "./distributions/multivariate-normal.js";
export { multivariateStudentT } from "./distributions/multivariate-student-t.js";
export { normal } from "./distributions/normal.js";
export { studentT } from "./distributions/student-t.js";
export { uniform } from "./distributions/uniform.js";
export { OccamError, type OccamErrorCode } from "./errors.js";
export { logSumExp } from "./math/logspace.js";
export { createRng, type Rng } from "./random/rng.js";
