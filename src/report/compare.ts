/**
 * The report of `occam compare`, with BAS's pictures: the top models' posterior probabilities (with
 * intervals when the evidences were estimated), log Bayes factor against model size, inclusion
 * probabilities, model-averaged coefficients, and the model space as an image (terms × top models).
 */
import { describeModelPrior } from "../selection/compare.js";
import {
  hasSampledEvidences,
  type LinearComparison,
  type LinearModelRow,
  sampledEvidencesNote,
} from "../selection/linear-options.js";
import { describePrior, formatLogBayesFactor, formatNumber, formatProbability } from "./format.js";
import { type ReportDocument, type ReportSection, reportHtml } from "./html.js";
import { type RenderedPlot, renderPlot } from "./plot.js";

/** The models drawn in the probability plot and the model-space image. */
const TOP_MODELS = 20;
/** At most this many models are drawn against their size (the best ones), so that a report stays small. */
const SIZE_PLOT_MODELS = 2000;

/** Where a comparison came from, for the report's title. */
export interface CompareReportContext {
  /** The data file. */
  readonly data: string;
  /** The target's column. */
  readonly target: string;
}

/** The report of a comparison of linear models as one self-contained HTML page. */
export async function compareReportHtml(
  result: LinearComparison,
  context: CompareReportContext,
): Promise<string> {
  return reportHtml(await compareReportDocument(result, context));
}

/** The sections of {@link compareReportHtml}. */
export async function compareReportDocument(
  result: LinearComparison,
  context: CompareReportContext,
): Promise<ReportDocument> {
  const top = result.models.slice(0, TOP_MODELS);
  const sections: ReportSection[] = [
    {
      heading: "Models",
      paragraphs: [summary(result, context.target)],
      tables: [modelTable(result, top)],
      plots: [await probabilityPlot(top, hasSampledEvidences(result)), await sizePlot(result)],
    },
    {
      heading: "Inputs",
      paragraphs: [
        `Median-probability model: ${result.medianModel.length > 0 ? result.medianModel.join(", ") : "(none)"}.`,
      ],
      tables: [coefficientTable(result)],
      plots: [
        await inclusionPlot(result),
        ...(await coefficientPlot(result)),
        await modelSpacePlot(result, top),
      ],
    },
  ];
  return {
    title: `Which inputs explain ${context.target}?`,
    subtitle: `occam compare ${context.data}: ${result.n} rows, ${result.inputs.length} candidate terms, ${result.modelCount} models`,
    sections,
  };
}

/** A model's terms, or "(none)" for the intercept-only model. */
export function modelLabel(model: LinearModelRow): string {
  return model.inputs.length > 0 ? model.inputs.join(", ") : "(none)";
}

function summary(result: LinearComparison, target: string): string {
  const parts = [
    `${target} on ${result.inputs.length} candidate terms; prior ${describePrior(result.prior)}` +
      `${result.intercept ? ", intercept in every model" : ", no intercept"}; model prior ${describeModelPrior(result.modelPrior)}.`,
  ];
  if (result.mcmc !== undefined) {
    parts.push(
      `Too many terms to enumerate: subsets sampled by MCMC (${result.mcmc.steps} steps, ${result.mcmc.distinctModels} distinct models); probabilities are renormalised over the visited models.`,
    );
  }
  const note = sampledEvidencesNote(result);
  if (note !== undefined) parts.push(note);
  if (result.models.length < result.modelCount) {
    parts.push(`The best ${result.models.length} of ${result.modelCount} models are listed.`);
  }
  return parts.join(" ");
}

function modelTable(result: LinearComparison, top: readonly LinearModelRow[]) {
  const estimated = hasSampledEvidences(result);
  return {
    caption: `The ${top.length} most probable models`,
    columns: [
      "rank",
      "inputs",
      "R²",
      estimated ? "log BF vs best ± s.e." : "log BF vs best",
      estimated ? "probability [90 % interval]" : "probability",
    ],
    rows: top.map((m, rank) => [
      String(rank + 1),
      modelLabel(m),
      m.rSquared.toFixed(3),
      formatLogBayesFactor(m.logBayesFactorVsBest, m.logBayesFactorVsBestStdErr),
      m.probabilityInterval === undefined
        ? formatProbability(m.posteriorProbability)
        : `${formatProbability(m.posteriorProbability)} [${formatNumber(m.probabilityInterval[0], 2)}, ${formatNumber(m.probabilityInterval[1], 2)}]`,
    ]),
  };
}

function coefficientTable(result: LinearComparison) {
  return {
    caption: "Model-averaged coefficients",
    columns: ["coefficient", "P(≠ 0)", "posterior mean", "posterior sd"],
    rows: [...result.coefficients]
      .sort((x, y) => y.inclusionProbability - x.inclusionProbability)
      .map((c) => [
        c.name,
        formatProbability(c.inclusionProbability),
        c.mean === null ? "—" : formatNumber(c.mean, 4),
        c.sd === null ? "—" : formatNumber(c.sd, 3),
      ]),
  };
}

/** What the plots read of a model. */
export interface PlottedModel {
  readonly inputs: readonly string[];
  readonly posteriorProbability: number;
  readonly probabilityInterval?: readonly [number, number];
  /** Against the intercept-only model. */
  readonly logBayesFactor: number;
  readonly logBayesFactorVsBest: number;
}

