import type { SamplersExperiment } from "../../experiments/samplers.js";
import { formatNumber, formatTable } from "../table.js";

/** The samplers experiment as two tables: the Gaussians, then importance sampling. */
export function formatSamplersReport(result: SamplersExperiment): string {
  const f = (v: number) => formatNumber(v, 3);
  const gaussians = formatTable(
    [
      { header: "rho" },
      { header: "sampler", align: "left" },
      { header: "evaluations" },
      { header: "mean" },
      { header: "covariance (c11 c12 c22)" },
      { header: "accept" },
      { header: "ESS (x1 x2)" },
      { header: "ESS/1000 evals" },
    ],
    result.gaussians.map((row) => [
      String(row.rho),
      row.sampler,
      String(row.evaluations),
      `${f(row.mean[0])} ${f(row.mean[1])}`,
      `${f(row.covariance[0][0])} ${f(row.covariance[0][1])} ${f(row.covariance[1][1])}`,
      f(row.acceptanceRate),
      `${Math.round(row.ess[0])} ${Math.round(row.ess[1])}`,
      f(row.essPer1000Evaluations),
    ]),
  );
  const importance = formatTable(
    [
      { header: "proposal variance" },
      { header: "samples" },
      { header: "log Z" },
      { header: "std. error" },
      { header: "error" },
    ],
    result.importance.map((row) => [
      String(row.proposalVariance),
      String(row.samples),
      formatNumber(row.logZ, 5),
      formatNumber(row.stdErr, 2),
      formatNumber(row.logZ - result.exactLogZ, 2),
    ]),
  );
  return [
    `Correlated 2-D Gaussians (unit variances), ${result.budget} evaluations per sampler, seed ${result.seed}`,
    "(exact mean 0 0; exact covariance 1 rho 1)",
    "",
    gaussians,
    "",
    `Importance sampling of log ∫ exp(−x²/2) dx (exact ½ log 2π = ${formatNumber(result.exactLogZ, 6)})`,
    "",
    importance,
  ].join("\n");
}
