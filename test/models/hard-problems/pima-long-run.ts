/**
 * The occam half of the Pima logistic-regression reference: one long importance-sampling run with
 * occam's own estimator and a proposal different from the numpy run's (Student-t with 10 instead of
 * 5 degrees of freedom, scale matrix 1.1² times the inverse Hessian), so that agreement checks the
 * model code, the sampler and the proposal's tails at once. It takes about a minute.
 *
 * Rerun from the repository root with
 *
 *     npx tsx test/models/hard-problems/pima-long-run.ts
 *
 * Run it after references.py: it rewrites the "occam" section of references.json and the "reference"
 * section, the inverse-variance mean of the two runs (the value src/models/hard-problems/
 * logistic-regression.ts quotes), and keeps the rest.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { multivariateStudentT } from "../../../src/distributions/multivariate-student-t.js";
import { importanceSampling } from "../../../src/evidence/importance-sampling.js";
import { logisticPimaProblem, PIMA_PRIOR_SD, pimaDesign } from "../../../src/models/hard-problems/index.js";
import { pimaLaplace } from "./pima-laplace.js";

const FILE = fileURLToPath(new URL("./references.json", import.meta.url));
const SAMPLES = 2_000_000;
const SEED = 20250118;
const DOF = 10;
const SCALE = 1.1;

const { model } = logisticPimaProblem();
const laplace = pimaLaplace(model, pimaDesign(), PIMA_PRIOR_SD);
const proposal = multivariateStudentT({
  dof: DOF,
  location: laplace.mode,
  choleskyL: laplace.covarianceCholesky.map((v) => SCALE * v),
});
const result = importanceSampling(model, { proposal, samples: SAMPLES, seed: SEED });
const json = JSON.parse(readFileSync(FILE, "utf8"));
json.occam = {
  "logistic-pima": {
    logZ: result.logZ,
    stdErr: result.stdErr,
    draws: SAMPLES,
    seed: SEED,
    proposal: `multivariate Student-t, ${DOF} dof, at the posterior mode, scale matrix ${SCALE}² × the inverse Hessian`,
    diagnostics: result.diagnostics,
    seconds: result.seconds,
    laplace: laplace.logZLaplace,
    mode: Array.from(laplace.mode),
  },
};
// The two runs are independent, so their inverse-variance mean has variance 1/(1/se1² + 1/se2²).
const numpy = json.python["logistic-pima"];
const wNumpy = 1 / numpy.stdErr ** 2;
const wOccam = 1 / result.stdErr ** 2;
json.reference = {
  "logistic-pima": {
    logZ: (wNumpy * numpy.logZ + wOccam * result.logZ) / (wNumpy + wOccam),
    stdErr: 1 / Math.sqrt(wNumpy + wOccam),
    agreement: (numpy.logZ - result.logZ) / Math.hypot(numpy.stdErr, result.stdErr),
    how: "inverse-variance mean of the python and occam runs",
  },
};
writeFileSync(FILE, `${JSON.stringify(json, null, 2)}\n`);
