import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { csvColumns, parseCsv } from "../../src/data/csv.js";
import { formulaDesign } from "../../src/data/formula.js";
import { createRng } from "../../src/random/rng.js";
import { compareGlms, prepareGlmComparison } from "../../src/selection/glm.js";
import { runCli } from "../support/cli.js";

const PIMA = "examples/real-models/pima.csv";
const QUAKES = "examples/real-models/quakes.csv";
/** Reference log evidences of the 128 Pima subsets from numpy (fixtures/glm-references.py). */
const references = JSON.parse(
  readFileSync(new URL("./fixtures/glm-pima-references.json", import.meta.url), "utf8"),
) as { models: { inputs: string[]; logZ: number; stdErr: number }[] };
const INPUTS = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"];

/** The Pima design on `inputs` with the target read as 0/1 (Yes = 1). */
function pimaData(scaleColumn?: string, inputs = INPUTS) {
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
    { target: "type", terms: inputs.map((c) => [c]), dot: false },
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

  it("takes the robust g-prior by default, whose model probabilities do not depend on the inputs' units", () => {
    const inputs = ["glu", "bmi", "bp", "age"];
    const plain = compareGlms(pimaData(undefined, inputs), { family: "bernoulli" });
    const scaled = compareGlms(pimaData("bmi", inputs), { family: "bernoulli" });
    expect(plain.prior).toEqual({ name: "robust" });
    const key = (m: { inputs: readonly string[] }) => [...m.inputs].sort().join(",");
    const before = new Map(plain.models.map((m) => [key(m), m.posteriorProbability]));
    for (const m of scaled.models) {
      expect(Math.abs(m.posteriorProbability - (before.get(key(m)) as number))).toBeLessThan(1e-6);
      expect(m.reliable).toBe(true);
    }
    expect(plain.models[0].inputs).toEqual(expect.arrayContaining(["glu", "bmi"]));
  });

  it("keeps --always terms in every model: the probabilities are the others' given those terms", () => {
    const kept = compareGlms(pimaData(), {
      family: "bernoulli",
      prior: { name: "normal", scale: 10 },
      always: ["bmi", "glu"],
    });
    expect(kept.modelCount).toBe(32);
    expect(kept.always).toEqual(["glu", "bmi"]);
    const key = (inputs: readonly string[]) => [...inputs].sort().join(",");
    const withBoth = result.models.filter((m) => m.inputs.includes("glu") && m.inputs.includes("bmi"));
    const mass = withBoth.reduce((s, m) => s + m.posteriorProbability, 0);
    const before = new Map(withBoth.map((m) => [key(m.inputs), m]));
    for (const m of kept.models) {
      const same = before.get(key(m.inputs));
      // The same model, with the same evidence (its draws depend on its subset alone).
      expect(m.logEvidence).toBe(same?.logEvidence);
      expect(m.posteriorProbability).toBeCloseTo((same?.posteriorProbability as number) / mass, 12);
    }
    expect(kept.inclusionProbabilities.glu).toBe(1);
    // Under beta-binomial(1, 1) over the 5 other terms, a model with s of them has prior 1 / (6 C(5, s)).
    const betaBinomial = compareGlms(pimaData(), {
      family: "bernoulli",
      prior: { name: "normal", scale: 10 },
      always: ["bmi", "glu"],
      modelPrior: { name: "beta-binomial", a: 1, b: 1 },
    });
    const prior = (s: number) => 1 / (6 * [1, 5, 10, 10, 5, 1][s]);
    const probability = (r: typeof kept, inputs: string[]) =>
      r.models.find((m) => key(m.inputs) === key(inputs))?.posteriorProbability as number;
    const a = ["glu", "bmi"];
    const b = ["glu", "bmi", "npreg", "ped"];
    const ratio = probability(betaBinomial, b) / probability(betaBinomial, a);
    const expected = ((probability(kept, b) / probability(kept, a)) * prior(2)) / prior(0);
    expect(ratio / expected).toBeCloseTo(1, 12);
  });

  it("leaves every model's probability unchanged when an input is given in other units, and scales its coefficient", () => {
    const rescaled = compareGlms(pimaData("glu"), {
      family: "bernoulli",
      prior: { name: "normal", scale: 10 },
    });
    const key = (inputs: readonly string[]) => [...inputs].sort().join(",");
    const before = new Map(result.models.map((m) => [key(m.inputs), m.posteriorProbability]));
    for (const m of rescaled.models) {
      expect(Math.abs(m.posteriorProbability - (before.get(key(m.inputs)) as number))).toBeLessThan(1e-6);
    }
    // Coefficients are in the inputs' units: glucose in thousandths has a slope a thousand times smaller.
    const glu = (r: typeof result) => r.coefficients.find((c) => c.name === "glu")?.mean as number;
    expect(glu(rescaled) * 1000).toBeCloseTo(glu(result), 6);
  });
});

