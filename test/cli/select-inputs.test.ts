import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as run } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "occam-select-"));
function csv(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// Two well-separated classes along x1; x2 is noise.
const rows = Array.from({ length: 40 }, (_, r) => {
  const cls = r % 2 === 0 ? "yes" : "no";
  const x1 = (cls === "yes" ? 3 : -3) + Math.sin(r * 1.7);
  const x2 = Math.cos(r * 2.3);
  return `${x1.toFixed(3)},${x2.toFixed(3)},${cls}`;
});
const train = csv("train.csv", `x1,x2,y\n${rows.slice(0, 30).join("\n")}\n`);
const test = csv("test.csv", `x1,x2,y\n${rows.slice(30).join("\n")}\n`);

describe("occam select-inputs", () => {
  it("prints one JSON document with accuracy, subsets and input probabilities", async () => {
    const { code, stdout, stderr } = await run([
      "select-inputs",
      train,
      "--target",
      "y",
      "--test",
      test,
      "--draws",
      "400",
      "--burn-in",
      "200",
      "--kernels",
      "2",
      "--json",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const r = JSON.parse(stdout);
    expect(r.draws).toBe(400);
    expect(r.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(Object.keys(r.inputProbabilities)).toEqual(["x1", "x2"]);
    expect(r.inputProbabilities.x1).toBeGreaterThan(0.5);
    const total = r.subsets.reduce((s: number, x: { probability: number }) => s + x.probability, 0);
    expect(total).toBeCloseTo(1, 10);
  });

  it("takes --inputs and records the seed, burn-in and split in its JSON", async () => {
    const { code, stdout, stderr } = await run([
      "select-inputs",
      train,
      "--target",
      "y",
      "--inputs",
      "x2, x1",
      "--split",
      "0.4",
      "--draws",
      "40",
      "--burn-in",
      "20",
      "--kernels",
      "2",
      "--seed",
      "7",
      "--json",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const r = JSON.parse(stdout);
    expect(Object.keys(r.inputProbabilities)).toEqual(["x2", "x1"]);
    expect(r).toMatchObject({ seed: 7, burnIn: 20, split: 0.4, draws: 40, testRows: 12 });
  });

  it("runs Sykacek's shared-kernel structure with --structure shared", async () => {
    const { code, stdout, stderr } = await run([
      "select-inputs",
      train,
      "--target",
      "y",
      "--test",
      test,
      "--draws",
      "200",
      "--burn-in",
      "100",
      "--kernels",
      "2",
      "--structure",
      "shared",
      "--json",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const r = JSON.parse(stdout);
    expect(r.structure).toBe("shared");
    expect(r.draws).toBe(200);
    expect(r.accuracy).toBeGreaterThanOrEqual(0);
  });

  const bad: [string, string[], RegExp?][] = [
    ["a target with one class", [csv("one.csv", "x1,x2,y\n1,2,a\n2,3,a\n3,1,a\n4,5,a\n"), "--target", "y"]],
    [
      "a test class unseen in training",
      [train, "--target", "y", "--test", csv("unseen.csv", "x1,x2,y\n1,2,maybe\n")],
    ],
    ["a non-numeric input", [csv("text.csv", "x1,x2,y\n1,red,a\n2,3,b\n3,1,a\n4,5,b\n"), "--target", "y"]],
    [
      "more kernels than training rows",
      [csv("few.csv", "x1,x2,y\n1,2,a\n2,3,b\n3,1,a\n4,4,b\n"), "--target", "y", "--kernels", "5"],
      /5 kernels for 4 training rows/,
    ],
    [
      "a continuous target",
      [
        csv(
          "continuous.csv",
          `x1,x2,y\n${rows.map((_, r) => `${r},${(r * 7) % 11},${(0.37 * r * r).toFixed(2)}`).join("\n")}\n`,
        ),
        "--target",
        "y",
      ],
      /"y" \(target\).* 40 distinct values among 40 rows.*continuous quantity.*occam compare/,
    ],
    [
      "a class with one training row",
      [csv("single.csv", "x1,x2,y\n1,2,a\n2,3,b\n3,1,a\n4,4,b\n5,2,c\n6,1,b\n"), "--target", "y"],
      /class "c" \(1\) with fewer than two rows/,
    ],
    [
      "a split that leaves a class one training row",
      [train, "--target", "y", "--split", "0.95"],
      /after --split 0.95 leave classes "no" \(1 of 15\), "yes" \(1 of 15\) with fewer than two rows.*Hold out a smaller share for testing \(a lower --split\)/,
    ],
    [
      "an empty name in --inputs",
      [train, "--target", "y", "--inputs", "x1,"],
      /--inputs takes comma-separated/,
    ],
    ["an unknown input", [train, "--target", "y", "--inputs", "x1,x9"], /Unknown input column "x9"/],
  ];
  for (const [what, args, message] of bad) {
    it(`exits 2 with one stderr line for ${what}`, async () => {
      const { code, stdout, stderr } = await run([
        "select-inputs",
        ...args,
        "--draws",
        "20",
        "--burn-in",
        "10",
      ]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr.trim().split("\n")).toHaveLength(1);
      if (message) expect(stderr).toMatch(message);
    });
  }

  it("writes an HTML report with the input and subset probabilities and the trace of the number of inputs", async () => {
    const report = join(dir, "select.html");
    const args = [
      "select-inputs",
      train,
      "--target",
      "y",
      "--test",
      test,
      "--draws",
      "400",
      "--burn-in",
      "200",
    ];
    const { code } = await run([...args, "--kernels", "2", "--chains", "2", "--report", report]);
    expect(code).toBe(0);
    const html = readFileSync(report, "utf8");
    expect(html).toContain("Which inputs predict y?");
    expect(html).toContain("Accuracy on 10 test rows");
    // Input probabilities, subset probabilities, the trace: three plots, each with its specification.
    expect(html.match(/<svg/g)).toHaveLength(3);
    expect(html.match(/Vega-Lite specification/g)).toHaveLength(3);
    expect(html).not.toContain("<script");
  });
});
