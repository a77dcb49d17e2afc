/**
 * Peak memory of `occam compare` on a large CSV: 2 million rows and 5 columns (four inputs and y,
 * about 184 MB), the size at which reading the file used to dominate the process's memory. Writes the
 * file once (into $TMPDIR, reused while it exists), then runs the built CLI (`dist/`, from `npm run
 * build`) under `/usr/bin/time -f %M` and reports the peak resident set size and the wall time.
 * Usage: `npm run bench -- csv-memory`, or `npx tsx bench/csv-memory.ts [rows]`.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRng } from "../src/random/rng.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Writes y = 0.5 x1 − 0.25 x3 + noise on four standard-normal inputs, 15 significant digits, in blocks. */
function writeLargeCsv(path: string, rows: number): void {
  const rng = createRng(2024);
  const fd = openSync(path, "w");
  writeSync(fd, "x1,x2,x3,x4,y\n");
  const block: string[] = [];
  for (let i = 0; i < rows; i++) {
    const x = [rng.normal(), rng.normal(), rng.normal(), rng.normal()];
    const y = 0.5 * x[0] - 0.25 * x[2] + rng.normal();
    block.push([...x, y].map((v) => v.toPrecision(15)).join(","));
    if (block.length === 10000 || i === rows - 1) {
      writeSync(fd, `${block.join("\n")}\n`);
      block.length = 0;
    }
  }
  closeSync(fd);
}

/** Peak resident set size (MB) and seconds of `occam compare FILE --target y`. */
function peak(path: string): { megabytes: number; seconds: number } {
  const cli = join(root, "dist/cli/main.js");
  const start = performance.now();
  const run = spawnSync(
    "/usr/bin/time",
    ["-f", "%M", process.execPath, cli, "compare", path, "--target", "y", "--top", "5"],
    { encoding: "utf8" },
  );
  const seconds = (performance.now() - start) / 1000;
  if (run.status !== 0) throw new Error(`occam compare failed: ${run.stderr}`);
  const kilobytes = Number(run.stderr.trim().split("\n").at(-1));
  return { megabytes: kilobytes / 1024, seconds };
}

export function measurements(rows = 2_000_000): Record<string, number> {
  const path = join(tmpdir(), `occam-bench-${rows}x5.csv`);
  if (!existsSync(path)) writeLargeCsv(path, rows);
  const { megabytes, seconds } = peak(path);
  return {
    [`csv of ${rows} rows × 5 columns: file MB`]: statSync(path).size / 1e6,
    "occam compare on it: peak RSS MB": megabytes,
    "occam compare on it: seconds": seconds,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  for (const [name, value] of Object.entries(measurements(rows))) console.log(`${name}: ${value.toFixed(1)}`);
}