describe("compareGlms' model averages", () => {
  // Pima's blood pressure alone: two models (none, bp). The reference posterior of the bp model by
  // quadrature on a 241 × 241 grid over (intercept, slope on standardised bp), ±6.5 sd about its mean.
  const bpOnly = pimaData(undefined, ["bp"]);
  const x = bpOnly.design.X;
  const y = bpOnly.design.y;
  const n = x.length;
  const mean = x.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const NEW_BP = 90;
  const reference = (() => {
    const logDensity = (a: number, b: number) => {
      let s = -(a * a + b * b) / 200;
      for (let i = 0; i < n; i++) {
        const e = a + (b * (x[i] - mean)) / sd;
        s += y[i] * e - Math.max(e, 0) - Math.log1p(Math.exp(-Math.abs(e)));
      }
      return s;
    };
    const grid: [number, number, number][] = [];
    let best = Number.NEGATIVE_INFINITY;
    for (let i = 0; i <= 240; i++) {
      for (let j = 0; j <= 240; j++) {
        const a = -1.35 + (1.25 * i) / 240;
        const b = -0.25 + (1.3 * j) / 240;
        const v = logDensity(a, b);
        grid.push([a, b, v]);
        best = Math.max(best, v);
      }
    }
    let total = 0;
    const m = { slope: 0, slope2: 0, intercept: 0, probability: 0 };
    for (const [a, b, v] of grid) {
      const w = Math.exp(v - best);
      total += w;
      const slope = b / sd;
      m.slope += w * slope;
      m.slope2 += w * slope * slope;
      m.intercept += w * (a - slope * mean);
      m.probability += w / (1 + Math.exp(-(a + slope * (NEW_BP - mean))));
    }
    const slope = m.slope / total;
    const bySlope = grid.map(([, b, v]) => [b / sd, Math.exp(v - best) / total]).sort((p, q) => p[0] - q[0]);
    return {
      slopeQuantile(q: number) {
        let cumulative = 0;
        for (const [value, w] of bySlope) {
          cumulative += w;
          if (cumulative >= q) return value;
        }
        return Number.NaN;
      },
      slope,
      slopeSd: Math.sqrt(m.slope2 / total - slope * slope),
      intercept: m.intercept / total,
      probability: m.probability / total,
    };
  })();
  const result = compareGlms(bpOnly, {
    family: "bernoulli",
    prior: { name: "normal", scale: 10 },
    predict: { X: Float64Array.of(NEW_BP), rows: 1 },
  });
  const withBp = result.models.find((m) => m.inputs.includes("bp"))?.posteriorProbability as number;

  it("averages the slope over the models with and without the input, against quadrature", () => {
    expect(withBp).toBeGreaterThan(0.5);
    expect(withBp).toBeLessThan(1);
    const slope = result.coefficients.find((c) => c.name === "bp");
    // 4000 weighted draws: the Monte Carlo error of a posterior mean is about sd / 60.
    expect(Math.abs((slope?.mean as number) - withBp * reference.slope)).toBeLessThan(
      0.05 * reference.slopeSd,
    );
    expect(slope?.inclusionProbability).toBeCloseTo(withBp, 12);
    // The 95 % interval of the mixture of a point mass at 0 (weight 1 − p) and the bp model's posterior.
    const quantile = (q: number) =>
      q <= 1 - withBp ? 0 : reference.slopeQuantile((q - (1 - withBp)) / withBp);
    expect(Math.abs((slope?.lower as number) - quantile(0.025))).toBeLessThan(0.1 * reference.slopeSd);
    expect(Math.abs((slope?.upper as number) - quantile(0.975))).toBeLessThan(0.1 * reference.slopeSd);
    expect(result.medianModel).toEqual(["bp"]);
  });

  it("predicts the probability at a new row as the models' average, against quadrature", () => {
    const without = result.models.find((m) => m.inputs.length === 0)?.posteriorProbability as number;
    const onlyIntercept = y.reduce((a, b) => a + b, 0) / n;
    const prediction = result.predictions?.[0];
    // The intercept-only model's predictive mean is near the share of positives.
    const expected = withBp * reference.probability + without * onlyIntercept;
    expect(Math.abs((prediction?.mean as number) - expected)).toBeLessThan(0.005);
    expect(prediction?.lower).toBeLessThan(prediction?.mean as number);
    expect(prediction?.upper).toBeGreaterThan(prediction?.mean as number);
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

  it("predicts at the rows of --predict with the training factor levels, in text and JSON", async () => {
    const train = csv(
      "train.csv",
      `x,colour,y\n${Array.from({ length: 60 }, (_, i) => `${i % 7},${["red", "green", "blue"][i % 3]},${(i * 7) % 5 < 2 ? 1 : 0}`).join("\n")}\n`,
    );
    // Two of the three colours: blue, the training rows' reference level, and green.
    const fresh = csv("new.csv", "x,colour\n1,blue\n5,green\n");
    const args = [
      "compare",
      train,
      "--target",
      "y",
      "--family",
      "bernoulli",
      "--scale",
      "2.5",
      "--predict",
      fresh,
    ];
    const json = await runCli([...args, "--json"]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.predictions).toHaveLength(2);
    for (const p of report.predictions) {
      expect(p.lower).toBeLessThan(p.mean);
      expect(p.upper).toBeGreaterThan(p.mean);
      expect(p.lower).toBeGreaterThan(0);
      expect(p.upper).toBeLessThan(1);
    }
    // The same rows in another order and column order, with a red row, predict the same, row for row:
    // the colours are coded as in training whatever the new rows hold.
    const others = csv("others.csv", "colour,x\nred,2\ngreen,5\nblue,1\n");
    const again = JSON.parse((await runCli([...args.slice(0, -1), others, "--json"])).stdout);
    expect(again.predictions[1].mean).toBeCloseTo(report.predictions[1].mean, 12);
    expect(again.predictions[2].mean).toBeCloseTo(report.predictions[0].mean, 12);
    const text = await runCli(args);
    expect(text.stdout).toMatch(/Model-averaged probability at the new rows/);
    expect(text.stdout).toMatch(/\(intercept\)/);
  });

  it("refuses, with exit 2, new rows with an unknown level, a missing column or text for numbers, an unknown --always term, --always holding every term and --predict under the independent prior", async () => {
    const train = csv("train2.csv", "x,g,y\n1,a,0\n2,b,1\n3,a,0\n4,b,1\n5,a,1\n6,b,0\n");
    const unknown = csv("unknown.csv", "x,g\n1,c\n");
    const missing = csv("missing.csv", "x\n1\n");
    const text = csv("text.csv", "x,g\nlow,a\n");
    const glm = ["compare", train, "--target", "y", "--family", "bernoulli", "--scale", "2.5", "--predict"];
    const cases: [string[], RegExp][] = [
      [[...glm, unknown], /g = "c", a level the training rows do not have/],
      [[...glm, missing], /no column "g"/],
      [[...glm, text], /x holds numbers in the training rows but text in the new rows/],
      [["compare", train, "--target", "x", "--inputs", "y", "--predict", missing], /no column "y"/],
      [
        ["compare", train, "--target", "x", "--inputs", "y", "--prior", "independent", "--predict", train],
        /closed-form predictive: the g-priors .* or nig, not the independent prior/,
      ],
      [["compare", train, "--target", "x", "--inputs", "y", "--always", "y"], /holds every term/],
      [[...glm.slice(0, -1), "--always", "z"], /--always: no term "z"/],
    ];
    for (const [args, pattern] of cases) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(pattern);
    }
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
      [[negative, "--target", "y", "--family", "poisson", "--prior", "normal"], /--scale S/],
      [
        [negative, "--target", "y", "--family", "poisson", "--prior", "robust", "--scale", "5"],
        /--scale applies to --prior normal/,
      ],
      [
        [negative, "--target", "y", "--family", "poisson", "--prior", "nig", "--scale", "5"],
        /takes --prior robust \(the default\), hyper-g-n, or normal/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const run = await runCli(["compare", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(pattern);
    }
  });
});

describe("compareGlms on more than 1024 models", () => {
  it("screens them by Laplace's approximation, corrects those within 10 nats of the best, and flags the rest", () => {
    // 11 inputs (2048 models), 300 rows: the first three matter.
    const rng = createRng(21);
    const lines = [[...Array.from({ length: 11 }, (_, j) => `x${j + 1}`), "y"].join(",")];
    for (let i = 0; i < 300; i++) {
      const x = Array.from({ length: 11 }, () => rng.normal());
      const eta = 0.2 + 1.1 * x[0] - 0.8 * x[1] + 0.5 * x[2];
      lines.push([...x.map((v) => v.toFixed(4)), rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0].join(","));
    }
    const data = formulaDesign(
      csvColumns(parseCsv(lines.join("\n"))),
      { target: "y", terms: Array.from({ length: 11 }, (_, j) => [`x${j + 1}`]), dot: false },
      { heredity: true },
    );
    const result = compareGlms(data, { family: "bernoulli" });
    expect(result.modelCount).toBe(2048);
    expect(result.screenedModels).toBeGreaterThan(1000);
    expect(result.unreliableModels).toBe(0);
    const best = result.models[0].logEvidence;
    for (const m of result.models) {
      if (m.screened) {
        expect(m.reliable).toBe(false);
        expect(m.stdErr).toBe(0);
        expect(m.warnings[0]).toMatch(/Laplace's approximation alone/);
      } else {
        expect(m.reliable).toBe(true);
        expect(m.stdErr).toBeGreaterThan(0);
      }
      // Every model near the best was corrected (the model prior is uniform).
      if (m.logEvidence > best - 9) expect(m.screened).toBe(false);
    }
    for (const name of ["x1", "x2"]) expect(result.inclusionProbabilities[name]).toBeGreaterThan(0.99);
    // The screening scores are the corrected evidences to a few hundredths of a nat: correct some.
    const setup = prepareGlmComparison(data, { family: "bernoulli" });
    const screened = result.models.filter((m) => m.screened);
    for (let s = 0; s < screened.length; s += Math.floor(screened.length / 15)) {
      const members = screened[s].inputs.map((name) => Number(name.slice(1)) - 1);
      const corrected = setup.evidence(members);
      expect(Math.abs(screened[s].logEvidence - corrected.logZ), screened[s].inputs.join(",")).toBeLessThan(
        0.1,
      );
    }
  });
});
