/**
 * occam: Bayesian model comparison. Everything a user imports comes from this module, each name
 * chosen on purpose: models and how to define one, the evidence estimators and their typed results,
 * the samplers and diagnostics, the model families, the data helpers and the errors. Numeric
 * internals (linear algebra, optimisers, step-size adaptation, the tempering engine's parts) are not
 * exported.
 * @packageDocumentation
 */

export type { TypedColumn } from "./data/columns.js";
// ---- Data: reading tables, splitting them, and the seeds' generators.
export {
  type CsvColumns,
  type CsvOptions,
  type CsvTable,
  csvColumns,
  type NumericTable,
  type NumericTableOptions,
  numericTable,
  parseCsv,
  readCsv,
  readCsvColumns,
  type Standardized,
  standardize,
} from "./data/csv.js";
export {
  columnTerms,
  type DesignTerm,
  type FactorSummary,
  type LinearData,
  type LinearDesign,
  numericDesign,
} from "./data/design.js";
export { holdOut, kFolds } from "./data/folds.js";
export { type Formula, formulaDesign, parseFormula } from "./data/formula.js";
export { eversonData } from "./data/generators/everson.js";
export { linearRegressionData } from "./data/generators/linear.js";
export { robotArm, robotArmData } from "./data/generators/robot-arm.js";

// ---- Diagnostics of MCMC draws.
export { autocorrelation, autocovariance } from "./diagnostics/autocorrelation.js";
export { effectiveSampleSize, essPerParameter, monteCarloStandardError } from "./diagnostics/ess.js";
export { rhatPerParameter, splitRhat } from "./diagnostics/rhat.js";
export { summarize } from "./diagnostics/summary.js";

// ---- Distributions, each naming its parametrisation.
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

// ---- Errors.
export { OccamError, type OccamErrorCode } from "./errors.js";

// ---- Evidence: one call, the cross-check, every estimator, and their typed results.
export {
  type AisDiagnostics,
  type AisResult,
  type AnnealedImportanceSamplingOptions,
  annealedImportanceSampling,
} from "./evidence/annealed-importance-sampling.js";
export {
  type BridgeDiagnostics,
  type BridgeSamplingOptions,
  type BridgeSamplingResult,
  bridgeSampling,
} from "./evidence/bridge-sampling.js";
export {
  type ChainingDiagnostics,
  type ChainingOptions,
  type ChainingResult,
  chaining,
  type RatioEnds,
} from "./evidence/chaining.js";
export {
  type CompareEstimatorsOptions,
  CROSS_CHECK_SETTINGS,
  compareEstimators,
  DEFAULT_EVIDENCE_METHODS,
  type EstimatePair,
  type EstimatorComparison,
  type EstimatorFailure,
  type EvidenceSettingsByMethod,
} from "./evidence/compare.js";
export {
  type CrossValidatedDiagnostics,
  type CrossValidatedEvidenceOptions,
  type CrossValidatedResult,
  type CrossValidationForm,
  type CrossValidationTerm,
  crossValidatedEvidence,
  isSubsettable,
  type SubsettableModel,
} from "./evidence/cross-validated.js";
export type { PosteriorDrawsInput } from "./evidence/draws-input.js";
export {
  type EntropyDiagnostics,
  type EntropyEvidenceOptions,
  type EntropyResult,
  entropyEvidence,
} from "./evidence/entropy.js";
export {
  type EstimateEvidenceOptions,
  EVIDENCE_METHODS,
  type EvidenceMethod,
  type EvidenceMethodSettings,
  type EvidenceResult,
  estimateEvidence,
  type MethodDiagnostics,
} from "./evidence/estimate.js";
export {
  type HarmonicMeanDiagnostics,
  type HarmonicMeanOptions,
  type HarmonicMeanResult,
  harmonicMean,
} from "./evidence/harmonic-mean.js";
export {
  type ImportanceProposal,
  type ImportanceSamplingDiagnostics,
  type ImportanceSamplingOptions,
  type ImportanceSamplingResult,
  importanceSampling,
} from "./evidence/importance-sampling.js";
export {
  type LaplaceDiagnostics,
  type LaplaceOptions,
  type LaplaceResult,
  laplace,
} from "./evidence/laplace.js";
export {
  type BatchRecord,
  type DynamicNestedOptions,
  type NestedDiagnostics,
  type NestedPosterior,
  type NestedRecord,
  type NestedSampler,
  type NestedSamplingOptions,
  type NestedSamplingResult,
  nestedSampling,
  type StopReason as NestedStopReason,
} from "./evidence/nested/nested-sampling.js";
export {
  type PathLadderDiagnostics,
  type PathLadderOptions,
  type PathRandomDiagnostics,
  type PathRandomOptions,
  type PathSamplingOptions,
  type PathSamplingResult,
  pathSampling,
} from "./evidence/path-sampling.js";
export {
  type PosteriorSample,
  type PosteriorSamplingOptions,
  samplePosterior,
} from "./evidence/posterior-sampling.js";
export {
  type PriorMonteCarloDiagnostics,
  type PriorMonteCarloOptions,
  type PriorMonteCarloResult,
  priorMonteCarlo,
} from "./evidence/prior-monte-carlo.js";
export type { EvidenceEstimate } from "./evidence/result.js";
export {
  type SteppingStoneDiagnostics,
  type SteppingStoneOptions,
  type SteppingStoneResult,
  steppingStone,
} from "./evidence/stepping-stone.js";
export {
  type TemperedSmcOptions,
  type TemperedSmcResult,
  temperedSmc,
  temperedSmcDraws,
} from "./evidence/tempered-smc.js";
export type { StageSummary, TemperingDiagnostics, TemperingOptions } from "./evidence/tempering/estimates.js";
export type { RungSummary } from "./evidence/tempering/ladder.js";
export type { CloudMove } from "./evidence/tempering/moves.js";
export type {
  PooledDiagnostics,
  PrecisionOptions,
  TemperingRunSummary,
} from "./evidence/tempering/precision.js";
export type { QuadratureRule } from "./evidence/tempering/quadrature.js";
export {
  linearLadder,
  powerLadder,
  refineLadder,
  type TemperatureSchedule,
  validateLadder,
} from "./evidence/tempering/schedule.js";
export {
  type TransitionalMcmcDiagnostics,
  type TransitionalMcmcOptions,
  type TransitionalMcmcResult,
  transitionalMcmc,
} from "./evidence/transitional-mcmc.js";

