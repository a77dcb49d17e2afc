import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

/** The exact log evidence of examples/evidence-model.mjs: y ~ N(0, I + 4·11ᵀ). */
function exactLogEvidence(): number {
  const y = [0.8, 1.9, 1.1, 0.4, 1.6, 1.3, 0.9, 2.2, 1.0, 1.5, 0.7, 1.2];
  const n = y.length;
  const sum = y.reduce((a, b) => a + b, 0);
  const sumSq = y.reduce((a, b) => a + b * b, 0);
  return -0.5 * (n * Math.log(2 * Math.PI) + Math.log(1 + 4 * n) + sumSq - (4 * sum * sum) / (1 + 4 * n));
}

describe("occam evidence", () => {
  it("runs bridge sampling and its quick cross-check on a user's model and prints each log Z with its error (JSON)", async () => {
    const run = await runCli(["evidence", "examples/evidence-model.mjs", "--json"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const report = JSON.parse(run.stdout);
    expect(report.results.map((r: { method: string }) => r.method)).toEqual(["bridge", "smc"]);
    // The shared posterior draws' cost, apart from bridge sampling's own.
    expect(report.posteriorDraws.nLikelihoodEvals).toBeGreaterThan(report.results[0].nLikelihoodEvals);
    const exact = exactLogEvidence();
    for (const r of report.results) {
      expect(r.reliable).toBe(true);
      expect(r.warnings).toEqual([]);
      expect(Math.abs(r.logZ - exact)).toBeLessThan(4 * r.stdErr + 0.01);
      expect(r.nLikelihoodEvals).toBeGreaterThan(0);
      expect(r.seconds).toBeGreaterThan(0);
    }
    expect(report.agree).toBe(true);
    expect(Math.abs(report.consensus.logZ - exact)).toBeLessThan(4 * report.consensus.stdErr + 0.01);
    expect(report.failures).toEqual([]);
  });

  it("runs nested sampling beside bridge sampling and draws its run in the report", async () => {
    const file = `${mkdtempSync(join(tmpdir(), "occam-"))}/evidence.html`;
    const run = await runCli([
      "evidence",
      "examples/evidence-model.mjs",
      "--methods",
      "nested,bridge",
      "--json",
      "--report",
      file,
    ]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    const nested = report.results.find((r: { method: string }) => r.method === "nested");
    expect(nested.reliable).toBe(true);
    expect(Math.abs(nested.logZ - exactLogEvidence())).toBeLessThan(3 * nested.stdErr);
    expect(report.agree).toBe(true);
    expect(readFileSync(file, "utf8")).toContain("Nested sampling runs");
  });

  it("prints a table, marks an unreliable method and leaves it out of the consensus, and gives its warnings on stderr", async () => {
    const run = await runCli([
      "evidence",
      "examples/evidence-model.mjs",
      "--methods",
      "bridge,harmonic-mean,smc",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/harmonic-mean .* NO: see the warnings/);
    expect(run.stdout).toMatch(/The 2 reliable results agree within 3 standard errors/);
    expect(run.stdout).toMatch(/Consensus of the reliable results: log Z = -14\.62/);
    expect(run.stderr).toMatch(/^occam: harmonic-mean: the harmonic mean estimator has infinite variance/);
  });

  it("falls back on nested and tmcmc where neither default method is reliable, and says so (centred eight schools)", async () => {
    const run = await runCli(["evidence", "examples/real-models/eight-schools-centred.mjs"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/bridge .* NO: see the warnings/);
    expect(run.stdout).toMatch(/smc .* NO: see the warnings/);
    expect(run.stdout).toMatch(/\nnested .* yes/);
    expect(run.stdout).toMatch(/\ntmcmc .* yes/);
    expect(run.stdout).toContain("Neither bridge nor smc was reliable, so nested and tmcmc ran too");
    // The reference: −31.3113 by quadrature (examples/real-models/references.json).
    const consensus = /Consensus of the reliable results: log Z = (-?[\d.]+) ± ([\d.]+)/.exec(run.stdout);
    if (consensus === null) throw new Error(`no consensus in:\n${run.stdout}`);
    expect(Math.abs(Number(consensus[1]) + 31.311347)).toBeLessThan(3 * Number(consensus[2]) + 0.01);
  });

  it("refuses a missing file, a module without a default export, a broken model, and unknown or too few methods (exit 2)", async () => {
    const missing = await runCli(["evidence", "test/cli/fixtures/missing.mjs"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^occam: cannot load the model module test\/cli\/fixtures\/missing.mjs/);
    const noDefault = await runCli(["evidence", "test/cli/fixtures/no-default.mjs"]);
    expect(noDefault.code).toBe(2);
    expect(noDefault.stderr).toMatch(/no default export that is a model/);
    const nan = await runCli(["evidence", "test/cli/fixtures/nan-likelihood.mjs"]);
    expect(nan.code).toBe(2);
    expect(nan.stderr).toMatch(/nan-likelihood.mjs: model.logLikelihood is NaN at prior draw 0/);
    const unknown = await runCli(["evidence", "examples/evidence-model.mjs", "--methods", "bridge,magic"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown method "magic"/);
    const one = await runCli(["evidence", "examples/evidence-model.mjs", "--methods", "bridge"]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/at least two methods/);
    for (const r of [missing, noDefault, nan, unknown, one]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a report that is not .html or whose folder does not exist, before doing any work (exit 2)", async () => {
    const text = await runCli(["evidence", "examples/evidence-model.mjs", "--report", "out.txt"]);
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/the report is an HTML page: name it FILE.html, got "out.txt"/);
    const folder = await runCli([
      "evidence",
      "examples/evidence-model.mjs",
      "--report",
      "no/such/folder/r.html",
    ]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/the report's folder no\/such\/folder does not exist/);
    for (const r of [text, folder]) {
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
