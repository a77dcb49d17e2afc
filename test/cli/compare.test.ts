import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { linearRegressionData } from "../../src/data/generators/linear.js";
import { runCli as run } from "../support/cli.js";

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
    ["unknown estimator", [good, "--target", "y", "--estimator", "guess"], /--estimator.*guess.*exact/],
    [
      "sampled estimator under Zellner–Siow",
      [good, "--target", "y", "--prior", "zellner-siow", "--estimator", "bridge"],
      /Zellner–Siow prior gives only exact Bayes factors/,
    ],
    ["--samples with exact", [good, "--target", "y", "--samples", "100"], /--samples applies only/],
    [
      "--samples not a number",
      [good, "--target", "y", "--estimator", "ais", "--samples", "many"],
      /--samples/,
    ],
    [
      "--folds without cv",
      [good, "--target", "y", "--estimator", "bridge", "--folds", "3"],
      /--folds applies only/,
    ],
    ["--folds 1", [good, "--target", "y", "--estimator", "cv", "--folds", "1"], /--folds must be/],
    ["bad --seed", [good, "--target", "y", "--seed", "-1"], /seed must be an integer/],
    [
      "too much sampling",
      [good, "--target", "y", "--estimator", "smc", "--samples", "12800"],
      /too slow \(limit 5 models at that sample size\); narrow with --subsets max=K or --inputs/,
    ],
    [
      "exact evidence under the independent prior",
      [good, "--target", "y", "--prior", "independent", "--estimator", "exact"],
      /independent-precision prior has no closed-form evidence/,
    ],
    ["bad --beta-w", [good, "--target", "y", "--prior", "independent", "--beta-w", "0"], /--beta-w must be/],
    [
      "--mcmc-steps with few inputs",
      [good, "--target", "y", "--mcmc-steps", "100"],
      /--mcmc-steps applies only/,
    ],
  ])("%s: exit 2, a clear message, nothing on stdout", async (_name, args, message) => {
    const { code, stdout, stderr } = await run(["compare", ...args]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    // One line of message (commander's usage errors add program.ts's "(run with --help for usage)" hint).
    const lines = stderr.trimEnd().split("\n");
    expect(lines.filter((line) => line !== "(run with --help for usage)")).toHaveLength(1);
  });

  it("estimates each model's evidence with --estimator, --samples and --seed", async () => {
    const args = ["compare", good, "--target", "y", "--subsets", "max=1", "--v", "10", "--b", "0.1"];
    const sampled = ["--estimator", "bridge", "--samples", "400", "--seed", "9"];
    const { code, stdout, stderr } = await run([...args, ...sampled, "--json"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const doc = JSON.parse(stdout);
    expect(doc.estimator).toBe("bridge");
    expect(doc.search).toBe("enumerated");
    expect(doc.settings).toEqual({ seed: 9, samples: 400 });
    expect(doc.models).toHaveLength(4);
    for (const model of doc.models) {
      expect(Object.keys(model)).toEqual([
        "inputs",
        "logEvidence",
        "stdErr",
        "exactLogEvidence",
        "logBayesFactor",
        "posteriorProbability",
      ]);
      expect(model.stdErr).toBeGreaterThan(0);
      expect(Math.abs(model.logEvidence - model.exactLogEvidence)).toBeLessThan(4 * model.stdErr);
    }
    const again = JSON.parse((await run([...args, ...sampled, "--json"])).stdout);
    expect(again.models.map((m: { logEvidence: number }) => m.logEvidence)).toEqual(
      doc.models.map((m: { logEvidence: number }) => m.logEvidence),
    );
    const table = await run([...args, "--estimator", "cv", "--folds", "3", "--samples", "200"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/log evidence +std\. error/);
    expect(table.stdout).toMatch(/estimated by cv \(seed 1, 200 samples, 3 folds\)/);
    expect(table.stdout).toMatch(
      /against the exact evidences: largest error \S+ nats; \d of 4 estimates beyond 4 std\. errors/,
    );
    const exact = await run(args);
    expect(exact.stdout).not.toMatch(/std\. error/);
  });

  it("estimates evidences under the independent prior by stepping-stone by default", async () => {
    const { code, stdout, stderr } = await run([
      "compare",
      good,
      "--target",
      "y",
      "--subsets",
      "max=1",
      "--prior",
      "independent",
      "--alpha",
      "2",
      "--beta",
      "1",
      "--samples",
      "200",
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toMatch(
      /prior independent precisions \(τ ~ Gamma\(2, scale 1\), τ_w ~ Gamma\(0\.25, scale 1600\)\)/,
    );
    expect(stdout).toMatch(/estimated by stepping-stone \(seed 1, 200 samples\)/);
    expect(stdout).not.toMatch(/against the exact evidences/);
  });

  it("samples subsets by MCMC when there are too many inputs to enumerate, and says so", async () => {
    const p = 29;
    const weights = Array.from({ length: p }, (_, j) => (j === 0 ? 1 : j === 1 ? -1 : 0));
    const sim = linearRegressionData({ n: 80, p, weights, noiseSd: 1, seed: 4 });
    const header = [...Array.from({ length: p }, (_, j) => `x${j}`), "y"].join(",");
    const rows = Array.from({ length: 80 }, (_, i) =>
      [...Array.from(sim.X.subarray(i * p, (i + 1) * p)), sim.y[i]].join(","),
    );
    const wide = csv("wide.csv", `${header}\n${rows.join("\n")}\n`);
    const table = await run(["compare", wide, "--target", "y", "--mcmc-steps", "3000", "--seed", "5"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /29 inputs: too many to enumerate 2\^29 models; sampled subsets by MCMC \(3000 steps, \d+ distinct models visited/,
    );
    expect(table.stdout).toMatch(/median-probability model: x0, x1\n?$/);
    const doc = JSON.parse(
      (await run(["compare", wide, "--target", "y", "--mcmc-steps", "3000", "--seed", "5", "--json"])).stdout,
    );
    expect(doc.search).toBe("mcmc");
    expect(doc.mcmc.steps).toBe(3000);
    expect(doc.models).toHaveLength(doc.mcmc.distinctModels);
    const bridge = await run(["compare", wide, "--target", "y", "--estimator", "bridge"]);
    expect(bridge.code).toBe(2);
    expect(bridge.stdout).toBe("");
    expect(bridge.stderr).toMatch(/too many to enumerate.*--subsets max=K/);
  });
});
