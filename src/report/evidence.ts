/**
 * The report of `occam evidence`: every method's log Z with its error beside the consensus, the
 * tempered runs' E_β[log L] against β, the nested runs' log L and weights against log X, and the posterior chains the draw-based methods shared.
 */
import { type EstimatorComparison, FALLBACK_NOTE } from "../evidence/compare.js";
import type { EvidenceResult } from "../evidence/estimate.js";
import type { StageSummary } from "../evidence/tempering/estimates.js";
import { chainsSection } from "./chains.js";
import { formatNumber, withError } from "./format.js";
import { type ReportDocument, type ReportSection, reportHtml } from "./html.js";
import { nestedSection } from "./nested.js";
import { type RenderedPlot, renderPlot } from "./plot.js";

/** Where a comparison came from, for the report's title. */
export interface EvidenceReportContext {
  /** The model's name or file. */
  readonly model: string;
  readonly seed: number;
}

/** The report of an estimator comparison as one self-contained HTML page. */
export async function evidenceReportHtml(
  comparison: EstimatorComparison,
  context: EvidenceReportContext,
): Promise<string> {
  return reportHtml(await evidenceReportDocument(comparison, context));
}

/** The sections of {@link evidenceReportHtml}. */
export async function evidenceReportDocument(
  comparison: EstimatorComparison,
  context: EvidenceReportContext,
): Promise<ReportDocument> {
  const sections: ReportSection[] = [await estimatesSection(comparison)];
  const tempered = await temperedSection(comparison.results);
  if (tempered !== undefined) sections.push(tempered);
  const nested = await nestedSection(comparison.results);
  if (nested !== undefined) sections.push(nested);
  if (comparison.posterior !== undefined) {
    const p = comparison.posterior;
    sections.push(
      await chainsSection(
        p.draws,
        "Posterior chains",
        `The draws the draw-based methods shared: ${p.kernel}, ${p.draws.nChains} chains, ` +
          `largest split R-hat ${formatNumber(p.maxRhat, 4)}, smallest ESS ${formatNumber(p.minEss, 3)}, ` +
          `${p.divergences} divergent trajectories.` +
          (p.unreliable.length > 0 ? ` Not to be trusted: ${p.unreliable.join("; ")}` : ""),
      ),
    );
  }
  return {
    title: `Log evidence of ${context.model}`,
    subtitle: `occam evidence, seed ${context.seed}; log Z in nats`,
    sections,
  };
}

function verdict(comparison: EstimatorComparison): string {
  const reliable = comparison.results.filter((r) => r.reliable).length;
  const agreement =
    reliable < 2
      ? `Only ${reliable} reliable result(s): nothing to cross-check.`
      : comparison.agree
        ? `The ${reliable} reliable results agree within 3 standard errors.`
        : "The reliable results DISAGREE by more than 3 standard errors: at least one of them is wrong.";
  const consensus =
    comparison.consensus === null
      ? "No reliable estimate: no log Z to report."
      : `Consensus of the reliable results: log Z = ${withError(comparison.consensus.logZ, comparison.consensus.stdErr)}.`;
  return `${comparison.fellBack === true ? `${FALLBACK_NOTE} ` : ""}${agreement} ${consensus}`;
}

async function estimatesSection(comparison: EstimatorComparison): Promise<ReportSection> {
  const rows = comparison.results.map((r) => [
    r.method,
    withError(r.logZ, r.stdErr),
    r.reliable ? "yes" : "no",
    String(r.nLikelihoodEvals),
    formatNumber(r.seconds, 2),
    r.warnings.join(" "),
  ]);
  for (const f of comparison.failures) rows.push([f.method, "failed", "no", "—", "—", f.message]);
  return {
    heading: "Estimates",
    paragraphs: [verdict(comparison)],
    tables: [
      {
        columns: ["method", "log Z ± std. error", "reliable", "likelihood evals", "seconds", "warnings"],
        rows,
      },
    ],
    plots: [await estimatesPlot(comparison)],
  };
}

const AXIS = "log Z ± 2 std. errors";

