/** Sykacek's input-selecting Gaussian-mixture classifier, sampled by Gibbs and reversible-jump moves. */
export {
  type ClassificationData,
  type ClassificationTableOptions,
  checkClassRows,
  classificationTable,
  MAX_CLASSES,
  selectRows,
  stratifiedSplit,
} from "./data.js";
export {
  fitMixtureClassifier,
  type MixtureClassifierFit,
  type MixtureClassifierOptions,
  type SubsetProbability,
} from "./sampler.js";
