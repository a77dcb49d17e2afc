/**
 * What the reports of `occam reproduce` share: the plots that set occam's numbers beside a paper's
 * (points with error bars against a size, or against a category) and the subtitle naming the run.
 */
import type { TopLevelSpec } from "vega-lite";
import { formatNumber, withError } from "../format.js";
import { type RenderedPlot, renderPlot } from "../plot.js";

/** One point of a plotted series: its x, its value and, when it has one, its error bar. */
export interface SeriesPoint {
  readonly x: number | string;
  readonly y: number;
  /** Lower and upper end of the error bar (omit both for a number without an error). */
  readonly low?: number;
  readonly high?: number;
  /** The line or colour the point belongs to ("occam", "paper", a method). */
  readonly series: string;
  /** A panel, when the plot has several. */
  readonly panel?: string;
}

/** How {@link seriesPlot} draws its axes. */
export interface SeriesPlotOptions {
  readonly x: string;
  readonly y: string;
  /** "quantitative" for a size (hidden units, samples), "nominal" for a category (a method, a model). */
  readonly xType?: "quantitative" | "nominal";
  /** A logarithmic x axis (sample sizes). @defaultValue false */
  readonly logX?: boolean;
  /** The y axis's range (probabilities: [0, 1]). @defaultValue fitted to the values */
  readonly yDomain?: readonly [number, number];
  /** A logarithmic y axis (costs that span decades; every value and bar end above 0). @defaultValue false */
  readonly logY?: boolean;
  /** Join each series' points by a line. @defaultValue true for a quantitative x */
  readonly lines?: boolean;
  /** A dashed horizontal line at an exact or published value. */
  readonly reference?: number;
  /** The order of the categories of a nominal x. */
  readonly xOrder?: readonly string[];
  /** Ticks on whole numbers only (hidden units, inputs). @defaultValue false */
  readonly integerX?: boolean;
  /** Each panel with its own y scale. @defaultValue false */
  readonly independentY?: boolean;
}

/** A colour per series that stays the same across plots for the names used everywhere. */
const FIXED_COLOURS: Readonly<Record<string, string>> = {
  occam: "#4c78a8",
  paper: "#e45756",
  thesis: "#e45756",
};

function colourScale(series: readonly string[]) {
  // The other series take colours that neither occam's blue nor the paper's red use.
  const palette = ["#f58518", "#54a24b", "#b279a2", "#72b7b2", "#9d755d", "#eeca3b", "#1f3b73", "#bab0ac"];
  let next = 0;
  const range = series.map((s) => FIXED_COLOURS[s] ?? palette[next++ % palette.length]);
  return { domain: [...series], range };
}

/**
 * Points with error bars, one colour per series (occam beside the paper, or one estimator beside
 * another), against a size or a category, in one panel per `panel` when points have one.
 */
