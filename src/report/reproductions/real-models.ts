/**
 * The report of `occam reproduce real-models`: every evidence method at its defaults on published
 * models written as users write them, each run's error in units of its own standard error, and
 * `occam evidence`'s consensus per model.
 */
import { CALIBRATION_BAND } from "../../experiments/calibration.js";
import type { RealModelsExperiment } from "../../experiments/real-models.js";
import { formatNumber } from "../format.js";
import type { ReportDocument } from "../html.js";
import { calibrationCellsTable, calibrationZPlot } from "./calibration.js";
import { reproduceCommand } from "./common.js";

/** The real-model suite as a report document. */
export async function realModelsReport(result: RealModelsExperiment): Promise<ReportDocument> {
  const silent = result.cells.reduce((s, c) => s + c.silentFailures, 0);
  return {
    title: "Every evidence method on real models",
    subtitle: `${reproduceCommand("real-models", result.seed, result.quick, "")}: ${result.seeds} seed(s) per model and method`,
    sections: [
      {
        heading: "The models and their references",
        paragraphs: [
          "Each model is a file of examples/real-models/, written with defineModel as a user writes one, on real data; its " +
            "reference log Z was computed outside occam (examples/real-models/references.py: closed forms, quadrature, or " +
            "importance sampling from a Student-t at the mode).",
        ],
        tables: [
          {
            columns: ["model", "reference log Z", "its error", "how"],
            rows: Object.entries(result.references).map(([name, r]) => [
              name,
              r.logZ.toFixed(4),
              formatNumber(r.stdErr, 2),
              r.method,
            ]),
          },
        ],
      },
      {
        heading: "Each method on each model",
        paragraphs: [
          `A silent failure is a reliable result more than ${CALIBRATION_BAND} standard errors + 0.01 nats from the reference. ` +
            `Silent failures in all: ${silent}.`,
        ],
        tables: [calibrationCellsTable(result.cells, "model")],
        plots: [await calibrationZPlot(result.runs, "model")],
      },
      {
        heading: "occam evidence at its defaults",
        tables: [
          {
            columns: ["model", "seed", "consensus error", "reliable methods", "agree", "seconds"],
            rows: result.consensus.map((c) => [
              c.model,
              String(c.seed),
              c.error === null
                ? "none reliable"
                : `${formatNumber(c.error, 2)} ± ${formatNumber(c.stdErr as number, 2)}`,
              c.reliableMethods.join(", ") || "—",
              c.agree ? "yes" : "no",
              formatNumber(c.seconds, 2),
            ]),
          },
        ],
      },
    ],
  };
}
