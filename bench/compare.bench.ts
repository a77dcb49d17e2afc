/**
 * `occam compare` speed, with R's BayesFactor beside it where R is installed:
 * - all 1023 Zellner–Siow subsets of a 442-row, 10-input data set (compute time, as `regressionBF`'s
 *   `system.time` is), occam against `regressionBF(whichModels = "all")`;
 * - all 2^20 Zellner–Siow subsets (the default prior) of a 1000-row, 20-input data set, the whole
 *   `occam compare … --top 10` process (needs `dist/`, which `npm ci` builds).
 * Peak memory of the same commands: `/usr/bin/time -f "%e s %M KB" node dist/cli/main.js compare …`.
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

export function measurements(): Record<string, number> {
  const out: Record<string, number> = {};

  const zsPath = writeData(442, 10, 1);
  const data = numericTable(readCsv(zsPath), { target: "y" });
  compareLinearModels(data, { prior: "zellner-siow" }); // warm-up
  out["zellner-siow 1023 subsets, n = 442: occam seconds"] = median(
    Array.from({ length: 5 }, () => compareLinearModels(data, { prior: "zellner-siow" }).seconds),
  );
  const r = rSeconds(zsPath);
  if (r !== undefined) {
    out["zellner-siow 1023 subsets: R regressionBF seconds"] = r;
    out["zellner-siow 1023 subsets: speed-up over R"] =
      r / out["zellner-siow 1023 subsets, n = 442: occam seconds"];
  }

  const nigPath = writeData(1000, 20, 2);
  const cli = join(root, "dist/cli/main.js");
  const times = Array.from({ length: 3 }, () => {
    const start = performance.now();
    const run = spawnSync(process.execPath, [cli, "compare", nigPath, "--target", "y", "--top", "10"]);
    if (run.status !== 0) throw new Error(`occam compare failed: ${run.stderr}`);
    return (performance.now() - start) / 1000;
  });
  out["zellner-siow 2^20 subsets, n = 1000: whole process seconds"] = median(times);
  return out;
}
