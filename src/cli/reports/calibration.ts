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

/**
 * The calibration as docs/calibration.md shows it (`occam reproduce calibration --markdown`): one row
 * per method, one column per problem, headed with its seeds. A cell reads _a_/_b_, _w_: of the _b_
 * runs that did not mark themselves unreliable, _a_ had |z| < 2, and _w_ is the worst |z|; "unrel."
 * where every run did; **!k** counts silent failures. Columns are padded so that the source reads as
 * a table too.
 */
export function formatCalibrationMarkdown(result: CalibrationExperiment): string {
  const problems = [...new Set(result.cells.map((c) => c.problem))];
  const methods = [...new Set(result.cells.map((c) => c.method))];
  const byKey = new Map(result.cells.map((c) => [`${c.method} ${c.problem}`, c]));
  const header = ["method", ...problems.map((p) => `${p} (${result.seeds})`)];
  const rows = methods.map((method) => [
    method,
    ...problems.map((problem) => {
      const cell = byKey.get(`${method} ${problem}`);
      return cell === undefined ? "—" : markdownCell(cell);
    }),
  ]);
  const widths = header.map((h, j) => Math.max(h.length, ...rows.map((r) => r[j].length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, j) => c.padEnd(widths[j])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** One cell of {@link formatCalibrationMarkdown}. */
function markdownCell(cell: CalibrationCell): string {
  const reliable = cell.runs - cell.unreliable;
  if (reliable === 0 || cell.fractionWithin2 === null || cell.worstZ === null) return "unrel.";
  const within = Math.round(cell.fractionWithin2 * reliable);
  const silent = cell.silentFailures > 0 ? ` **!${cell.silentFailures}**` : "";
  return `${within}/${reliable}, ${cell.worstZ.toFixed(1)}${silent}`;
}