// ---- Log-space arithmetic, for writing likelihoods.
export { logAddExp, logMeanExp, logSumExp } from "./math/logspace.js";

// ---- Models: the contract, defining one, tempering it, bounds, draws.
export { type ChainStats, Draws } from "./model/draws.js";
export {
  type BayesModel,
  type DefineModelOptions,
  defineModel,
  type LogDensity,
  type ParameterBounds,
  tempered,
} from "./model/model.js";
export { type UnboundedModel, unbounded } from "./model/transform.js";

// ---- Classifier families (Everson et al.): conditional models p(y | X, θ) of class labels, compared by
// the chain-rule evidence of the labels given the inputs (compareClassifierFamilies, under Selection).
export {
  buildClassifier,
  type ChainRuleSettings,
  CLASSIFIER_FAMILIES,
  type ClassificationScores,
  type ClassifierEncoding,
  type ClassifierFamilyName,
  type ClassifierFamilyOptions,
  type ClassifierModel,
  type ClassifierTableOptions,
  classCounts,
  classificationScores,
  classifierTable,
  confusionMatrix,
  type EncodedClassifierTable,
  encodeClassifierTable,
  type LeaveOneOut,
  type LogisticClassifierOptions,
  leaveOneOut,
  logisticClassifier,
  logLossMonteCarloError,
  type MixtureFamilyOptions,
  type MlpClassifierOptions,
  minimumRowsPerClass,
  mixtureClassifier,
  mlpClassifier,
  type PknnClassifier,
  type PknnClassifierOptions,
  type PosteriorPredictive,
  pknnClassifier,
  posteriorPredictive,
  type RbfClassifierOptions,
  type ReliabilityBin,
  rbfClassifier,
  reliabilityBins,
  type StandardizedClassifierData,
  standardizeClassifierInputs,
  stratifiedFolds,
} from "./models/classifiers/index.js";