export async function seriesPlot(
  points: readonly SeriesPoint[],
  options: SeriesPlotOptions,
  caption: string,
): Promise<RenderedPlot> {
  const xType = options.xType ?? "quantitative";
  const series = [...new Set(points.map((p) => p.series))];
  const panels = [...new Set(points.flatMap((p) => (p.panel === undefined ? [] : [p.panel])))];
  // Series at one category are shifted apart so that their error bars do not overlap.
  const shifted = xType === "nominal" && series.length > 1;
  // With an offset, vega-lite's step is the width of one series' band within a category.
  const band = shifted ? 10 : 24;
  const categories = Math.max(
    ...(panels.length > 0 ? panels : [undefined]).map(
      (panel) => new Set(points.filter((p) => p.panel === panel).map((p) => p.x)).size,
    ),
  );
  const widest = xType === "nominal" ? band * (shifted ? series.length : 1) * categories : 420;
  // A wide plot keeps its legend underneath, so that it fits the page.
  const wide = widest > 480;
  // A bar without finite ends (an infinite or missing error) is left out rather than drawn wrong.
  const values = points.map((p) =>
    Number.isFinite(p.low) && Number.isFinite(p.high) ? p : { ...p, low: p.y, high: p.y },
  );
  const color = {
    field: "series",
    type: "nominal" as const,
    title: null,
    scale: colourScale(series),
    legend: {
      labelLimit: 320,
      orient: wide ? ("bottom" as const) : ("right" as const),
      columns: wide ? 3 : 1,
    },
  };
  const x = {
    field: "x",
    type: xType,
    title: options.x,
    ...(xType === "nominal"
      ? {
          sort: options.xOrder === undefined ? null : [...options.xOrder],
          axis: { labelAngle: -40, labelOverlap: false },
        }
      : {
          // A log axis spans the data, not the decades around it.
          scale: options.logX ? { type: "log" as const, nice: false } : { zero: false },
          // Whole numbers on a log axis are ticked where there are points (1, 2, 4, 8, 16).
          ...(options.integerX
            ? {
                axis: options.logX
                  ? { values: [...new Set(points.map((p) => p.x))], format: "d" }
                  : { tickMinStep: 1, format: "d" },
              }
            : {}),
        }),
  };
  const yScale = options.logY
    ? { type: "log" as const }
    : options.yDomain === undefined
      ? { zero: false }
      : { domain: [...options.yDomain] };
  const y = { field: "y", type: "quantitative" as const, title: options.y, scale: yScale };
  const offset = shifted ? { xOffset: { field: "series" } } : {};
  const layers: object[] = [];
  if (options.reference !== undefined) {
    layers.push({
      mark: { type: "rule", color: "#888", strokeDash: [4, 3] },
      encoding: { y: { datum: options.reference } },
    });
  }
  if (points.some((p) => p.low !== undefined)) {
    layers.push({
      mark: { type: "rule", strokeWidth: 1.5 },
      encoding: {
        x,
        y: { field: "low", type: "quantitative", title: options.y, scale: yScale },
        y2: { field: "high" },
        color,
        ...offset,
      },
    });
  }
  if (options.lines ?? xType === "quantitative") {
    layers.push({ mark: { type: "line", strokeWidth: 1.2 }, encoding: { x, y, color } });
  }
  layers.push({
    mark: { type: "point", filled: true, size: 45 },
    encoding: {
      x,
      y,
      color,
      shape: { field: "series", type: "nominal", title: null },
      ...offset,
    },
  });
  const inner = { width: xType === "nominal" ? { step: band } : 420, height: 240 };
  // Panels are concatenated, each with its own rows, rather than faceted: a facet's independent scales
  // over layers that read different fields of one source make vega-lite warn on the console.
  const spec =
    panels.length > 0
      ? {
          concat: panels.map((panel) => ({
            title: panel,
            data: { values: values.filter((v) => v.panel === panel) },
            ...inner,
            layer: layers,
          })),
          columns: wide ? 1 : 2,
          resolve: {
            scale: {
              x: xType === "nominal" ? "independent" : "shared",
              y: options.independentY ? "independent" : "shared",
            },
          },
        }
      : { data: { values }, ...inner, layer: layers };
  return renderPlot(spec as TopLevelSpec, caption);
}

/** The line under a report's title: the command that reproduces it. */
export function reproduceCommand(name: string, seed: number, quick: boolean, extra = ""): string {
  return `occam reproduce ${name} --seed ${seed}${quick ? " --quick" : ""}${extra}`;
}

/**
 * A value ± its standard error to the error's precision, at most six decimals (an error of 10⁻¹⁴, as a
 * quadrature's, would otherwise print fifteen); "± ?" when there is no finite error, the value alone
 * when the error is 0.
 */
export function plusMinus(value: number, stdErr: number | null): string {
  if (stdErr === null || !Number.isFinite(stdErr)) return `${formatNumber(value, 6)} ± ?`;
  // A method with no statistical error (Laplace) shows its value alone.
  if (stdErr === 0) return formatNumber(value, 6);
  return stdErr < 1e-6 ? `${value.toFixed(6)} ± ${stdErr.toExponential(1)}` : withError(value, stdErr);
}
