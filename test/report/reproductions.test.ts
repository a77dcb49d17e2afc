/**
 * The reports of `occam reproduce`: each built from a small result (a tiny run where the experiment
 * is quick, a result made here where it is not), checked for the published numbers and occam's, for
 * plots that are SVGs with marks, and for escaping.
 */
import { describe, expect, it } from "vitest";
import type { CalibrationExperiment } from "../../src/experiments/calibration.js";
import { runEstimatorsExperiment } from "../../src/experiments/estimators.js";
import { EVERSON_PAPER, runEversonExperiment } from "../../src/experiments/everson.js";
import type { EversonFamiliesResult, EversonFamilyRow } from "../../src/experiments/everson-families.js";
import {
  type FabriciusLinearExperiment,
  runFabriciusLinearExperiment,
} from "../../src/experiments/fabricius-linear.js";
import { runRobotArmExperiment } from "../../src/experiments/robot-arm.js";
import type { GaussianRow, SamplersExperiment } from "../../src/experiments/samplers.js";
import type { SykacekResult, SykacekRow } from "../../src/experiments/sykacek.js";
import { type ReportDocument, reportHtml } from "../../src/report/html.js";
import { calibrationReport } from "../../src/report/reproductions/calibration.js";
import { plusMinus } from "../../src/report/reproductions/common.js";
import { estimatorsReport } from "../../src/report/reproductions/estimators.js";
import { eversonReport } from "../../src/report/reproductions/everson.js";
import { eversonFamiliesReport } from "../../src/report/reproductions/everson-families.js";
import { fabriciusLinearReport } from "../../src/report/reproductions/fabricius-linear.js";
import { robotArmReport } from "../../src/report/reproductions/robot-arm.js";
import { samplersReport } from "../../src/report/reproductions/samplers.js";
import { sykacekReport } from "../../src/report/reproductions/sykacek.js";
import { TINY_ROBOT_ARM } from "../support/robot-arm.js";

const HOSTILE = "<script>alert(1)</script>";

