/**
 * The report of `occam reproduce estimators`: every evidence estimator against the exact log Z of
 * problems that have one, and Barber & Bishop's check of chaining on their mixture of two Gaussians.
 */
import type { EstimatorRow, EstimatorsExperiment } from "../../experiments/estimators.js";
import { formatNumber } from "../format.js";
import type { ReportDocument, ReportTable } from "../html.js";
import { plusMinus, reproduceCommand, type SeriesPoint, seriesPlot } from "./common.js";

/** Barber & Bishop's criterion: the evidence itself (not its log) within 10 % of the exact value. */
const BARBER_BISHOP_TOLERANCE = 0.1;

/** The estimators reproduction as a report document. */
export async function estimatorsReport(result: EstimatorsExperiment): Promise<ReportDocument> {
  const problems = [...new Set(result.results.map((r) => r.problem))];
  const failures = result.results.filter((r) => r.failure !== undefined);
  const mixture = result.results.filter((r) => r.problem === "mixture-2d");
  const points: SeriesPoint[] = result.results.flatMap((r) =>
    r.error === null
      ? []
      : [
          {
            series: r.reliable ? "reliable" : "says it is unreliable",
            x: r.method,
            y: r.error,
            ...(r.stdErr !== null && r.stdErr > 0
              ? { low: r.error - 2 * r.stdErr, high: r.error + 2 * r.stdErr }
              : {}),
            panel: r.problem,
          },
        ],
  );
  return {
    title: "Every evidence estimator against exact log Z",
    subtitle: `${reproduceCommand("estimators", result.seed, result.quick)}: ${problems.length} problems, ${new Set(result.results.map((r) => r.method)).size} methods`,
    sections: [
      {
        heading: "Estimates against the exact values",
        paragraphs: [
          "A conjugate Gaussian mean in 1, 10 and 50 dimensions, Bayesian linear regression under the Normal–Inverse-Gamma prior " +
            "(Everson eq. 17 with the corrected β*), and Barber & Bishop's mixture of two non-isotropic Gaussians (exact log Z = 3). " +
            "z = error / standard error; a method that says it is unreliable has found a reason not to trust its error bar.",
        ],
        tables: [estimateTable(result.results), ...reasonTable(result.results)],
        plots: [
          await seriesPlot(
            points,
            {
              x: "method",
              y: "log Z − exact (nats)",
              xType: "nominal",
              lines: false,
              reference: 0,
              independentY: true,
            },
            "Each estimate's error against the exact log Z, ± two standard errors, one panel per problem; an honest method's bar " +
              "crosses zero or it says it is unreliable.",
          ),
        ],
      },
      ...(mixture.length === 0
        ? []
        : [
            {
              heading: "Barber & Bishop's check: the mixture of two Gaussians",
              paragraphs: [
                "Barber & Bishop checked their chaining on an unnormalised mixture of two non-isotropic Gaussians and found its evidence " +
                  '"within 10% of the analytical solution" (no number given). Here is every method on the same check, as the ratio of the ' +
                  "estimated evidence to the exact one.",
              ],
              tables: [mixtureTable(mixture)],
            },
          ]),
      ...(failures.length === 0
        ? []
        : [
            {
              heading: "Methods that gave no number",
              tables: [
                {
                  columns: ["problem", "method", "why"],
                  rows: failures.map((r) => [r.problem, r.method, r.failure ?? ""]),
                },
              ],
            },
          ]),
    ],
  };
}

function estimateTable(rows: readonly EstimatorRow[]): ReportTable {
  return {
    columns: [
      "problem",
      "method",
      "log Z ± s.e.",
      "exact",
      "error",
      "z",
      "reliable",
      "likelihood evals",
      "seconds",
    ],
    rows: rows.map((r) => [
      r.problem,
      r.method,
      r.logZ === null ? "failed" : plusMinus(r.logZ, r.stdErr ?? 0),
      r.exact.toFixed(4),
      r.error === null ? "—" : formatNumber(r.error, 2),
      r.z === null ? "—" : formatNumber(r.z, 2),
      r.reliable ? "yes" : "no",
      String(r.nLikelihoodEvals),
      formatNumber(r.seconds, 2),
    ]),
  };
}

/** Why each method said it was unreliable, once per method and reason, with the problems where it did. */
function reasonTable(rows: readonly EstimatorRow[]): ReportTable[] {
  const reasons = new Map<string, { method: string; warning: string; problems: string[] }>();
  for (const r of rows) {
    if (r.reliable || r.warning === null) continue;
    const key = `${r.method}\n${r.warning}`;
    const entry = reasons.get(key) ?? { method: r.method, warning: r.warning, problems: [] };
    entry.problems.push(r.problem);
    reasons.set(key, entry);
  }
  if (reasons.size === 0) return [];
  return [
    {
      caption: "Why a method said it was unreliable",
      columns: ["method", "problems", "its reason"],
      rows: [...reasons.values()].map((e) => [e.method, e.problems.join(", "), e.warning]),
    },
  ];
}

function mixtureTable(rows: readonly EstimatorRow[]): ReportTable {
  return {
    columns: ["method", "Z / Z exact", "within 10 %", "reliable"],
    rows: [
      ["Barber & Bishop's chaining (paper)", "—", "yes", "—"],
      ...rows.map((r) => {
        const ratio = r.error === null ? null : Math.exp(r.error);
        return [
          r.method,
          ratio === null ? "failed" : formatNumber(ratio, 4),
          ratio === null ? "—" : Math.abs(ratio - 1) <= BARBER_BISHOP_TOLERANCE ? "yes" : "no",
          r.reliable ? "yes" : "no",
        ];
      }),
    ],
  };
}
