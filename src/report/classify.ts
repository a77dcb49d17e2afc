/**
 * The report of `occam classify`: each family's evidence beside its cross-check, the family
 * probabilities with their intervals beside the stacking weights, and on test rows each family's and
 * both averages' log loss (± Monte Carlo error) and accuracy, the reliability diagram of the averages
 * and the evidence-weighted average's confusion matrix.
 */
import { estimatorName } from "../models/classifiers/families.js";
import type {
  ClassifierFamilyComparison,
  ClassifierFamilyResult,
  CombinedScores,
  EstimateSummary,
  TestScores,
} from "../selection/classifier-families.js";
import { formatNumber, formatProbability, withError } from "./format.js";
import { type ReportDocument, type ReportSection, type ReportTable, reportHtml } from "./html.js";
import { type RenderedPlot, renderPlot } from "./plot.js";

/** Where a comparison's data came from, for the report's text. */
export interface ClassifyReportContext {
  /** The training file. */
  readonly data: string;
  /** The class-label column. */
  readonly target: string;
  /** Where the test rows came from (a file, or how they were held out), or null without test rows. */
  readonly test: string | null;
}

const AVERAGE = "evidence-weighted average";
const STACKED = "stacked";
const FAMILY_COLOUR = "#4c78a8";
const AVERAGE_COLOUR = "#f58518";

/** The report of a comparison of classifier families as one self-contained HTML page. */
export async function classifyReportHtml(
  cmp: ClassifierFamilyComparison,
  context: ClassifyReportContext,
): Promise<string> {
  return reportHtml(await classifyReportDocument(cmp, context));
}

/** The sections of {@link classifyReportHtml}. */
export async function classifyReportDocument(
  cmp: ClassifierFamilyComparison,
  context: ClassifyReportContext,
): Promise<ReportDocument> {
  const sections: ReportSection[] = [await familiesSection(cmp, context), await testSection(cmp, context)];
  const notes = warnings(cmp);
  if (notes.length > 0) sections.push({ heading: "Warnings", paragraphs: notes });
  return {
    title: `Which classifier family explains ${context.target}?`,
    subtitle:
      `occam classify ${context.data}: ${cmp.trainRows} training rows, ${cmp.inputs.length} inputs, ` +
      `${cmp.classes.length} classes, ${cmp.folds}-fold chain rule, seed ${cmp.seed}, ${formatNumber(cmp.seconds, 3)} s`,
    sections,
  };
}

function estimateText(e: EstimateSummary): string {
  // Quadrature's error is at rounding level: show the value, not sixteen digits of it.
  const value = e.stdErr < 1e-6 ? `${formatNumber(e.logZ, 8)} ± <10⁻⁶` : withError(e.logZ, e.stdErr);
  return `${value}${e.reliable ? "" : " (unreliable)"}`;
}

/** Long names (the averages, the estimators) are shown whole on axes and in legends. */
const LABEL_LIMIT = 260;

