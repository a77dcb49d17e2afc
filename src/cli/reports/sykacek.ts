import type { SykacekResult } from "../../experiments/sykacek.js";
import { formatNumber, formatTable } from "../table.js";

/** Sykacek's Table 1 beside occam's results and a logistic-regression baseline, then the top subsets. */
export function formatSykacekReport(result: SykacekResult): string {
  const table = formatTable(
    [
      { header: "data", align: "left" },
      { header: "acc %" },
      { header: "paper %" },
      { header: "logistic %" },
      { header: "mean #" },
      { header: "paper" },
      { header: "max #" },
      { header: "paper" },
      { header: "subsets" },
      { header: "seconds" },
    ],
    result.rows.map((r) => [
      r.data === "wine" ? `wine (split ${r.split + 1})` : r.data,
      formatNumber(100 * r.accuracy, 3),
      formatNumber(100 * r.paperAccuracy, 3),
      formatNumber(100 * r.logisticAccuracy, 3),
      formatNumber(r.meanInputs, 3),
      formatNumber(r.paperMeanInputs, 2),
      String(r.maxInputs),
      String(r.paperMaxInputs),
      String(r.distinctSubsets),
      formatNumber(r.seconds, 3),
    ]),
  );
  const subsets = result.rows.map(
    (r) =>
      `${r.data}${r.data === "wine" ? ` ${r.split + 1}` : ""}: ` +
      r.topSubsets
        .map((s) => `${formatNumber(100 * s.probability, 3)} % [${s.inputs.join(", ")}]`)
        .join("; "),
  );
  return [
    `Sykacek (1999) Table 1: ${result.structure} mixtures, ${result.draws} sweeps, first ${result.burnIn} dropped`,
    "",
    table,
    "",
    "most probable input subsets (Figure 1):",
    ...subsets,
  ].join("\n");
}
