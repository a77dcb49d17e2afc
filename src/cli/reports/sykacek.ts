import type { SykacekResult, SykacekRow } from "../../experiments/sykacek.js";
import { formatNumber, formatTable } from "../table.js";

const STRUCTURES: Readonly<Record<string, string>> = {
  "per-input":
    "one mixture per input (naive Bayes: selects every input whose distribution depends on the class)",
  shared: "Sykacek's kernels shared by the selected inputs, each other input a Gaussian regression on them",
};

/** Sykacek's Table 1 beside occam's results and a logistic-regression baseline, then the top subsets, for each structure. */
export function formatSykacekReport(result: SykacekResult): string {
  const structures = [...new Set(result.rows.map((r) => r.structure))];
  return [
    `Sykacek (1999) Table 1: ${result.draws} sweeps, first ${result.burnIn} dropped`,
    ...structures.map((structure) =>
      formatStructure(
        structure,
        result.rows.filter((r) => r.structure === structure),
      ),
    ),
  ].join("\n\n");
}

function formatStructure(structure: string, rows: readonly SykacekRow[]): string {
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
    rows.map((r) => [
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
  const subsets = rows.map(
    (r) =>
      `${r.data}${r.data === "wine" ? ` ${r.split + 1}` : ""}: ` +
      r.topSubsets
        .map((s) => `${formatNumber(100 * s.probability, 3)} % [${s.inputs.join(", ")}]`)
        .join("; "),
  );
  return [
    `--structure ${structure}: ${STRUCTURES[structure] ?? structure}`,
    "",
    table,
    "",
    "most probable input subsets (Figure 1):",
    ...subsets,
  ].join("\n");
}
