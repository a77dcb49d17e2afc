import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { multivariateStudentT } from "../../../src/distributions/multivariate-student-t.js";
import { importanceSampling } from "../../../src/evidence/importance-sampling.js";
import {
  logisticPimaProblem,
  PIMA_PRIOR_SD,
  PIMA_REFERENCE,
  pimaDesign,
} from "../../../src/models/hard-problems/index.js";
import { pimaLaplace } from "./pima-laplace.js";

interface RunRecord {
  logZ: number;
  stdErr: number;
  laplace: number;
  mode: number[];
}

const FIXTURE = JSON.parse(readFileSync(new URL("./references.json", import.meta.url), "utf8")) as {
  python: {
    "logistic-pima": RunRecord & {
      logPriorAtMode: number;
      logLikelihoodAtMode: number;
      logLikelihoodAtZero: number;
      logLikelihoodAtRamp: number;
      standardisedFirstRow: number[];
    };
  };
  occam: { "logistic-pima": RunRecord };
  reference: { "logistic-pima": { logZ: number; stdErr: number } };
};
const PY = FIXTURE.python["logistic-pima"];
const OCCAM = FIXTURE.occam["logistic-pima"];

describe("logistic-pima", () => {
  const { model, logZ, logZError } = logisticPimaProblem();
  const design = pimaDesign();

  it("is the same model numpy evaluated: design row, log likelihood at fixed points, mode and Laplace value", () => {
    expect(design.n).toBe(200);
    expect(design.p).toBe(8);
    for (let j = 0; j < 8; j++) expect(design.X[j]).toBeCloseTo(PY.standardisedFirstRow[j], 12);
    expect(model.logLikelihood(new Float64Array(8))).toBeCloseTo(PY.logLikelihoodAtZero, 10);
    const ramp = Float64Array.from({ length: 8 }, (_, j) => -1 + (2 * j) / 7);
    expect(model.logLikelihood(ramp)).toBeCloseTo(PY.logLikelihoodAtRamp, 10);
    const mode = Float64Array.from(PY.mode);
    expect(model.logLikelihood(mode)).toBeCloseTo(PY.logLikelihoodAtMode, 10);
    expect(model.logPrior(mode)).toBeCloseTo(PY.logPriorAtMode, 10);
    const laplace = pimaLaplace(model, design, PIMA_PRIOR_SD);
    for (let j = 0; j < 8; j++) expect(laplace.mode[j]).toBeCloseTo(PY.mode[j], 9);
    expect(laplace.logZLaplace).toBeCloseTo(PY.laplace, 9);
    // The Laplace approximation is visibly off, so the problem is not a Gaussian in disguise.
    expect(Math.abs(laplace.logZLaplace - logZ)).toBeGreaterThan(0.05);
  });

  it("has a reference from two long independent runs that agree, stored as their combined mean", () => {
    const combined = Math.hypot(PY.stdErr, OCCAM.stdErr);
    expect(Math.abs(PY.logZ - OCCAM.logZ)).toBeLessThan(4 * combined);
    const wPy = 1 / PY.stdErr ** 2;
    const wOccam = 1 / OCCAM.stdErr ** 2;
    const mean = (wPy * PY.logZ + wOccam * OCCAM.logZ) / (wPy + wOccam);
    const stored = FIXTURE.reference["logistic-pima"];
    expect(stored.logZ).toBeCloseTo(mean, 12);
    expect(stored.stdErr).toBeCloseTo(1 / Math.sqrt(wPy + wOccam), 12);
    // The source quotes it to 5 decimals (and the error to 2 significant digits).
    expect(Math.abs(logZ - stored.logZ)).toBeLessThan(5e-6);
    expect(Math.abs(logZError - stored.stdErr)).toBeLessThan(5e-6);
    expect(logZ).toBe(PIMA_REFERENCE.logZ);
  });

  it("a moderate importance-sampling run agrees with the reference within 4 combined standard errors", () => {
    const laplace = pimaLaplace(model, design, PIMA_PRIOR_SD);
    const proposal = multivariateStudentT({
      dof: 5,
      location: laplace.mode,
      choleskyL: laplace.covarianceCholesky,
    });
    const result = importanceSampling(model, { proposal, samples: 20_000, seed: 7 });
    // The run must be precise enough for the comparison to mean something.
    expect(result.stdErr).toBeLessThan(0.01);
    expect(Math.abs(result.logZ - logZ)).toBeLessThan(4 * Math.hypot(result.stdErr, logZError));
  });
});
