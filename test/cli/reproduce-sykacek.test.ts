import { describe, expect, it, vi } from "vitest";
import type { SykacekOptions } from "../../src/experiments/sykacek.js";
import { runCli as run } from "../support/cli.js";

// The CLI wiring with short chains: the CLI passes only seed and quick, so the sweeps and Wine splits
// are shrunk here to keep the test fast (`--quick` itself runs 3000 sweeps, about a minute).
const calls: SykacekOptions[] = [];
vi.mock("../../src/experiments/sykacek.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/experiments/sykacek.js")>();
  return {
    ...original,
    runSykacekExperiment: (options: SykacekOptions) => {
      calls.push(options);
      return original.runSykacekExperiment({ ...options, draws: 120, burnIn: 40, wineSplits: 1 });
    },
  };
});

describe("occam reproduce sykacek", () => {
  it("prints one JSON document with Pima, Ionosphere and Wine beside the paper", async () => {
    const { code, stdout, stderr } = await run(["reproduce", "sykacek", "--quick", "--json", "--seed", "2"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(calls.at(-1)).toMatchObject({ seed: 2, quick: true });
    const doc = JSON.parse(stdout);
    expect(doc.draws).toBe(120);
    // both structures, each on every data set
    expect(doc.rows.map((r: { structure: string; data: string }) => `${r.structure} ${r.data}`)).toEqual([
      "per-input pima",
      "per-input ionosphere",
      "per-input wine",
      "shared pima",
      "shared ionosphere",
      "shared wine",
    ]);
    for (const row of doc.rows) {
      expect(row.accuracy).toBeGreaterThanOrEqual(0);
      expect(row.accuracy).toBeLessThanOrEqual(1);
      expect(row.logisticAccuracy).toBeGreaterThan(0.5);
      expect(row.meanInputs).toBeGreaterThanOrEqual(1);
      expect(row.maxInputs).toBeLessThanOrEqual(33);
      expect(row.paperAccuracy).toEqual(expect.any(Number));
    }
  });

  it("prints the table beside the paper's numbers", async () => {
    const { code, stdout } = await run(["reproduce", "sykacek", "--quick"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Sykacek \(1999\) Table 1/);
    expect(stdout).toMatch(/--structure shared/);
    expect(stdout).toMatch(/--structure per-input/);
    expect(stdout).toMatch(/ionosphere/);
    expect(stdout).toMatch(/paper %/);
  });
});
