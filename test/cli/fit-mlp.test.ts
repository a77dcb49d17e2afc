import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { robotArmData } from "../../src/data/generators/robot-arm.js";
import { runCli as run } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "occam-fit-mlp-"));
function csv(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
function armCsv(name: string, n: number, seed: number): string {
  const d = robotArmData({ n, noiseSd: 0.05, seed });
  const rows = ["a1,a2,y1,y2"];
  for (let r = 0; r < n; r++) rows.push([d.X[2 * r], d.X[2 * r + 1], d.Y[2 * r], d.Y[2 * r + 1]].join(","));
  return csv(name, `${rows.join("\n")}\n`);
}

const train = armCsv("train.csv", 40, 1);
const test = armCsv("test.csv", 30, 2);

describe("occam fit-mlp", () => {
  it("prints one JSON document with the test error per output and finite numbers only", async () => {
    const { code, stdout, stderr } = await run([
      "fit-mlp",
      train,
      "--targets",
      "y1,y2",
      "--hidden",
      "3",
      "--test",
      test,
      "--draws",
      "20",
      "--warmup",
      "60",
      "--seed",
      "2",
      "--json",
    ]);
    expect(code).toBe(0);
    expect(stderr.split("\n").filter((l) => l !== "" && !l.includes("warning"))).toEqual([]);
    const doc = JSON.parse(stdout);
    expect(doc.hidden).toBe(3);
    expect(doc.inputs).toEqual(["a1", "a2"]);
    expect(doc.targets).toEqual(["y1", "y2"]);
    expect(doc.testMeanSquaredError).toHaveLength(2);
    for (const e of doc.testMeanSquaredError) expect(e).toBeGreaterThan(0);
    expect(doc.noiseStdDev).toBeGreaterThan(0);
    expect(doc.acceptanceRate).toBeGreaterThanOrEqual(0);
    expect(doc.acceptanceRate).toBeLessThanOrEqual(1);
    expect(doc.seconds).toBeGreaterThan(0);
    expect(doc.predictions.on).toBe("test");
    expect(doc.predictions.mean).toHaveLength(30);
    for (let r = 0; r < 30; r++) {
      for (let o = 0; o < 2; o++) {
        expect(doc.predictions.lower[r][o]).toBeLessThan(doc.predictions.mean[r][o]);
        expect(doc.predictions.upper[r][o]).toBeGreaterThan(doc.predictions.mean[r][o]);
      }
    }
  });

  it("prints a readable report with predictions by default", async () => {
    const { code, stdout } = await run([
      "fit-mlp",
      train,
      "--targets",
      "y1,y2",
      "--inputs",
      "a1,a2",
      "--hidden",
      "2",
      "--draws",
      "5",
      "--warmup",
      "60",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/2 tanh hidden units/);
    expect(stdout).toMatch(/y1 90% interval/);
    expect(stdout).toMatch(/first 10 of 40 rows/);
  });

  const bad: [string, string[], RegExp][] = [
    ["hidden 0", ["--targets", "y1", "--hidden", "0"], /--hidden must be a whole number ≥ 1/],
    ["hidden not a number", ["--targets", "y1", "--hidden", "many"], /--hidden/],
    ["unknown target", ["--targets", "nope", "--hidden", "2"], /Unknown target column "nope"/],
  ];
  for (const [what, args, message] of bad) {
    it(`exits 2 with one line on stderr for ${what}`, async () => {
      const { code, stdout, stderr } = await run(["fit-mlp", train, ...args]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(message);
    });
  }

  it("refuses predictions from a chain that never moved, the same way with and without --json", async () => {
    // Columns of order 1e12 and 1e24 and no warm-up to adapt the step: every HMC trajectory diverges.
    const rows = Array.from({ length: 30 }, (_, r) => {
      const x = (Math.abs(Math.sin(r * 12.9898 + 1) * 43758.5453) % 1) * 1e12;
      return `${x},${x * 1e12 + Math.cos(r) * 1e20}`;
    });
    const huge = csv("huge.csv", `x,y\n${rows.join("\n")}\n`);
    const args = ["fit-mlp", huge, "--targets", "y", "--hidden", "2", "--draws", "10", "--warmup", "0"];
    const plain = await run(args);
    const json = await run([...args, "--json"]);
    for (const r of [plain, json]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(
        /the HMC chain never moved \(acceptance 0, 10 of 10 kept trajectories divergent\)/,
      );
      expect(r.stderr).toMatch(/standardise the columns/);
    }
    expect(json.stderr).toBe(plain.stderr);
  });

  it("exits 2 naming the row and column of a missing or non-numeric value", async () => {
    const missing = csv("missing.csv", "x,y\n1,2\n2,\n3,5\n4,4\n");
    const text = csv("text.csv", "x,y\n1,2\n2,abc\n3,5\n4,4\n");
    for (const [file, message] of [
      [missing, /Row 3, column "y".*missing value/],
      [text, /Row 3, column "y".*"abc" is not a finite number/],
    ] as const) {
      const { code, stdout, stderr } = await run(["fit-mlp", file, "--targets", "y", "--hidden", "2"]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(message);
    }
  });

  it("writes an HTML report with predictions against the targets, the intervals' coverage and the traces", async () => {
    const report = join(dir, "fit.html");
    const args = ["fit-mlp", train, "--targets", "y1,y2", "--hidden", "3", "--test", test];
    const { code } = await run([
      ...args,
      "--draws",
      "20",
      "--warmup",
      "60",
      "--seed",
      "2",
      "--report",
      report,
    ]);
    expect(code).toBe(0);
    const html = readFileSync(report, "utf8");
    expect(html).toContain("Bayesian network for y1, y2");
    expect(html).toMatch(/inside the 90 % interval/);
    expect(html).toMatch(/<td>y1<\/td><td>[0-9.e-]+<\/td><td>[0-9.]+ %<\/td>/);
    // The predictions, and traces of log L, noise sd and two precisions (one chain: no rank plots).
    expect(html.match(/<svg/g)).toHaveLength(5);
    expect(html).not.toContain("<script");
  });
});
