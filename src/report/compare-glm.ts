/**
 * The report of `occam compare --family bernoulli|binomial|poisson`: the plots of a linear comparison's
 * report (probabilities with their intervals, log Bayes factor by model size, inclusion probabilities,
 * model-averaged coefficients, the model space) for generalised linear models.
 */
import { describeModelPrior } from "../selection/compare.js";
import type { GlmComparison, GlmModelRow } from "../selection/glm.js";
import {
  type CompareReportContext,
  coefficientPlot,
  inclusionPlot,
  modelSpacePlot,
  type PlottedModel,
  probabilityPlot,
  sizePlot,
} from "./compare.js";
import { formatLogBayesFactor, formatNumber, formatProbability, withError } from "./format.js";
import { type ReportDocument, reportHtml } from "./html.js";

/** The models drawn in the probability plot and the model-space image. */
const TOP_MODELS = 20;

/** The report of a comparison of GLMs as one self-contained HTML page. */
export async function glmReportHtml(result: GlmComparison, context: CompareReportContext): Promise<string> {
  return reportHtml(await glmReportDocument(result, context));
}

/** The sections of {@link glmReportHtml}. */
export async function glmReportDocument(
  result: GlmComparison,
  context: CompareReportContext,
): Promise<ReportDocument> {
  const best = result.models[0];
  const plotted = result.models.map(
    (m): PlottedModel => ({ ...m, logBayesFactorVsBest: m.logEvidence - best.logEvidence }),
  );
  const top = plotted.slice(0, TOP_MODELS);
  const inputs = Object.keys(result.inclusionProbabilities);
  return {
    title: `Which inputs explain ${context.target}?`,
    subtitle: `occam compare ${context.data} --family ${result.family}: ${inputs.length} candidate terms, ${result.modelCount} models`,
    sections: [
      {
        heading: "Models",
        paragraphs: [summary(result, context.target)],
        tables: [modelTable(result.models.slice(0, TOP_MODELS))],
        plots: [
          await probabilityPlot(top, true),
          await sizePlot({ models: plotted, modelCount: result.modelCount }),
        ],
      },
      {
        heading: "Inputs",
        paragraphs: [
          `Median-probability model: ${result.medianModel.length > 0 ? result.medianModel.join(", ") : "(none)"}.`,
        ],
        tables: [coefficientTable(result)],
        plots: [
          await inclusionPlot({ inputs, inclusionProbabilities: result.inclusionProbabilities }),
          ...(await coefficientPlot(result)),
          await modelSpacePlot({ inputs }, top),
        ],
      },
    ],
  };
}

function summary(result: GlmComparison, target: string): string {
  const prior =
    result.prior.name === "normal"
      ? `every coefficient ~ N(0, ${result.prior.scale}²) on standardised inputs`
      : `the ${result.prior.name} mixture of g-priors on the slopes, a flat intercept`;
  const parts = [
    `${target}: ${result.family} with the ${result.link} link; ${prior}; model prior ${describeModelPrior(result.modelPrior)}.`,
    "Each log evidence is Laplace's approximation corrected by importance sampling (bridge sampling on NUTS draws for models with random terms); probabilities carry 90 % intervals over the evidences' errors.",
  ];
  if (result.screenedModels > 0) {
    parts.push(
      `${result.screenedModels} of the ${result.modelCount} models lie more than 10 nats below the best by Laplace's approximation, which is their evidence.`,
    );
  }
  if (result.unreliableModels > 0) {
    parts.push(
      `${result.unreliableModels} model(s) have evidences that are not reliable (see the JSON's warnings).`,
    );
  }
  return parts.join(" ");
}

function modelTable(top: readonly GlmModelRow[]) {
  return {
    caption: `The ${top.length} most probable models`,
    columns: [
      "rank",
      "inputs",
      "log evidence ± s.e.",
      "log BF vs none",
      "probability [90 % interval]",
      "reliable",
    ],
    rows: top.map((m, rank) => [
      String(rank + 1),
      m.inputs.length > 0 ? m.inputs.join(", ") : "(none)",
      withError(m.logEvidence, m.stdErr),
      formatLogBayesFactor(m.logBayesFactor, m.logBayesFactorStdErr),
      `${formatProbability(m.posteriorProbability)} [${formatNumber(m.probabilityInterval[0], 2)}, ${formatNumber(m.probabilityInterval[1], 2)}]`,
      m.reliable ? "yes" : "no",
    ]),
  };
}

function coefficientTable(result: GlmComparison) {
  return {
    caption: "Model-averaged coefficients, in the inputs' units",
    columns: ["coefficient", "P(≠ 0)", "posterior mean", "posterior sd", "95 % interval"],
    rows: result.coefficients.map((c) => [
      c.name,
      formatProbability(c.inclusionProbability),
      formatNumber(c.mean, 4),
      formatNumber(c.sd, 3),
      `[${formatNumber(c.lower, 3)}, ${formatNumber(c.upper, 3)}]`,
    ]),
  };
}
