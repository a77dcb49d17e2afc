import type { FabriciusLinearExperiment } from "../../experiments/fabricius-linear.js";
import { formatNumber, formatTable } from "../table.js";

const f = (v: number, digits = 4) => formatNumber(v, digits);
const pct = (v: number) => `${Math.round(100 * v)}%`;

/** The thesis's linear toy problem: Table 6.1 beside the thesis, exact Bayes, path sampling. */
export function formatFabriciusLinearReport(result: FabriciusLinearExperiment): string {
  const { settings: s } = result;
  const lines: string[] = [
    `Fabricius thesis §6.2.4: ${s.inputs} inputs (${s.relevant} relevant), ${s.nTrain} training / ${s.nTest} test cases, ` +
      `σ = ${s.noiseSd}, ${s.repetitions} repetitions, seed ${result.seed}${result.quick ? ", quick" : ""}`,
    "",
    "Table 6.1 (selection from the criterion averaged over the repetitions, nested models; thesis values in parentheses)",
  ];
  const paired = (v: number, t: number | undefined, digits = 4) =>
    t === undefined ? f(v, digits) : `${f(v, digits)} (${f(t, digits)})`;
  lines.push(
    formatTable(
      [
        { header: "method", align: "left" },
        { header: "ρ" },
        { header: "inputs" },
        { header: "log like." },
        { header: "p. log like." },
        { header: "σ²_train" },
        { header: "σ²_test" },
        { header: "log pred." },
      ],
      result.table.map((r) => [
        r.method,
        r.thesis ? `${f(r.rho, 3)} (${f(r.thesis.rho, 3)})` : f(r.rho, 3),
        paired(r.inputs, r.thesis?.inputs),
        paired(r.logLikelihood, r.thesis?.logLikelihood),
        paired(r.penalisedLogLikelihood, r.thesis?.penalisedLogLikelihood),
        paired(r.trainVariance, r.thesis?.trainVariance, 3),
        paired(r.testVariance, r.thesis?.testVariance, 3),
        paired(r.logPredictive, r.thesis?.logPredictive),
      ]),
    ),
    "",
    "Each data set selecting for itself (right = exactly the true inputs)",
    formatTable(
      [
        { header: "method", align: "left" },
        { header: "right (nested)" },
        { header: "right (all subsets)" },
        { header: "mean inputs" },
        { header: "σ²_test" },
        { header: "log pred." },
      ],
      result.table
        .filter((r) => r.perDataSet !== null)
        .map((r) => {
          const d = r.perDataSet as NonNullable<typeof r.perDataSet>;
          return [
            r.method,
            pct(d.rightNested),
            pct(d.rightAllSubsets),
            f(d.meanInputs, 3),
            f(d.testVariance, 3),
            f(d.logPredictive),
          ];
        }),
    ),
    "",
    `Exact Bayes, τ_w = ρτ (Figures 6.4–6.5): uniform prior over all ${2 ** s.inputs} subsets; true log pred. ${f(s.trueLogPredictive)}`,
    formatTable(
      [
        { header: "prior", align: "left" },
        { header: "ρ" },
        { header: "right (nested)" },
        { header: "right (all)" },
        { header: "P(winner)" },
        { header: "P(truth)" },
        { header: "log pred. winner" },
        { header: "log pred. average" },
        { header: "log pred. 10 inputs" },
      ],
      result.nig.results.map((r) => [
        r.prior,
        f(r.rho, 2),
        pct(r.rightNested),
        pct(r.rightAllSubsets),
        f(r.meanWinnerProbability, 3),
        f(r.meanTrueProbability, 3),
        f(r.winnerLogPredictive),
        f(r.averageLogPredictive),
        f(r.meanLogPredictive[r.meanLogPredictive.length - 1]),
      ]),
    ),
  );
  if (result.pathSampling !== null) lines.push(...pathSamplingLines(result.pathSampling));
  lines.push("", `${f(result.seconds, 3)} s`);
  return lines.join("\n");
}

/** The path-sampling readings (Figure 6.6) beside stepping-stone and quadrature, with how to read z. */
function pathSamplingLines(ps: NonNullable<FabriciusLinearExperiment["pathSampling"]>): string[] {
  const out: string[] = [];
  for (const reading of ps.readings) {
    const pr = reading.prior;
    out.push(
      "",
      `Path sampling, independent precisions (Figure 6.6), data set ${ps.repetition + 1}: α = ${f(pr.alpha)}, β = ${f(pr.beta)}, ` +
        `α_w = ${f(pr.alphaW)}, β_w = ${f(pr.betaW)} as Gamma scales (the thesis's 1/200, 1/1600 read as ${reading.reading}s); ` +
        `${ps.temperatures} temperatures, k = ${ps.k}`,
      formatTable(
        [
          { header: "inputs" },
          { header: "path sampling" },
          { header: "± s.e." },
          { header: "z" },
          { header: "stepping-stone" },
          { header: "± s.e." },
          { header: "z" },
          { header: "quadrature" },
          { header: "seconds" },
        ],
        reading.rows.map((r) => [
          String(r.inputs),
          f(r.logZ),
          f(r.stdErr, 2),
          zScore(r.logZ, r.stdErr, r.exactLogZ),
          f(r.steppingStoneLogZ),
          f(r.steppingStoneStdErr, 2),
          zScore(r.steppingStoneLogZ, r.steppingStoneStdErr, r.exactLogZ),
          f(r.exactLogZ),
          f(r.seconds, 2),
        ]),
      ),
      `winner: path sampling ${reading.winner} inputs, stepping-stone ${reading.steppingStoneWinner}, quadrature ${reading.exactWinner}`,
    );
  }
  out.push(
    "",
    "z: (estimate − quadrature) / s.e. The thesis's path sampling averages N terms U/p(θ) at random temperatures,",
    "each from a few Gibbs sweeps carried on from the previous temperature; near θ = 0 the draws are close to the",
    "prior's, their log likelihoods hundreds of nats below the posterior's and the terms heavy-tailed, so its ±",
    "(their sd/√N) understates its error: trust the stepping-stone column, the same Gibbs sampler on a ladder.",
  );
  return out;
}

/** (estimate − exact) / s.e. to two digits, or "—" without a standard error. */
function zScore(estimate: number, stdErr: number, exact: number): string {
  return stdErr > 0 ? formatNumber((estimate - exact) / stdErr, 2) : "—";
}
