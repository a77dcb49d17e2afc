/**
 * The evidence methods' names, apart from the methods themselves: the command line lists and checks
 * them at every start, without loading the estimators.
 */
import type { EvidenceMethod } from "./estimate.js";

/** Every method name, in the order occam lists them. */
export const EVIDENCE_METHODS: readonly EvidenceMethod[] = [
  "prior",
  "importance",
  "harmonic-mean",
  "laplace",
  "bridge",
  "bridge-warp3",
  "chaining",
  "stepping-stone",
  "path",
  "ais",
  "smc",
  "tmcmc",
  "nested",
  "cv",
  "entropy",
];
