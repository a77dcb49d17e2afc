/**
 * occam for a web page: the library without what needs Node.js (files, worker threads, the Redis
 * queue). Data come in as text (`parseCsv`) or arrays; everything runs in the calling thread, which in
 * a page should be a Web Worker. Built by `npm run build:web` into `dist-web/occam.js`, an ES module.
 */

export { type CsvOptions, type CsvTable, csvColumns, numericTable, parseCsv } from "./data/csv.js";
export type { LinearData } from "./data/design.js";
export { type Formula, formulaDesign, parseFormula } from "./data/formula.js";
export { OccamError, type OccamErrorCode } from "./errors.js";
export {
  type CompareEstimatorsOptions,
  compareEstimators,
  type EstimatorComparison,
} from "./evidence/compare.js";
export {
  type EstimateEvidenceOptions,
  EVIDENCE_METHODS,
  type EvidenceMethod,
  type EvidenceResult,
  estimateEvidence,
} from "./evidence/estimate.js";
export { type BayesModel, defineModel } from "./model/model.js";
export { createRng, type Rng } from "./random/rng.js";
export { type CompareGlmOptions, compareGlms, type GlmComparison } from "./selection/glm.js";
export { type CompareLinearOptions, compareLinearModels, type LinearComparison } from "./selection/linear.js";
