/**
 * The report's section on nested-sampling runs: dynesty's run plot from the run's record, the
 * live points, log L and the posterior weights against −log X.
 */
import type { EvidenceResult } from "../evidence/estimate.js";
import type { NestedRecord } from "../evidence/nested/nested-sampling.js";
import { formatNumber } from "./format.js";
import type { ReportSection } from "./html.js";
import { type RenderedPlot, renderPlot } from "./plot.js";

/** The most points a panel draws: a long run is thinned evenly, keeping its first and last death. */
const MAX_POINTS = 1500;

/** One dead point of the run plot. */
interface RunPoint {
  readonly method: string;
  readonly minusLogX: number;
  readonly logL: number;
  /** Posterior weight over the largest weight, in [0, 1]. */
  readonly weight: number;
  readonly nLive: number;
}

/** The record's points, thinned to at most {@link MAX_POINTS}, with finite log L only. */
export function runPlotPoints(method: string, record: NestedRecord): RunPoint[] {
  const n = record.logX.length;
  let maxWeight = Number.NEGATIVE_INFINITY;
  for (const w of record.logWeight) if (w > maxWeight) maxWeight = w;
  const step = Math.max(1, Math.ceil(n / MAX_POINTS));
  const indices: number[] = [];
  for (let i = 0; i < n; i += step) indices.push(i);
  if (n > 0 && indices[indices.length - 1] !== n - 1) indices.push(n - 1);
  const points: RunPoint[] = [];
  for (const i of indices) {
    if (!Number.isFinite(record.logL[i])) continue;
    points.push({
      method,
      minusLogX: -record.logX[i],
      logL: record.logL[i],
      weight: Math.exp(record.logWeight[i] - maxWeight),
      nLive: record.nLive[i],
    });
  }
  return points;
}

/** A panel of the run plot: one field of the points against −log X. */
function panel(field: keyof RunPoint, title: string, mark: "line" | "area") {
  return {
    width: 480,
    height: 130,
    mark: { type: mark, strokeWidth: 1.2, ...(mark === "area" ? { opacity: 0.5, line: true } : {}) },
    encoding: {
      x: { field: "minusLogX", type: "quantitative", title: "−log X (prior volume left)" },
      y: { field, type: "quantitative", title, scale: { zero: field !== "logL" } },
      color: { field: "method", type: "nominal", title: null },
    },
  } as const;
}

/** The run plot (dynesty's `runplot`) of the nested-sampling results, or undefined when there are none. */
export async function nestedSection(results: readonly EvidenceResult[]): Promise<ReportSection | undefined> {
  const runs = results.flatMap((r) => (r.method === "nested" ? [r] : []));
  if (runs.length === 0) return undefined;
  const values = runs.flatMap((r) => runPlotPoints(r.method, r.diagnostics.record));
  const plot: RenderedPlot = await renderPlot(
    {
      data: { values },
      vconcat: [
        panel("nLive", "live points", "line"),
        panel("logL", "log L", "line"),
        panel("weight", "posterior weight / max", "area"),
      ],
    },
    "The run against the log prior volume it had left at each death: the live points (falling at the end as the last ones die), " +
      "the likelihood bound climbing, and the posterior weight of each dead point. The weights should rise and fall back " +
      "to near zero before the run stops; weight still high at the right edge means the run stopped too early.",
  );
  return {
    heading: "Nested sampling runs",
    tables: [
      {
        columns: [
          "method",
          "live points",
          "iterations",
          "sampler",
          "information H (nats)",
          "posterior ESS",
          "stopped by",
        ],
        rows: runs.map((r) => {
          const d = r.diagnostics;
          return [
            r.method,
            String(d.livePoints),
            String(d.iterations),
            d.sampler,
            formatNumber(d.information, 3),
            formatNumber(d.posteriorEss, 3),
            d.stop,
          ];
        }),
      },
    ],
    plots: [plot],
  };
}
