/**
 * The plots every sampler's draws get, as ArviZ draws them: traces and rank plots (Vehtari et al.
 * 2021: the ranks of each chain's draws among all chains are uniform when the chains agree), with
 * split R-hat and ESS beside them.
 */
import { essPerParameter } from "../diagnostics/ess.js";
import { rhatPerParameter } from "../diagnostics/rhat.js";
import type { Draws } from "../model/draws.js";
import { formatNumber } from "./format.js";
import type { ReportSection } from "./html.js";
import { type RenderedPlot, renderPlot } from "./plot.js";

/** At most this many parameters get a trace and a rank plot (the table lists them all). */
const PLOTTED_PARAMETERS = 4;
/** Traces are thinned to at most this many points per chain, so that a report stays small. */
const TRACE_POINTS = 250;
/** Rank histograms have this many bins. */
const RANK_BINS = 20;

/** A section with the chains' R-hat and ESS per parameter, and traces and rank plots of the first few. */
export async function chainsSection(draws: Draws, heading: string, note: string): Promise<ReportSection> {
  const rhat = draws.nChains > 1 ? rhatPerParameter(draws) : undefined;
  const ess = essPerParameter(draws);
  const names = draws.names;
  const plots: RenderedPlot[] = [];
  for (let j = 0; j < Math.min(PLOTTED_PARAMETERS, draws.dim); j++) {
    plots.push(await tracePlot(draws, j));
    if (draws.nChains > 1) plots.push(await rankPlot(draws, j));
  }
  return {
    heading,
    paragraphs: [note],
    tables: [
      {
        caption: `${draws.nChains} chain(s) of ${draws.nDraws} draws`,
        columns: ["parameter", "split R-hat", "ESS"],
        rows: names.map((name, j) => [
          name,
          rhat === undefined ? "—" : formatNumber(rhat[j], 4),
          formatNumber(ess[j], 3),
        ]),
      },
    ],
    plots,
  };
}

async function tracePlot(draws: Draws, j: number): Promise<RenderedPlot> {
  const chains = draws.chains(j);
  const step = Math.max(1, Math.ceil(draws.nDraws / TRACE_POINTS));
  const values: { draw: number; chain: string; value: number }[] = [];
  chains.forEach((chain, c) => {
    for (let t = 0; t < chain.length; t += step)
      values.push({ draw: t, chain: String(c + 1), value: chain[t] });
  });
  return renderPlot(
    {
      width: 480,
      height: 160,
      data: { values },
      mark: { type: "line", strokeWidth: 0.8 },
      encoding: {
        x: { field: "draw", type: "quantitative", title: "draw" },
        y: { field: "value", type: "quantitative", title: draws.names[j], scale: { zero: false } },
        color: { field: "chain", type: "nominal", title: "chain", legend: draws.nChains > 1 ? {} : null },
      },
    },
    draws.nChains > 1
      ? `Trace of ${draws.names[j]}: the chains should overlap, none stuck or drifting.`
      : `Trace of ${draws.names[j]}: it should wander quickly around one level, not stick or drift.`,
  );
}

async function rankPlot(draws: Draws, j: number): Promise<RenderedPlot> {
  const chains = draws.chains(j);
  const all = chains.flatMap((c, ci) => Array.from(c, (v, t) => ({ v, ci, t })));
  all.sort((a, b) => a.v - b.v);
  const counts = chains.map(() => new Array<number>(RANK_BINS).fill(0));
  all.forEach((x, rank) => {
    counts[x.ci][Math.min(RANK_BINS - 1, Math.floor((rank * RANK_BINS) / all.length))]++;
  });
  const values = counts.flatMap((row, c) => row.map((count, bin) => ({ chain: String(c + 1), bin, count })));
  return renderPlot(
    {
      width: 480,
      height: 28,
      data: { values },
      mark: "bar",
      encoding: {
        x: { field: "bin", type: "ordinal", title: "rank among all draws (binned)", axis: { labels: false } },
        y: { field: "count", type: "quantitative", title: null, axis: null },
        row: { field: "chain", type: "nominal", title: "chain", header: { labelAngle: 0 } },
      },
      spacing: 2,
      resolve: { scale: { y: "shared" } },
    },
    `Rank plot of ${draws.names[j]}: flat bars in every chain when the chains agree.`,
  );
}
