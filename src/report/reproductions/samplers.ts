/**
 * The report of `occam reproduce samplers`: the thesis's correlated Gaussians (chapter 4) sampled by
 * Gibbs, Metropolis, Langevin and hybrid Monte Carlo, with the thesis's own numbers beside occam's, and
 * importance sampling of a normalising constant as the sample size grows (§5.1.1, Figure 5.1).
 */
import type { GaussianRow, SamplerName, SamplersExperiment } from "../../experiments/samplers.js";
import { formatNumber } from "../format.js";
import type { ReportDocument, ReportTable } from "../html.js";
import { plusMinus, reproduceCommand, seriesPlot } from "./common.js";

/**
 * The thesis's numbers at ρ = 0.8 (§4.4.1–4.4.4, eqs. 4.27–4.32, 4.55–4.56 and Figures 4.2–4.4), each
 * from about 100 draws: the mean and covariance (c11, c12, c22) and the acceptance rate; null where
 * the thesis gives none.
 */
const THESIS_RHO_08: Readonly<
  Record<
    SamplerName,
    {
      draws: string;
      mean: readonly [number, number] | null;
      covariance: readonly [number, number, number] | null;
      acceptance: number | null;
    }
  >
> = {
  gibbs: { draws: "100", mean: [-0.1831, -0.09], covariance: [0.8308, 0.6333, 0.8303], acceptance: 1 },
  metropolis: {
    draws: "100 of 1000",
    mean: [-0.1473, -0.1058],
    covariance: [0.9258, 0.6781, 0.867],
    acceptance: 0.68,
  },
  // Figure 4.4b: 23 of 30 single-step proposals accepted.
  langevin: { draws: "30", mean: null, covariance: null, acceptance: 23 / 30 },
  hmc: { draws: "100", mean: [0.0249, 0.0566], covariance: [1.1899, 1.0191, 1.23], acceptance: 0.82 },
};

const f = (v: number) => formatNumber(v, 3);
const pair = (v: readonly number[] | null) => (v === null ? "—" : v.map(f).join(", "));
/** The thesis's numbers as it prints them. */
const published = (v: readonly number[] | null) => (v === null ? "—" : v.map(String).join(", "));

