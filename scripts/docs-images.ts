/**
 * Makes the images of docs/images/ with occam's own commands: each command runs on a bundled example
 * with `--report`, and chosen plots of its report are saved as standalone SVG files.
 * Usage: `npx tsx scripts/docs-images.ts [name…]` (all images, or those whose name is given).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processIo } from "../src/cli/io.js";
import { main } from "../src/cli/program.js";

interface Job {
  /** The command line, without `--report`. */
  readonly args: readonly string[];
  /** The report's plots to keep, by their order in the page, and the file each becomes. */
  readonly figures: Readonly<Record<number, string>>;
}

const JOBS: Readonly<Record<string, Job>> = {
  compare: {
    args: ["compare", "examples/wine-alcohol.csv", "--target", "alcohol"],
    figures: { 1: "compare-size.svg", 2: "compare-inclusion.svg", 4: "compare-model-space.svg" },
  },
  evidence: {
    args: ["evidence", "examples/evidence-model.mjs", "--methods", "bridge,smc,stepping-stone,ais,laplace"],
    figures: { 0: "evidence-estimates.svg", 1: "evidence-tempering.svg", 3: "evidence-rank.svg" },
  },
  "select-inputs": {
    args: ["select-inputs", "data/sykacek/wine.csv", "--target", "class", "--split", "0.5", "--chains", "4"],
    figures: { 0: "select-inputs-probabilities.svg", 2: "select-inputs-trace.svg" },
  },
  classify: {
    args: [
      "classify",
      "data/sykacek/pima-train.csv",
      "--target",
      "type",
      "--test",
      "data/sykacek/pima-test.csv",
    ],
    figures: {
      0: "classify-evidence.svg",
      1: "classify-weights.svg",
      2: "classify-log-loss.svg",
      4: "classify-reliability.svg",
    },
  },
  "fit-mlp": {
    args: [
      "fit-mlp",
      "examples/robot-arm-train.csv",
      "--targets",
      "y1,y2",
      "--hidden",
      "16",
      "--test",
      "examples/robot-arm-test.csv",
    ],
    figures: { 0: "fit-mlp-predictions.svg" },
  },
  "reproduce-robot-arm": {
    args: ["reproduce", "robot-arm", "--quick"],
    figures: { 0: "reproduce-robot-arm-evidence.svg" },
  },
};

const wanted = process.argv.slice(2);
const folder = mkdtempSync(join(tmpdir(), "occam-docs-"));
for (const [name, job] of Object.entries(JOBS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const report = join(folder, `${name}.html`);
  const quiet = { ...processIo, stdout: () => {} };
  const code = await main([...job.args, "--report", report], quiet);
  if (code !== 0) throw new Error(`occam ${job.args.join(" ")} exited with ${code}`);
  const svgs = readFileSync(report, "utf8").match(/<svg[\s\S]*?<\/svg>/g) ?? [];
  for (const [index, file] of Object.entries(job.figures)) {
    const svg = svgs[Number(index)];
    if (svg === undefined) throw new Error(`the ${name} report has no plot ${index}`);
    writeFileSync(join("docs/images", file), `${svg}\n`);
    console.log(`docs/images/${file}`);
  }
}
