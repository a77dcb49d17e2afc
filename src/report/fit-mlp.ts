/**
 * The report of `occam fit-mlp`: predictions with their intervals against the targets, the interval's
 * coverage, and the traces of the sampler (log likelihood, noise, the weight groups' precisions).
 */
import { Draws } from "../model/draws.js";
import type { MlpData } from "../models/mlp/data.js";
import type { BayesianMlpFit } from "../models/mlp/fit.js";
import type { MlpPredictive } from "../models/mlp/prediction.js";
import { chainsSection } from "./chains.js";
import { formatNumber } from "./format.js";
import { type ReportDocument, reportHtml } from "./html.js";
import { type RenderedPlot, renderPlot } from "./plot.js";

/** At most this many rows are drawn per target (evenly spaced), so that a report stays small. */
const PLOTTED_ROWS = 500;

/** What the fit was asked and what it predicted. */
export interface FitMlpReportContext {
  /** The training file. */
  readonly data: string;
  readonly inputs: readonly string[];
  readonly targets: readonly string[];
  /** The rows predicted (the test set when there is one, else the training set) and the prediction. */
  readonly on: MlpData;
  readonly prediction: MlpPredictive;
  readonly predictedSet: "test" | "train";
}

/** The report of a Bayesian network's fit as one self-contained HTML page. */
export async function fitMlpReportHtml(fit: BayesianMlpFit, context: FitMlpReportContext): Promise<string> {
  return reportHtml(await fitMlpReportDocument(fit, context));
}

/** The sections of {@link fitMlpReportHtml}. */
export async function fitMlpReportDocument(
  fit: BayesianMlpFit,
  context: FitMlpReportContext,
): Promise<ReportDocument> {
  const { on, prediction: p, targets } = context;
  const O = on.outputs;
  const pct = `${Math.round(100 * p.level)} %`;
  const rows = targets.map((target, o) => {
    let squared = 0;
    let covered = 0;
    for (let r = 0; r < on.n; r++) {
      const k = r * O + o;
      squared += (p.mean[k] - on.Y[k]) ** 2;
      if (on.Y[k] >= p.lower[k] && on.Y[k] <= p.upper[k]) covered++;
    }
    return [target, formatNumber(squared / on.n, 4), `${formatNumber((100 * covered) / on.n, 3)} %`];
  });
  const d = fit.draws;
  return {
    title: `Bayesian network for ${targets.join(", ")}`,
    subtitle: `occam fit-mlp ${context.data}: ${context.inputs.length} inputs, ${fit.model.weightCount} weights, ${d.nDraws} draws`,
    sections: [
      {
        heading: "Predictions",
        paragraphs: [
          `Posterior predictive means and ${pct} intervals on the ${context.predictedSet === "test" ? "test" : "training"} set (${on.n} rows). ` +
            `A calibrated interval covers about ${pct} of the targets. Noise standard deviation ${formatNumber(fit.noiseStdDev, 4)}.`,
        ],
        tables: [{ columns: ["target", "mean squared error", `inside the ${pct} interval`], rows }],
        plots: [await predictionPlot(context)],
      },
      await chainsSection(
        samplerDraws(fit),
        "Sampler",
        `Gibbs updates of the precisions and hybrid Monte Carlo of the weights: acceptance ${formatNumber(d.acceptanceRate, 3)}, ` +
          `${d.divergences} divergent trajectories, step size ${formatNumber(d.stepSize, 3)}, ${formatNumber(d.seconds, 3)} s. ` +
          "The weights themselves are not identified (hidden units can swap), so the traces show quantities that are.",
      ),
    ],
  };
}

/** The identified quantities of each draw: log likelihood, noise sd in the targets' units, log precisions. */
function samplerDraws(fit: BayesianMlpFit): Draws {
  const d = fit.draws;
  const groups = d.groupPrecisions.length / d.nDraws;
  const draws = Array.from({ length: d.nDraws }, (_, t) => {
    const row = new Float64Array(2 + groups);
    row[0] = d.logLikelihood[t];
    row[1] = fit.scaling.targetScale / Math.sqrt(d.noisePrecision[t]);
    for (let g = 0; g < groups; g++) row[2 + g] = Math.log(d.groupPrecisions[t * groups + g]);
    return row;
  });
  const names = ["log L", "noise sd", ...Array.from({ length: groups }, (_, g) => `log α[${g + 1}]`)];
  return Draws.fromArrays(draws, undefined, names);
}

/** Predicted mean with its interval against the target, one panel per target, with the line y = x. */
async function predictionPlot(context: FitMlpReportContext): Promise<RenderedPlot> {
  const { on, prediction: p, targets } = context;
  const step = Math.max(1, Math.ceil(on.n / PLOTTED_ROWS));
  const values: { target: string; observed: number; mean: number; lower: number; upper: number }[] = [];
  for (let r = 0; r < on.n; r += step) {
    targets.forEach((target, o) => {
      const k = r * on.outputs + o;
      values.push({ target, observed: on.Y[k], mean: p.mean[k], lower: p.lower[k], upper: p.upper[k] });
    });
  }
  return renderPlot(
    {
      data: { values },
      facet: { field: "target", type: "nominal", title: null },
      columns: 3,
      resolve: { scale: { x: "independent", y: "independent" } },
      spec: {
        width: 260,
        height: 260,
        layer: [
          {
            mark: { type: "rule", color: "#9ecae1" },
            encoding: {
              x: { field: "observed", type: "quantitative", title: "target", scale: { zero: false } },
              y: { field: "lower", type: "quantitative", title: "prediction", scale: { zero: false } },
              y2: { field: "upper" },
            },
          },
          {
            mark: { type: "point", filled: true, size: 12, color: "#08519c" },
            encoding: {
              x: { field: "observed", type: "quantitative", title: "target" },
              y: { field: "mean", type: "quantitative", title: "prediction" },
            },
          },
          {
            mark: { type: "line", color: "#888", strokeDash: [4, 3] },
            encoding: {
              x: { field: "observed", type: "quantitative", title: "target" },
              y: { field: "observed", type: "quantitative", title: "prediction" },
            },
          },
        ],
      },
    },
    `Predictive mean (dot) and interval (bar) against each target; the dashed line is a perfect prediction${on.n > PLOTTED_ROWS ? ` (every ${step}th of ${on.n} rows)` : ""}.`,
  );
}
