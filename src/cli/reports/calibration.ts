import type { CalibrationCell, CalibrationExperiment } from "../../experiments/calibration.js";
import { calibrationCellRow } from "../../report/reproductions/calibration.js";
import { formatTable } from "../table.js";

/** The cells of a calibration-like experiment as a table: one row per problem (or model) and method. */
export function formatCalibrationCells(cells: readonly CalibrationCell[], problemHeader = "problem"): string {
  return formatTable(
    [
      { header: problemHeader, align: "left" },
      { header: "method", align: "left" },
      { header: "unreliable" },
      { header: "silent failures" },
      { header: "mean error" },
      { header: "mean std. error" },
      { header: "|z| < 2" },
      { header: "worst |z|" },
      { header: "likelihood evals" },
      { header: "seconds" },
    ],
    cells.map(calibrationCellRow),
  );
}

/** The calibration experiment: one row per problem and method, then the problems' references. */
export function formatCalibrationReport(result: CalibrationExperiment): string {
  const table = formatCalibrationCells(result.cells);
  const silent = result.cells.reduce((s, c) => s + c.silentFailures, 0);
  const references = result.references.map(
    (r) => `  ${r.problem}: log Z = ${r.logZ.toFixed(4)} (${r.description})`,
  );
  return [
    `Calibration of every evidence method on the hard-problem suite: ${result.seeds} seed(s) per problem and method, ` +
      `seed ${result.seed}${result.quick ? ", quick" : ""}`,
    "A silent failure is a result more than 3 std. errors + 0.01 nats from the reference that does not say it is unreliable.",
    "mean error, mean std. error, |z| < 2 and worst |z| are over the reliable runs.",
    "",
    table,
    "",
    `Silent failures in all: ${silent}.`,
    "",
    "References:",
    ...references,
  ].join("\n");
}
