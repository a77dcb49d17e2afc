import { type Command, Option } from "commander";
import { type CsvTable, numericTable } from "../data/csv.js";
import { readCsv } from "../data/csv-file.js";
import { OccamError } from "../errors.js";
import type { MlpData } from "../models/mlp/data.js";
import { MLP_FIT_DEFAULTS } from "../models/mlp/defaults.js";
import type { BayesianMlpFit } from "../models/mlp/fit.js";
import type { MlpPredictive } from "../models/mlp/prediction.js";
import { columnList, openUnitInterval, parseSeed, wholeNumber } from "./arguments.js";
import { type Io, progressLine } from "./io.js";
import { checkedJson } from "./json.js";
import { parseReportPath, REPORT_OPTION_HELP, writeReport } from "./report-file.js";
import { formatNumber, formatTable } from "./table.js";

interface FitMlpFlags {
  targets: string;
  inputs?: string;
  hidden: string;
  test?: string;
  draws: number;
  warmup: number;
  seed: number;
  level: number;
  rows: number;
  json?: boolean;
  report?: string;
}

/** Reads inputs and targets from a CSV table as an MlpData, with the CSV loader's checks. */
function tableData(
  csv: CsvTable,
  inputs: readonly string[],
  targets: readonly string[],
  file: string,
): MlpData {
  const n = csv.rows;
  const I = inputs.length;
  const O = targets.length;
  const Y = new Float64Array(n * O);
  let X = new Float64Array(0);
  for (let o = 0; o < O; o++) {
    let table: ReturnType<typeof numericTable>;
    try {
      table = numericTable(csv, { target: targets[o], inputs });
    } catch (error) {
      if (error instanceof OccamError) throw new OccamError(error.code, `${file}: ${error.message}`);
      throw error;
    }
    if (o === 0) X = Float64Array.from(table.X);
    for (let r = 0; r < n; r++) Y[r * O + o] = table.y[r];
  }
  return { X, Y, n, inputs: I, outputs: O };
}

/** `occam fit-mlp TRAIN.csv --targets a,b --hidden H …`: a Bayesian neural network by Gibbs + HMC. */
export function registerFitMlp(program: Command, io: Io): void {
  program
    .command("fit-mlp")
    .description(
      "fit a Bayesian one-hidden-layer tanh network (Gibbs + hybrid Monte Carlo) and predict with intervals",
    )
    .argument("<train>", "training CSV file with a header row")
    .requiredOption("--targets <a,b>", "the columns to predict")
    .option("--inputs <x,y>", "the input columns (default: every column that is not a target)")
    .requiredOption("--hidden <H>", "number of hidden units (≥ 1)")
    .option("--test <file>", "test CSV with the same columns: predict it and report the mean squared error")
    .addOption(
      new Option("--draws <N>", "posterior draws kept after warm-up")
        .argParser(wholeNumber("--draws", 1))
        .default(MLP_FIT_DEFAULTS.draws),
    )
    .addOption(
      new Option("--warmup <N>", "warm-up sweeps (step-size adaptation)")
        .argParser(wholeNumber("--warmup", 0))
        .default(MLP_FIT_DEFAULTS.warmup),
    )
    .addOption(new Option("--seed <S>", "random seed").argParser(parseSeed).default(1))
    .addOption(
      new Option("--level <p>", "probability of the predictive intervals")
        .argParser(openUnitInterval("--level"))
        .default(MLP_FIT_DEFAULTS.level),
    )
    .addOption(
      new Option("--rows <N>", "rows of predictions in the table (all with --json)")
        .argParser(wholeNumber("--rows", 0))
        .default(10),
    )
    .option("--json", "print one JSON document instead of tables")
    .option("--report <FILE.html>", REPORT_OPTION_HELP, parseReportPath)
    .action((path: string, flags: FitMlpFlags) => fitMlpAction(path, flags, io));
}