async function familiesSection(
  cmp: ClassifierFamilyComparison,
  context: ClassifyReportContext,
): Promise<ReportSection> {
  const level = `${Math.round(100 * cmp.probabilityLevel)} %`;
  const everson = cmp.families.some((f) => f.everson !== null);
  const table: ReportTable = {
    caption: "Each family's evidence of the labels given the inputs",
    columns: [
      "family",
      "model",
      "log p(y | X) ± s.e.",
      "cross-check ± s.e.",
      "z",
      ...(everson ? ["Everson G-fold product"] : []),
      `p(M | D) [${level}]`,
      "stacking weight",
      "seconds",
    ],
    rows: cmp.families.map((f) => [
      f.name,
      f.summary,
      `${estimateText(f.evidence)} ${estimatorName(f.evidence.method)}`,
      f.crossCheck === null ? "" : `${estimateText(f.crossCheck)} ${estimatorName(f.crossCheck.method)}`,
      f.crossCheckZ === null ? "" : formatNumber(f.crossCheckZ, 2),
      ...(everson ? [f.everson === null ? "" : estimateText(f.everson)] : []),
      f.probabilityInterval === null
        ? "left out"
        : `${formatProbability(f.probability)} [${formatProbability(f.probabilityInterval[0])}, ${formatProbability(f.probabilityInterval[1])}]`,
      formatProbability(f.stackingWeight),
      formatNumber(f.seconds, 3),
    ]),
  };
  const plots = [await evidencePlot(cmp.families)];
  const weights = await weightPlot(cmp.families, level);
  if (weights !== null) plots.push(weights);
  return {
    heading: "Families",
    paragraphs: [
      `${context.target} in ${cmp.classes.length} classes (${cmp.classes.join(", ")}) from ${cmp.inputs.length} inputs ` +
        `(${cmp.inputs.join(", ")}), standardised by the ${cmp.trainRows} training rows of ${context.data}.`,
      `Each family's evidence log p(y | X, M) is computed by the chain rule over ${cmp.folds} stratified folds, the same for ` +
        "every family: the sum over folds g of log p(y_g | X_g, folds before g), each factor by bridge sampling between the " +
        "posteriors given the folds before g and given those and g (for pknn, an average over the first of them). " +
        "It is cross-checked by a second estimator on the same number: bridge sampling on " +
        "posterior draws given all rows, or quadrature for pknn; z is their difference over its standard error. " +
        "With --tempered, a family whose chain rule or chains failed their checks is also run by tempered SMC on all rows " +
        "(smc), whose evidence then weighs the family where the chain rule failed and it passed its own checks; the " +
        "other of the two is then the cross-check.",
      `Family probabilities p(M | D) take the prior over families (uniform unless given); their ${level} intervals carry ` +
        "the evidences' errors. A family whose evidence is not reliable is left out of the probabilities and the " +
        "average unless asked for (--include-unreliable). Stacking " +
        "weights, beside them, maximise the leave-one-out log score of the mixture instead.",
    ],
    tables: [table],
    plots,
  };
}

/** Each family's chain-rule evidence and cross-check, ± 2 standard errors. */
async function evidencePlot(families: readonly ClassifierFamilyResult[]): Promise<RenderedPlot> {
  const values = families.flatMap((f) =>
    [
      { e: f.evidence, estimator: estimatorName(f.evidence.method) },
      ...(f.crossCheck === null ? [] : [{ e: f.crossCheck, estimator: estimatorName(f.crossCheck.method) }]),
    ].map(({ e, estimator }) => ({
      family: f.name,
      estimator,
      logZ: e.logZ,
      low: e.logZ - 2 * e.stdErr,
      high: e.logZ + 2 * e.stdErr,
      reliable: e.reliable ? "reliable" : "unreliable",
    })),
  );
  const x = {
    field: "logZ",
    type: "quantitative" as const,
    title: "log p(y | X, M) ± 2 s.e.",
    scale: { zero: false },
  };
  return renderPlot(
    {
      width: 460,
      height: { step: 16 },
      data: { values },
      encoding: {
        y: { field: "family", type: "nominal", sort: null, title: null },
        yOffset: { field: "estimator", type: "nominal" },
        color: {
          field: "estimator",
          type: "nominal",
          title: "estimate",
          legend: { labelLimit: LABEL_LIMIT },
        },
      },
      layer: [
        {
          mark: { type: "rule", strokeWidth: 2 },
          encoding: { x: { ...x, field: "low" }, x2: { field: "high" } },
        },
        {
          mark: { type: "point", filled: true, size: 50 },
          encoding: {
            x,
            shape: {
              field: "reliable",
              type: "nominal",
              title: null,
              scale: { domain: ["reliable", "unreliable"], range: ["circle", "cross"] },
            },
          },
        },
      ],
    },
    "Each family's log evidence of the labels given the inputs, ± 2 standard errors: the evidence (the chain rule, or tempered SMC) and its cross-check, which should overlap. A cross marks an estimate whose own checks failed.",
  );
}

