import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

describe("the browser module (npm run build:web)", () => {
  it("bundles without a Node built-in and compares the wine example as the CLI does, to the last digit", async () => {
    const folder = mkdtempSync(join(tmpdir(), "occam-web-"));
    const file = join(folder, "occam.js");
    // esbuild's browser platform has no built-ins: a `node:` import anywhere in reach fails the build.
    execFileSync(process.execPath, ["scripts/build-web.mjs", folder], { stdio: "pipe" });
    const bundle = readFileSync(file, "utf8");
    expect(bundle).not.toMatch(/["']node:[a-z_]+["']/);
    for (const builtin of ["fs", "worker_threads", "child_process", "os", "path"]) {
      expect(bundle, builtin).not.toMatch(new RegExp(`(from|require\\()\\s*["']${builtin}["']`));
    }
    const occam = await import(pathToFileURL(file).href);
    const text = readFileSync("examples/wine-alcohol.csv", "utf8");
    const columns = occam.csvColumns(occam.parseCsv(text));
    const inputs = columns.columns.filter((c: string) => c !== "alcohol");
    const data = occam.formulaDesign(
      columns,
      { target: "alcohol", terms: inputs.map((c: string) => [c]), dot: false },
      { heredity: true },
    );
    const inPage = occam.compareLinearModels(data);
    const run = await runCli(["compare", "examples/wine-alcohol.csv", "--target", "alcohol", "--json"]);
    const cli = JSON.parse(run.stdout);
    expect(inPage.modelCount).toBe(4096);
    expect(JSON.stringify(inPage.models)).toBe(JSON.stringify(cli.models));
    expect(JSON.stringify(inPage.inclusionProbabilities)).toBe(JSON.stringify(cli.inclusionProbabilities));
  });
});
