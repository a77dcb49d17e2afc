import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { regressionTable } from "../support/parallel.js";
import { spawnOccam } from "../support/spawn.js";

describe("Ctrl-C on a command with workers", () => {
  const dir = mkdtempSync(join(tmpdir(), "occam-interrupt-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("stops every worker, exits 130 and leaves no output behind", async () => {
    const t = regressionTable(60, 6, 41);
    const rows = [[...t.inputNames, "y"].join(",")];
    for (let i = 0; i < t.n; i++) rows.push([...t.X.subarray(i * 6, (i + 1) * 6), t.y[i]].join(","));
    writeFileSync(join(dir, "data.csv"), `${rows.join("\n")}\n`);
    const report = join(dir, "report.html");
    const run = spawnOccam(
      [
        "compare",
        "data.csv",
        "--target",
        "y",
        "--prior",
        "nig",
        "--estimator",
        "smc",
        "--samples",
        "4096",
      ].concat(["--workers", "4", "--json", "--report", report, "--progress"]),
      dir,
    );
    // The first progress line says the units are running (the Ctrl-C handler is in place before they
    // start); then Ctrl-C, however fast or slow the machine.
    await run.waitFor(/compare \(smc\): model \d+ of \d+/, 110_000);
    expect(run.child.exitCode, run.stderr).toBeNull();
    const finished = () =>
      Math.max(...[...run.stderr.matchAll(/model (\d+) of \d+/g)].map((m) => Number(m[1])));
    const finishedBefore = finished();
    run.child.kill("SIGINT");
    const end = await run.exited;
    expect(end.code).toBe(130);
    // Every thread was stopped at once: the four units in flight did not run to their end (each would
    // have said so), however slow the machine; one may finish as the signal arrives, or its line may
    // still have been on its way.
    expect(finished()).toBeLessThanOrEqual(finishedBefore + 1);
    expect(run.stderr).toMatch(/interrupted: every worker was stopped and no output was written/);
    expect(run.stdout).toBe("");
    expect(existsSync(report)).toBe(false);
    expect(readdirSync(dir)).toEqual(["data.csv"]);
  });
});
