import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { regressionTable } from "../support/parallel.js";
import { type Spawned, spawnOccam } from "../support/spawn.js";

const server = inject("redisUrl");
// A database of its own, so that other test files' queues do not meet these workers.
const redis = `${server}/2`;

/** Writes a seeded regression table as CSV. */
function writeTable(path: string, n: number, p: number, seed: number): void {
  const t = regressionTable(n, p, seed);
  const rows = [[...t.inputNames, t.targetName].join(",")];
  for (let i = 0; i < n; i++) rows.push([...t.X.subarray(i * p, (i + 1) * p), t.y[i]].join(","));
  writeFileSync(path, `${rows.join("\n")}\n`);
}

/** The unit keys a worker's log says it started and finished. */
function served(log: string, kind: "start" | "done"): string[] {
  return [...log.matchAll(new RegExp(`^occam worker: ${kind} (.+?) \\(`, "gm"))].map((m) => m[1]);
}

describe.skipIf(server === null)("occam worker on a Redis server", () => {
  const dir = mkdtempSync(join(tmpdir(), "occam-worker-"));
  const workers: Spawned[] = [];
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
    rmSync(dir, { recursive: true, force: true });
  });

  it("finishes a job whose worker is killed mid-unit with the local result, no unit lost or counted twice", async () => {
    const csv = join(dir, "data.csv");
    writeTable(csv, 40, 4, 31);
    const args = ["compare", csv, "--target", "y", "--prior", "nig", "--estimator", "smc"];
    const job = [...args, "--samples", "3000", "--seed", "6", "--json"];
    const [a, b] = [0, 1].map(() =>
      spawnOccam(["worker", "--redis", redis, "--workers", "1", "--lock-seconds", "2"]),
    );
    workers.push(a, b);
    await Promise.all([a.waitFor(/serving units/), b.waitFor(/serving units/)]);
    const coordinator = spawnOccam([...job, "--redis", redis]);
    // Kill worker a in the middle of its second unit.
    await a.waitFor(/(start [^\n]*\n[\s\S]*){2}/);
    a.child.kill("SIGKILL");
    await a.exited;
    const lost = served(a.stderr, "start").filter((key) => !served(a.stderr, "done").includes(key));
    expect(lost).toHaveLength(1);
    const end = await coordinator.exited;
    expect(coordinator.stderr).toBe("");
    expect(end.code).toBe(0);

    // Every unit was done exactly once, the lost one by the surviving worker.
    const done = [...served(a.stderr, "done"), ...served(b.stderr, "done")];
    expect(done).toHaveLength(16);
    expect(new Set(done).size).toBe(16);
    expect(served(b.stderr, "done")).toContain(lost[0]);

    const local = spawnOccam([...job, "--workers", "1"]);
    expect((await local.exited).code).toBe(0);
    const strip = (text: string) => text.replace(/"seconds": [^,\n]+/g, "");
    expect(strip(coordinator.stdout)).toBe(strip(local.stdout));
    expect(JSON.parse(coordinator.stdout).models).toHaveLength(16);
  });
});
