/**
 * Families of classifier compared by the evidence of the labels given the inputs (Everson et al.):
 * logistic regression (global), RBF networks (semi-local), probabilistic k-NN (local), Sykacek's
 * mixture and a one-hidden-layer network used as classifiers. The registry below builds any of them
 * by name and says how much data each needs.
 */
import type { ClassificationData } from "../mixture-classifier/data.js";
import { CLASSIFIER_FAMILIES, type ClassifierFamilyName, checkFamilyName } from "./families.js";
import type { ClassifierModel } from "./family.js";
import { type LogisticClassifierOptions, logisticClassifier } from "./logistic.js";
import { type MixtureFamilyOptions, mixtureClassifier } from "./mixture.js";
import { type MlpClassifierOptions, mlpClassifier } from "./mlp.js";
import { type PknnClassifierOptions, pknnClassifier } from "./pknn.js";
import { type RbfClassifierOptions, rbfClassifier } from "./rbf.js";

export {
  type ClassifierEncoding,
  type ClassifierTableOptions,
  classCounts,
  classifierTable,
  type EncodedClassifierTable,
  encodeClassifierTable,
  type StandardizedClassifierData,
  standardizeClassifierInputs,
  stratifiedFolds,
} from "./data.js";
export {
  type ChainRuleSettings,
  type ClassifierModel,
  type ConditionalClassifier,
  conditionalClassifier,
  type LogitFunction,
  logSoftmax,
} from "./family.js";
export { type LogisticClassifierOptions, logisticClassifier } from "./logistic.js";
export { type MixtureFamilyOptions, mixtureClassifier } from "./mixture.js";
export { type MlpClassifierOptions, mlpClassifier } from "./mlp.js";
export { type PknnClassifier, type PknnClassifierOptions, pknnClassifier } from "./pknn.js";
export {
  type PknnEvidenceDiagnostics,
  type PknnEvidenceResult,
  type PknnForm,
  type PknnTerm,
  pknnChainRule,
  pknnPseudoLogEvidence,
  pknnQuadratureChainRule,
} from "./pknn-evidence.js";
export {
  type ClassificationScores,
  classificationScores,
  confusionMatrix,
  type LeaveOneOut,
  leaveOneOut,
  logLossMonteCarloError,
  type PosteriorPredictive,
  posteriorPredictive,
  type ReliabilityBin,
  reliabilityBins,
} from "./predictive.js";
export { type RbfClassifierOptions, rbfClassifier } from "./rbf.js";
export { CLASSIFIER_FAMILIES, type ClassifierFamilyName, checkFamilyName };

/** Each family's own options. */
export interface ClassifierFamilyOptions {
  logistic?: LogisticClassifierOptions;
  rbf?: RbfClassifierOptions;
  pknn?: PknnClassifierOptions;
  mixture?: MixtureFamilyOptions;
  mlp?: MlpClassifierOptions;
}

/** Builds a family by name on training data with standardised inputs. */
export function buildClassifier(
  name: ClassifierFamilyName,
  train: ClassificationData,
  options: ClassifierFamilyOptions = {},
): ClassifierModel {
  switch (checkFamilyName(name)) {
    case "logistic":
      return logisticClassifier(train, options.logistic);
    case "rbf":
      return rbfClassifier(train, options.rbf);
    case "pknn":
      return pknnClassifier(train, options.pknn);
    case "mixture":
      return mixtureClassifier(train, options.mixture);
    case "mlp":
      return mlpClassifier(train, options.mlp);
  }
}

/**
 * The training rows of every class a family needs for a G-fold comparison: what "the data support a
 * family" means. Every family needs G rows of each class, so that stratified folds put every class in
 * every fold (otherwise a fold's factor of the chain rule, or of Everson's G-fold product, predicts a
 * class its conditioning rows never showed, or the first fold's evidence says nothing about a class).
 * The families with per-class structure beyond a linear boundary — RBF centres, mixture kernels,
 * hidden units — need two rows of each class per fold, 2G, so that no fold's posterior is decided by
 * a single row of a class.
 */
export function minimumRowsPerClass(name: ClassifierFamilyName, folds: number): number {
  return name === "logistic" || name === "pknn" ? folds : 2 * folds;
}