/** `occam fit-mlp`'s action: the data read and checked, the network fitted, its predictions written. */
async function fitMlpAction(path: string, flags: FitMlpFlags, io: Io): Promise<void> {
  if (!/^\d+$/.test(flags.hidden) || Number(flags.hidden) < 1) {
    throw new OccamError(
      "invalid-argument",
      `--hidden must be a whole number ≥ 1 (the number of hidden units), got "${flags.hidden}".`,
    );
  }
  const hidden = Number(flags.hidden);
  const targets = columnList(flags.targets, "--targets");
  const csv = readCsv(path);
  const inputs =
    flags.inputs === undefined
      ? csv.columns.filter((c) => !targets.includes(c))
      : columnList(flags.inputs, "--inputs");
  for (const t of targets) {
    if (inputs.includes(t)) {
      throw new OccamError("invalid-argument", `Column "${t}" is both a target and an input: list it once.`);
    }
  }
  if (inputs.length === 0) {
    throw new OccamError("invalid-argument", `${path}: no input columns are left besides the targets.`);
  }
  const train = tableData(csv, inputs, targets, path);
  const test =
    flags.test === undefined ? undefined : tableData(readCsv(flags.test), inputs, targets, flags.test);

  const progress = progressLine(io, "fit-mlp");
  let lastShown = -1;
  const { fitBayesianMlp } = await import("../models/mlp/fit.js");
  const fit = fitBayesianMlp(train, {
    hidden,
    draws: flags.draws,
    warmup: flags.warmup,
    seed: flags.seed,
    onProgress:
      progress === undefined
        ? undefined
        : (p) => {
            const percent = Math.floor((100 * p.iteration) / p.total);
            if (percent !== lastShown) {
              lastShown = percent;
              progress.show(`sampling (${p.phase}) ${percent}%`);
            }
          },
  });
  progress?.clear();
  const divergences = fit.draws.divergences;
  refuseStuckChain(fit, train, flags.draws);
  if (divergences > 0) {
    io.stderr(
      `occam: warning: ${divergences} of ${flags.draws} kept HMC trajectories diverged (rejected, so the chain stayed put); more --warmup may help.\n`,
    );
  }
  const on = test ?? train;
  const prediction = fit.predict(on.X, on.n, { level: flags.level });
  const testMse = test === undefined ? undefined : meanSquaredErrors(prediction, test);
  const result = {
    hidden,
    inputs,
    targets,
    n: train.n,
    draws: flags.draws,
    warmup: flags.warmup,
    seed: flags.seed,
    testMeanSquaredError: testMse === undefined ? null : Array.from(testMse),
    noiseStdDev: fit.noiseStdDev,
    acceptanceRate: fit.draws.acceptanceRate,
    divergences,
    stepSize: fit.draws.stepSize,
    seconds: fit.draws.seconds,
    predictions: {
      on: test === undefined ? "train" : "test",
      level: flags.level,
      mean: rowsOf(prediction.mean, on.n, on.outputs),
      lower: rowsOf(prediction.lower, on.n, on.outputs),
      upper: rowsOf(prediction.upper, on.n, on.outputs),
    },
  };
  io.stdout(
    flags.json
      ? `${checkedJson(result)}\n`
      : `${formatFit(fit, result, prediction, on, inputs, targets, flags.rows, test !== undefined)}\n`,
  );
  if (flags.report !== undefined) {
    const { fitMlpReportHtml } = await import("../report/fit-mlp.js");
    const predictedSet = test === undefined ? "train" : "test";
    const context = { data: path, inputs, targets, on, prediction, predictedSet } as const;
    writeReport(flags.report, await fitMlpReportHtml(fit, context));
  }
}

/**
 * Refuses a chain whose weights never moved: every kept HMC proposal rejected (acceptance 0; all of
 * them divergent, typically). Its draws are one point repeated, so predictive means and intervals from
 * it would look like results while saying nothing; the same error ends the run with or without --json.
 */
