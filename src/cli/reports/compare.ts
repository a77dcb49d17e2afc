/**
 * The tables of `occam compare`: numbers printed to the precision their error supports, and never
 * rounded into a false tie (a log Bayes factor against the best model is shown to 0.01 nats whatever its
 * size; a probability near 1 shows how far from 1 it is).
 */
import type { LinearComparison, LinearPriorSummary } from "../../selection/linear-options.js";
import { formatNumber, formatTable } from "../table.js";

/** Decimals that show a standard error to two significant digits. */
function decimalsFor(stdErr: number): number {
  return stdErr > 0 ? Math.max(0, Math.min(6, 1 - Math.floor(Math.log10(stdErr)))) : 2;
}

/** x to `decimals` places, with a true minus sign and no "-0". */
function fixed(x: number, decimals: number): string {
  const text = x.toFixed(decimals);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text.replace("-", "−");
}

/** A log Bayes factor (± its standard error when it has one), to 0.01 nats or the error's precision. */
function formatLogBayesFactor(value: number, stdErr?: number): string {
  if (stdErr === undefined || stdErr === 0) return fixed(value, stdErr === 0 ? decimalsFor(0) : 2);
  const d = decimalsFor(stdErr);
  return `${fixed(value, d)} ± ${fixed(stdErr, d)}`;
}

/** A probability: 3 significant digits, and near 1 the distance from 1, so 0.99996 is not "1". */
function formatProbability(p: number): string {
  if (p === 1 || p === 0) return String(p);
  if (p > 0.999) return `1 − ${formatNumber(1 - p, 2)}`;
  if (p < 1e-3) return p.toExponential(1);
  return formatNumber(p, 3);
}

function describePrior(prior: LinearPriorSummary): string {
  switch (prior.name) {
    case "zellner-siow":
      return `Zellner–Siow (g ~ InverseGamma(½, r²n/2), r = ${formatNumber(prior.r, 4)})`;
    case "g-prior":
      return `g-prior with g = n = ${prior.g} (unit information)`;
    case "hyper-g":
      return `hyper-g (a = ${prior.a})`;
    case "hyper-g-n":
      return `hyper-g/n (a = ${prior.a})`;
    case "nig":
      return (
        `Normal–Inverse-Gamma (v = ${prior.v} on ${prior.standardized ? "standardised inputs" : "the inputs in their own units"}, ` +
        `a = ${prior.a}, b = ${prior.b})`
      );
    case "independent":
      return (
        `independent precisions (τ ~ Gamma(${formatNumber(prior.alpha, 3)}, scale ${formatNumber(prior.beta, 4)}), ` +
        `τ_w ~ Gamma(${formatNumber(prior.alphaW, 3)}, scale ${formatNumber(prior.betaW, 4)})` +
        `${prior.standardized ? ", standardised inputs" : ""})`
      );
  }
}

/** The report of a comparison: what was compared, the models, the coefficients. */
export function formatComparison(result: LinearComparison, target: string): string {
  const estimated = result.estimator !== "exact";
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
      m.inputs.length > 0 ? m.inputs.map((t) => (isFactor(t) ? `${t}†` : t)).join(", ") : "(none)",
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
      `${result.intercept ? ", intercept in every model" : ", no intercept"}`,
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
  if (estimated) {
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
  return lines.join("\n");
}
