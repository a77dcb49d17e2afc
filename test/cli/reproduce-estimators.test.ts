import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

describe("occam reproduce estimators --quick --json", () => {
  it("prints every method on every problem, within the required error on d ≤ 10", async () => {
    const { code, stdout } = await runCli(["reproduce", "estimators", "--quick", "--json", "--seed", "2"]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.experiment).toBe("estimators");
    const problems = [
      "gaussian-mean-d1",
      "gaussian-mean-d10",
      "gaussian-mean-d50",
      "linear-nig",
      "mixture-2d",
    ];
    const methods = ["prior", "importance", "harmonic-mean", "laplace", "bridge", "bridge-warp3", "chaining"];
    methods.push("stepping-stone", "path", "ais", "smc", "cv", "entropy");
    for (const problem of problems) {
      for (const method of methods) {
        const row = doc.results.find(
          (r: { problem: string; method: string }) => r.problem === problem && r.method === method,
        );
        expect(row, `${problem} / ${method}`).toBeDefined();
        for (const key of ["logZ", "stdErr", "exact", "nLikelihoodEvals", "seconds"])
          expect(row).toHaveProperty(key);
      }
    }
    const within = ["bridge", "stepping-stone", "chaining", "path", "ais", "smc"];
    for (const row of doc.results) {
      if (row.problem === "gaussian-mean-d50" || !within.includes(row.method)) continue;
      const error = Math.abs(row.logZ - row.exact);
      expect(error, `${row.problem} / ${row.method}: error ${error}, stdErr ${row.stdErr}`).toBeLessThan(
        Math.max(0.05, 3 * row.stdErr),
      );
    }
    // Laplace is exact on the Gaussian problems.
    for (const row of doc.results.filter(
      (r: { method: string; problem: string }) => r.method === "laplace" && r.problem.startsWith("gaussian"),
    )) {
      expect(Math.abs(row.logZ - row.exact)).toBeLessThan(1e-6);
    }
    // At least one estimator reaches 0.01 nats on the mixture.
    const mixture = doc.results.filter(
      (r: { problem: string; logZ: number | null }) => r.problem === "mixture-2d" && r.logZ !== null,
    );
    expect(
      Math.min(...mixture.map((r: { logZ: number; exact: number }) => Math.abs(r.logZ - r.exact))),
    ).toBeLessThan(0.01);
  }, 300_000);
});