// ---- Model families; each prior of `occam compare` is a family over subsets (log evidence or Bayes
// factor of a subset, enumeration, moments, model, predictive).
export type { FamilyTerm, FamilyView, StudentTPredictive, SubsetFamily } from "./models/family.js";
export { type GaussianMeanModel, gaussianMeanModel } from "./models/gaussian-mean/index.js";
export {
  type GlmDesign,
  type GlmEvidence,
  type GlmEvidenceOptions,
  glmEvidence,
} from "./models/glm/evidence.js";
export {
  GLM_LINKS,
  type GlmFamilyName,
  type GlmLink,
  type GlmOutcome,
  glmOutcome,
} from "./models/glm/family.js";
export {
  type EvidenceProblem,
  HARD_PROBLEM_NAMES,
  type HardProblem,
  type HardProblemName,
  hardProblem,
} from "./models/hard-problems/index.js";
export { type CentredStatistics, centredStatistics } from "./models/linear/design.js";
export { type GPriorScorer, gPriorsFamily, unitInformationScorer } from "./models/linear/g-prior.js";
export { type GTableStats, newTableStats } from "./models/linear/g-table.js";
export { HYPER_G_DEFAULT_A, type HyperGFamilyOptions, hyperGFamily } from "./models/linear/hyper-g.js";
export { type IndependentFamilyOptions, independentFamily } from "./models/linear/independent.js";
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
export { type NigFamilyOptions, nigFamily } from "./models/linear/nig-subsets.js";
export { type ZellnerSiowFamilyOptions, zellnerSiowFamily } from "./models/linear/zellner-siow.js";
export { type Mixture2dModel, mixture2dModel } from "./models/mixture-2d/index.js";
export {
  type ClassificationData,
  type ClassificationTableOptions,
  classificationTable,
  fitMixtureClassifier,
  type MixtureClassifierFit,
  type MixtureClassifierOptions,
  type SubsetProbability,
  selectRows,
  stratifiedSplit,
} from "./models/mixture-classifier/index.js";
export {
  type BayesianMlp,
  type BayesianMlpOptions,
  type BayesianMlpPriors,
  bayesianMlp,
  type GammaPrior,
  type MlpHyperparameters,
} from "./models/mlp/bayesian.js";
export {
  type EnsembleEvidenceDiagnostics,
  type EnsembleEvidenceOptions,
  type EnsembleEvidenceResult,
  type EnsembleMlpFit,
  type EnsembleMlpOptions,
  type EnsemblePredictive,
  ensembleEvidence,
  ensembleMlp,
  predictEnsembleMlp,
} from "./models/mlp/ensemble.js";
export {
  type EvidenceFrameworkDiagnostics,
  type EvidenceFrameworkFit,
  type EvidenceFrameworkOptions,
  type EvidenceFrameworkResult,
  evidenceFramework,
} from "./models/mlp/evidence-framework.js";
export {
  type BayesianMlpFit,
  type FitBayesianMlpOptions,
  fitBayesianMlp,
} from "./models/mlp/fit.js";
export {
  finalPredictionError,
  fitMaximumLikelihoodMlp,
  type MaximumLikelihoodMlpFit,
  type MaximumLikelihoodMlpOptions,
} from "./models/mlp/maximum-likelihood.js";
export type { MlpData } from "./models/mlp/network.js";
export {
  type MlpPredictive,
  type MlpPredictiveDraws,
  type PredictBayesianMlpOptions,
  predictBayesianMlp,
} from "./models/mlp/prediction.js";
export {
  type BayesianMlpDraws,
  type SampleBayesianMlpOptions,
  sampleBayesianMlp,
} from "./models/mlp/sampling.js";
export {
  type SweepEvidence,
  type SweepTemperature,
  sweepChaining,
  sweepPathSampling,
  sweepTemperatures,
  type TemperatureSweep,
  type TemperatureSweepOptions,
} from "./models/mlp/temperature-sweep.js";
export {
  type CompareLinearInParallelOptions,
  compareLinearModelsInParallel,
} from "./parallel/compare.js";
export { compareEstimatorsInParallel } from "./parallel/evidence.js";
export type { ParallelOptions } from "./parallel/run.js";
// ---- Random numbers: the seeded, splittable generator and its variates.
export { createRng, type Rng } from "./random/rng.js";
export * as variates from "./random/variates.js";
// ---- Samplers: kernels (init + step), the shared accept step, moves, and running chains.
export { type AcceptDecision, metropolisHastings } from "./samplers/accept.js";
export { buildGaussianGibbsUpdates, type GaussianGibbsOptions } from "./samplers/gaussian-gibbs.js";
export {
  buildGibbsKernel,
  type GibbsInfo,
  type GibbsKernel,
  type GibbsOptions,
  type GibbsState,
  type GibbsUpdate,
} from "./samplers/gibbs.js";
export {
  buildHmcKernel,
  type HmcInfo,
  type HmcKernel,
  type HmcOptions,
  type HmcState,
} from "./samplers/hmc.js";
export {
  type ImportanceOptions,
  type ImportanceResult,
  importanceSample,
  type Proposal,
} from "./samplers/importance.js";
export { type Integrator, leapfrog, mclachlan, yoshida } from "./samplers/integrators.js";
export {
  type AdaptiveKernel,
  isAdaptive,
  type Kernel,
  type PositionState,
  type StepInfo,
} from "./samplers/kernel.js";
export {
  buildMalaKernel,
  type MalaInfo,
  type MalaKernel,
  type MalaOptions,
  type MalaState,
} from "./samplers/mala.js";
export { denseMetric, diagonalMetric, type Metric } from "./samplers/metric.js";
export { type Move, type MoveResult, mixture } from "./samplers/mixture.js";
export {
  buildNutsKernel,
  type NutsInfo,
  type NutsKernel,
  type NutsOptions,
  type NutsState,
} from "./samplers/nuts.js";
export {
  buildRandomWalkKernel,
  type RandomWalkInfo,
  type RandomWalkKernel,
  type RandomWalkOptions,
  type RandomWalkState,
} from "./samplers/random-walk.js";
export {
  buildRejectionKernel,
  type RejectionInfo,
  type RejectionKernel,
  type RejectionOptions,
  type RejectionState,
} from "./samplers/rejection.js";
export { type InitialPoints, type Progress, type RunChainOptions, runChain } from "./samplers/run.js";
// ---- Selection: comparing and averaging models (linear models over subsets; classifier families with
// their evidence-based probabilities and stacking weights); the search that streams every subset
// through a running summary (estimates' errors reach the probabilities through probabilityIntervals).
export {
  averageSubsetPredictions,
  type MixtureComponent,
  type ModelAverage,
  type ModelAverageOptions,
  modelAverage,
  type PredictiveInterval,
  studentTCdf,
} from "./selection/average.js";
export {
  type ClassifierFamilyComparison,
  type ClassifierFamilyResult,
  type CombinedScores,
  type CompareClassifierFamiliesOptions,
  checkFamilySupport,
  compareClassifierFamilies,
  type EstimateSummary,
  type TestScores,
} from "./selection/classifier-families.js";
export {
  type CompareModelsOptions,
  type CompareSubsetsOptions,
  compareModels,
  compareSubsets,
  logModelPrior,
  type ModelComparison,
  type ModelPrior,
  probabilityIntervals,
  type SubsetCollection,
  type SubsetComparison,
  subsetMembers,
} from "./selection/compare.js";
export {
  type FamilyProbabilities,
  type FamilyProbabilitiesOptions,
  familyProbabilities,
  type StackingOptions,
  type StackingWeights,
  stackingWeights,
} from "./selection/family-weights.js";
export {
  type CompareGlmOptions,
  compareGlms,
  type GlmComparison,
  type GlmModelRow,
} from "./selection/glm.js";
export {
  type CoefficientSummary,
  type CompareLinearOptions,
  compareLinearModels,
  DEFAULT_SAMPLES,
  LINEAR_ESTIMATORS,
  LINEAR_PRIORS,
  type LinearComparison,
  type LinearEstimator,
  type LinearModelRow,
  type LinearPrior,
  type LinearPriorSummary,
  MAX_ESTIMATED_MODELS,
  type SubsetSearchSummary,
} from "./selection/linear.js";
export { type SampleSubsetsOptions, type SubsetSample, sampleSubsets } from "./selection/subset-sampling.js";
export {
  hereditaryFilter,
  MAX_ENUMERATED_INPUTS,
  type RankedSubset,
  type SearchSubsetsOptions,
  type SubsetSummary,
  searchSubsets,
  summarizeSubsets,
} from "./selection/subsets.js";
