/**
 * Plots: a Vega-Lite specification (kept in the report, for reuse) compiled by vega-lite and rendered
 * to SVG by vega in Node, headless, with no browser and no canvas.
 */
import * as vega from "vega";
import type { TopLevelSpec } from "vega-lite";
import * as vegaLite from "vega-lite";
import { OccamError } from "../errors.js";

/** A rendered plot: its specification, its SVG and a caption. */
export interface RenderedPlot {
  readonly spec: TopLevelSpec;
  readonly svg: string;
  readonly caption: string;
}

/** What every plot shares: a plain look and a readable size. */
const CONFIG = {
  // White, not transparent: an SVG taken out of the page stays readable on a dark background.
  background: "white",
  font: "system-ui, sans-serif",
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 12 },
  legend: { labelFontSize: 11, titleFontSize: 12 },
} as const;

/**
 * Renders a Vega-Lite specification to SVG. The data must be inline (`data.values`): nothing is
 * loaded from anywhere. vega escapes every text it draws, so the SVG can go into a page as it is.
 */
export async function renderPlot(spec: TopLevelSpec, caption: string): Promise<RenderedPlot> {
  const full = { ...spec, config: { ...CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec;
  const compiled = vegaLite.compile(full).spec;
  // A loader that refuses every request (a report never depends on the network), and a logger that
  // keeps vega's errors and warnings, which it would otherwise only print, to fail on them.
  const loader = vega.loader();
  loader.load = async (uri: string) => {
    throw new Error(`the report's plots load nothing, not even ${uri}`);
  };
  const problems: string[] = [];
  const logger = vega.logger(vega.Warn, undefined, (_method, _level, args) => {
    problems.push(args.map(String).join(" "));
  });
  const view = new vega.View(vega.parse(compiled), { renderer: "none", loader, logger });
  const svg = await view.toSVG();
  view.finalize();
  if (problems.length > 0) {
    throw new OccamError("internal", `the plot "${caption}" could not be drawn: ${problems.join("; ")}`);
  }
  return { spec: full, svg, caption };
}