/** The top models' posterior probabilities, with their intervals when the evidences were estimated. */
export async function probabilityPlot(
  top: readonly PlottedModel[],
  estimated: boolean,
): Promise<RenderedPlot> {
  const values = top.map((m, rank) => ({
    rank: rank + 1,
    probability: m.posteriorProbability,
    low: m.probabilityInterval?.[0] ?? m.posteriorProbability,
    high: m.probabilityInterval?.[1] ?? m.posteriorProbability,
  }));
  return renderPlot(
    {
      width: 420,
      height: { step: 18 },
      data: { values },
      encoding: {
        y: { field: "rank", type: "ordinal", title: "model rank" },
      },
      layer: [
        {
          mark: { type: "bar", color: "#4c78a8" },
          encoding: { x: { field: "probability", type: "quantitative", title: "posterior probability" } },
        },
        ...(estimated
          ? [
              {
                mark: { type: "rule" as const, color: "#222" },
                encoding: {
                  x: { field: "low", type: "quantitative" as const, title: "posterior probability" },
                  x2: { field: "high" },
                },
              },
            ]
          : []),
      ],
    },
    estimated
      ? "Posterior probabilities of the most probable models, with 90 % intervals over the errors of the estimated evidences."
      : "Posterior probabilities of the most probable models (exact evidences: no error bars).",
  );
}

/** BAS's plot: each model's log Bayes factor (against the intercept-only model) by its number of terms. */
export async function sizePlot(result: {
  readonly models: readonly PlottedModel[];
  readonly modelCount: number;
}): Promise<RenderedPlot> {
  const drawn = result.models.slice(0, SIZE_PLOT_MODELS);
  const values = drawn.map((m) => ({
    size: m.inputs.length,
    logBayesFactor: m.logBayesFactor,
  }));
  return renderPlot(
    {
      width: 420,
      height: 260,
      data: { values },
      mark: { type: "point", filled: true, size: 16, opacity: 0.5, color: "#4c78a8" },
      encoding: {
        x: { field: "size", type: "quantitative", title: "model size (terms)", axis: { tickMinStep: 1 } },
        y: {
          field: "logBayesFactor",
          type: "quantitative",
          title: "log Bayes factor vs intercept-only",
          scale: { zero: false },
        },
      },
    },
    `Log Bayes factor of each model against the intercept-only model, by model size (as BAS's plot of log marginal likelihood against dimension)${drawn.length < result.modelCount ? `; the best ${drawn.length} of ${result.modelCount} models` : ""}.`,
  );
}

/** Each term's inclusion probability, with the median-probability model's line at ½. */
export async function inclusionPlot(result: {
  readonly inputs: readonly string[];
  readonly inclusionProbabilities: Readonly<Record<string, number>>;
}): Promise<RenderedPlot> {
  const values = result.inputs.map((term) => ({ term, probability: result.inclusionProbabilities[term] }));
  return renderPlot(
    {
      width: 420,
      height: { step: 18 },
      data: { values },
      layer: [
        {
          mark: { type: "bar", color: "#4c78a8" },
          encoding: {
            y: { field: "term", type: "nominal", sort: "-x", title: null },
            x: {
              field: "probability",
              type: "quantitative",
              title: "inclusion probability",
              scale: { domain: [0, 1] },
            },
          },
        },
        { mark: { type: "rule", color: "#888", strokeDash: [4, 3] }, encoding: { x: { datum: 0.5 } } },
      ],
    },
    "Posterior inclusion probability of each term; the dashed line at ½ marks the median-probability model.",
  );
}

/** Model-averaged means ± 2 posterior sds, when the prior has them in closed form. */
export async function coefficientPlot(result: {
  readonly coefficients: readonly { name: string; mean: number | null; sd: number | null }[];
}): Promise<RenderedPlot[]> {
  const values = result.coefficients.flatMap((c) =>
    c.mean === null || c.sd === null
      ? []
      : [{ name: c.name, mean: c.mean, low: c.mean - 2 * c.sd, high: c.mean + 2 * c.sd }],
  );
  if (values.length === 0) return [];
  return [
    await renderPlot(
      {
        width: 420,
        height: { step: 18 },
        data: { values },
        encoding: { y: { field: "name", type: "nominal", sort: null, title: null } },
        layer: [
          { mark: { type: "rule", color: "#888", strokeDash: [4, 3] }, encoding: { x: { datum: 0 } } },
          {
            mark: { type: "rule", strokeWidth: 2, color: "#4c78a8" },
            encoding: {
              x: { field: "low", type: "quantitative", title: "coefficient (mean ± 2 sd)" },
              x2: { field: "high" },
            },
          },
          {
            mark: { type: "point", filled: true, size: 40, color: "#4c78a8" },
            encoding: { x: { field: "mean", type: "quantitative", title: "coefficient (mean ± 2 sd)" } },
          },
        ],
      },
      "Model-averaged coefficients: posterior mean ± 2 posterior standard deviations, averaged over models (0 in the models that leave a term out).",
    ),
  ];
}

/** BAS's `image`: which terms each of the top models holds, coloured by its log Bayes factor against the best. */
export async function modelSpacePlot(
  result: { readonly inputs: readonly string[] },
  top: readonly PlottedModel[],
): Promise<RenderedPlot> {
  const values = top.flatMap((m, rank) =>
    m.inputs.map((term) => ({ rank: rank + 1, term, logBayesFactorVsBest: m.logBayesFactorVsBest })),
  );
  return renderPlot(
    {
      width: { step: 22 },
      height: { step: 18 },
      data: { values },
      mark: "rect",
      encoding: {
        x: {
          field: "rank",
          type: "ordinal",
          title: "model rank",
          scale: { domain: top.map((_, r) => r + 1) },
        },
        y: { field: "term", type: "nominal", title: null, scale: { domain: [...result.inputs] } },
        color: {
          field: "logBayesFactorVsBest",
          type: "quantitative",
          title: "log BF vs best",
          scale: { scheme: "blues", reverse: false },
        },
      },
    },
    "The model space: a filled cell means the model of that rank holds that term; darker models are more probable (as BAS's image).",
  );
}
