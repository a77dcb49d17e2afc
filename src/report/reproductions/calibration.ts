/**
 * The report of `occam reproduce calibration`: every evidence method over several seeds on the
 * hard-problem suite, each run's error in units of its own standard error, and the silent failures
 * (off by more than its error without saying it is unreliable).
 */
import {
  CALIBRATION_BAND,
  type CalibrationCell,
  type CalibrationExperiment,
  type CalibrationRun,
} from "../../experiments/calibration.js";
import { formatNumber } from "../format.js";
import type { ReportDocument, ReportTable } from "../html.js";
import type { RenderedPlot } from "../plot.js";
import { reproduceCommand, type SeriesPoint, seriesPlot } from "./common.js";

/** z beyond this is drawn at this value, so that one wild run does not flatten the others. */
const Z_CLIP = 10;

/** One cell of a calibration-like experiment as the texts of a table row (the report's and the CLI's). */
export function calibrationCellRow(c: CalibrationCell): string[] {
  const cell = (v: number | null, digits: number) => (v === null ? "—" : formatNumber(v, digits));
  return [
    c.problem,
    c.method,
    `${c.unreliable}/${c.runs}`,
    String(c.silentFailures),
    cell(c.meanError, 2),
    cell(c.meanStdErr, 2),
    c.fractionWithin2 === null ? "—" : `${Math.round(100 * c.fractionWithin2)} %`,
    cell(c.worstZ, 2),
    formatNumber(c.nLikelihoodEvals, 3),
    formatNumber(c.seconds, 2),
  ];
}

/** The cells of a calibration-like experiment as a report table: one row per problem (or model) and method. */
export function calibrationCellsTable(
  cells: readonly CalibrationCell[],
  problemHeader = "problem",
): ReportTable {
  return {
    columns: [
      problemHeader,
      "method",
      "unreliable",
      "silent failures",
      "mean error",
      "mean s.e.",
      "|z| < 2",
      "worst |z|",
      "likelihood evals",
      "seconds",
    ],
    rows: cells.map(calibrationCellRow),
  };
}

/** Each run's error in units of its own standard error, one panel per problem (or model). */
export async function calibrationZPlot(runs: readonly CalibrationRun[], what: string): Promise<RenderedPlot> {
  const points: SeriesPoint[] = runs.flatMap((r) =>
    r.z === null
      ? []
      : [
          {
            series: r.reliable ? "reliable" : "says it is unreliable",
            x: r.method,
            y: Math.max(-Z_CLIP, Math.min(Z_CLIP, r.z)),
            panel: r.problem,
          },
        ],
  );
  return seriesPlot(
    points,
    {
      x: "method",
      y: `z = error / s.e. (clipped to ±${Z_CLIP})`,
      xType: "nominal",
      lines: false,
      reference: 0,
    },
    `Each run's error in units of its own standard error, one panel per ${what}; a calibrated method's reliable runs fall ` +
      `mostly within ±2 and all within ±${CALIBRATION_BAND}. Runs without a standard error (or that failed) are not drawn.`,
  );
}

/** The calibration reproduction as a report document. */
export async function calibrationReport(result: CalibrationExperiment): Promise<ReportDocument> {
  const silent = result.cells.reduce((s, c) => s + c.silentFailures, 0);
  return {
    title: "Calibration of every evidence method on the hard-problem suite",
    subtitle: `${reproduceCommand("calibration", result.seed, result.quick, ` --seeds ${result.seeds}`)}: ${result.seeds} seed(s) per problem and method`,
    sections: [
      {
        heading: "The problems and their references",
        paragraphs: [
          "This suite is occam's own, not a paper's: problems that break naive estimators (many modes, separated modes, funnels, " +
            "thin curved shells), each with a reference log Z known exactly or by quadrature to the error shown. No paper publishes " +
            "these numbers; the reference is what each estimate is set beside.",
        ],
        tables: [
          {
            columns: ["problem", "reference log Z", "its error", "description"],
            rows: result.references.map((r) => [
              r.problem,
              r.logZ.toFixed(4),
              formatNumber(r.logZError, 2),
              r.description,
            ]),
          },
        ],
      },
      {
        heading: "Each method on each problem",
        paragraphs: [
          `A silent failure is a result more than ${CALIBRATION_BAND} standard errors + 0.01 nats from the reference that does not say it is ` +
            `unreliable. Silent failures in all: ${silent}. Mean error, mean standard error, |z| < 2 and worst |z| are over the reliable runs.`,
        ],
        tables: [calibrationCellsTable(result.cells)],
        plots: [await calibrationZPlot(result.runs, "problem")],
      },
    ],
  };
}
