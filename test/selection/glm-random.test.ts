import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { binaryTargetColumns } from "../../src/data/binary-target.js";
import { csvColumns } from "../../src/data/csv.js";
import { readCsv } from "../../src/data/csv-file.js";
import { formulaDesign, parseFormula } from "../../src/data/formula.js";
import { compareGlms, prepareGlmComparison } from "../../src/selection/glm.js";
import { runCli } from "../support/cli.js";

const BACTERIA = "examples/real-models/bacteria.csv";
/** Log evidences by deterministic quadrature in numpy (fixtures/random-effects-references.py). */
const references = JSON.parse(
  readFileSync(new URL("./fixtures/random-effects-references.json", import.meta.url), "utf8"),
) as Record<string, number>;

/** The bacteria data's design of `formula`, y read as 0/1. */
function bacteria(formula: string) {
  const csv = binaryTargetColumns(csvColumns(readCsv(BACTERIA)), "y", "bernoulli");
  return formulaDesign(csv, parseFormula(formula), { heredity: true });
}

describe("compareGlms with random terms", () => {
  it("gives a random intercept per child, alone and with a fixed slope, the evidence quadrature gives (robust g-prior)", () => {
    const data = bacteria("y ~ week + (1 | ID)");
    // Week 6 for X01 (4 of 4 tests positive), Y04 (1 of 4) and a child not in the data.
    const levels = data.design.terms[1].random?.levels ?? [];
    const predict = {
      X: Float64Array.from([6, 6, 6]),
      rows: 3,
      groups: {
        "(1 | ID)": {
          codes: Int32Array.from([levels.indexOf("X01"), levels.indexOf("Y04"), -1]),
          slopeValues: [],
        },
      },
    };
    const result = compareGlms(data, { family: "bernoulli", link: "probit", predict });
    expect(result.modelCount).toBe(4);
    const byName = new Map(result.models.map((m) => [m.inputs.join(", "), m]));
    for (const name of ["(1 | ID)", "week, (1 | ID)"]) {
      const m = byName.get(name);
      if (m === undefined) throw new Error(`no model ${name}`);
      expect(m.reliable, name).toBe(true);
      expect(m.laplaceLogEvidence).toBeNull();
      // Bridge sampling on 2000 draws in ~52 dimensions: a standard error near 0.07.
      expect(m.stdErr).toBeGreaterThan(0.02);
      expect(m.stdErr).toBeLessThan(0.15);
      expect(Math.abs(m.logEvidence - references[`robust ${name}`]), name).toBeLessThan(3 * m.stdErr);
    }
    // The children differ: the random intercept is in nearly every probable model.
    expect(result.inclusionProbabilities["(1 | ID)"]).toBeGreaterThan(0.9);
    // The averaged coefficients hold the fixed effects only.
    expect(result.coefficients.map((c) => c.name)).toEqual(["(intercept)", "week"]);
    // Each child's own intercept moves its prediction; a new child's unknown intercept widens it.
    const [always, rarely, unseen] = result.predictions ?? [];
    expect(always.mean).toBeGreaterThan(0.8);
    expect(rarely.mean).toBeLessThan(0.6);
    expect(unseen.mean).toBeGreaterThan(rarely.mean);
    expect(unseen.mean).toBeLessThan(always.mean);
    expect(unseen.upper - unseen.lower).toBeGreaterThan(always.upper - always.lower);
  }, 240_000);

  it("matches the same model written by hand with defineModel and run through occam evidence, and quadrature (normal prior)", async () => {
    const compared = await runCli([
      "compare",
      BACTERIA,
      "--family",
      "bernoulli",
      "--link",
      "probit",
      "--prior",
      "normal",
      "--scale",
      "5",
      "--formula",
      "y ~ (1 | ID)",
      "--subsets",
      "none",
      "--json",
    ]);
    expect(compared.code).toBe(0);
    const [model] = JSON.parse(compared.stdout).models;
    const byHand = await runCli([
      "evidence",
      "test/cli/fixtures/bacteria-random-intercept.mjs",
      "--methods",
      "bridge,bridge-warp3",
      "--json",
    ]);
    expect(byHand.code).toBe(0);
    const bridge = JSON.parse(byHand.stdout).results.find((r: { method: string }) => r.method === "bridge");
    expect(model.reliable && bridge.reliable).toBe(true);
    expect(Math.abs(model.logEvidence - bridge.logZ)).toBeLessThan(
      3 * Math.hypot(model.stdErr, bridge.stdErr),
    );
    const exact = references["normal (1 | ID)"];
    expect(Math.abs(model.logEvidence - exact)).toBeLessThan(3 * model.stdErr);
    expect(Math.abs(bridge.logZ - exact)).toBeLessThan(3 * bridge.stdErr);
  });

  it("keeps a random term in every model with --always, its name read with or without spaces", () => {
    const data = bacteria("y ~ week + trt + (1 | ID)");
    for (const name of ["(1 | ID)", "(1|ID)"]) {
      const setup = prepareGlmComparison(data, { family: "bernoulli", link: "probit", always: [name] });
      const random = data.design.terms.findIndex((t) => t.random !== undefined);
      expect(setup.subsets).toHaveLength(4);
      for (const members of setup.subsets) expect(members).toContain(random);
    }
  });

  it("refuses a grouping column with one level (for a gaussian target too), two terms on one grouping, too many sampled models, and new rows without the grouping column", async () => {
    const dir = mkdtempSync(join(tmpdir(), "occam-"));
    const file = join(dir, "one-group.csv");
    writeFileSync(file, "y,x,g\n1,0.5,a\n0,1.5,a\n1,2.5,a\n0,0.1,a\n1,0.7,a\n");
    const many = join(dir, "many-inputs.csv");
    const rows = Array.from({ length: 40 }, (_, i) =>
      [i % 2, ...Array.from({ length: 7 }, (_, j) => Math.sin(i * (j + 1))), i % 4].join(","),
    );
    writeFileSync(many, `y,a,b,c,d,e,f,h,g\n${rows.join("\n")}\n`);
    const noGroup = join(dir, "no-group.csv");
    writeFileSync(noGroup, "week\n6\n");
    const cases: [string[], RegExp][] = [
      [
        [file, "--family", "bernoulli", "--formula", "y ~ x + (1 | g)"],
        /grouping column "g" of \(1 \| g\) has one level/,
      ],
      [[file, "--formula", "y ~ x + (1 | g)"], /grouping column "g" of \(1 \| g\) has one level/],
      [[file, "--family", "bernoulli", "--formula", "y ~ (1 | g) + (x | g)"], /two random terms group by g/],
      [[file, "--family", "bernoulli", "--formula", "y ~ x + (x || g)"], /does not read "\|\|"/],
      [
        [many, "--family", "bernoulli", "--formula", "y ~ a + b + c + d + e + f + h + (1 | g)"],
        /128 of the 256 models hold a random term.*at most 64/,
      ],
      [
        [BACTERIA, "--family", "bernoulli", "--formula", "y ~ week + (1 | ID)", "--predict", noGroup],
        /the new rows have no column "ID"/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(["compare", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    }
  });
});
