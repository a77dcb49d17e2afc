import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/spawn.js";

describe("the worker-thread pool", () => {
  it("survives 50 jobs that fail while their threads are still loading occam (no native abort)", () => {
    // On the compiled package, as users run it: there piscina's require of an ES module entry could
    // abort the process (exit 134) when a thread was stopped halfway through loading it.
    const run = spawnSync(process.execPath, ["test/parallel/fixtures/pool-teardown.mjs", "50"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(run.stderr).not.toMatch(/FATAL ERROR|Native stack trace/);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("done\n");
  });
});
