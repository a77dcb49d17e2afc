import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as run } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "occam-classify-"));
function csv(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// Two classes separated along x1; x2 is noise; colour is a category that follows the class loosely.
const rows = Array.from({ length: 60 }, (_, r) => {
  const cls = r % 2 === 0 ? "yes" : "no";
  const x1 = (cls === "yes" ? 1 : -1) + 1.2 * Math.sin(r * 1.7);
  const x2 = Math.cos(r * 2.3);
  const colour = (r * 7) % 5 < 3 ? (cls === "yes" ? "red" : "blue") : "green";
  return `${x1.toFixed(3)},${x2.toFixed(3)},${colour},${cls}`;
});
const train = csv("train.csv", `x1,x2,colour,y\n${rows.slice(0, 45).join("\n")}\n`);
const test = csv("test.csv", `x1,x2,colour,y\n${rows.slice(45).join("\n")}\n`);

describe("occam classify", () => {
  it("prints one JSON document: each family's evidence, probability and test scores, both averages, the confusion matrix", async () => {
    const { code, stdout, stderr } = await run([
      "classify",
      train,
      "--target",
      "y",
      "--test",
      test,
      "--factors",
      "colour",
      "--families",
      "logistic,pknn",
      "--draws",
      "600",
      "--seed",
      "3",
      "--json",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const r = JSON.parse(stdout);
    expect(r.seed).toBe(3);
    expect(r.classes).toEqual(["no", "yes"]);
    expect(r.families.map((f: { name: string }) => f.name)).toEqual(["logistic", "pknn"]);
    for (const f of r.families) {
      for (const key of ["logEvidence", "stdErr", "accuracy", "logLoss", "brier", "seconds"])
        expect(typeof f[key]).toBe("number");
      expect(f.logEvidence).toBeLessThan(0);
      expect(f.probability === null || (f.probability >= 0 && f.probability <= 1)).toBe(true);
    }
    const probabilities = r.families.map((f: { probability: number | null }) => f.probability ?? 0);
    expect(probabilities.reduce((s: number, p: number) => s + p, 0)).toBeCloseTo(1, 10);
    for (const combined of [r.average, r.stacked]) {
      expect(combined.accuracy).toBeGreaterThan(0.6);
      expect(combined.logLoss).toBeGreaterThan(0);
      expect(combined.brier).toBeGreaterThan(0);
    }
    expect(r.confusion.flat().reduce((s: number, v: number) => s + v, 0)).toBe(15);
    expect(r.testRows).toBe(15);
  });

  it("prints a table by default, and holds out --split of the rows, stratified, as the test set", async () => {
    const { code, stdout } = await run([
      "classify",
      train,
      "--target",
      "y",
      "--inputs",
      "x1,x2",
      "--split",
      "0.3",
      "--families",
      "logistic",
      "--draws",
      "1200",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/31 training rows, 14 test rows, 5-fold chain rule, seed 1/);
    expect(stdout).toMatch(/log p\(y \| X\) ± s\.e\./);
    expect(stdout).toMatch(/^logistic +-[\d.]+ ± [\d.e-]+ chain rule/m);
    expect(stdout).toMatch(/evidence-weighted average/);
    expect(stdout).toMatch(/confusion matrix of the evidence-weighted average/);
  });

  const bad: [string, string[], RegExp][] = [
    ["a single class", [csv("one.csv", "x,y\n1,a\n2,a\n3,a\n"), "--target", "y"], /single class "a"/],
    [
      "a class absent from training",
      [
        train,
        "--target",
        "y",
        "--factors",
        "colour",
        "--test",
        csv("new.csv", "x1,x2,colour,y\n0,0,red,maybe\n"),
      ],
      /the class "maybe" is absent from the training data/,
    ],
    [
      "a non-numeric input not declared a factor",
      [train, "--target", "y"],
      /column "colour" \(input\).*"(red|blue|green)" is not a number\. Declare the column a factor \(--factors colour\)/,
    ],
    [
      "more families than the data support",
      [
        csv(
          "small.csv",
          `x,y\n${Array.from({ length: 16 }, (_, r) => `${r},${r % 2 ? "a" : "b"}`).join("\n")}\n`,
        ),
        "--target",
        "y",
      ],
      /support only logistic, pknn of the 5 families asked for: class "a" has 8 training rows.*rbf needs 10/,
    ],
    [
      "an unknown family",
      [train, "--target", "y", "--families", "logistic,forest"],
      /unknown classifier family "forest"/,
    ],
    [
      "a tempered run of too few particles",
      [train, "--target", "y", "--factors", "colour", "--tempered", "--tempered-particles", "10"],
      /--tempered-particles must be a whole number ≥ 128, got "10"/,
    ],
    [
      "both --test and --split",
      [train, "--target", "y", "--test", test, "--split", "0.3"],
      /either --test or --split/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`refuses ${what} with exit code 2 and a clear message`, async () => {
      const { code, stdout, stderr } = await run(["classify", ...args]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(message);
      expect(stderr).not.toMatch(/\n\s+at /);
    });
  }
});
