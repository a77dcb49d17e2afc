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

  it("never returns a reliable result outside 3 standard errors + 0.01 nats of the exact log Z", () => {
    for (const row of doc.results) {
      if (!row.reliable || row.logZ === null || row.stdErr === null) continue;
      const error = Math.abs(row.logZ - row.exact);
      expect(error, `${row.problem} / ${row.method}: error ${error}, stdErr ${row.stdErr}`).toBeLessThan(
        3 * row.stdErr + 0.01,
      );
    }
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
