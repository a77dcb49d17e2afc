import type { EstimatorsExperiment } from "../../experiments/estimators.js";
import { formatNumber, formatTable } from "../table.js";

/** The estimators experiment: one table, grouped by problem. */
export function formatEstimatorsReport(result: EstimatorsExperiment): string {
  const cell = (v: number | null, digits: number) => (v === null ? "—" : formatNumber(v, digits));
  const table = formatTable(
    [
      { header: "problem", align: "left" },
      { header: "method", align: "left" },
      { header: "log Z" },
      { header: "std. error" },
      { header: "exact" },
      { header: "error" },
      { header: "z" },
      { header: "reliable", align: "left" },
      { header: "likelihood evals" },
      { header: "seconds" },
    ],
    result.results.map((r) => [
      r.problem,
      r.method,
      r.logZ === null ? "failed" : r.logZ.toFixed(4),
      cell(r.stdErr, 2),
      r.exact.toFixed(4),
      cell(r.error, 2),
      cell(r.z, 2),
      r.reliable ? "yes" : "no",
      String(r.nLikelihoodEvals),
      formatNumber(r.seconds, 2),
    ]),
  );
  const failures = result.results
    .filter((r) => r.failure !== undefined)
    .map((r) => `  ${r.problem} / ${r.method}: ${r.failure}`);
  return [
    `Every evidence estimator against exact log Z (nats), seed ${result.seed}${result.quick ? ", quick" : ""}`,
    'z = error / std. error; "reliable: no" means the method\'s own checks say not to trust its error bar',
    "",
    table,
    ...(failures.length > 0 ? ["", "Failed:", ...failures] : []),
  ].join("\n");
}
