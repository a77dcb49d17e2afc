/**
 * The report of `occam reproduce fabricius-linear`: the thesis's linear toy problem (§6.2.4) — Table
 * 6.1 with the thesis's row under occam's, the maximum-likelihood curves (Figures 6.2–6.3), exact
 * Bayes over the ρ grid (Figures 6.4–6.5) and path sampling against quadrature (Figure 6.6).
 */
import type {
  FabriciusLinearExperiment,
  MlTableRow,
  ThesisTableRow,
} from "../../experiments/fabricius-linear.js";
import { formatNumber } from "../format.js";
import type { ReportDocument, ReportSection, ReportTable } from "../html.js";
import { plusMinus, reproduceCommand, type SeriesPoint, seriesPlot } from "./common.js";

const f = (v: number, digits = 4) => formatNumber(v, digits);
const pct = (v: number) => `${Math.round(100 * v)} %`;

/** The fabricius-linear reproduction as a report document. */
export async function fabriciusLinearReport(result: FabriciusLinearExperiment): Promise<ReportDocument> {
  const s = result.settings;
  return {
    title: "The thesis's linear toy problem: Fabricius §6.2.4, Table 6.1 and Figures 6.2–6.6",
    subtitle:
      `${reproduceCommand("fabricius-linear", result.seed, result.quick)}: ${s.inputs} inputs (${s.relevant} relevant), ` +
      `${s.nTrain} training and ${s.nTest} test cases, σ = ${s.noiseSd}, ${s.repetitions} repetitions, ${f(result.seconds, 3)} s`,
    sections: [
      await mlSection(result),
      await bayesSection(result),
      ...(result.pathSampling === null ? [] : [await pathSection(result)]),
    ],
  };
}

function tableRow(method: string, source: string, r: ThesisTableRow): string[] {
  return [
    method,
    source,
    f(r.rho, 3),
    String(r.inputs),
    f(r.logLikelihood),
    f(r.penalisedLogLikelihood),
    f(r.trainVariance, 3),
    f(r.testVariance, 3),
    f(r.logPredictive),
  ];
}

function table61(rows: readonly MlTableRow[]): ReportTable {
  return {
    caption:
      "Table 6.1: the selection from the criterion averaged over the repetitions (nested models), occam's row above the thesis's",
    columns: ["method", "", "ρ", "inputs", "log like.", "pen. log like.", "σ²_train", "σ²_test", "log pred."],
    rows: rows.flatMap((r) => [
      tableRow(r.method, "occam", r),
      ...(r.thesis === null ? [] : [tableRow("", "thesis", r.thesis)]),
    ]),
  };
}

async function mlSection(result: FabriciusLinearExperiment): Promise<ReportSection> {
  const c = result.mlCurves;
  const s = result.settings;
  const thesisPoints = (value: (t: ThesisTableRow) => number): SeriesPoint[] =>
    result.table
      .filter((r) => r.thesis !== null && r.method !== "Truth" && r.thesis.rho === 0)
      .map((r) => ({
        series: "thesis",
        x: (r.thesis as ThesisTableRow).inputs,
        y: value(r.thesis as ThesisTableRow),
      }));
  const curve = (values: readonly number[]): SeriesPoint[] =>
    c.inputs.map((k, i) => ({ series: "occam", x: k, y: values[i] }));
  return {
    heading: "Maximum likelihood (Table 6.1, Figures 6.2–6.3)",
    paragraphs: [
      "The thesis's text gives the noise standard deviation as 0.01, but its Table 6.1 and Figure 6.5 use σ_true = 0.1 (variance 0.01, " +
        `true mean log predictive density −½ log(2πσ²) − ½ = ${f(s.trueLogPredictive)}): occam uses the corrected σ = 0.1. ` +
        "The thesis's ρ_ML is given in units of 10⁻⁴ in the table's header; it is shown here in plain units.",
    ],
    tables: [
      table61(result.table),
      {
        caption: "Each data set selecting for itself (right = exactly the true inputs)",
        columns: ["method", "right (nested)", "right (all subsets)", "mean inputs", "σ²_test", "log pred."],
        rows: result.table.flatMap((r) =>
          r.perDataSet === null
            ? []
            : [
                [
                  r.method,
                  pct(r.perDataSet.rightNested),
                  pct(r.perDataSet.rightAllSubsets),
                  f(r.perDataSet.meanInputs, 3),
                  f(r.perDataSet.testVariance, 3),
                  f(r.perDataSet.logPredictive),
                ],
              ],
        ),
      },
    ],
    plots: [
      await seriesPlot(
        [...curve(c.logPredictive), ...thesisPoints((t) => t.logPredictive)],
        {
          x: "inputs (nested models)",
          y: "mean test log predictive",
          integerX: true,
          reference: s.trueLogPredictive,
        },
        "Mean test log predictive density of the maximum-likelihood nested models against their size (Figure 6.3), with the thesis's " +
          "values at the models its ML and penalised ML select; the dashed line is the true model's.",
      ),
      await seriesPlot(
        [
          ...curve(c.trainVariance).map((p) => ({ ...p, series: "occam σ²_train" })),
          ...curve(c.testVariance).map((p) => ({ ...p, series: "occam σ²_test" })),
          ...thesisPoints((t) => t.testVariance).map((p) => ({ ...p, series: "thesis σ²_test" })),
        ],
        { x: "inputs (nested models)", y: "variance", integerX: true, reference: s.noiseSd ** 2 },
        "Training and test variance of the maximum-likelihood nested models (Figure 6.2), with the thesis's test variances; the dashed " +
          "line is the true noise variance.",
      ),
    ],
  };
}

