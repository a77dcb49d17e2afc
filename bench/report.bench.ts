/**
 * What `--report FILE.html` adds to a command: loading the report modules (vega and vega-lite, the
 * first time), building every plot and writing the page, measured in-process on the commands' bundled
 * examples. The computation the command does anyway (the comparison, the fit) is not counted.
 *
 * - evidence: examples/evidence-model.mjs with bridge, smc, stepping-stone (8 posterior chains of 1000
 *   draws behind the trace and rank plot);
 * - compare: examples/wine-alcohol.csv, all 4096 models listed (2000 drawn against their size);
 * - classify: Pima (Ripley's 200 training and 332 test rows), logistic and pknn at 1000 draws.
 *
 * The first, cold build is what a command pays; the warm median shows the rendering alone.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCsv, readCsvColumns } from "../src/data/csv-file.js";
import { formulaDesign } from "../src/data/formula.js";
import { compareEstimators } from "../src/evidence/compare.js";
import { classifierTable, encodeClassifierTable } from "../src/models/classifiers/index.js";
import { loadModelFile } from "../src/parallel/model-file.js";
import { compareClassifierFamilies } from "../src/selection/classifier-families.js";
import { compareLinearModels } from "../src/selection/linear.js";

const folder = mkdtempSync(join(tmpdir(), "occam-report-bench-"));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Seconds of the first call of `build` (cold: modules load) and the median of five more. */
async function time(name: string, build: () => Promise<string>): Promise<Record<string, number>> {
  let start = performance.now();
  const html = await build();
  writeFileSync(join(folder, `${name}.html`), html);
  const cold = (performance.now() - start) / 1000;
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    start = performance.now();
    writeFileSync(join(folder, `${name}.html`), await build());
    warm.push((performance.now() - start) / 1000);
  }
  return {
    [`${name} report, first (s)`]: cold,
    [`${name} report, warm median (s)`]: median(warm),
    [`${name} report (kB)`]: html.length / 1000,
  };
}

export async function measurements(): Promise<Record<string, number>> {
  const model = await loadModelFile("examples/evidence-model.mjs");
  const comparison = compareEstimators(model, ["bridge", "smc", "stepping-stone"], { seed: 1 });
  const evidence = await time("evidence", async () => {
    const { evidenceReportHtml } = await import("../src/report/evidence.js");
    return evidenceReportHtml(comparison, { model: "examples/evidence-model.mjs", seed: 1 });
  });

  const csv = await readCsvColumns("examples/wine-alcohol.csv");
  const data = formulaDesign(
    csv,
    { target: "alcohol", terms: csv.columns.filter((c) => c !== "alcohol").map((c) => [c]), dot: false },
    { heredity: true },
  );
  const result = compareLinearModels(data, {});
  const compare = await time("compare", async () => {
    const { compareReportHtml } = await import("../src/report/compare.js");
    return compareReportHtml(result, { data: "examples/wine-alcohol.csv", target: "alcohol" });
  });

  const { data: train, encoding } = classifierTable(readCsv("data/sykacek/pima-train.csv"), {
    target: "type",
  });
  const test = encodeClassifierTable(readCsv("data/sykacek/pima-test.csv"), encoding, "pima-test.csv");
  const families = compareClassifierFamilies(train, { test, families: ["logistic", "pknn"], draws: 1000 });
  const classify = await time("classify", async () => {
    const { classifyReportHtml } = await import("../src/report/classify.js");
    return classifyReportHtml(families, {
      data: "data/sykacek/pima-train.csv",
      target: "type",
      test: "data/sykacek/pima-test.csv",
    });
  });
  return { ...evidence, ...compare, ...classify };
}