/** The samplers reproduction as a report document. */
export async function samplersReport(result: SamplersExperiment): Promise<ReportDocument> {
  const quick = result.budget < 200_000;
  return {
    title: "Samplers on correlated Gaussians and importance sampling (Fabricius, chapters 4–5)",
    subtitle: `${reproduceCommand("samplers", result.seed, quick)}: ${result.budget} evaluations per sampler`,
    sections: [
      {
        heading: "Correlated Gaussians (thesis §4.4, Figures 4.1–4.5)",
        paragraphs: [
          "A zero-mean 2-D Gaussian with unit variances and correlation ρ, sampled on the same budget of evaluations with the thesis's " +
            "settings: a Metropolis proposal with isotropic variance 1 − ρ (the smallest eigenvalue), Langevin and HMC with step size " +
            "1.5 σ_min, HMC with σ_max/σ_min leapfrog steps. The exact mean is (0, 0) and the covariance (1, ρ, 1).",
          "Corrections to the thesis's settings: it writes the HMC step at ρ = 0.8 as δt = 0.6 ≃ 1.5 σ_min, but 1.5 √0.2 = 0.67 (used here); " +
            "at ρ = 0.99 it takes σ_max/σ_min ≈ 15 and runs 20 leapfrog steps, but √(1.99/0.01) = 14.1, so occam runs 14.",
        ],
        tables: [thesisTable(result.gaussians), gaussianTable(result.gaussians)],
        plots: [
          await seriesPlot(
            result.gaussians.map((g) => ({
              series: `ρ = ${g.rho}`,
              x: g.sampler,
              y: g.essPer1000Evaluations,
            })),
            { x: "sampler", y: "ESS per 1000 evaluations", xType: "nominal", lines: false, logY: true },
            "The smaller effective sample size per 1000 evaluations (log scale): the cost of an independent draw. The thesis argues that " +
              "HMC's cost grows with σ_max/σ_min and a random walk's with its square, so that HMC's lead grows with ρ.",
          ),
          await seriesPlot(
            result.gaussians.flatMap((g) => {
              const thesis = g.rho === 0.8 ? THESIS_RHO_08[g.sampler].acceptance : null;
              return [
                { series: "occam", x: `${g.sampler}, ρ = ${g.rho}`, y: g.acceptanceRate },
                ...(thesis === null
                  ? []
                  : [{ series: "thesis", x: `${g.sampler}, ρ = ${g.rho}`, y: thesis }]),
                // Figure 4.5b: 31 of 40 Langevin proposals accepted at ρ = 0.99.
                ...(g.rho === 0.99 && g.sampler === "langevin"
                  ? [{ series: "thesis", x: `${g.sampler}, ρ = ${g.rho}`, y: 31 / 40 }]
                  : []),
              ];
            }),
            { x: "sampler", y: "acceptance rate", xType: "nominal", lines: false },
            "Acceptance rates, occam's and the thesis's (which are from 30–100 proposals each).",
          ),
        ],
      },
      {
        heading: "Importance sampling of a normalising constant (thesis §5.1.1, Figure 5.1)",
        paragraphs: [
          `log ∫ exp(−x²/2) dx estimated from Gaussian proposals of variance 2 and 10⁴ as the sample size grows; exact ½ log 2π = ` +
            `${formatNumber(result.exactLogZ, 6)} (the thesis's z = √(2π)). The wide proposal wastes almost every sample, as the thesis shows.`,
        ],
        tables: [
          {
            columns: ["proposal variance", "samples", "log Z ± s.e.", "error"],
            rows: result.importance.map((r) => [
              String(r.proposalVariance),
              String(r.samples),
              plusMinus(r.logZ, r.stdErr),
              formatNumber(r.logZ - result.exactLogZ, 2),
            ]),
          },
        ],
        plots: [
          await seriesPlot(
            result.importance.map((r) => ({
              series: `proposal variance ${r.proposalVariance}`,
              x: r.samples,
              y: r.logZ,
              low: r.logZ - r.stdErr,
              high: r.logZ + r.stdErr,
            })),
            { x: "samples", y: "log Z", logX: true, reference: result.exactLogZ },
            "Importance-sampling estimates of log Z ± one standard error against the number of samples; the dashed line is the exact ½ log 2π.",
          ),
        ],
      },
    ],
  };
}

function thesisTable(rows: readonly GaussianRow[]): ReportTable {
  return {
    caption: "ρ = 0.8: the thesis's numbers (from about 100 draws each) beside occam's",
    columns: [
      "sampler",
      "thesis draws",
      "thesis mean",
      "occam mean",
      "thesis covariance",
      "occam covariance",
      "thesis accept",
      "occam accept",
    ],
    rows: rows
      .filter((r) => r.rho === 0.8)
      .map((r) => {
        const t = THESIS_RHO_08[r.sampler];
        return [
          r.sampler,
          t.draws,
          published(t.mean),
          pair(r.mean),
          published(t.covariance),
          pair([r.covariance[0][0], r.covariance[0][1], r.covariance[1][1]]),
          t.acceptance === null ? "—" : f(t.acceptance),
          f(r.acceptanceRate),
        ];
      }),
  };
}

function gaussianTable(rows: readonly GaussianRow[]): ReportTable {
  return {
    caption: "Every sampler on both Gaussians",
    columns: [
      "ρ",
      "sampler",
      "evaluations",
      "mean",
      "covariance",
      "accept",
      "ESS (x1, x2)",
      "ESS / 1000 evals",
    ],
    rows: rows.map((r) => [
      String(r.rho),
      r.sampler,
      String(r.evaluations),
      pair(r.mean),
      pair([r.covariance[0][0], r.covariance[0][1], r.covariance[1][1]]),
      f(r.acceptanceRate),
      `${Math.round(r.ess[0])}, ${Math.round(r.ess[1])}`,
      f(r.essPer1000Evaluations),
    ]),
  };
}