async function bayesSection(result: FabriciusLinearExperiment): Promise<ReportSection> {
  const s = result.settings;
  const nig = result.nig.results;
  const curves = (value: (r: (typeof nig)[number]) => readonly number[]): SeriesPoint[] =>
    nig.flatMap((r) =>
      value(r).map((y, i) => ({
        series: `ρ = ${formatNumber(r.rho, 2)}`,
        x: i + 1,
        y,
        panel: `${r.prior} prior on τ`,
      })),
    );
  return {
    heading: "Exact Bayes, τ_w = ρτ (Figures 6.4–6.5)",
    paragraphs: [
      `The evidence of every one of the ${2 ** s.inputs} subsets in closed form, with a uniform prior over subsets. The thesis shows its two ` +
        "priors on τ only in its figures' panels; occam's are a vague prior (α = 10⁻³, β = 10³) and a constrained one (α = 5, β = 20). " +
        "The figures have no numbers to set beside occam's; the true log predictive density is the one published value they share.",
    ],
    tables: [
      {
        columns: [
          "prior",
          "ρ",
          "right (nested)",
          "right (all)",
          "P(winner)",
          "P(truth)",
          "log pred. winner",
          "log pred. average",
          `log pred. ${s.inputs} inputs`,
        ],
        rows: nig.map((r) => [
          r.prior,
          f(r.rho, 2),
          pct(r.rightNested),
          pct(r.rightAllSubsets),
          f(r.meanWinnerProbability, 3),
          f(r.meanTrueProbability, 3),
          f(r.winnerLogPredictive),
          f(r.averageLogPredictive),
          f(r.meanLogPredictive[r.meanLogPredictive.length - 1]),
        ]),
      },
    ],
    plots: [
      await seriesPlot(
        curves((r) => r.meanLogEvidence),
        { x: "inputs (nested models)", y: "mean log evidence", integerX: true, independentY: true },
        "Mean log evidence of the nested models against their size, one line per ρ, one panel per prior on τ (Figure 6.4).",
      ),
      await seriesPlot(
        curves((r) => r.meanLogPredictive),
        {
          x: "inputs (nested models)",
          y: "mean test log predictive",
          integerX: true,
          reference: s.trueLogPredictive,
        },
        `Mean test log predictive density of the nested models (Figure 6.5); the dashed line is the truth's ${f(s.trueLogPredictive)}.`,
      ),
    ],
  };
}

async function pathSection(result: FabriciusLinearExperiment): Promise<ReportSection> {
  const ps = result.pathSampling as NonNullable<FabriciusLinearExperiment["pathSampling"]>;
  const points: SeriesPoint[] = ps.readings.flatMap((reading) =>
    reading.rows.flatMap((r) => {
      const panel = `β, β_w read as ${reading.reading}s`;
      return [
        {
          series: "path sampling",
          x: r.inputs,
          y: r.logZ,
          low: r.logZ - r.stdErr,
          high: r.logZ + r.stdErr,
          panel,
        },
        {
          series: "stepping-stone",
          x: r.inputs,
          y: r.steppingStoneLogZ,
          low: r.steppingStoneLogZ - r.steppingStoneStdErr,
          high: r.steppingStoneLogZ + r.steppingStoneStdErr,
          panel,
        },
        { series: "quadrature", x: r.inputs, y: r.exactLogZ, panel },
      ];
    }),
  );
  return {
    heading: "Path sampling with independent precisions (Figure 6.6)",
    paragraphs: [
      `On data set ${ps.repetition + 1} only, as the thesis: ${ps.temperatures} random temperatures from p(θ) = (1 − k)θ^−k with k = ${ps.k} ` +
        "(the thesis's eq. 5.31 writes θ^−k/(1 − k), which does not integrate to 1; corrected). The thesis's α = 1/2, β = 1/200, " +
        "α_w = 1/4, β_w = 1/1600 are run under both readings of β: as Gamma scales (as its formulas say) and as rates (the reading " +
        "under which its Figure 6.6 can be reproduced).",
      "The thesis's path-sampling error bar (the terms' sd/√N) understates its error: the terms near θ = 0 are heavy-tailed. Trust the " +
        "stepping-stone column, the same Gibbs sampler on a ladder, and the quadrature.",
    ],
    tables: ps.readings.map((reading) => ({
      caption:
        `β, β_w as ${reading.reading}s (α = ${f(reading.prior.alpha)}, β = ${f(reading.prior.beta)}, α_w = ${f(reading.prior.alphaW)}, ` +
        `β_w = ${f(reading.prior.betaW)}): the winner has ${reading.winner} inputs by path sampling, ${reading.steppingStoneWinner} by ` +
        `stepping-stone, ${reading.exactWinner} by quadrature`,
      columns: ["inputs", "path sampling", "z", "stepping-stone", "z", "quadrature", "seconds"],
      rows: reading.rows.map((r) => [
        String(r.inputs),
        plusMinus(r.logZ, r.stdErr),
        r.stdErr > 0 ? f((r.logZ - r.exactLogZ) / r.stdErr, 2) : "—",
        plusMinus(r.steppingStoneLogZ, r.steppingStoneStdErr),
        r.steppingStoneStdErr > 0 ? f((r.steppingStoneLogZ - r.exactLogZ) / r.steppingStoneStdErr, 2) : "—",
        f(r.exactLogZ),
        f(r.seconds, 2),
      ]),
    })),
    plots: [
      await seriesPlot(
        points,
        { x: "inputs (nested models)", y: "log evidence", integerX: true, independentY: true },
        "Log evidence of the nested models by the thesis's path sampling and by stepping-stone (± one standard error) against the " +
          "quadrature, one panel per reading of the priors' β (Figure 6.6).",
      ),
    ],
  };
}