/** Each method's log Z ± 2 stdErr as a point and an interval, the consensus as a band behind them. */
async function estimatesPlot(comparison: EstimatorComparison): Promise<RenderedPlot> {
  const values = comparison.results
    .filter((r) => Number.isFinite(r.logZ))
    .map((r) => {
      const half = Number.isFinite(r.stdErr) ? 2 * r.stdErr : 0;
      return {
        method: r.method,
        logZ: r.logZ,
        low: r.logZ - half,
        high: r.logZ + half,
        reliable: r.reliable ? "reliable" : "not reliable",
      };
    });
  const c = comparison.consensus;
  return renderPlot(
    {
      width: 480,
      height: { step: 28 },
      layer: [
        {
          // Empty when there is no consensus: the band is then not drawn.
          data: {
            values:
              c === null ? [] : [{ low: c.logZ - 2 * c.stdErr, high: c.logZ + 2 * c.stdErr, logZ: c.logZ }],
          },
          layer: [
            {
              mark: { type: "rect", color: "#ddd", opacity: 0.6 },
              encoding: {
                x: { field: "low", type: "quantitative", title: AXIS },
                x2: { field: "high" },
              },
            },
            {
              mark: { type: "rule", color: "#888", strokeDash: [4, 3] },
              encoding: { x: { field: "logZ", type: "quantitative", title: AXIS } },
            },
          ],
        },
        {
          data: { values },
          encoding: {
            y: { field: "method", type: "nominal", sort: null, title: null },
            color: {
              field: "reliable",
              type: "nominal",
              title: null,
              scale: { domain: ["reliable", "not reliable"], range: ["#1f77b4", "#d62728"] },
            },
          },
          layer: [
            {
              mark: { type: "rule", strokeWidth: 2 },
              encoding: {
                x: {
                  field: "low",
                  type: "quantitative",
                  title: AXIS,
                  scale: { zero: false },
                },
                x2: { field: "high" },
              },
            },
            {
              mark: { type: "point", filled: true, size: 60 },
              encoding: { x: { field: "logZ", type: "quantitative", title: AXIS } },
            },
          ],
        },
      ],
    },
    estimatesCaption(values, c),
  );
}

/**
 * The plot's caption. The consensus band is drawn 4 standard errors wide, which is thinner than its
 * dashed line when the error is tiny beside the axis's span; the caption then says so.
 */
function estimatesCaption(
  values: readonly { low: number; high: number }[],
  consensus: { logZ: number; stdErr: number } | null,
): string {
  if (consensus === null) {
    return "Each method's log Z with ±2 standard errors; no method is reliable, so there is no consensus.";
  }
  const span = Math.max(...values.map((v) => v.high)) - Math.min(...values.map((v) => v.low));
  const visible = 4 * consensus.stdErr > 0.005 * span;
  return visible
    ? "Each method's log Z with ±2 standard errors; the dashed line is the consensus of the reliable methods, the grey band its ±2 standard errors."
    : "Each method's log Z with ±2 standard errors; the dashed line is the consensus of the reliable methods (its ±2 standard errors are too narrow to show as a band at this scale).";
}

/** The stages of a tempered run, when the result comes from one. */
function stagesOf(result: EvidenceResult): readonly StageSummary[] | undefined {
  const d = result.diagnostics;
  return "stages" in d ? d.stages : undefined;
}

async function temperedSection(results: readonly EvidenceResult[]): Promise<ReportSection | undefined> {
  const runs = results.flatMap((r) => {
    const stages = stagesOf(r);
    return stages === undefined ? [] : [{ method: r.method, stages }];
  });
  if (runs.length === 0) return undefined;
  const values = runs.flatMap(({ method, stages }) =>
    stages
      .filter((s) => Number.isFinite(s.meanLogLikelihood))
      .map((s) => ({ method, beta: s.beta, meanLogLikelihood: s.meanLogLikelihood })),
  );
  // Near β = 0 the mean log likelihood can be orders of magnitude below its value at β = 1.
  const magnitudes = values.map((v) => Math.abs(v.meanLogLikelihood));
  const wide = Math.max(...magnitudes) > 100 * Math.max(1, Math.min(...magnitudes));
  const plot = await renderPlot(
    {
      width: 480,
      height: 260,
      data: { values },
      encoding: {
        x: {
          field: "beta",
          type: "quantitative",
          title: "β (symmetric-log scale)",
          scale: { type: "symlog", constant: 1e-4, domain: [0, 1] },
        },
        y: {
          field: "meanLogLikelihood",
          type: "quantitative",
          title: wide ? "E_β[log L] (symmetric-log scale)" : "E_β[log L]",
          scale: wide ? { type: "symlog" } : { zero: false },
        },
        color: { field: "method", type: "nominal", title: "method" },
      },
      layer: [
        { mark: { type: "line", strokeWidth: 1.2 } },
        { mark: { type: "point", size: 18, filled: true } },
      ],
    },
    "The mean log likelihood of the cloud at each temperature of the ladder (one point per rung). log Z is the area under this curve; a jump between two rungs is a phase transition the ladder must resolve.",
  );
  return {
    heading: "Tempered runs",
    tables: [
      {
        columns: ["method", "temperatures", "total sweeps", "first β above 0", "smallest ESS fraction"],
        rows: runs.map(({ method, stages }) => [
          method,
          String(stages.length),
          String(stages.reduce((s, t) => s + t.sweeps, 0)),
          formatNumber(stages.find((s) => s.beta > 0)?.beta ?? Number.NaN, 3),
          formatNumber(Math.min(...stages.map((s) => s.essFraction)), 3),
        ]),
      },
    ],
    plots: [plot],
  };
}
