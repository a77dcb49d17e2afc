import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { Reproduction } from "../../src/cli/reproductions.js";
import { runCli } from "../support/cli.js";

// One reproduction without a report, beside the real ones, to see `--report` refused for it.
vi.mock("../../src/cli/reproductions.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/cli/reproductions.js")>();
  const bare: Reproduction = { run: () => ({ ran: true }), format: () => "ran", parallel: false };
  return { ...original, reproductions: { ...original.reproductions, bare: async () => bare } };
});

const folder = mkdtempSync(join(tmpdir(), "occam-reproduce-report-"));

describe("occam reproduce --report", () => {
  it("writes the page beside the table: the thesis's numbers and occam's, every plot an inline SVG", async () => {
    const file = join(folder, "samplers.html");
    const { code, stdout, stderr } = await runCli(["reproduce", "samplers", "--quick", "--report", file]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/Correlated 2-D Gaussians/);
    const html = readFileSync(file, "utf8");
    expect(html).toContain("Content-Security-Policy");
    expect(html).toContain("0.8308, 0.6333, 0.8303");
    expect(html.match(/<svg/g)?.length).toBe(3);
    expect(html).not.toMatch(/<script/i);
  });

  it("refuses a report it cannot write, and a reproduction without one, before running anything (exit 2)", async () => {
    const wrongName = await runCli(["reproduce", "samplers", "--report", join(folder, "samplers.txt")]);
    expect(wrongName.code).toBe(2);
    expect(wrongName.stderr).toMatch(/name it FILE\.html/);
    const noFolder = await runCli(["reproduce", "samplers", "--report", join(folder, "missing", "r.html")]);
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toMatch(/does not exist/);
    const file = join(folder, "bare.html");
    const bare = await runCli(["reproduce", "bare", "--report", file]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toMatch(/reproduce bare has no HTML report/);
    expect(existsSync(file)).toBe(false);
  });
});
