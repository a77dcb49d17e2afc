/**
 * `occam compare` speed and memory, with R's BayesFactor beside it where R is installed:
 * - all 1023 Zellner–Siow subsets of a 442-row, 10-input data set against `regressionBF(whichModels =
 *   "all")` (bench/zellner-siow-speed.R, whose `system.time` is compute time): occam's compute time warm
 *   (median of 5 calls after one, as R's is measured in a session with BayesFactor loaded), its first call
 *   in a fresh process (the JSON's `seconds`), and the whole `occam compare` process;
 * - all 2^20 subsets of a 1000-row, 20-input data set, and all 2^25 of 25 inputs with `--top 10`: the
 *   whole process's seconds and peak resident memory (`/usr/bin/time -f %M`).
 * The CLI runs need `dist/` (`npm run build`). Usage: `npm run bench -- compare`, or `npx tsx
 * bench/compare.bench.ts` (add `--quick` to skip 2^25).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { numericTable, readCsv } from "../src/data/csv.js";
import { linearRegressionData } from "../src/data/generators/linear.js";
import { compareLinearModels } from "../src/selection/linear.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "occam-bench-compare-"));

/** A CSV of y on p inputs, half of which matter. */
function writeData(n: number, p: number, seed: number): string {
  const weights = Array.from({ length: p }, (_, j) => (j % 2 === 0 ? 0.3 : 0));
  const { X, y } = linearRegressionData({ n, p, weights, noiseSd: 1, seed });
  const lines = [[...Array.from({ length: p }, (_, j) => `x${j + 1}`), "y"].join(",")];
  for (let i = 0; i < n; i++) {
    lines.push([...Array.from(X.subarray(i * p, (i + 1) * p)), y[i]].map((v) => v.toPrecision(10)).join(","));
  }
  const path = join(dir, `data-${n}x${p}.csv`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** regressionBF's elapsed seconds on the CSV, or undefined without R and BayesFactor. */
function rSeconds(path: string): number | undefined {
  const run = spawnSync("Rscript", [join(root, "bench/zellner-siow-speed.R"), path, "y"], {
    encoding: "utf8",
  });
  const match = /regressionBF seconds ([\d.]+)/.exec(run.stdout ?? "");
  return match ? Number(match[1]) : undefined;
}

/** One `occam compare FILE --target y --top 10 --json` process: wall seconds, peak MB, the JSON's seconds. */
function wholeProcess(path: string): { seconds: number; megabytes: number; compute: number } {
  const start = performance.now();
  const run = spawnSync(
    "/usr/bin/time",
    ["-f", "%M", process.execPath, cli, "compare", path, "--target", "y", "--top", "10", "--json"],
    { encoding: "utf8", maxBuffer: 1 << 26 },
  );
  const seconds = (performance.now() - start) / 1000;
  if (run.status !== 0) throw new Error(`occam compare failed: ${run.stderr}`);
  const kilobytes = Number(run.stderr.trim().split("\n").at(-1));
  return { seconds, megabytes: kilobytes / 1024, compute: JSON.parse(run.stdout).seconds };
}

export function measurements(quick = process.argv.includes("--quick")): Record<string, number> {
  const out: Record<string, number> = {};

  const zsPath = writeData(442, 10, 1);
  const data = numericTable(readCsv(zsPath), { target: "y" });
  compareLinearModels(data); // warm-up
  const warm = median(Array.from({ length: 5 }, () => compareLinearModels(data).seconds));
  const fresh = Array.from({ length: 3 }, () => wholeProcess(zsPath));
  const first = median(fresh.map((f) => f.compute));
  out["1023 subsets, n = 442: occam compute seconds, warm"] = warm;
  out["1023 subsets: occam compute seconds, first call in a fresh process"] = first;
  out["1023 subsets: occam compare whole process seconds"] = median(fresh.map((f) => f.seconds));
  const r = rSeconds(zsPath);
  if (r !== undefined) {
    out["1023 subsets: R regressionBF seconds"] = r;
    out["1023 subsets: speed-up over R, warm"] = r / warm;
    out["1023 subsets: speed-up over R, first call"] = r / first;
    out["1023 subsets: speed-up over R, whole occam process"] =
      r / out["1023 subsets: occam compare whole process seconds"];
  }

  const sizes: [number, number][] = quick
    ? [[20, 3]]
    : [
        [20, 3],
        [25, 1],
      ];
  for (const [p, runs] of sizes) {
    const path = writeData(1000, p, p);
    const results = Array.from({ length: runs }, () => wholeProcess(path));
    out[`2^${p} subsets, n = 1000: whole process seconds`] = median(results.map((f) => f.seconds));
    out[`2^${p} subsets: peak resident MB`] = Math.max(...results.map((f) => f.megabytes));
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, value] of Object.entries(measurements()))
    console.log(`${name}: ${Number(value.toPrecision(4))}`);
}