/** Every plot is an SVG with drawn marks, and the page is one offline document. */
function expectPlotsAndPage(doc: ReportDocument, minPlots: number): string {
  const plots = doc.sections.flatMap((s) => s.plots ?? []);
  expect(plots.length).toBeGreaterThanOrEqual(minPlots);
  for (const plot of plots) {
    expect(plot.svg.startsWith("<svg")).toBe(true);
    expect(plot.svg.match(/class="mark-(symbol|rule|line)/g)?.length ?? 0, plot.caption).toBeGreaterThan(0);
  }
  const html = reportHtml(doc);
  expect(html).not.toMatch(/<script|src="http|href="http/i);
  return html;
}

/** The text of every table cell and paragraph. */
function text(doc: ReportDocument): string {
  return doc.sections
    .flatMap((s) => [
      ...(s.paragraphs ?? []),
      ...(s.tables ?? []).flatMap((t) => [t.caption ?? "", ...t.columns, ...t.rows.flat()]),
    ])
    .join("\n");
}

describe("reproduction reports", () => {
  it("robot-arm: plots log evidence ± error against the number of hidden units, beside the thesis's readings", async () => {
    const result = runRobotArmExperiment({
      seed: 1,
      quick: true,
      hidden: [1, 2],
      settings: TINY_ROBOT_ARM,
    });
    const doc = await robotArmReport(result);
    expectPlotsAndPage(doc, 2);
    const evidence = doc.sections[0].plots?.[0];
    if (evidence === undefined) throw new Error("no evidence plot");
    // One point per method and direction at each size, and an error bar per point that has one.
    const { values } = (
      evidence.spec as { data: { values: { x: number; series: string; low: number; high: number }[] } }
    ).data;
    expect(new Set(values.map((v) => v.x))).toEqual(new Set([1, 2]));
    expect(values.filter((v) => v.series === "path ↑ from prior" && v.high > v.low)).toHaveLength(2);
    expect(evidence.svg.match(/class="mark-rule/g)?.length).toBeGreaterThan(0);
    const words = text(doc);
    const e = result.rows[0].logEvidence.path.fromPrior;
    expect(words).toContain(plusMinus(e.logZ, e.stdErr));
    expect(words).toContain("11 (8 or 12 within its spread)");
    expect(words).toContain("13 (10 to 16 within its spread)");
  });

  it("everson: Tables 1–2 with the paper's numbers beside occam's gaps", async () => {
    const result = runEversonExperiment({ n: 60, samples: 50, seed: 1 });
    const doc = await eversonReport(result);
    expectPlotsAndPage(doc, 2);
    const words = text(doc);
    for (const p of Object.values(EVERSON_PAPER)) {
      expect(words).toContain(p.table1[1].toFixed(1));
      expect(words).toContain(p.table2[0].toFixed(1));
    }
    expect(words).toContain(result.rows[0].exact.toFixed(1));
    expect(words).toContain("is not at present known");
    expect(words).toContain("these for n = 60");
  });

  it("estimators: each estimate against the exact log Z, and Barber & Bishop's 10 % check", async () => {
    const result = runEstimatorsExperiment({
      seed: 1,
      quick: true,
      problems: ["mixture-2d"],
      methods: ["laplace", "importance"],
    });
    const doc = await estimatorsReport(result);
    expectPlotsAndPage(doc, 1);
    const words = text(doc);
    expect(words).toContain("Barber & Bishop's chaining (paper)");
    expect(words).toContain("3.0000");
    const importance = result.results.find((r) => r.method === "importance");
    expect(words).toContain(plusMinus(importance?.logZ as number, importance?.stdErr as number));
  });

  it("samplers: the thesis's ρ = 0.8 numbers beside occam's, and importance sampling against ½ log 2π", async () => {
    const doc = await samplersReport(samplersFixture());
    expectPlotsAndPage(doc, 3);
    const words = text(doc);
    for (const published of [
      "0.8308, 0.6333, 0.8303",
      "-0.1473, -0.1058",
      "1.1899, 1.0191, 1.23",
      "0.68",
      "0.82",
    ]) {
      expect(words).toContain(published);
    }
    expect(words).toContain("0.998, 0.801, 1.01");
    expect(words).toContain("0.9189 ± 0.0031");
    expect(words).toContain("√(1.99/0.01) = 14.1");
  });

  it("calibration: the references, each cell, and every run's z", async () => {
    const doc = await calibrationReport(calibrationFixture());
    expectPlotsAndPage(doc, 1);
    const words = text(doc);
    expect(words).toContain("-1.2345");
    expect(words).toContain("1/2");
    expect(words).toContain("Silent failures in all: 1");
  });

  it("fabricius-linear: Table 6.1 with the thesis's rows, the curves, exact Bayes and path sampling", async () => {
    const small = runFabriciusLinearExperiment({
      seed: 3,
      repetitions: 5,
      nTest: 30,
      mlRhoGrid: [0, 1e-2],
      nigRhoGrid: [1e-2],
      pathSampling: false,
    });
    const doc = await fabriciusLinearReport({ ...small, pathSampling: pathSamplingFixture() });
    expectPlotsAndPage(doc, 5);
    const words = text(doc);
    for (const published of ["23.73", "0.0219", "0.2764", "0.7917", "0.8836", "0.000192"]) {
      expect(words).toContain(published);
    }
    expect(words).toContain("occam uses the corrected σ = 0.1");
    expect(words).toContain("-40.250 ± 0.040");
  });

  it("sykacek: Table 1 beside occam, the inputs' probabilities, and a hostile input name as text", async () => {
    const doc = await sykacekReport(sykacekFixture());
    const html = expectPlotsAndPage(doc, 3);
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain("&lt;script&gt;");
    const words = text(doc);
    for (const published of ["78.9", "91.5", "4.3", "≈ 500"]) expect(words).toContain(published);
    expect(words).toContain("81.2");
  });

  it("everson-families: each run's evidences and scores, and the claim's check", async () => {
    const doc = await eversonFamiliesReport(familiesFixture());
    expectPlotsAndPage(doc, 2);
    const words = text(doc);
    expect(words).toContain("publish no classification results");
    expect(words).toContain("on 1 of 1 runs");
    expect(words).toContain("within two of them on both scores on 1 of 1 runs");
    expect(words).toContain("-24.70 ± 0.36");
    expect(words).toContain("-31.790120 ± 2.2e-14");
  });
});

describe("plusMinus", () => {
  it("shows a value to its error's precision, caps the decimals, and says when there is no error", () => {
    expect(plusMinus(1.23456, 0.0123)).toBe("1.235 ± 0.012");
    expect(plusMinus(-31.79012030003555, 2.2e-14)).toBe("-31.790120 ± 2.2e-14");
    expect(plusMinus(2.5, null)).toBe("2.5 ± ?");
    expect(plusMinus(2.5, 0)).toBe("2.5");
  });
});

function gaussianRow(rho: number, sampler: GaussianRow["sampler"], ess: number): GaussianRow {
  return {
    rho,
    sampler,
    evaluations: 20_000,
    mean: [0.01, -0.02],
    covariance: [
      [0.998, rho + 0.001],
      [rho + 0.001, 1.01],
    ],
    acceptanceRate: sampler === "gibbs" ? 1 : 0.7,
    ess: [ess, ess + 10],
    essPer1000Evaluations: ess / 20,
  };
}

function samplersFixture(): SamplersExperiment {
  const samplers = ["gibbs", "metropolis", "langevin", "hmc"] as const;
  return {
    experiment: "samplers",
    seed: 1,
    budget: 20_000,
    gaussians: [0.8, 0.99].flatMap((rho) => samplers.map((s, i) => gaussianRow(rho, s, 100 * (i + 1)))),
    exactLogZ: 0.5 * Math.log(2 * Math.PI),
    importance: [2, 1e4].flatMap((v) =>
      [10, 1000].map((samples) => ({ proposalVariance: v, samples, logZ: 0.9189, stdErr: 0.0031 })),
    ),
  };
}

function calibrationFixture(): CalibrationExperiment {
  const run = (method: "bridge" | "smc", seed: number, error: number, reliable: boolean) => ({
    problem: "eggbox" as const,
    method,
    seed,
    logZ: -1.2345 + error,
    stdErr: 0.05,
    error,
    z: error / 0.05,
    reliable,
    warning: reliable ? null : "few effective draws",
    nLikelihoodEvals: 1000,
    seconds: 0.1,
    failure: null,
  });
  const runs = [
    run("bridge", 1, 0.01, true),
    run("bridge", 2, 0.5, true),
    run("smc", 1, 2, false),
    run("smc", 2, 0, true),
  ];
  const cell = (method: "bridge" | "smc", unreliable: number, silentFailures: number) => ({
    problem: "eggbox" as const,
    method,
    runs: 2,
    unreliable,
    silentFailures,
    meanError: 0.1,
    meanStdErr: 0.05,
    fractionWithin2: 0.5,
    worstZ: 10,
    nLikelihoodEvals: 1000,
    seconds: 0.1,
  });
  return {
    experiment: "calibration",
    seed: 1,
    seeds: 2,
    quick: true,
    references: [{ problem: "eggbox", logZ: -1.2345, logZError: 0.001, description: "the egg box" }],
    cells: [cell("bridge", 0, 1), cell("smc", 1, 0)],
    runs,
  };
}

function pathSamplingFixture(): NonNullable<FabriciusLinearExperiment["pathSampling"]> {
  const rows = [1, 2].map((inputs) => ({
    inputs,
    logZ: -40 - inputs,
    stdErr: 0.5,
    steppingStoneLogZ: -41.25 + inputs,
    steppingStoneStdErr: 0.04,
    exactLogZ: -41.2 + inputs,
    quadratureError: 1e-6,
    seconds: 0.5,
  }));
  const reading = (name: "rate" | "scale") => ({
    reading: name,
    prior: { alpha: 0.5, beta: 200, alphaW: 0.25, betaW: 1600 },
    rows,
    winner: 1,
    steppingStoneWinner: 2,
    exactWinner: 2,
  });
  return { repetition: 0, temperatures: 20, k: 0.9, readings: [reading("rate"), reading("scale")] };
}

function sykacekRow(data: string, paperAccuracy: number, paperMeanInputs: number): SykacekRow {
  return {
    structure: "per-input",
    data,
    split: 0,
    kernels: 3,
    h: 0.16,
    accuracy: 0.812,
    logisticAccuracy: 0.8,
    meanInputs: 4.1,
    maxInputs: 6,
    distinctSubsets: 40,
    paperAccuracy,
    paperMeanInputs,
    paperMaxInputs: 7,
    topSubsets: [{ inputs: ["glu", HOSTILE], probability: 0.6 }],
    inputProbabilities: { glu: 1, [HOSTILE]: 0.6, age: 0.2 },
    acceptance: { birth: 0.1, death: 0.1, exchange: 0.2 },
    seconds: 1,
  };
}

function sykacekFixture(): SykacekResult {
  return {
    draws: 3000,
    burnIn: 1000,
    rows: [sykacekRow("pima", 0.789, 4), sykacekRow("ionosphere", 0.915, 4.3), sykacekRow("wine", 1, 4.4)],
  };
}

function familiesFixture(): EversonFamiliesResult {
  const family = (
    name: string,
    logEvidence: number,
    stdErr: number,
    probability: number,
  ): EversonFamilyRow => ({
    family: name,
    method: "chain-rule",
    logEvidence,
    stdErr,
    reliable: true,
    crossCheck: { method: "quadrature", logEvidence, stdErr, reliable: true, z: 0.1 },
    everson: null,
    probability,
    stackingWeight: probability,
    accuracy: 0.93,
    logLoss: 0.15,
    logLossMcse: 0.004,
    brier: 0.08,
  });
  const combined = { accuracy: 0.94, logLoss: 0.149, logLossMcse: 0.004, brier: 0.08 };
  return {
    draws: 1000,
    folds: 5,
    runs: [
      {
        data: "iris",
        seed: 1,
        trainRows: 75,
        testRows: 75,
        families: [
          family("logistic", -24.7, 0.36, 0.999),
          family("pknn", -31.79012030003555, 2.2e-14, 0.001),
        ],
        average: combined,
        stacked: combined,
        bestLogLoss: 0.15,
        bestAccuracy: 0.93,
        logLossWithinBest: true,
        gaps: {
          logLoss: { difference: -0.001, testStdErr: 0.01 },
          accuracy: { difference: 0.01, testStdErr: 0.01 },
        },
        withinTestNoise: true,
        accuracyWithinBest: true,
        warnings: [],
        seconds: 1,
      },
    ],
  };
}
