import type {
  EversonFamiliesResult,
  EversonFamiliesRun,
  PairedGap,
} from "../../experiments/everson-families.js";
import { CHAIN_RULE, estimatorName } from "../../models/classifiers/families.js";
import { formatNumber, formatTable } from "../table.js";

function pm(value: number, se: number): string {
  return `${formatNumber(value, 5)} ± ${formatNumber(se, 2)}`;
}

/** One run's table: each family, then the evidence-weighted average and the stack. */
function formatRun(run: EversonFamiliesRun): string {
  const showEverson = run.families.some((f) => f.everson !== null);
  const rows = run.families.map((f) => [
    f.family,
    `${pm(f.logEvidence, f.stdErr)}${f.method === CHAIN_RULE ? "" : ` ${estimatorName(f.method)}`}${f.reliable ? "" : " *"}`,
    f.crossCheck === null
      ? ""
      : `${pm(f.crossCheck.logEvidence, f.crossCheck.stdErr)} ${estimatorName(f.crossCheck.method)}${f.crossCheck.reliable ? "" : " *"}`,
    f.crossCheck === null ? "" : formatNumber(f.crossCheck.z, 2),
    ...(showEverson ? [f.everson === null ? "" : pm(f.everson.logEvidence, f.everson.stdErr)] : []),
    f.probability === null ? "left out" : formatNumber(f.probability, 3),
    formatNumber(f.stackingWeight, 3),
    formatNumber(100 * f.accuracy, 3),
    `${formatNumber(f.logLoss, 4)} ± ${formatNumber(f.logLossMcse, 1)}`,
    formatNumber(f.brier, 4),
  ]);
  const blanks = showEverson ? 6 : 5;
  for (const [label, c] of [
    ["evidence-weighted", run.average],
    ["stacked", run.stacked],
  ] as const) {
    if (c === null) continue;
    rows.push([
      label,
      ...new Array<string>(blanks).fill(""),
      formatNumber(100 * c.accuracy, 3),
      `${formatNumber(c.logLoss, 4)} ± ${formatNumber(c.logLossMcse, 1)}`,
      formatNumber(c.brier, 4),
    ]);
  }
  const table = formatTable(
    [
      { header: "family", align: "left" },
      { header: "log p(y | X)", align: "left" },
      { header: "cross-check", align: "left" },
      { header: "z" },
      ...(showEverson ? [{ header: "Everson G-fold", align: "left" as const }] : []),
      { header: "p(M | D)" },
      { header: "stack" },
      { header: "acc %" },
      { header: "log loss ± MC" },
      { header: "Brier" },
    ],
    rows,
  );
  const verdict =
    run.average === null
      ? "no family had a reliable evidence: no average"
      : `average vs best family: log loss ${formatNumber(run.average.logLoss, 4)} vs ${formatNumber(run.bestLogLoss, 4)} (${run.logLossWithinBest ? "within" : "NOT within"} its MC error${run.gaps === null ? "" : gapText(run.gaps.logLoss, 1, 4)}), accuracy ${formatNumber(100 * run.average.accuracy, 3)} % vs ${formatNumber(100 * run.bestAccuracy, 3)} % (${run.accuracyWithinBest ? "within" : "NOT within"} 1 point${run.gaps === null ? "" : gapText(run.gaps.accuracy, 100, 1)})`;
  return [
    `${run.data}, seed ${run.seed}: ${run.trainRows} training and ${run.testRows} test rows, ${formatNumber(run.seconds, 3)} s`,
    table,
    verdict,
  ].join("\n");
}

/**
 * A paired gap over the test rows as "; gap d ± s over the test rows, z = …" at a fixed number of
 * decimals (the z left out when s is below one unit of the last decimal: the average then predicts
 * as the best family).
 */
function gapText(gap: PairedGap, scale: number, decimals: number): string {
  const s = scale * gap.testStdErr;
  if (!Number.isFinite(s)) return "";
  const z = s >= 10 ** -decimals ? `, z = ${(gap.difference / gap.testStdErr).toFixed(1)}` : "";
  return `; gap ${(scale * gap.difference).toFixed(decimals)} ± ${s.toFixed(decimals)} over the test rows${z}`;
}

/** The reproduction's report: each run's table, then a summary of the claim's checks. */
export function formatEversonFamiliesReport(result: EversonFamiliesResult): string {
  const total = result.runs.length;
  const logLossOk = result.runs.filter((r) => r.logLossWithinBest).length;
  const accuracyOk = result.runs.filter((r) => r.accuracyWithinBest).length;
  const withinNoise = result.runs.filter((r) => r.withinTestNoise).length;
  return [
    `Everson et al.: classifier families by the evidence of the labels given the inputs (${result.folds}-fold chain rule, ${result.draws} draws per posterior).`,
    "Evidences by the chain rule unless marked smc: tempered SMC on all training rows, for a family whose chain rule or chains failed their checks (where the chains failed, it also makes the family's predictions).",
    "* = the estimator's own checks do not trust the number; such a family is left out of the probabilities and the average.",
    "",
    ...result.runs.map(formatRun).flatMap((t) => [t, ""]),
    `The evidence-weighted average's test log loss was within its Monte Carlo error of the best family's (or better) on ${logLossOk} of ${total} runs, and its accuracy within one point on ${accuracyOk} of ${total}.`,
    `Within two standard errors of the test rows' paired differences in both log loss and accuracy (what a test set of this size can tell apart): ${withinNoise} of ${total}.`,
  ].join("\n");
}
