import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  EGGBOX_PUBLISHED_LOG_Z,
  HARD_PROBLEM_NAMES,
  hardProblem,
  SHELLS_PUBLISHED_LOG_Z,
} from "../../../src/models/hard-problems/index.js";

/**
 * The references computed by scipy (references.py; rerun it there, never here: CI has no scipy). Each
 * scipy value comes from a different rule than the TypeScript one (QUADPACK or tensor Gauss–Legendre
 * against the trapezoidal rule, dense matrices against the tridiagonal precision), so agreement to
 * the stated error checks both.
 */
const FIXTURE = JSON.parse(readFileSync(new URL("./references.json", import.meta.url), "utf8")) as {
  python: Record<string, { logZ: number; logZBox?: number; information?: number; truncation?: number }>;
};

/** The scipy value the TypeScript reference is to equal: the box-truncated one for the shells. */
function scipyLogZ(name: string): number {
  const entry = FIXTURE.python[name];
  return entry.logZBox ?? entry.logZ;
}

describe("hard-problem references", () => {
  const quadrature = HARD_PROBLEM_NAMES.filter((name) => name !== "logistic-pima");

  it.each(quadrature.map((name) => [name]))(
    "%s: log Z agrees with scipy to 1e-9 and within logZError",
    (name) => {
      const problem = hardProblem(name);
      const scipy = scipyLogZ(name);
      expect(Number.isFinite(scipy)).toBe(true);
      // Both sides are converged to ~1e-12; 1e-9 leaves room for rounding of sums of ~1e5 terms.
      expect(Math.abs(problem.logZ - scipy)).toBeLessThan(1e-9);
      expect(Math.abs(problem.logZ - scipy)).toBeLessThan(problem.logZError + 1e-9);
      expect(problem.logZError).toBeLessThan(1e-6);
    },
  );

  it.each(quadrature.map((name) => [name]))("%s: the information agrees with scipy to 1e-7", (name) => {
    const problem = hardProblem(name);
    const scipy = FIXTURE.python[name].information;
    expect(problem.information).toBeDefined();
    expect(scipy).toBeDefined();
    expect(Math.abs((problem.information ?? Number.NaN) - (scipy ?? Number.NaN))).toBeLessThan(1e-7);
    expect(problem.information).toBeGreaterThan(0);
  });

  it("reproduces the published eggbox log evidence 235.856 to its digits", () => {
    const { logZ } = hardProblem("eggbox");
    expect(EGGBOX_PUBLISHED_LOG_Z).toBe(235.856);
    expect(Math.abs(logZ - EGGBOX_PUBLISHED_LOG_Z)).toBeLessThan(0.0005);
  });

  it("reproduces the published Gaussian-shells log evidences −1.75, −5.67, −14.59 to their digits", () => {
    for (const d of [2, 5, 10]) {
      const { logZ } = hardProblem(`shells-d${d}` as "shells-d2");
      expect(Math.abs(logZ - SHELLS_PUBLISHED_LOG_Z[d])).toBeLessThan(0.005);
    }
    expect(SHELLS_PUBLISHED_LOG_Z).toEqual({ 2: -1.75, 5: -5.67, 10: -14.59 });
  });

  it("cuts less than 1e-6 of a shell at the box faces, as scipy's cap integral also finds", () => {
    for (const d of [2, 5, 10]) {
      const entry = FIXTURE.python[`shells-d${d}`];
      const cut = entry.truncation ?? Number.NaN;
      expect(cut).toBeGreaterThan(0);
      expect(cut).toBeLessThan(1e-6);
      // The box-truncated scipy value and the untruncated closed form differ by log(1 − cut).
      expect(Math.abs((entry.logZBox ?? 0) - entry.logZ - Math.log1p(-cut))).toBeLessThan(1e-12);
    }
  });

  it("gives the information of correlated-box-d50 as about 120 nats", () => {
    const { information } = hardProblem("correlated-box-d50");
    // d log 20 − (d/2) log 2πe − ((d − 1)/2) log(1 − 0.81), written out.
    const expected = 50 * Math.log(20) - 25 * Math.log(2 * Math.PI * Math.E) - 24.5 * Math.log(0.19);
    expect(information).toBeCloseTo(expected, 10);
    expect(Math.abs((information ?? 0) - 119.53)).toBeLessThan(0.01);
  });
});
