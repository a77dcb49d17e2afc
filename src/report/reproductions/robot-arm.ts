/**
 * The report of `occam reproduce robot-arm`: the log evidence of each network size by every method,
 * with its error bar, against the number of hidden units (thesis Figure 6.20), the errors against the
 * size (Figures 6.13–6.17), and what the thesis found beside what occam finds.
 */
import type { RobotArmExperiment, RobotArmRow } from "../../experiments/robot-arm.js";
import { formatNumber } from "../format.js";
import type { ReportDocument, ReportTable } from "../html.js";
import type { RenderedPlot } from "../plot.js";
import { plusMinus, reproduceCommand, type SeriesPoint, seriesPlot } from "./common.js";

const f = (v: number | null, digits = 4) => (v === null ? "—" : formatNumber(v, digits));

/** The robot-arm reproduction as a report document. */
export async function robotArmReport(result: RobotArmExperiment): Promise<ReportDocument> {
  const s = result.settings;
  const sizes = result.rows.map((r) => r.hidden).join(",");
  return {
    title: "How many hidden units? The robot arm (Fabricius §6.3.6, Barber & Bishop)",
    subtitle:
      `${reproduceCommand("robot-arm", result.seed, result.quick, ` --hidden ${sizes} --noise ${result.noise}`)}: ` +
      `${s.nTrain} training and ${s.nTest} test cases, ${formatNumber(result.seconds, 3)} s`,
    sections: [
      {
        heading: "Log evidence against the number of hidden units",
        paragraphs: [
          `Each network's log evidence by path sampling and by chaining, each swept from the prior up and from the posterior down ` +
            `(${s.temperatures} temperatures, ${s.warmupPerTemperature} + ${s.drawsPerTemperature} sweeps each; chaining over ${s.chainingLambdas} values of λ), ` +
            "by MacKay's evidence framework, and by the ensemble approximation (its ELBO, a lower bound, and importance sampling from it).",
          "As in the thesis (Figures 6.20–6.22) a sweep latches onto the mode it starts in: the sweep from the prior underestimates log Z and " +
            "the sweep from the posterior overestimates it. Read the two as a bracket, not as two estimates of one number; where the bracket " +
            "is wide, trust neither end's standard error. An ensemble k̂ above 0.7 (or —) means its importance weights have no finite variance.",
        ],
        tables: [evidenceTable(result.rows)],
        plots: [await evidencePlot(result.rows, false), await evidencePlot(result.rows, true)],
      },
      {
        heading: "Errors against the number of hidden units",
        paragraphs: [
          `Mean squared error per output channel; the noise alone gives ${f(result.noise ** 2, 3)} (dashed). ` +
            "Maximum likelihood by conjugate gradients (mean over starts) with its FPE estimate of the test error (Figures 6.13–6.15); " +
            "the Bayesian network's test error from its posterior predictive mean (Figure 6.17).",
        ],
        tables: [errorTable(result.rows)],
        plots: [await errorPlot(result)],
      },
      {
        heading: "The thesis beside occam",
        paragraphs: [
          "The thesis gives its results as figures over 1–19 hidden units on the noise-0.05 data (and 0.5), not as a table; " +
            "below are the readings its text states, beside the same readings of this run. Barber & Bishop's text is cut off " +
            "before its results, so there is nothing of theirs to set beside these.",
          ...(result.noise === 0.05 || result.noise === 0.5
            ? []
            : [`This run's noise σ = ${result.noise} is neither of the thesis's (0.05, 0.5).`]),
        ],
        tables: [thesisTable(result)],
      },
    ],
  };
}

function evidenceTable(rows: readonly RobotArmRow[]): ReportTable {
  return {
    caption: "Log evidence (nats ± standard error)",
    columns: [
      "hidden",
      "path ↑ prior",
      "path ↓ posterior",
      "chaining ↑ prior",
      "chaining ↓ posterior",
      "evidence framework",
      "ensemble ELBO",
      "ensemble IS (k̂)",
    ],
    rows: rows.map((r) => {
      const e = r.logEvidence;
      return [
        String(r.hidden),
        plusMinus(e.path.fromPrior.logZ, e.path.fromPrior.stdErr),
        plusMinus(e.path.fromPosterior.logZ, e.path.fromPosterior.stdErr),
        plusMinus(e.chaining.fromPrior.logZ, e.chaining.fromPrior.stdErr),
        plusMinus(e.chaining.fromPosterior.logZ, e.chaining.fromPosterior.stdErr),
        formatNumber(e.laplace.logZ, 6) + (e.laplace.converged ? "" : " (not converged)"),
        plusMinus(e.ensemble.elbo, e.ensemble.elboStdErr),
        `${plusMinus(e.ensemble.logZ, e.ensemble.stdErr)} (${f(e.ensemble.paretoK, 2)})`,
      ];
    }),
  };
}

/**
 * Log evidence ± one standard error against the hidden units, one series per method and direction;
 * `relative` draws each against the midpoint of the size's path-sampling bracket, so that brackets
 * and error bars a few nats wide stay visible beside differences of hundreds between sizes.
 */
