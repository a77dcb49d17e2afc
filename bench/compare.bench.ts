/**
 * `occam compare` speed and memory, with R's BayesFactor beside it where R is installed:
 * - all 1023 Zellner–Siow subsets of a 442-row, 10-input data set against `regressionBF(whichModels =
 *   "all")` (bench/zellner-siow-speed.R, whose `system.time` is compute time): occam's compute time warm
 *   (median of 5 calls after three, as R's is measured in a session with BayesFactor loaded), its first call
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
import { pathToFileURL, fileURLToPath as toPath } from "node:url";
import { linearRegressionData } from "../src/data/generators/linear.js";

const root = join(dirname(toPath(import.meta.url)), "..");
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

/** regressionBF's elapsed and CPU seconds on the CSV, or undefined without R and BayesFactor. */
function rSeconds(path: string): { wall: number; cpu: number } | undefined {
  const run = spawnSync("Rscript", [join(root, "bench/zellner-siow-speed.R"), path, "y"], {
    encoding: "utf8",
  });
  const match = /regressionBF seconds ([\d.]+) cpu ([\d.]+)/.exec(run.stdout ?? "");
  return match ? { wall: Number(match[1]), cpu: Number(match[2]) } : undefined;
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

/**
 * Median wall and CPU seconds of 5 calls of the built library (dist/, what users run) on a CSV, after
 * three calls that let the JIT compile the hot loops (the first two take 4–5 times as long), in a plain
 * node process: under tsx's loader even dist/ is recompiled on the fly, and its hot loops ran twice as
 * slow. CPU time is the fairer figure on a shared machine, where a 50 ms run loses its core to others.
 */
function warmSeconds(path: string): { wall: number; cpu: number } {
  const script = `
    import { numericTable } from ${JSON.stringify(pathToFileURL(join(root, "dist/data/csv.js")).href)};
    import { readCsv } from ${JSON.stringify(pathToFileURL(join(root, "dist/data/csv-file.js")).href)};
    import { compareLinearModels } from ${JSON.stringify(pathToFileURL(join(root, "dist/selection/linear.js")).href)};
    const data = numericTable(readCsv(${JSON.stringify(path)}), { target: "y" });
    for (let i = 0; i < 3; i++) compareLinearModels(data);
    const wall = [];
    const cpu = [];
    for (let i = 0; i < 5; i++) {
      const before = process.cpuUsage();
      wall.push(compareLinearModels(data).seconds);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1e6);
    }
    const median = (v) => v.sort((a, b) => a - b)[2];
    console.log(median(wall), median(cpu));`;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env });
  if (run.status !== 0) throw new Error(`the warm measurement failed: ${run.stderr}`);
  const [wall, cpu] = run.stdout.trim().split(" ").map(Number);
  return { wall, cpu };
}

export function measurements(quick = process.argv.includes("--quick")): Record<string, number> {
  const out: Record<string, number> = {};

  const zsPath = writeData(442, 10, 1);
  const warm = warmSeconds(zsPath);
  const fresh = Array.from({ length: 3 }, () => wholeProcess(zsPath));
  const first = median(fresh.map((f) => f.compute));
  const whole = median(fresh.map((f) => f.seconds));
  out["1023 subsets, n = 442: occam compute seconds, warm (wall)"] = warm.wall;
  out["1023 subsets: occam compute seconds, warm (CPU)"] = warm.cpu;
  out["1023 subsets: occam compute seconds, first call in a fresh process"] = first;
  out["1023 subsets: occam compare whole process seconds"] = whole;
  const r = rSeconds(zsPath);
  if (r !== undefined) {
    out["1023 subsets: R regressionBF seconds (wall)"] = r.wall;
    out["1023 subsets: R regressionBF seconds (CPU)"] = r.cpu;
    out["1023 subsets: speed-up over R, warm, wall"] = r.wall / warm.wall;
    out["1023 subsets: speed-up over R, warm, CPU"] = r.cpu / warm.cpu;
    out["1023 subsets: speed-up over R, first call"] = r.wall / first;
    out["1023 subsets: speed-up over R, whole occam process"] = r.wall / whole;
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

if (process.argv[1] === toPath(import.meta.url)) {
  for (const [name, value] of Object.entries(measurements())) {
    console.log(`${name}: ${Number(value.toPrecision(4))}`);
  }
}
