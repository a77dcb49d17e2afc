/**
 * The tables of `occam compare`: numbers printed to the precision their error supports, and never
 * rounded into a false tie (a log Bayes factor against the best model is shown to 0.01 nats whatever its
 * size; a probability near 1 shows how far from 1 it is).
 */
import { describePrior, formatLogBayesFactor, formatProbability } from "../../report/format.js";
import {
  hasSampledEvidences,
  type LinearComparison,
  sampledEvidencesNote,
} from "../../selection/linear-options.js";
import { formatNumber, formatTable } from "../table.js";

/** The report of a comparison: what was compared, the models, the coefficients. */
export function formatComparison(result: LinearComparison, target: string): string {
  const estimated = hasSampledEvidences(result);
  const factorNames = new Set(result.factors.map((f) => f.name));
  const isFactor = (term: string) => term.split(":").some((v) => factorNames.has(v));
  const models = formatTable(
    [
      { header: "inputs", align: "left" },
      { header: "R²" },
      { header: estimated ? "log BF vs best ± s.e." : "log BF vs best" },
      { header: estimated ? "probability [90 % interval]" : "probability" },
    ],
    result.models.map((m) => [
      (m.inputs.length > 0 ? m.inputs.map((t) => (isFactor(t) ? `${t}†` : t)).join(", ") : "(none)") +
        (m.reliable === false ? " ‼" : ""),
      m.rSquared.toFixed(3),
      formatLogBayesFactor(m.logBayesFactorVsBest, m.logBayesFactorVsBestStdErr),
      m.probabilityInterval === undefined
        ? formatProbability(m.posteriorProbability)
        : `${formatProbability(m.posteriorProbability)} [${formatNumber(m.probabilityInterval[0], 2)}, ${formatNumber(m.probabilityInterval[1], 2)}]`,
    ]),
  );
  const coefficients = formatTable(
    [
      { header: "coefficient", align: "left" },
      { header: "P(≠ 0)" },
      { header: "posterior mean" },
      { header: "posterior sd" },
    ],
    [...result.coefficients]
      .sort((x, y) => y.inclusionProbability - x.inclusionProbability)
      .map((c) => [
        c.name,
        formatProbability(c.inclusionProbability),
        c.mean === null ? "—" : formatNumber(c.mean, 4),
        c.sd === null ? "—" : formatNumber(c.sd, 3),
      ]),
  );
  const p = result.inputs.length;
  const lines = [
    `${target} on ${p} input${p === 1 ? "" : "s"}, ${result.n} rows, ${result.modelCount} models; prior ${describePrior(result.prior)}` +
      `${result.intercept ? ", intercept in every model" : ", no intercept"}` +
      `${result.always.length > 0 ? `; ${result.always.join(", ")} in every model, the model prior over the other terms` : ""}`,
  ];
  if (result.factors.length > 0) {
    lines.push(
      `† factors, dummy-coded against their first level: ${result.factors.map((f) => `${f.name} (${f.levels.length} levels, reference "${f.reference}")`).join("; ")}`,
    );
  }
  if (result.mcmc) {
    lines.push(
      `${p} inputs: too many to enumerate 2^${p} models; sampled subsets by MCMC (${result.mcmc.steps} steps, ` +
        `${result.mcmc.distinctModels} distinct models visited, seed ${result.settings?.seed}); probabilities are ` +
        `exact scores renormalised over the visited models (visit frequencies differ by ${formatNumber(result.mcmc.frequencyDiscrepancy, 2)} in total variation)`,
    );
  }
  if (result.estimator === "exact" && estimated) lines.push(sampledEvidencesNote(result) as string);
  for (const m of result.models.filter((row) => row.reliable === false)) {
    lines.push(`‼ ${m.inputs.join(", ")}: ${(m.warnings ?? []).join(" ")}`);
  }
  if (result.estimator !== "exact") {
    const s = result.settings;
    lines.push(
      `log evidences estimated by ${result.estimator} (seed ${s?.seed}${s?.samples === undefined ? "" : `, ${s.samples} samples`}` +
        `${s?.folds === undefined ? "" : `, ${s.folds} folds`}); Bayes factors carry the evidences' standard errors and probabilities their 90 % intervals`,
    );
    if (result.agreement !== undefined) {
      lines.push(
        `against the exact evidences: largest error ${formatNumber(result.agreement.maxAbsError, 3)} nats; ` +
          `${result.agreement.beyondFourStdErr} of ${result.modelCount} estimates beyond 4 std. errors`,
      );
    }
  }
  if (result.quadrature !== undefined) {
    lines.push(
      `Bayes factors by quadrature over g: largest error ${formatNumber(result.quadrature.maxError, 2)} nats ` +
        `(${result.quadrature.panels} tabulated panels with proven bounds` +
        `${result.quadrature.directEvaluations > 0 ? `, ${result.quadrature.directEvaluations} direct integrals` : ""})`,
    );
  }
  lines.push(
    "",
    models,
    "",
    coefficients,
    "",
    `median-probability model: ${result.medianModel.length > 0 ? result.medianModel.join(", ") : "(none)"}`,
  );
  if (result.predictions !== undefined) {
    lines.push(
      "",
      `Model-averaged predictions of ${target} at the new rows (90 % intervals):`,
      formatTable(
        [
          { header: "row" },
          { header: "mean" },
          { header: "of the mean" },
          { header: "of a new observation" },
        ],
        result.predictions.map((p, i) => [
          String(i + 1),
          formatNumber(p.mean),
          `[${formatNumber(p.lower)}, ${formatNumber(p.upper)}]`,
          `[${formatNumber(p.observationLower)}, ${formatNumber(p.observationUpper)}]`,
        ]),
      ),
    );
  }
  return lines.join("\n");
}
