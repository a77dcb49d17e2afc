import { describe, expect, it } from "vitest";
import { EVIDENCE_METHODS } from "../../src/evidence/estimate.js";
import { runEstimatorsExperiment } from "../../src/experiments/estimators.js";

describe("runEstimatorsExperiment (quick)", () => {
  const problems = ["gaussian-mean-d1", "gaussian-mean-d10", "linear-nig", "mixture-2d"] as const;
  const doc = runEstimatorsExperiment({ quick: true, seed: 2, problems });

  it("runs every method on every problem it was asked for", () => {
    expect(doc.results).toHaveLength(problems.length * EVIDENCE_METHODS.length);
    for (const row of doc.results) {
      expect(Number.isFinite(row.exact)).toBe(true);
      expect(typeof row.reliable).toBe("boolean");
    }
  });

  it("returns at most one reliable result beyond 3 standard errors + 0.01 nats of the exact log Z, none beyond 4", () => {
    // About 40 reliable rows: with calibrated errors one beyond 3 standard errors comes in about one
    // run in ten, two in one in 200, one beyond 4 in one in 400.
    const beyond = (k: number) =>
      doc.results.filter(
        (row) =>
          row.reliable &&
          row.logZ !== null &&
          row.stdErr !== null &&
          Math.abs(row.logZ - row.exact) >= k * row.stdErr + 0.01,
      );
    const show = (rows: typeof doc.results) =>
      rows
        .map((row) => `${row.problem} / ${row.method}: error ${row.error}, stdErr ${row.stdErr}`)
        .join("; ");
    expect(beyond(3).length, show(beyond(3))).toBeLessThanOrEqual(1);
    expect(beyond(4), show(beyond(4))).toEqual([]);
    // The methods that are never reliable say so, with a reason.
    for (const row of doc.results.filter((r) => ["harmonic-mean", "laplace", "entropy"].includes(r.method))) {
      expect(row.reliable).toBe(false);
      if (row.logZ !== null) expect(row.warning).toMatch(/\w/);
    }
  });

  it("is exact with Laplace on the Gaussian problems, and within 0.01 nats by some method on the mixture", () => {
    for (const row of doc.results.filter((r) => r.method === "laplace" && r.problem.startsWith("gaussian"))) {
      expect(Math.abs((row.logZ ?? Number.NaN) - row.exact)).toBeLessThan(1e-6);
    }
    const mixture = doc.results.filter((r) => r.problem === "mixture-2d" && r.logZ !== null && r.reliable);
    expect(Math.min(...mixture.map((r) => Math.abs((r.logZ ?? Number.NaN) - r.exact)))).toBeLessThan(0.01);
  });
});
