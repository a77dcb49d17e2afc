import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    interactive: false,
  };
  return { code: await main(args, io), stdout, stderr };
}

const dir = mkdtempSync(join(tmpdir(), "occam-compare-"));
function csv(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const good = csv(
  "good.csv",
  "x1,x2,noise,y\n1,0.5,3,2.1\n2,0.1,1,3.9\n3,0.7,4,6.2\n4,0.2,1,8.1\n5,0.9,5,9.8\n6,0.3,9,12.2\n7,0.4,2,13.8\n",
);

describe("occam compare", () => {
  it("prints one JSON document with every model, best first", async () => {
    const { code, stdout, stderr } = await run([
      "compare",
      good,
      "--target",
      "y",
      "--json",
      "--v",
      "10",
      "--b",
      "0.1",
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const doc = JSON.parse(stdout);
    expect(doc.family).toBe("linear");
    expect(doc.prior).toEqual({ name: "nig", v: 10, a: 1, b: 0.1 });
    expect(doc.estimator).toBe("exact");
    expect(doc.n).toBe(7);
    expect(doc.inputs).toEqual(["x1", "x2", "noise"]);
    expect(doc.models).toHaveLength(8);
    for (let i = 1; i < doc.models.length; i++) {
      expect(doc.models[i].posteriorProbability).toBeLessThanOrEqual(doc.models[i - 1].posteriorProbability);
    }
    expect(doc.models[0]).toEqual({
      inputs: ["x1"],
      logEvidence: expect.any(Number),
      stdErr: 0,
      logBayesFactor: expect.any(Number),
      posteriorProbability: expect.any(Number),
    });
    expect(Object.keys(doc.inclusionProbabilities)).toEqual(["x1", "x2", "noise"]);
    expect(doc.seconds).toBeGreaterThanOrEqual(0);
  });

  it("prints tables by default, and Zellner–Siow Bayes factors with null log evidence", async () => {
    const table = await run(["compare", good, "--target", "y", "--inputs", "x1,x2"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/inclusion probability/);
    expect(table.stdout).toMatch(/median-probability model: x1/);
    const zs = JSON.parse(
      (await run(["compare", good, "--target", "y", "--prior", "zellner-siow", "--json", "--top", "2"]))
        .stdout,
    );
    expect(zs.models).toHaveLength(2);
    expect(zs.models[0].logEvidence).toBeNull();
    expect(zs.prior.name).toBe("zellner-siow");
  });

  it.each([
    ["unknown target", [good, "--target", "z"], /Unknown target column "z"/],
    ["unknown input", [good, "--target", "y", "--inputs", "x1,x9"], /x9/],
    ["missing value", [csv("missing.csv", "x,y\n1,2\n,3\n2,4\n3,5\n"), "--target", "y"], /Row 3, column "x"/],
    [
      "non-numeric value",
      [csv("text.csv", "x,y\n1,2\n2,abc\n2,4\n3,5\n"), "--target", "y"],
      /Row 3, column "y"/,
    ],
    [
      "constant column",
      [csv("const.csv", "x,c,y\n1,5,2\n2,5,3\n3,5,5\n4,5,4\n"), "--target", "y"],
      /constant/,
    ],
    [
      "duplicate names",
      [csv("dup.csv", "x,x,y\n1,2,2\n2,1,3\n3,3,5\n4,5,4\n"), "--target", "y"],
      /duplicate|twice/i,
    ],
    ["fewer rows than inputs", [csv("short.csv", "a,b,c,y\n1,2,3,4\n2,1,0,3\n"), "--target", "y"], /rows/],
    ["missing file", [join(dir, "absent.csv"), "--target", "y"], /Cannot read/],
    ["bad --subsets", [good, "--target", "y", "--subsets", "some"], /--subsets takes all, none or max=K/],
    [
      "Zellner–Siow without intercept",
      [good, "--target", "y", "--prior", "zellner-siow", "--no-intercept"],
      /intercept/,
    ],
    ["no --target", [good], /required option '--target/],
  ])("%s: exit 2, a clear message, nothing on stdout", async (_name, args, message) => {
    const { code, stdout, stderr } = await run(["compare", ...args]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
  });
});
