import { describe, expect, it, vi } from "vitest";
import type { EversonExperimentOptions } from "../../src/experiments/everson.js";
import { runCli as run } from "../support/cli.js";

// The CLI wiring with a small experiment: the CLI passes only seed and quick, so n and samples are
// shrunk here to keep the test fast (the experiment itself is tested in test/experiments/everson.test.ts).
const calls: EversonExperimentOptions[] = [];
vi.mock("../../src/experiments/everson.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/experiments/everson.js")>();
  return {
    ...original,
    runEversonExperiment: (options: EversonExperimentOptions) => {
      calls.push(options);
      return original.runEversonExperiment({ ...options, n: 200, samples: 200 });
    },
  };
});

describe("occam reproduce everson", () => {
  it("prints one JSON document with the 15 rows and passes the seed and --quick", async () => {
    const { code, stdout, stderr } = await run(["reproduce", "everson", "--quick", "--json", "--seed", "3"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(calls.at(-1)).toMatchObject({ seed: 3, quick: true });
    const doc = JSON.parse(stdout);
    expect(doc.experiment).toBe("everson");
    expect(doc.rows).toHaveLength(15);
    expect(doc.rows[0]).toEqual({
      inputs: [1],
      exactHeldOut: expect.any(Number),
      heldOut: expect.any(Number),
      exact: expect.any(Number),
      crossValidated: expect.any(Number),
      crossValidatedStdErr: expect.any(Number),
      chainRule: expect.any(Number),
    });
    expect(doc.summary.spearman.crossValidated).toEqual(expect.any(Number));
  });

  it("prints Tables 1 and 2 beside the paper's numbers, and explains the gap", async () => {
    const { code, stdout } = await run(["reproduce", "everson", "--seed", "2"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Table 1: held-out evidence/);
    expect(stdout).toMatch(/Table 2: the 5-fold product/);
    // The paper's Table 2 row for (1, 2, 3): log p(D) = −8907.3, estimate −8872.6.
    expect(stdout).toMatch(/\(1, 2, 3\) .*-8907\.3 +-8872\.6 +34\.7/);
    expect(stdout).toMatch(/Spearman rank correlation/);
    expect(stdout).toMatch(/Why the gap: ∏_g p\(D_g \| D_−g\) is not p\(D\)/);
  });

  it("exits 2 with one line on stderr and nothing on stdout for a bad seed", async () => {
    const { code, stdout, stderr } = await run(["reproduce", "everson", "--seed", "-4"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/the seed must be an integer/);
    // One line of message (commander's usage errors add program.ts's "(run with --help for usage)" hint).
    const lines = stderr.trimEnd().split("\n");
    expect(lines.filter((line) => line !== "(run with --help for usage)")).toHaveLength(1);
  });
});
