import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRng } from "../../src/random/rng.js";
import { type PageVisit, visitReport } from "../support/browser.js";
import { runCli } from "../support/cli.js";

const HOSTILE = "<script>alert(1)</script>";
const folder = mkdtempSync(join(tmpdir(), "occam-report-"));

afterAll(() => {
  // The screenshots stay for a person to look at; the folder is in the system's temporary space.
  console.log(`report screenshots in ${folder}`);
});

/** Every check a report must pass when a person opens it. */
function expectCleanPage(visit: PageVisit, minPlots: number): void {
  expect(visit.consoleProblems).toEqual([]);
  expect(visit.requests).toEqual([]);
  expect(visit.dialogs).toEqual([]);
  expect(visit.scripts).toBe(0);
  expect(visit.horizontalOverflow, "the page scrolls sideways").toBe(0);
  expect(visit.svgs.length).toBeGreaterThanOrEqual(minPlots);
  for (const svg of visit.svgs) {
    expect(svg.width).toBeGreaterThan(50);
    expect(svg.height).toBeGreaterThan(20);
    expect(svg.marks).toBeGreaterThan(5);
  }
  expect(visit.screenshotBytes).toBeGreaterThan(20_000);
}

describe("reports in a browser", () => {
  it("compare: loads offline with no console error, draws every plot, and shows a hostile column name as text", async () => {
    const rng = createRng(3);
    const rows = [`x,${HOSTILE},z,y`];
    for (let i = 0; i < 80; i++) {
      const x = rng.normal();
      const h = rng.normal();
      const z = rng.normal();
      rows.push(`${x},${h},${z},${1 + 2 * x + 0.5 * rng.normal()}`);
    }
    const csv = join(folder, "hostile.csv");
    writeFileSync(csv, `${rows.join("\n")}\n`);
    const report = join(folder, "compare.html");
    const run = await runCli(["compare", csv, "--target", "y", "--report", report]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(readFileSync(report, "utf8")).not.toContain(HOSTILE);
    const visit = await visitReport(report, join(folder, "compare.png"));
    expectCleanPage(visit, 5);
    expect(visit.text).toContain(HOSTILE);
  });

  it("compare --family bernoulli: loads offline with no console error, draws every plot, and shows a hostile column name as text", async () => {
    const rng = createRng(5);
    const rows = [`x,${HOSTILE},z,y`];
    for (let i = 0; i < 120; i++) {
      const [x, h, z] = [rng.normal(), rng.normal(), rng.normal()];
      rows.push(`${x},${h},${z},${rng.uniform() < 1 / (1 + Math.exp(-1.5 * x)) ? "yes" : "no"}`);
    }
    const csv = join(folder, "hostile-binary.csv");
    writeFileSync(csv, `${rows.join("\n")}\n`);
    const report = join(folder, "compare-glm.html");
    const run = await runCli(["compare", csv, "--target", "y", "--family", "bernoulli", "--report", report]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(readFileSync(report, "utf8")).not.toContain(HOSTILE);
    const visit = await visitReport(report, join(folder, "compare-glm.png"));
    // Probabilities, log BF by size, inclusion, coefficients, model space.
    expectCleanPage(visit, 5);
    expect(visit.text).toContain(HOSTILE);
    expect(visit.text).toContain("Model-averaged coefficients, in the inputs' units");
  });

  it("classify: loads offline with no console error, draws every plot, and shows a hostile class label as text", async () => {
    const rng = createRng(4);
    const rows = ["x1,x2,label"];
    for (let i = 0; i < 45; i++) {
      const k = i % 3;
      rows.push(`${k + rng.normal()},${rng.normal()},${[HOSTILE, "b", "c"][k]}`);
    }
    const csv = join(folder, "hostile-classes.csv");
    writeFileSync(csv, `${rows.join("\n")}\n`);
    const report = join(folder, "classify.html");
    // Cheap settings: the page, not the numbers, is under test; unreliable evidences are kept so that
    // every plot has something to draw.
    const run = await runCli([
      "classify",
      csv,
      "--target",
      "label",
      "--split",
      "0.3",
      "--families",
      "logistic,pknn",
      "--draws",
      "200",
      "--include-unreliable",
      "--report",
      report,
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(readFileSync(report, "utf8")).not.toContain(HOSTILE);
    const visit = await visitReport(report, join(folder, "classify.png"));
    // Evidences, weights, test log loss, test accuracy, reliability diagram.
    expectCleanPage(visit, 5);
    expect(visit.text).toContain(HOSTILE);
  });

  it("evidence: loads offline with no console error and draws every plot", async () => {
    const report = join(folder, "evidence.html");
    const run = await runCli(["evidence", "examples/evidence-model.mjs", "--report", report]);
    expect(run.code).toBe(0);
    const visit = await visitReport(report, join(folder, "evidence.png"));
    // Estimates, E_β[log L] against β, and the posterior's trace and rank plot.
    expectCleanPage(visit, 4);
    expect(visit.text).toContain("Consensus of the reliable results");
  });

  it("reproduce samplers: loads offline and draws the thesis's numbers beside occam's", async () => {
    const report = join(folder, "reproduce-samplers.html");
    const run = await runCli(["reproduce", "samplers", "--quick", "--report", report]);
    expect(run.code).toBe(0);
    const visit = await visitReport(report, join(folder, "reproduce-samplers.png"));
    expectCleanPage(visit, 3);
    expect(visit.text).toContain("0.8308, 0.6333, 0.8303");
  });
});
