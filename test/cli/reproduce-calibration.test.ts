import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatCalibrationMarkdown } from "../../src/cli/reports/calibration.js";
import type { CalibrationCell, CalibrationExperiment } from "../../src/experiments/calibration.js";
import { runCli as run } from "../support/cli.js";

const cell = (
  over: Partial<CalibrationCell> & Pick<CalibrationCell, "problem" | "method">,
): CalibrationCell => ({
  runs: 20,
  unreliable: 0,
  silentFailures: 0,
  meanError: 0.01,
  meanStdErr: 0.05,
  fractionWithin2: 1,
  worstZ: 1.84,
  nLikelihoodEvals: 1000,
  seconds: 1,
  ...over,
});

const experiment = (cells: CalibrationCell[]): CalibrationExperiment => ({
  experiment: "calibration",
  seed: 1,
  seeds: 20,
  quick: false,
  references: [],
  cells,
  runs: [],
});

describe("occam reproduce calibration --markdown", () => {
  it("prints one row per method, one column per problem, each cell as docs/calibration.md reads it", () => {
    const table = formatCalibrationMarkdown(
      experiment([
        cell({ problem: "eggbox", method: "bridge", unreliable: 20, fractionWithin2: null, worstZ: null }),
        cell({
          problem: "shells-d5",
          method: "bridge",
          unreliable: 3,
          fractionWithin2: 16 / 17,
          worstZ: 3.93,
          silentFailures: 1,
        }),
        cell({ problem: "eggbox", method: "smc", unreliable: 1, fractionWithin2: 18 / 19, worstZ: 2.46 }),
      ]),
    );
    expect(table.split("\n")).toEqual([
      "| method | eggbox (20) | shells-d5 (20)    |",
      "| ------ | ----------- | ----------------- |",
      "| bridge | unrel.      | 16/17, 3.9 **!1** |",
      "| smc    | 18/19, 2.5  | —                 |",
    ]);
  });

  it("is the format of the table in docs/calibration.md", () => {
    const page = readFileSync("docs/calibration.md", "utf8");
    const block = page.split("<!-- reproduce calibration --markdown -->")[1];
    expect(block).toBeDefined();
    const rows = block.trim().split("\n\n")[0].split("\n");
    expect(rows[0]).toMatch(/^\| method +\|( [a-z0-9-]+ \(\d+\) +\|)+$/);
    const cellFormat = /^(unrel\.|—|\d+\/\d+, \d+\.\d( \*\*!\d+\*\*)?)$/;
    for (const row of rows.slice(2)) {
      const cells = row
        .split("|")
        .slice(2, -1)
        .map((c) => c.trim());
      expect(cells.length).toBe(rows[0].split("|").length - 3);
      for (const c of cells) expect(c).toMatch(cellFormat);
    }
  });

  it("refuses --markdown for a reproduction without a table in docs/, and beside --json", async () => {
    const other = await run(["reproduce", "everson", "--quick", "--markdown"]);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe("");
    expect(other.stderr).toBe(
      "occam: reproduce everson has no markdown table; --markdown applies only to calibration.\n",
    );
    const both = await run(["reproduce", "calibration", "--quick", "--markdown", "--json"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe("occam: give --json or --markdown, not both.\n");
  });
});
