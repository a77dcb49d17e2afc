import type { RealModelsExperiment } from "../../experiments/real-models.js";
import { formatNumber, formatTable } from "../table.js";
import { formatCalibrationCells } from "./calibration.js";

/** The real-model suite: one row per model and method, then `occam evidence`'s consensus per model. */
export function formatRealModelsReport(result: RealModelsExperiment): string {
  const table = formatCalibrationCells(result.cells, "model");
  const consensus = formatTable(
    [
      { header: "model", align: "left" },
      { header: "reference", align: "right" },
      { header: "consensus error", align: "right" },
      { header: "reliable methods", align: "left" },
      { header: "agree", align: "left" },
      { header: "likelihood evals" },
      { header: "seconds" },
    ],
    result.consensus.map((c) => [
      c.model,
      result.references[c.model]?.logZ.toFixed(4) ?? "—",
      c.error === null
        ? "none reliable"
        : `${formatNumber(c.error, 2)} ± ${formatNumber(c.stdErr as number, 2)}`,
      c.reliableMethods.join(", ") || "—",
      c.agree ? "yes" : "no",
      formatNumber(c.nLikelihoodEvals, 3),
      formatNumber(c.seconds, 2),
    ]),
  );
  const silent = result.cells.reduce((s, c) => s + c.silentFailures, 0);
  const failures = result.runs.filter((r) => r.failure !== null);
  return [
    `Every evidence method at its defaults on published models written as users write them (examples/real-models/): ` +
      `${result.seeds} seed(s), seed ${result.seed}${result.quick ? ", quick" : ""}`,
    "A silent failure is a reliable result more than 3 std. errors + 0.01 nats (plus the reference's error) from the reference.",
    "mean error, mean std. error and worst |z| are over the reliable runs.",
    "",
    table,
    "",
    `Silent failures in all: ${silent}. Runs that stopped with an error: ${failures.length}` +
      (failures.length === 0 ? "." : ` (${failures.map((r) => `${r.problem}/${r.method}`).join(", ")}).`),
    "",
    "`occam evidence` at its default methods (the consensus of its reliable results, against the reference):",
    "",
    consensus,
  ].join("\n");
}