/** The family probabilities with their intervals, beside the stacking weights; null when no family is weighed. */
async function weightPlot(
  families: readonly ClassifierFamilyResult[],
  level: string,
): Promise<RenderedPlot | null> {
  const included = families.filter((f) => f.probabilityInterval !== null);
  if (included.length === 0) return null;
  const values = [
    ...included.map((f) => ({
      family: f.name,
      weight: "p(M | D)",
      value: f.probability,
      low: f.probabilityInterval?.[0] ?? f.probability,
      high: f.probabilityInterval?.[1] ?? f.probability,
    })),
    ...families.map((f) => ({
      family: f.name,
      weight: "stacking weight",
      value: f.stackingWeight,
      low: f.stackingWeight,
      high: f.stackingWeight,
    })),
  ];
  const x = { type: "quantitative" as const, title: "weight", scale: { domain: [0, 1] } };
  const left = families.filter((f) => f.probabilityInterval === null).map((f) => f.name);
  return renderPlot(
    {
      width: 460,
      height: { step: 16 },
      data: { values },
      encoding: {
        y: {
          field: "family",
          type: "nominal",
          sort: null,
          title: null,
          scale: { domain: families.map((f) => f.name) },
        },
        yOffset: { field: "weight", type: "nominal" },
        color: { field: "weight", type: "nominal", title: null },
      },
      layer: [
        {
          mark: { type: "rule", strokeWidth: 2 },
          encoding: { x: { ...x, field: "low" }, x2: { field: "high" } },
        },
        { mark: { type: "point", filled: true, size: 50 }, encoding: { x: { ...x, field: "value" } } },
      ],
    },
    `Family probabilities p(M | D) with ${level} intervals over the evidences' errors, and the stacking weights.` +
      (left.length > 0 ? ` Left out of the probabilities (evidence not reliable): ${left.join(", ")}.` : ""),
  );
}

interface Predictor {
  readonly name: string;
  readonly kind: "family" | "average";
  readonly scores: TestScores;
}

function predictors(cmp: ClassifierFamilyComparison): Predictor[] {
  const out: Predictor[] = cmp.families.flatMap((f) =>
    f.test === null ? [] : [{ name: f.name, kind: "family" as const, scores: f.test }],
  );
  const combined: [string, CombinedScores | null][] = [
    [AVERAGE, cmp.average],
    [STACKED, cmp.stacked],
  ];
  for (const [name, scores] of combined) if (scores !== null) out.push({ name, kind: "average", scores });
  return out;
}

async function testSection(
  cmp: ClassifierFamilyComparison,
  context: ClassifyReportContext,
): Promise<ReportSection> {
  const rows = predictors(cmp);
  if (cmp.testRows === 0 || rows.length === 0) {
    return {
      heading: "Test predictions",
      paragraphs: [
        "No test rows: give --test FILE or --split FRACTION for each family's and the averages' test scores and the reliability diagram.",
      ],
    };
  }
  const plots = [await logLossPlot(rows), await accuracyPlot(rows, cmp.testRows)];
  const reliability = await reliabilityPlot(cmp);
  if (reliability !== null) plots.push(reliability);
  const tables: ReportTable[] = [
    {
      caption: `Scores on ${cmp.testRows} test rows`,
      columns: ["predictor", "accuracy %", "log loss ± MC s.e.", "Brier"],
      rows: rows.map((p) => [
        p.name,
        formatNumber(100 * p.scores.accuracy, 3),
        withError(p.scores.logLoss, p.scores.logLossMcse),
        formatNumber(p.scores.brier, 4),
      ]),
    },
  ];
  if (cmp.average !== null) {
    tables.push({
      caption: "Confusion matrix of the evidence-weighted average (rows observed, columns predicted)",
      columns: ["observed \\ predicted", ...cmp.classes],
      rows: cmp.average.confusion.map((row, k) => [cmp.classes[k], ...row.map(String)]),
    });
  }
  return {
    heading: "Test predictions",
    paragraphs: [
      `${cmp.testRows} test rows from ${context.test ?? "the test set"}. Log loss is the mean −log p(y | x) in nats (lower is better), ` +
        "with its Monte Carlo error from the finite posterior draws; Brier is the mean squared distance of the predicted " +
        "probabilities from the observed class. The evidence-weighted average mixes the families' predictives with the " +
        "weights p(M | D); the stacked one with the stacking weights.",
    ],
    tables,
    plots,
  };
}

function predictorScale(rows: readonly Predictor[]) {
  return {
    y: {
      field: "predictor",
      type: "nominal" as const,
      sort: null,
      title: null,
      axis: { labelLimit: LABEL_LIMIT },
    },
    color: {
      field: "kind",
      type: "nominal" as const,
      title: null,
      scale: { domain: ["family", "average"], range: [FAMILY_COLOUR, AVERAGE_COLOUR] },
      legend: rows.some((r) => r.kind === "average") ? {} : null,
    },
  };
}

