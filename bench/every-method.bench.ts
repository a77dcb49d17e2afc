/**
 * Every evidence method at its defaults, one after another on one core, on the correlated Gaussian
 * problem: seconds, likelihood evaluations, the error in standard errors and whether the method says
 * it is reliable. The target is 30 s a method on the 30-dimensional correlated box. Usage:
 * `npm run bench -- every-method`; `OCCAM_EVERY_METHOD_DIM` (default 30), `OCCAM_EVERY_METHOD_PRIOR`
 * ("box" or "normal") and `OCCAM_EVERY_METHOD_SEED` (default 1) choose the problem and the seed.
 */
import { EVIDENCE_METHODS } from "../src/evidence/methods.js";
import { methodRun } from "../src/experiments/calibration.js";
import { correlatedGaussianProblem } from "../src/models/hard-problems/correlated-gaussian.js";

/** Seconds, evaluations, z and reliability of each method (cross-validation needs subsets, so it is left out). */
export function measurements(): Record<string, number> {
  const dim = Number(process.env.OCCAM_EVERY_METHOD_DIM ?? 30);
  const prior = process.env.OCCAM_EVERY_METHOD_PRIOR === "normal" ? "normal" : "box";
  const seed = Number(process.env.OCCAM_EVERY_METHOD_SEED ?? 1);
  const out: Record<string, number> = {};
  for (const method of EVIDENCE_METHODS.filter((m) => m !== "cv")) {
    // A fresh problem for each method, as a user's process would build its model.
    const { model, logZ } = correlatedGaussianProblem({ dim, prior });
    const run = methodRun(`correlated-${prior}-d${dim}`, model, method, seed, logZ);
    const at = `${method} on the ${dim}-d correlated ${prior}`;
    out[`${at}: seconds`] = run.seconds;
    out[`${at}: evaluations`] = run.nLikelihoodEvals;
    if (run.z !== null) out[`${at}: z`] = run.z;
    out[`${at}: reliable (1 yes)`] = run.reliable ? 1 : 0;
  }
  return out;
}
