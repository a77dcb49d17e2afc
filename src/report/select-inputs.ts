/**
 * The report of `occam select-inputs`: the inputs' and subsets' posterior probabilities (Sykacek's
 * Figure 1), each chain's probabilities beside the pooled ones, and the trace of the number of inputs.
 */
import type { MixtureClassifierFit } from "../models/mixture-classifier/index.js";
import { formatNumber } from "./format.js";
import { type ReportDocument, reportHtml } from "./html.js";
import { type RenderedPlot, renderPlot } from "./plot.js";

/** Subsets drawn and listed. */
const TOP_SUBSETS = 20;
/** The trace is thinned to at most this many points per chain. */
const TRACE_POINTS = 400;

/** Where a fit came from, for the report's title. */
export interface SelectInputsReportContext {
  readonly data: string;
  readonly target: string;
  /** Accuracy on the test rows, when there were any. */
  readonly accuracy: number | null;
  readonly testRows: number;
}

/** The report of a reversible-jump input selection as one self-contained HTML page. */
export async function selectInputsReportHtml(
  fit: MixtureClassifierFit,
  context: SelectInputsReportContext,
): Promise<string> {
  return reportHtml(await selectInputsReportDocument(fit, context));
}

/** The sections of {@link selectInputsReportHtml}. */
export async function selectInputsReportDocument(
  fit: MixtureClassifierFit,
  context: SelectInputsReportContext,
): Promise<ReportDocument> {
  const subsets = fit.subsets.slice(0, TOP_SUBSETS);
  const spread =
    fit.chains > 1
      ? ` The chains' input probabilities differ by up to ${formatNumber(fit.inputProbabilitySpread, 2)} (standard deviation between chains)${fit.inputProbabilitySpread > 0.1 ? ": above 0.1, run longer before trusting them" : ""}.`
      : "";
  const accuracy =
    context.accuracy === null
      ? ""
      : ` Accuracy on ${context.testRows} test rows: ${formatNumber(100 * context.accuracy, 3)} %.`;
  return {
    title: `Which inputs predict ${context.target}?`,
    subtitle: `occam select-inputs ${context.data}: ${fit.inputNames.length} inputs, ${fit.classNames.length} classes, ${fit.chains} chain(s), ${fit.draws} kept draws`,
    sections: [
      {
        heading: "Inputs",
        paragraphs: [
          `On average ${formatNumber(fit.meanInputs, 3)} inputs per draw (at most ${fit.maxInputs}); ${fit.distinctSubsets} distinct subsets visited.${spread}${accuracy}`,
        ],
        tables: [
          {
            caption: "Posterior probability that each input is used",
            columns: ["input", "probability"],
            rows: fit.inputNames.map((name, i) => [name, formatNumber(fit.inputProbabilities[i], 3)]),
          },
        ],
        plots: [await inputPlot(fit)],
      },
      {
        heading: "Subsets",
        tables: [
          {
            caption: `The ${subsets.length} most probable subsets`,
            columns: ["rank", "inputs", "probability"],
            rows: subsets.map((s, r) => [
              String(r + 1),
              s.names.length > 0 ? s.names.join(", ") : "(none)",
              formatNumber(s.probability, 3),
            ]),
          },
        ],
        plots: [await subsetPlot(fit), await sizeTrace(fit)],
      },
    ],
  };
}

/** The pooled probability of each input as a bar, each chain's as a point on it. */
async function inputPlot(fit: MixtureClassifierFit): Promise<RenderedPlot> {
  const p = fit.inputNames.length;
  const pooled = fit.inputNames.map((input, i) => ({ input, probability: fit.inputProbabilities[i] }));
  const chains = Array.from({ length: fit.chains }, (_, c) =>
    fit.inputNames.map((input, i) => ({ input, probability: fit.chainInputProbabilities[c * p + i] })),
  ).flat();
  return renderPlot(
    {
      width: 440,
      height: { step: 16 },
      encoding: {
        y: { field: "input", type: "nominal", sort: null, title: null },
        x: {
          field: "probability",
          type: "quantitative",
          title: "probability the input is used",
          scale: { domain: [0, 1] },
        },
      },
      layer: [
        { data: { values: pooled }, mark: { type: "bar", color: "#4c78a8" } },
        {
          data: { values: fit.chains > 1 ? chains : [] },
          mark: { type: "tick", color: "#d62728", thickness: 1.5 },
        },
      ],
    },
    fit.chains > 1
      ? "Posterior probability of each input (bars, all chains pooled; ticks, each chain's own): ticks far apart mean the chains have not mixed."
      : "Posterior probability of each input.",
  );
}

async function subsetPlot(fit: MixtureClassifierFit): Promise<RenderedPlot> {
  const values = fit.subsets
    .slice(0, TOP_SUBSETS)
    .map((s, r) => ({ rank: r + 1, probability: s.probability }));
  return renderPlot(
    {
      width: 440,
      height: { step: 16 },
      data: { values },
      mark: { type: "bar", color: "#4c78a8" },
      encoding: {
        y: { field: "rank", type: "ordinal", title: "subset rank" },
        x: { field: "probability", type: "quantitative", title: "posterior probability" },
      },
    },
    "Posterior probabilities of the most probable subsets (visit frequencies of the kept draws).",
  );
}

/** The number of inputs at each kept sweep, per chain: a chain stuck at one size has not mixed. */
async function sizeTrace(fit: MixtureClassifierFit): Promise<RenderedPlot> {
  const perChain = Math.floor(fit.subsetTrace.length / fit.chains);
  const step = Math.max(1, Math.ceil(perChain / TRACE_POINTS));
  const values: { sweep: number; inputs: number; chain: string }[] = [];
  for (let c = 0; c < fit.chains; c++) {
    for (let t = 0; t < perChain; t += step) {
      values.push({
        sweep: t,
        inputs: fit.visited[fit.subsetTrace[c * perChain + t]].length,
        chain: String(c + 1),
      });
    }
  }
  return renderPlot(
    {
      width: 440,
      height: 160,
      data: { values },
      mark: { type: "line", strokeWidth: 0.8, interpolate: "step-after" },
      encoding: {
        x: { field: "sweep", type: "quantitative", title: "kept sweep" },
        y: { field: "inputs", type: "quantitative", title: "number of inputs", axis: { tickMinStep: 1 } },
        color: { field: "chain", type: "nominal", title: "chain" },
      },
    },
    "Trace of the number of inputs in each chain after burn-in: the chains should wander over the same sizes.",
  );
}
