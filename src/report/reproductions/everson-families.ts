/**
 * The report of `occam reproduce everson-families`: Everson et al.'s proposal carried out — classifier
 * families compared by the evidence of the labels given the inputs, their predictions averaged by the
 * evidence and stacked — with each run's evidences and test scores, and the check of the claim.
 */
import type { EversonFamiliesResult, EversonFamiliesRun } from "../../experiments/everson-families.js";
import { CHAIN_RULE, estimatorName } from "../../models/classifiers/families.js";
import { formatNumber } from "../format.js";
import type { ReportDocument, ReportSection, ReportTable } from "../html.js";
import { plusMinus, type SeriesPoint, seriesPlot } from "./common.js";

const runLabel = (run: EversonFamiliesRun) => `${run.data}, seed ${run.seed}`;

/** The everson-families reproduction as a report document. */
export async function eversonFamiliesReport(result: EversonFamiliesResult): Promise<ReportDocument> {
  const runs = result.runs;
  const total = runs.length;
  const logLossOk = runs.filter((r) => r.logLossWithinBest).length;
  const accuracyOk = runs.filter((r) => r.accuracyWithinBest).length;
  const withinNoise = runs.filter((r) => r.withinTestNoise).length;
  const evidencePoints = evidencePointsOf(runs);
  const lossPoints = lossPointsOf(runs);
  const sections: ReportSection[] = [
    {
      heading: "The claim and its check",
      paragraphs: [
        "Everson et al. propose weighting classifier families by their evidence (eqs. 5–6) but publish no classification results, so " +
          "there is no table of theirs to set beside occam's; the check is of their claim that the evidence-weighted average predicts " +
          "about as well as the best single family. The evidence of each family is the chain rule of its fold predictives " +
          `(${result.folds} folds, ${result.draws} draws per posterior), cross-checked by a second estimator; where the chain rule ` +
          "failed its checks, tempered SMC on all training rows (marked smc) when it passed its own. " +
          'Their own estimator, the G-fold product ∏_g p(D_g | D_−g), is shown where it was run ("Everson G-fold"): it sits above the ' +
          "chain rule by the bias their Tables 1–2 show and their text could not explain.",
        `The evidence-weighted average's test log loss was within its Monte Carlo error of the best family's (or better) on ${logLossOk} ` +
          `of ${total} runs, and its accuracy within one point on ${accuracyOk} of ${total}.`,
        "The Monte Carlo error says how well occam knows each predictive, not whether the test rows can tell two apart: the gaps " +
          "(average minus best family; for accuracy, the best family by accuracy) carry their standard errors over the paired test " +
          `rows, and the average was within two of them on both scores on ${withinNoise} of ${total} runs.`,
      ],
      tables: [
        {
          columns: [
            "run",
            "train / test rows",
            "average log loss",
            "best family's",
            "within",
            "average accuracy %",
            "best %",
            "within",
          ],
          rows: runs.map((run) => [
            runLabel(run),
            `${run.trainRows} / ${run.testRows}`,
            run.average === null ? "—" : plusMinus(run.average.logLoss, run.average.logLossMcse),
            formatNumber(run.bestLogLoss, 4),
            run.logLossWithinBest ? "yes" : "no",
            run.average === null ? "—" : formatNumber(100 * run.average.accuracy, 3),
            formatNumber(100 * run.bestAccuracy, 3),
            run.accuracyWithinBest ? "yes" : "no",
          ]),
        },
        {
          columns: [
            "run",
            "log-loss gap ± test s.e.",
            "accuracy gap ± test s.e. (points)",
            "within test noise",
          ],
          rows: runs.map((run) => [
            runLabel(run),
            run.gaps === null ? "—" : plusMinus(run.gaps.logLoss.difference, run.gaps.logLoss.testStdErr),
            run.gaps === null
              ? "—"
              : plusMinus(100 * run.gaps.accuracy.difference, 100 * run.gaps.accuracy.testStdErr),
            run.withinTestNoise ? "yes" : "no",
          ]),
        },
      ],
      plots: [
        await seriesPlot(
          evidencePoints,
          {
            x: "family",
            y: "log evidence − best (nats)",
            xType: "nominal",
            lines: false,
            reference: 0,
            independentY: true,
          },
          "Each family's log evidence of the labels against its run's best reliable family, ± one standard error, one panel per data set (a point per seed).",
        ),
        await seriesPlot(
          lossPoints,
          { x: "predictive", y: "test log loss", xType: "nominal", lines: false, independentY: true },
          "Test log loss of each family and of the evidence-weighted and stacked predictives, ± Monte Carlo error (lower is better), one panel per data set (a point per seed).",
        ),
      ],
    },
    ...runs.map((run) => ({
      heading: `${run.data}, seed ${run.seed}`,
      paragraphs: [
        `${run.trainRows} training and ${run.testRows} test rows, ${formatNumber(run.seconds, 3)} s.`,
        ...run.warnings.map((w) => `Warning: ${w}`),
      ],
      tables: [runTable(run)],
    })),
  ];
  return {
    title: "Classifier families weighted by their evidence (Everson et al., eqs. 5–6)",
    subtitle: `occam reproduce everson-families: ${[...new Set(runs.map((r) => r.data))].join(", ")}; ${total} run(s)`,
    sections,
  };
}