/** Test log loss ± 2 Monte Carlo errors of each family and both averages. */
async function logLossPlot(rows: readonly Predictor[]): Promise<RenderedPlot> {
  const values = rows.map((p) => ({
    predictor: p.name,
    kind: p.kind,
    logLoss: p.scores.logLoss,
    low: p.scores.logLoss - 2 * p.scores.logLossMcse,
    high: p.scores.logLoss + 2 * p.scores.logLossMcse,
  }));
  const x = {
    type: "quantitative" as const,
    title: "test log loss (nats) ± 2 MC s.e.",
    scale: { zero: false },
  };
  return renderPlot(
    {
      width: 460,
      height: { step: 22 },
      data: { values },
      encoding: predictorScale(rows),
      layer: [
        {
          mark: { type: "rule", strokeWidth: 2 },
          encoding: { x: { ...x, field: "low" }, x2: { field: "high" } },
        },
        { mark: { type: "point", filled: true, size: 60 }, encoding: { x: { ...x, field: "logLoss" } } },
      ],
    },
    "Test log loss of each family and of the two averages, ± 2 Monte Carlo standard errors (lower is better).",
  );
}

/** Test accuracy of each family and both averages. */
async function accuracyPlot(rows: readonly Predictor[], m: number): Promise<RenderedPlot> {
  const values = rows.map((p) => ({ predictor: p.name, kind: p.kind, accuracy: 100 * p.scores.accuracy }));
  const best = Math.max(...rows.map((p) => p.scores.accuracy));
  const sd = 100 * Math.sqrt((best * (1 - best)) / m);
  return renderPlot(
    {
      width: 460,
      height: { step: 22 },
      data: { values },
      mark: { type: "point", filled: true, size: 60 },
      encoding: {
        ...predictorScale(rows),
        x: { field: "accuracy", type: "quantitative", title: "test accuracy %", scale: { zero: false } },
      },
    },
    `Test accuracy of each family and of the two averages. On ${m} test rows an accuracy near the best has a sampling standard deviation of about ${formatNumber(sd, 2)} points.`,
  );
}

/** The averages' reliability diagrams: mean predicted probability against observed frequency per bin. */
async function reliabilityPlot(cmp: ClassifierFamilyComparison): Promise<RenderedPlot | null> {
  const combined: [string, CombinedScores | null][] = [
    [AVERAGE, cmp.average],
    [STACKED, cmp.stacked],
  ];
  const values = combined.flatMap(([predictor, scores]) =>
    (scores?.reliability ?? []).map((b) => ({
      predictor,
      predicted: b.meanPredicted,
      observed: b.observed,
      low: b.observedLow,
      high: b.observedHigh,
    })),
  );
  if (values.length === 0) return null;
  const unit = { type: "quantitative" as const, scale: { domain: [0, 1] } };
  const what =
    cmp.classes.length === 2
      ? `the predicted probability of class ${cmp.classes[1]}`
      : "every class's predicted probability (one-vs-rest, pooled over classes)";
  return renderPlot(
    {
      width: 360,
      height: 360,
      layer: [
        {
          data: { values: [{ p: 0 }, { p: 1 }] },
          mark: { type: "line", color: "#888", strokeDash: [4, 3] },
          encoding: { x: { ...unit, field: "p" }, y: { ...unit, field: "p" } },
        },
        {
          data: { values },
          encoding: {
            x: { ...unit, field: "predicted", title: "mean predicted probability" },
            color: { field: "predictor", type: "nominal", title: null, legend: { labelLimit: LABEL_LIMIT } },
            // The two averages often coincide: a dashed line keeps the one underneath visible.
            strokeDash: { field: "predictor", type: "nominal" },
          },
          layer: [
            {
              mark: { type: "rule", strokeWidth: 1.5 },
              encoding: { y: { ...unit, field: "low", title: "observed frequency" }, y2: { field: "high" } },
            },
            {
              mark: { type: "line", point: { filled: true }, strokeWidth: 1.5 },
              encoding: { y: { ...unit, field: "observed", title: "observed frequency" } },
            },
          ],
        },
      ],
    },
    `Reliability of the averages on the test rows: ${what}, in ten bins, against how often that class was observed, with 95 % Wilson intervals. A calibrated predictor lies on the dashed diagonal.`,
  );
}

/** The comparison's warnings and each family's reason for an unreliable result. */
function warnings(cmp: ClassifierFamilyComparison): string[] {
  const out = [...cmp.warnings];
  for (const f of cmp.families) {
    for (const w of [...f.evidence.warnings, ...f.posterior.warnings]) out.push(`${f.name}: ${w}`);
  }
  return out;
}
