/**
 * What `--workers 2` buys over `--workers 1` on this machine, for the two long commands the scaling
 * guide names: `occam reproduce robot-arm --quick` (12 units: each network size's two temperature
 * sweeps, evidence framework and ML fits) and `occam compare --estimator smc` over all 64 models of 6
 * inputs, and over the 128 models of 7 inputs to show how the gain grows with the job; and `occam
 * compare` with exact Zellner–Siow evidences over all 2^23 subsets of 23 inputs (32 blocks of the
 * enumeration, each listing its 10 000 best models for the JSON). Each command
 * runs as a whole process from dist/ (`npm run build` first), as a user runs it, and its wall-clock
 * time is measured with the load average beside it, since other processes sharing the cores slow the
 * two-worker run most. The JSON of both runs is also checked to be the same apart from timings.
 * Usage: `npx tsx bench/run.ts workers` (add `robot-arm` or `compare` to run only those).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { linearRegressionData } from "../src/data/generators/linear.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist/cli/main.js");

/** A CSV of y on `p` inputs (6 or 7: 64 or 128 models; 23: 2^23 models), three of which matter. */
function writeData(p: number, n = 200): string {
  const weights = Array.from({ length: p }, (_, j) => [0.5, 0, 0.3, 0, 0.2][j] ?? 0);
  const { X, y } = linearRegressionData({ n, p, weights, noiseSd: 1, seed: 3 });
  const lines = [[...Array.from({ length: p }, (_, j) => `x${j + 1}`), "y"].join(",")];
  for (let i = 0; i < n; i++) {
    lines.push([...Array.from(X.subarray(i * p, (i + 1) * p)), y[i]].map((v) => v.toPrecision(10)).join(","));
  }
  const path = join(mkdtempSync(join(tmpdir(), "occam-bench-workers-")), `${p}-inputs.csv`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

/** Wall-clock seconds of one CLI run, the 1-minute load average before it, and its JSON without timings. */
function run(args: string[]): { seconds: number; load: number; json: string } {
  const load = loadavg()[0];
  const start = performance.now();
  const out = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  const seconds = (performance.now() - start) / 1000;
  if (out.status !== 0) throw new Error(`occam ${args.join(" ")} failed:\n${out.stderr}`);
  return { seconds, load, json: out.stdout.replace(/"seconds": [^,\n]+/g, "") };
}

export function measurements(): Record<string, number> {
  const compare = (p: number) => [
    "compare",
    writeData(p),
    "--target",
    "y",
    "--prior",
    "nig",
    "--estimator",
    "smc",
    "--json",
  ];
  const jobs: Record<string, string[]> = {
    "reproduce robot-arm --quick": ["reproduce", "robot-arm", "--quick", "--json"],
    "compare --estimator smc, 64 models": compare(6),
    "compare --estimator smc, 128 models": compare(7),
    "compare exact (Zellner–Siow), 2^23 models": ["compare", writeData(23, 1000), "--target", "y", "--json"],
  };
  // `npx tsx bench/run.ts workers compare` runs only the jobs whose name contains "compare".
  const only = process.argv[3] ?? "";
  const out: Record<string, number> = {};
  console.log(`${availableParallelism()} cores`);
  for (const [name, args] of Object.entries(jobs).filter(([name]) => name.includes(only))) {
    const one = run([...args, "--workers", "1"]);
    const two = run([...args, "--workers", "2"]);
    if (one.json !== two.json) throw new Error(`${name}: 1 and 2 workers gave different JSON`);
    console.log(
      `${name}: 1 worker ${one.seconds.toFixed(1)} s (load ${one.load.toFixed(2)}), ` +
        `2 workers ${two.seconds.toFixed(1)} s (load ${two.load.toFixed(2)}), same JSON`,
    );
    out[`${name}: speed-up with 2 workers`] = one.seconds / two.seconds;
  }
  return out;
}