/** Each family's log evidence against its run's best reliable family (evidences differ by data set), ± one s.e. */
function evidencePointsOf(runs: readonly EversonFamiliesRun[]): SeriesPoint[] {
  return runs.flatMap((run) => {
    const reliable = run.families.filter((f) => f.reliable).map((f) => f.logEvidence);
    const best =
      reliable.length > 0 ? Math.max(...reliable) : Math.max(...run.families.map((f) => f.logEvidence));
    return run.families.map((f) => ({
      series: f.reliable ? "reliable" : "unreliable (left out)",
      x: f.family,
      y: f.logEvidence - best,
      low: f.logEvidence - best - f.stdErr,
      high: f.logEvidence - best + f.stdErr,
      panel: run.data,
    }));
  });
}

/** The test log loss of each family and of the averaged predictives, ± Monte Carlo error. */
function lossPointsOf(runs: readonly EversonFamiliesRun[]): SeriesPoint[] {
  return runs.flatMap((run) => [
    ...run.families.map((f) => ({
      series: "family",
      x: f.family,
      y: f.logLoss,
      low: f.logLoss - f.logLossMcse,
      high: f.logLoss + f.logLossMcse,
      panel: run.data,
    })),
    ...(
      [
        ["evidence-weighted", run.average],
        ["stacked", run.stacked],
      ] as const
    ).flatMap(([name, c]) =>
      c === null
        ? []
        : [
            {
              series: name,
              x: name,
              y: c.logLoss,
              low: c.logLoss - c.logLossMcse,
              high: c.logLoss + c.logLossMcse,
              panel: run.data,
            },
          ],
    ),
  ]);
}

function runTable(run: EversonFamiliesRun): ReportTable {
  const everson = run.families.some((f) => f.everson !== null);
  const rows = run.families.map((f) => [
    f.family,
    `${plusMinus(f.logEvidence, f.stdErr)}${f.method === CHAIN_RULE ? "" : ` (${estimatorName(f.method)})`}${f.reliable ? "" : " (unreliable)"}`,
    f.crossCheck === null
      ? "—"
      : `${estimatorName(f.crossCheck.method)} ${plusMinus(f.crossCheck.logEvidence, f.crossCheck.stdErr)} (z ${formatNumber(f.crossCheck.z, 2)})`,
    ...(everson ? [f.everson === null ? "—" : plusMinus(f.everson.logEvidence, f.everson.stdErr)] : []),
    f.probability === null ? "left out" : formatNumber(f.probability, 3),
    formatNumber(f.stackingWeight, 3),
    formatNumber(100 * f.accuracy, 3),
    plusMinus(f.logLoss, f.logLossMcse),
    formatNumber(f.brier, 4),
  ]);
  for (const [name, c] of [
    ["evidence-weighted", run.average],
    ["stacked", run.stacked],
  ] as const) {
    if (c === null) continue;
    rows.push([
      name,
      ...new Array<string>(everson ? 5 : 4).fill(""),
      formatNumber(100 * c.accuracy, 3),
      plusMinus(c.logLoss, c.logLossMcse),
      formatNumber(c.brier, 4),
    ]);
  }
  return {
    columns: [
      "family",
      "log p(y | X)",
      "cross-check",
      ...(everson ? ["Everson G-fold"] : []),
      "p(M | D)",
      "stack",
      "accuracy %",
      "log loss ± MC",
      "Brier",
    ],
    rows,
  };
}
