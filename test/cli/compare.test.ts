import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { linearRegressionData } from "../../src/data/generators/linear.js";
import { LINEAR_PRIOR_DEFAULTS } from "../../src/selection/linear-options.js";
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

// A numeric input x and a three-level factor f, each level on several rows.
const factorData = csv(
  "factor.csv",
  `x,f,y\n${Array.from({ length: 12 }, (_, i) => `${i},${"abc"[i % 3]},${(0.5 * i + (i % 3) + Math.sin(i)).toFixed(3)}`).join("\n")}\n`,
);

describe("occam compare", () => {
  it("prints one JSON document with every model, best first", async () => {
    const { code, stdout, stderr } = await run([
      "compare",
      good,
      "--target",
      "y",
      "--json",
      "--prior",
      "nig",
      "--v",
      "10",
      "--b",
      "0.1",
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const doc = JSON.parse(stdout);
    expect(doc.family).toBe("linear");
    expect(doc.prior).toEqual({ name: "nig", v: 10, a: 1, b: 0.1, standardized: true });
    expect(doc.estimator).toBe("exact");
    expect(doc.n).toBe(7);
    expect(doc.inputs).toEqual(["x1", "x2", "noise"]);
    expect(doc.models).toHaveLength(8);
    for (let i = 1; i < doc.models.length; i++) {
      expect(doc.models[i].posteriorProbability).toBeLessThanOrEqual(doc.models[i - 1].posteriorProbability);
    }
    expect(doc.models[0]).toEqual({
      inputs: ["x1"],
      rSquared: expect.any(Number),
      logEvidence: expect.any(Number),
      stdErr: 0,
      logBayesFactor: expect.any(Number),
      logBayesFactorVsBest: 0,
      posteriorProbability: expect.any(Number),
    });
    expect(doc.coefficients.map((c: { name: string }) => c.name)).toEqual(["x1", "x2", "noise"]);
    expect(doc.factors).toEqual([]);
    expect(Object.keys(doc.inclusionProbabilities)).toEqual(["x1", "x2", "noise"]);
    expect(doc.seconds).toBeGreaterThanOrEqual(0);
  });

  it("prints tables by default, and Zellner–Siow Bayes factors with null log evidence", async () => {
    const table = await run(["compare", good, "--target", "y", "--inputs", "x1,x2"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/P\(≠ 0\) +posterior mean +posterior sd/);
    expect(table.stdout).toMatch(/median-probability model: x1/);
    const zs = JSON.parse(
      (await run(["compare", good, "--target", "y", "--prior", "zellner-siow", "--json", "--top", "2"]))
        .stdout,
    );
    expect(zs.models).toHaveLength(2);
    expect(zs.models[0].logEvidence).toBeNull();
    expect(zs.models[0].stdErr).toBeNull();
    expect(zs.prior.name).toBe("zellner-siow");
  });

  it("predicts at the rows of --predict: the mean, its 90 % interval and a new observation's, in text and JSON", async () => {
    const fresh = csv("factor-new.csv", "f,x\nb,3.5\nc,20\n");
    const args = ["compare", factorData, "--target", "y", "--predict", fresh];
    const json = await run([...args, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.predictions).toHaveLength(2);
    for (const p of report.predictions) {
      expect(p.lower).toBeLessThan(p.mean);
      expect(p.mean).toBeLessThan(p.upper);
      expect(p.observationLower).toBeLessThan(p.lower);
      expect(p.observationUpper).toBeGreaterThan(p.upper);
    }
    // x = 20 lies far beyond the training rows (0 … 11): the mean is less certain there.
    const width = (p: { lower: number; upper: number }) => p.upper - p.lower;
    expect(width(report.predictions[1])).toBeGreaterThan(2 * width(report.predictions[0]));
    // Every model is averaged whatever --top lists.
    const top = JSON.parse((await run([...args, "--json", "--top", "1"])).stdout);
    expect(top.models).toHaveLength(1);
    expect(top.predictions).toEqual(report.predictions);
    const text = await run(args);
    expect(text.stdout).toMatch(/Model-averaged predictions of y at the new rows \(90 % intervals\)/);
    expect(text.stdout).toMatch(/of a new observation/);
  });

  it("warns that a target of two values is fitted as Gaussian", async () => {
    const binary = csv(
      "binary.csv",
      `x,y\n${Array.from({ length: 12 }, (_, i) => `${i},${i % 3 === 0 ? 1 : 0}`).join("\n")}\n`,
    );
    const r = await run(["compare", binary, "--target", "y"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^occam: warning: y takes only the values 0 and 1: compare fits a Gaussian linear model/,
    );
    expect((await run(["compare", good, "--target", "y"])).stderr).toBe("");
  });

  it.each([
    ["unknown target", [good, "--target", "z"], /Unknown target column "z"/],
    ["unknown input", [good, "--target", "y", "--inputs", "x1,x9"], /x9/],
    ["missing value", [csv("missing.csv", "x,y\n1,2\n,3\n2,4\n3,5\n"), "--target", "y"], /Row 3, column "x"/],
    [
      "non-numeric value",
      [csv("text.csv", "x,y\n1,2\n2,abc\n2,4\n3,5\n"), "--target", "y"],
      /column "y" \(target\) mixes numbers .* and text \(row 3: "abc"\)/i,
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
    ["no --target", [good], /--target/],
    ["unknown estimator", [good, "--target", "y", "--estimator", "guess"], /--estimator.*guess.*exact/],
    [
      "sampled estimator under Zellner–Siow",
      [good, "--target", "y", "--prior", "zellner-siow", "--estimator", "bridge"],
      /zellner-siow prior gives only exact Bayes factors/,
    ],
    ["--samples with exact", [good, "--target", "y", "--samples", "100"], /--samples applies only/],
    [
      "--samples not a number",
      [good, "--target", "y", "--estimator", "ais", "--samples", "many"],
      /--samples/,
    ],
    [
      "--folds without cv",
      [good, "--target", "y", "--prior", "nig", "--estimator", "bridge", "--folds", "3"],
      /--folds applies only/,
    ],
    [
      "--folds 1",
      [good, "--target", "y", "--prior", "nig", "--estimator", "cv", "--folds", "1"],
      /--folds must be/,
    ],
    ["bad --seed", [good, "--target", "y", "--seed", "-1"], /seed must be an integer/],
    [
      "too much sampling",
      [good, "--target", "y", "--prior", "nig", "--estimator", "smc", "--samples", "12800", "--workers", "1"],
      /too slow \(limit 5 models at that sample size\); narrow with --subsets max=K or --inputs/,
    ],
    [
      "exact evidence under the independent prior",
      [good, "--target", "y", "--prior", "independent", "--estimator", "exact"],
      /independent-precision prior has no closed-form evidence/,
    ],
    ["bad --beta-w", [good, "--target", "y", "--prior", "independent", "--beta-w", "0"], /--beta-w must be/],
    [
      "--v with Zellner–Siow",
      [good, "--target", "y", "--prior", "zellner-siow", "--v", "10"],
      /^occam: --v applies only to --prior nig, not to zellner-siow\.$/m,
    ],
    [
      "--a with Zellner–Siow",
      [good, "--target", "y", "--prior", "zellner-siow", "--a", "4"],
      /^occam: --a applies only to --prior nig, hyper-g or hyper-g-n, not to zellner-siow\.$/m,
    ],
    [
      "--a ≤ 2 with hyper-g",
      [good, "--target", "y", "--prior", "hyper-g", "--a", "2"],
      /a must be a finite number > 2/,
    ],
    [
      "--alpha-w with NIG",
      [good, "--target", "y", "--prior", "nig", "--alpha-w", "2"],
      /^occam: --alpha-w applies only to --prior independent, not to nig\.$/m,
    ],
    [
      "--standardize with a g-prior",
      [good, "--target", "y", "--prior", "g-prior", "--no-standardize"],
      /^occam: --standardize applies only to --prior nig or independent, not to g-prior: that prior is invariant/m,
    ],
    ["an unknown formula term", [factorData, "--formula", "y ~ x + colour"], /Unknown column "colour"/],
    [
      "an interaction without its main effects (heredity)",
      [factorData, "--formula", "y ~ x + x:f"],
      /The interaction "x:f" needs "f" in the formula too .*or give --no-heredity/,
    ],
    [
      "a factor with one level",
      [csv("one-level.csv", "x,f,y\n1,a,2\n2,a,3\n3,a,5\n4,a,4\n5,a,6\n"), "--target", "y"],
      /Column "f" is text with one level \("a"\)/,
    ],
    [
      "a factor level seen only once",
      [csv("rare-level.csv", "x,f,y\n1,a,2\n2,a,3\n3,b,5\n4,b,4\n5,c,6\n"), "--formula", "y ~ x + f"],
      /Column "f" is a factor whose level "c" is seen in only one row/,
    ],
    [
      "--mcmc-steps with few inputs",
      [good, "--target", "y", "--mcmc-steps", "100"],
      /--mcmc-steps applies only/,
    ],
    [
      "--redis on exact evidences of a few inputs",
      [good, "--target", "y", "--redis", "redis://127.0.0.1:1"],
      /--redis does not apply here: these exact evidences are computed here/,
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
    const args = [
      "compare",
      good,
      "--target",
      "y",
      "--subsets",
      "max=1",
      "--prior",
      "nig",
      "--v",
      "10",
      "--b",
      "0.1",
    ];
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
        "rSquared",
        "logEvidence",
        "stdErr",
        "exactLogEvidence",
        "logBayesFactor",
        "logBayesFactorStdErr",
        "logBayesFactorVsBest",
        "logBayesFactorVsBestStdErr",
        "posteriorProbability",
        "probabilityInterval",
      ]);
      const [lo, hi] = model.probabilityInterval;
      expect(lo).toBeLessThanOrEqual(hi);
      expect(model.stdErr).toBeGreaterThan(0);
      expect(Math.abs(model.logEvidence - model.exactLogEvidence)).toBeLessThan(4 * model.stdErr);
    }
    const again = JSON.parse((await run([...args, ...sampled, "--json"])).stdout);
    expect(again.models.map((m: { logEvidence: number }) => m.logEvidence)).toEqual(
      doc.models.map((m: { logEvidence: number }) => m.logEvidence),
    );
    const table = await run([...args, "--estimator", "cv", "--folds", "3", "--samples", "200"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/log BF vs best ± s\.e\. +probability \[90 % interval\]/);
    expect(table.stdout).toMatch(/estimated by cv \(seed 1, 200 samples, 3 folds\)/);
    expect(table.stdout).toMatch(
      /against the exact evidences: largest error \S+ nats; \d of 4 estimates beyond 4 std\. errors/,
    );
    const exact = await run(args);
    expect(exact.stdout).not.toMatch(/s\.e\./);
  });

  it("with --estimator bridge, every log Bayes factor and probability carries its error", async () => {
    const args = ["compare", factorData, "--formula", "y ~ x*f", "--prior", "nig", "--estimator", "bridge"];
    const sampled = [...args, "--samples", "400", "--seed", "3"];
    const { code, stdout, stderr } = await run([...sampled, "--json"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const doc = JSON.parse(stdout);
    // Heredity: {}, {x}, {f}, {x, f}, {x, f, x:f}.
    expect(doc.models).toHaveLength(5);
    const best = doc.models[0];
    const empty = doc.models.find((m: { inputs: string[] }) => m.inputs.length === 0);
    for (const m of doc.models) {
      expect(m.stdErr).toBeGreaterThan(0);
      // Against the best model and against the intercept-only model: √(s² + s_ref²), 0 against itself.
      expect(m.logBayesFactorVsBestStdErr).toBeCloseTo(
        m === best ? 0 : Math.hypot(m.stdErr, best.stdErr),
        12,
      );
      expect(m.logBayesFactorStdErr).toBeCloseTo(m === empty ? 0 : Math.hypot(m.stdErr, empty.stdErr), 12);
      const [lo, hi] = m.probabilityInterval;
      expect(0 <= lo && lo <= hi && hi <= 1).toBe(true);
    }
    const table = await run(sampled);
    const rows = table.stdout.split("\n").filter((line) => / \[[\d.e−-]+, [\d.e−-]+\]$/.test(line));
    expect(rows).toHaveLength(5);
    // The best model's log Bayes factor against itself is exactly 0; every other one shows its error.
    expect(rows[0]).toMatch(/ 0\.00 +\S+ \[/);
    for (const row of rows.slice(1)) expect(row).toMatch(/-[\d.]+ ± [\d.]+ +\S+ \[/);
  });

  it("agrees with R's regressionBF to 1e-5 on every subset of 10 inputs, and with 30-digit quadrature to 1e-9", async () => {
    const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
    const read = (name: string) => JSON.parse(readFileSync(join(fixtures, name), "utf8"));
    const r = read("regression-bf-10.json") as { models: { inputs: string[]; logBF: number }[] };
    const mp = read("regression-bf-10-mpmath.json") as {
      models: { inputs: string[]; logBF: number; r2: number }[];
    };
    const { code, stdout } = await run([
      "compare",
      join(fixtures, "regression-bf-10.csv"),
      "--target",
      "y",
      "--json",
    ]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.modelCount).toBe(1024);
    const key = (inputs: string[]) => [...inputs].sort().join("+");
    const occam = new Map(doc.models.map((m: { inputs: string[] }) => [key(m.inputs), m]));
    const reference = new Map(mp.models.map((m) => [key(m.inputs), m]));
    expect(r.models).toHaveLength(1023);
    const offR: string[] = [];
    for (const m of r.models) {
      const mine = occam.get(key(m.inputs)) as { logBayesFactor: number; rSquared: number };
      const exact = reference.get(key(m.inputs)) as { logBF: number; r2: number };
      expect(Math.abs(mine.rSquared - exact.r2)).toBeLessThan(1e-12);
      expect(Math.abs(mine.logBayesFactor - exact.logBF)).toBeLessThan(1e-9);
      // regressionBF's integrate() misses on a few subsets (by up to 7e-3): there the 30-digit value
      // decides, and it sides with occam.
      if (Math.abs(m.logBF - exact.logBF) > 1e-5) offR.push(key(m.inputs));
      else expect(Math.abs(mine.logBayesFactor - m.logBF)).toBeLessThan(1e-5);
    }
    expect(offR.length).toBeLessThanOrEqual(4);
  });

  it("shows each prior flag's default from LINEAR_PRIOR_DEFAULTS in --help", async () => {
    const { code, stdout } = await run(["compare", "--help"]);
    expect(code).toBe(0);
    const help = stdout.replace(/\s+/g, " ");
    const { nig, independent } = LINEAR_PRIOR_DEFAULTS;
    const r = LINEAR_PRIOR_DEFAULTS["zellner-siow"].r;
    expect(help).toContain(`--v <v> NIG prior scale of the coefficients (default ${nig.v})`);
    const hyperG = LINEAR_PRIOR_DEFAULTS["hyper-g"].a;
    expect(help).toContain(
      `--a <a> NIG inverse-gamma shape, or hyper-g's a > 2 (default ${nig.a} for nig, ${hyperG} for hyper-g, ${hyperG} for hyper-g-n)`,
    );
    expect(help).toContain(`--b <b> NIG inverse-gamma scale (default ${nig.b})`);
    expect(help).toContain(`--r <r> Zellner–Siow prior scale (default ${r.toPrecision(4)})`);
    expect(help).toContain(`(default 1/${1 / independent.noise.shape})`);
    expect(help).toContain(`Gamma scale of the noise precision (default ${independent.noise.scale})`);
    expect(help).toContain(
      `Gamma shape of the weight precision (default 1/${1 / independent.weights.shape})`,
    );
    expect(help).toContain(`Gamma scale of the weight precision (default ${independent.weights.scale})`);
  });

  it("maps the independent prior's flags into its noise and weights", async () => {
    const args = ["compare", good, "--target", "y", "--subsets", "max=1", "--prior", "independent"];
    const flags = ["--alpha", "2", "--beta-w", "3", "--samples", "64", "--json", "--workers", "1"];
    const { code, stdout } = await run([...args, ...flags]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).prior).toEqual({
      name: "independent",
      noise: { shape: 2, scale: LINEAR_PRIOR_DEFAULTS.independent.noise.scale },
      weights: { shape: LINEAR_PRIOR_DEFAULTS.independent.weights.shape, scale: 3 },
      standardized: true,
    });
  });

  it("gives hyper-g and hyper-g/n the a of --a", async () => {
    for (const prior of ["hyper-g", "hyper-g-n"]) {
      const { code, stdout } = await run([
        "compare",
        good,
        "--target",
        "y",
        "--prior",
        prior,
        "--a",
        "4",
        "--json",
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).prior).toEqual({ name: prior, a: 4 });
    }
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
      /prior independent precisions \(τ ~ Gamma\(2, scale 1\), τ_w ~ Gamma\(0\.25, scale 1600\), standardised inputs\)/,
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
    const table = await run([
      "compare",
      wide,
      "--target",
      "y",
      "--prior",
      "nig",
      "--mcmc-steps",
      "3000",
      "--seed",
      "5",
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /29 inputs: too many to enumerate 2\^29 models; sampled subsets by MCMC \(3000 steps, \d+ distinct models visited/,
    );
    expect(table.stdout).toMatch(/median-probability model: x0, x1\n?$/);
    const doc = JSON.parse(
      (
        await run([
          "compare",
          wide,
          "--target",
          "y",
          "--prior",
          "nig",
          "--mcmc-steps",
          "3000",
          "--seed",
          "5",
          "--json",
        ])
      ).stdout,
    );
    expect(doc.search).toBe("mcmc");
    expect(doc.mcmc.steps).toBe(3000);
    expect(doc.models).toHaveLength(doc.mcmc.distinctModels);
    const bridge = await run(["compare", wide, "--target", "y", "--prior", "nig", "--estimator", "bridge"]);
    expect(bridge.code).toBe(2);
    expect(bridge.stdout).toBe("");
    expect(bridge.stderr).toMatch(/too many to enumerate.*--subsets max=K/);
  });
});