async function evidencePlot(rows: readonly RobotArmRow[], relative: boolean): Promise<RenderedPlot> {
  const points: SeriesPoint[] = [];
  for (const r of rows) {
    const e = r.logEvidence;
    const origin = relative ? e.path.logZ : 0;
    const add = (series: string, logZ: number, stdErr: number | null) => {
      if (!Number.isFinite(logZ - origin)) return;
      const y = logZ - origin;
      const bar = stdErr !== null && Number.isFinite(stdErr) ? { low: y - stdErr, high: y + stdErr } : {};
      points.push({ series, x: r.hidden, y, ...bar });
    };
    add("path ↑ from prior", e.path.fromPrior.logZ, e.path.fromPrior.stdErr);
    add("path ↓ from posterior", e.path.fromPosterior.logZ, e.path.fromPosterior.stdErr);
    add("chaining ↑ from prior", e.chaining.fromPrior.logZ, e.chaining.fromPrior.stdErr);
    add("chaining ↓ from posterior", e.chaining.fromPosterior.logZ, e.chaining.fromPosterior.stdErr);
    add("evidence framework", e.laplace.logZ, null);
    add("ensemble ELBO", e.ensemble.elbo, e.ensemble.elboStdErr);
  }
  return seriesPlot(
    points,
    {
      x: "hidden units",
      y: relative ? "log evidence − path-sampling midpoint (nats)" : "log evidence (nats)",
      integerX: true,
      logX: logScale(rows),
      ...(relative ? { reference: 0 } : {}),
    },
    relative
      ? "The same estimates less the midpoint of each size's path-sampling bracket, so that the brackets (the gap between a " +
          "method's two sweeps) and the error bars can be seen at every size."
      : "Log evidence against the number of hidden units, each estimate ± one standard error (the evidence framework has none); " +
          "the gap between a method's two sweeps is its hysteresis (thesis Figure 6.20).",
  );
}

/** A logarithmic axis when the sizes span a factor of four or more (1, 2, 4, 8, 16). */
function logScale(rows: readonly RobotArmRow[]): boolean {
  const sizes = rows.map((r) => r.hidden);
  return Math.max(...sizes) >= 4 * Math.min(...sizes);
}

function errorTable(rows: readonly RobotArmRow[]): ReportTable {
  return {
    caption: "Mean squared error per output channel",
    columns: [
      "hidden",
      "weights",
      "ML train",
      "FPE",
      "ML test",
      "Bayes test",
      "Bayes test (from prior)",
      "noise sd",
      "accept",
    ],
    rows: rows.map((r) => [
      String(r.hidden),
      String(r.weights),
      f(r.mlTrainError),
      f(r.fpe),
      f(r.mlTestError),
      f(r.bayesTestError),
      f(r.bayesTestErrorFromPrior),
      f(r.noiseSd, 3),
      f(r.acceptance, 2),
    ]),
  };
}

async function errorPlot(result: RobotArmExperiment): Promise<RenderedPlot> {
  const points: SeriesPoint[] = result.rows.flatMap((r) => [
    { series: "ML train", x: r.hidden, y: r.mlTrainError },
    ...(r.fpe === null ? [] : [{ series: "ML FPE", x: r.hidden, y: r.fpe }]),
    { series: "ML test", x: r.hidden, y: r.mlTestError },
    { series: "Bayes test", x: r.hidden, y: r.bayesTestError },
  ]);
  return seriesPlot(
    points,
    {
      x: "hidden units",
      y: "mean squared error per channel",
      reference: result.noise ** 2,
      integerX: true,
      logX: logScale(result.rows),
      logY: true,
    },
    "Training error, FPE and test error of maximum likelihood, and the Bayesian network's test error, against the number of " +
      "hidden units (thesis Figures 6.13–6.17), on a log scale; the dashed line is the noise variance, the least any network can reach.",
  );
}

/** The size with the least value, or "—" when none has one. */
function argMin(rows: readonly RobotArmRow[], value: (r: RobotArmRow) => number | null): string {
  let best: RobotArmRow | undefined;
  for (const r of rows) {
    const v = value(r);
    if (v !== null && Number.isFinite(v) && (best === undefined || v < (value(best) as number))) best = r;
  }
  return best === undefined ? "—" : String(best.hidden);
}

function thesisTable(result: RobotArmExperiment): ReportTable {
  const rows = result.rows;
  const largest = Math.max(...rows.map((r) => r.hidden));
  const bayesBest = argMin(rows, (r) => r.bayesTestError);
  const hysteresis = rows.map((r) => r.logEvidence.path.hysteresis);
  return {
    caption: "Readings of the thesis (noise 0.05, 1–19 hidden units) and of this run",
    columns: ["reading", "thesis", "occam"],
    rows: [
      [
        "hidden units with the lowest FPE (Figure 6.14)",
        "11 (8 or 12 within its spread)",
        argMin(rows, (r) => r.fpe),
      ],
      [
        "hidden units with the lowest ML test error (Figure 6.15)",
        "13 (10 to 16 within its spread)",
        argMin(rows, (r) => r.mlTestError),
      ],
      [
        "Bayesian test error against size (Figure 6.17)",
        "still falling at 19 units: no minimum",
        `lowest at ${bayesBest} of ${rows.length} sizes up to ${largest}${bayesBest === String(largest) ? " (the largest: no minimum)" : ""}`,
      ],
      [
        "path-sampling sweeps (Figures 6.20–6.21)",
        "biased towards their start: from θ = 1 above, from θ = 0 below",
        `from the posterior − from the prior: ${formatNumber(Math.min(...hysteresis), 3)} to ${formatNumber(Math.max(...hysteresis), 3)} nats`,
      ],
      [
        "ensemble (App. C) importance sampling",
        'not run ("I did not have the time to use my Ensemble method")',
        "run: see the table above",
      ],
    ],
  };
}