function refuseStuckChain(fit: BayesianMlpFit, train: MlpData, draws: number): void {
  const { acceptanceRate, divergences } = fit.draws;
  if (acceptanceRate > 0 && divergences < draws) return;
  let largest = 0;
  for (const v of train.X) largest = Math.max(largest, Math.abs(v));
  for (const v of train.Y) largest = Math.max(largest, Math.abs(v));
  const scale =
    largest > 1e3 || largest < 1e-3
      ? `the data reach ${largest.toExponential(1)}: standardise the columns, or `
      : "";
  throw new OccamError(
    "non-finite",
    `the HMC chain never moved (acceptance 0, ${divergences} of ${draws} kept trajectories divergent), so its draws are one point and no prediction from them can be trusted; ${scale}give more --warmup.`,
  );
}

function meanSquaredErrors(p: MlpPredictive, data: MlpData): Float64Array {
  const O = data.outputs;
  const mse = new Float64Array(O);
  for (let r = 0; r < data.n; r++) {
    for (let o = 0; o < O; o++) mse[o] += (p.mean[r * O + o] - data.Y[r * O + o]) ** 2 / data.n;
  }
  return mse;
}

function rowsOf(v: Float64Array, n: number, O: number): number[][] {
  return Array.from({ length: n }, (_, r) => Array.from(v.subarray(r * O, (r + 1) * O)));
}

function formatFit(
  fit: BayesianMlpFit,
  result: {
    hidden: number;
    n: number;
    draws: number;
    testMeanSquaredError: number[] | null;
    noiseStdDev: number;
    acceptanceRate: number;
    divergences: number;
    seconds: number;
  },
  p: MlpPredictive,
  on: MlpData,
  inputs: readonly string[],
  targets: readonly string[],
  rows: number,
  isTest: boolean,
): string {
  const lines = [
    `Bayesian network: ${inputs.length} input${inputs.length === 1 ? "" : "s"} (${inputs.join(", ")}), ${result.hidden} tanh hidden unit${result.hidden === 1 ? "" : "s"}, ${targets.length} output${targets.length === 1 ? "" : "s"} (${targets.join(", ")}); ${fit.model.weightCount} weights`,
    `${result.n} training cases; ${result.draws} draws by Gibbs + hybrid Monte Carlo in ${formatNumber(result.seconds, 3)} s; HMC acceptance ${formatNumber(result.acceptanceRate, 3)}, ${result.divergences} divergent`,
    `noise standard deviation ${formatNumber(result.noiseStdDev, 4)}`,
  ];
  if (result.testMeanSquaredError !== null) {
    lines.push(
      "",
      formatTable(
        [{ header: "target", align: "left" }, { header: "test mean squared error" }],
        targets.map((t, o) => [t, formatNumber((result.testMeanSquaredError as number[])[o], 4)]),
      ),
    );
  }
  const shown = Math.min(rows, on.n);
  if (shown > 0) {
    const pct = `${Math.round(100 * p.level)}%`;
    const columns = [
      ...inputs.map((name) => ({ header: name })),
      ...targets.flatMap((t) => [{ header: t }, { header: `${t} mean` }, { header: `${t} ${pct} interval` }]),
    ];
    const body = Array.from({ length: shown }, (_, r) => [
      ...inputs.map((_, i) => formatNumber(on.X[r * on.inputs + i], 4)),
      ...targets.flatMap((_, o) => {
        const k = r * on.outputs + o;
        return [
          formatNumber(on.Y[k], 4),
          formatNumber(p.mean[k], 4),
          `[${formatNumber(p.lower[k], 4)}, ${formatNumber(p.upper[k], 4)}]`,
        ];
      }),
    ]);
    lines.push(
      "",
      `predictions on the ${isTest ? "test" : "training"} set (first ${shown} of ${on.n} rows; --json gives all):`,
      formatTable(columns, body),
    );
  }
  return lines.join("\n");
}
