import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { csvColumns, parseCsv } from "../../src/data/csv.js";
import { formulaDesign } from "../../src/data/formula.js";
import { compareGlms } from "../../src/selection/glm.js";
import { runCli } from "../support/cli.js";

const PIMA = "examples/real-models/pima.csv";
const QUAKES = "examples/real-models/quakes.csv";
/** Reference log evidences of the 128 Pima subsets from numpy (fixtures/glm-references.py). */
const references = JSON.parse(
  readFileSync(new URL("./fixtures/glm-pima-references.json", import.meta.url), "utf8"),
) as { models: { inputs: string[]; logZ: number; stdErr: number }[] };
const INPUTS = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"];

/** The Pima design with the target read as 0/1 (Yes = 1). */
function pimaData(scaleColumn?: string) {
  const text = readFileSync(PIMA, "utf8")
    .trim()
    .split("\n")
    .map((line, i) => {
      if (i === 0) return line;
      const cells = line.split(",");
      cells[7] = cells[7] === "Yes" ? "1" : "0";
      if (scaleColumn !== undefined) {
        const j = INPUTS.indexOf(scaleColumn);
        cells[j] = String(Number(cells[j]) * 1000);
      }
      return cells.join(",");
    })
    .join("\n");
  return formulaDesign(
    csvColumns(parseCsv(text)),
    { target: "type", terms: INPUTS.map((c) => [c]), dot: false },
    { heredity: true },
  );
}

/** Every reference model's evidence within max(0.01, 3 joint s.e.) of the comparison's, and reliable. */
function expectMatchesReferences(
  comparison: ReturnType<typeof compareGlms>,
  refs: { models: { inputs: string[]; logZ: number; stdErr: number }[] },
): void {
  const byInputs = new Map(comparison.models.map((m) => [[...m.inputs].sort().join(","), m]));
  for (const ref of refs.models) {
    const m = byInputs.get([...ref.inputs].sort().join(","));
    if (m === undefined) throw new Error(`no model on ${ref.inputs.join(", ")}`);
    const tolerance = Math.max(0.01, 3 * Math.hypot(m.stdErr, ref.stdErr));
    expect(Math.abs(m.logEvidence - ref.logZ), ref.inputs.join(", ")).toBeLessThan(tolerance);
    expect(m.reliable).toBe(true);
  }
}

describe("compareGlms", () => {
  const result = compareGlms(pimaData(), { family: "bernoulli", prior: { name: "normal", scale: 10 } });

  it("gives every one of the 128 Pima logistic regressions within max(0.01, 3 s.e.) of numpy's references", () => {
    expect(result.modelCount).toBe(128);
    expectMatchesReferences(result, references);
  });

  it("gives every one of the 16 Poisson regressions of the Fiji earthquakes' stations within max(0.01, 3 s.e.) of numpy's references", () => {
    const quakes = JSON.parse(
      readFileSync(new URL("./fixtures/glm-quakes-references.json", import.meta.url), "utf8"),
    ) as typeof references;
    const inputs = ["lat", "long", "depth", "mag"];
    const data = formulaDesign(
      csvColumns(parseCsv(readFileSync(QUAKES, "utf8"))),
      { target: "stations", terms: inputs.map((c) => [c]), dot: false },
      { heredity: true },
    );
    const counts = compareGlms(data, { family: "poisson", prior: { name: "normal", scale: 5 } });
    expect(counts.modelCount).toBe(16);
    expectMatchesReferences(counts, quakes);
  });

  it("ranks Friel & Wyse's first model best, with probabilities that sum to one and inclusion probabilities from them", () => {
    expect([...result.models[0].inputs].sort()).toEqual(["bmi", "glu", "npreg", "ped"]);
    const total = result.models.reduce((s, m) => s + m.posteriorProbability, 0);
    expect(total).toBeCloseTo(1, 12);
    const withAge = result.models.filter((m) => m.inputs.includes("age"));
    expect(result.inclusionProbabilities.age).toBeCloseTo(
      withAge.reduce((s, m) => s + m.posteriorProbability, 0),
      12,
    );
    for (const m of result.models) {
      expect(m.probabilityInterval[0]).toBeLessThanOrEqual(m.posteriorProbability + 1e-12);
      expect(m.probabilityInterval[1]).toBeGreaterThanOrEqual(m.posteriorProbability - 1e-12);
    }
  });

  it("leaves every model's probability unchanged when an input is given in other units", () => {
    const rescaled = compareGlms(pimaData("glu"), {
      family: "bernoulli",
      prior: { name: "normal", scale: 10 },
    });
    const key = (inputs: readonly string[]) => [...inputs].sort().join(",");
    const before = new Map(result.models.map((m) => [key(m.inputs), m.posteriorProbability]));
    for (const m of rescaled.models) {
      expect(Math.abs(m.posteriorProbability - (before.get(key(m.inputs)) as number))).toBeLessThan(1e-6);
    }
  });
});

describe("occam compare --family", () => {
  const dir = mkdtempSync(join(tmpdir(), "occam-glm-"));
  const csv = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("compares logistic regressions on a text target of two levels, as the library does", async () => {
    const run = await runCli([
      "compare",
      PIMA,
      "--target",
      "type",
      "--family",
      "bernoulli",
      "--prior",
      "normal",
      "--scale",
      "10",
      "--inputs",
      "glu,bmi,age",
      "--json",
    ]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.modelCount).toBe(8);
    expect(report.link).toBe("logit");
    const best = references.models.find((m) => [...m.inputs].sort().join(",") === "age,bmi,glu");
    const got = report.models.find(
      (m: { inputs: string[] }) => [...m.inputs].sort().join(",") === "age,bmi,glu",
    );
    expect(Math.abs(got.logEvidence - (best?.logZ as number))).toBeLessThan(0.01);
  });

  it("refuses, with exit 2, a bernoulli target of three levels, negative counts, trials below the successes and a missing scale", async () => {
    const three = csv("three.csv", "x,y\n1,a\n2,b\n3,c\n4,a\n");
    const negative = csv("negative.csv", "x,y\n1,2\n2,-1\n3,0\n");
    const trials = csv("trials.csv", "x,y,m\n1,2,3\n2,5,4\n3,0,2\n");
    const cases: [string[], RegExp][] = [
      [[three, "--target", "y", "--family", "bernoulli", "--scale", "5"], /has 3 levels/],
      [[negative, "--target", "y", "--family", "poisson", "--scale", "5"], /row 2 is -1/],
      [
        [trials, "--target", "y", "--family", "binomial", "--trials", "m", "--scale", "5"],
        /5 successes out of 4/,
      ],
      [[negative, "--target", "y", "--family", "poisson"], /--scale S/],
      [
        [negative, "--target", "y", "--family", "poisson", "--prior", "nig", "--scale", "5"],
        /--prior normal/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const run = await runCli(["compare", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(pattern);
    }
  });
});
