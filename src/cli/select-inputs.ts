import { type Command, Option } from "commander";
import { readCsv } from "../data/csv-file.js";
import { OccamError } from "../errors.js";
import type { ClassificationData } from "../models/mixture-classifier/index.js";
import { MIXTURE_CLASSIFIER_DEFAULTS } from "../models/mixture-classifier/options.js";
import { columnList, openUnitInterval, parseSeed, positiveNumber, wholeNumber } from "./arguments.js";
import type { Io } from "./io.js";
import { checkedJson } from "./json.js";
import { parseReportPath, REPORT_OPTION_HELP, writeReport } from "./report-file.js";
import { formatNumber, formatTable } from "./table.js";

interface SelectFlags {
  target: string;
  inputs?: string;
  test?: string;
  split?: number;
  kernels?: number;
  h: number;
  draws: number;
  burnIn: number;
  chains: number;
  structure: "per-input" | "shared";
  seed: number;
  json?: boolean;
  report?: string;
}

/** The JSON document of `occam select-inputs`. */
export interface SelectInputsReport {
  accuracy: number | null;
  meanInputs: number;
  maxInputs: number;
  distinctSubsets: number;
  subsets: { inputs: string[]; probability: number }[];
  inputProbabilities: Record<string, number>;
  /** Kept draws, all chains together (sweeps after burn-in). */
  draws: number;
  /** Sweeps discarded at the start of each chain. */
  burnIn: number;
  chains: number;
  /** The random seed (of the chains and of the split). */
  seed: number;
  /** The stratified training fraction of TRAIN when the test rows came from it; null otherwise. */
  split: number | null;
  /** Largest between-chain standard deviation of an input probability (0 with one chain). */
  inputProbabilitySpread: number;
  kernels: number;
  h: number;
  /** "per-input" or "shared" (see docs/select-inputs.md). */
  structure: string;
  testRows: number;
  seconds: number;
}

/** Kernels with many inputs (the paper's choices): {@link MANY_KERNELS} above {@link MANY_INPUTS} inputs. */
const MANY_INPUTS = 20;
const MANY_KERNELS = 6;
/** At most one kernel for this many training rows. */
const ROWS_PER_KERNEL = 10;

/** Default kernels: the library's default, or more with many inputs, never more than the rows allow. */
export function defaultKernels(p: number, n: number): number {
  const wanted = p > MANY_INPUTS ? MANY_KERNELS : MIXTURE_CLASSIFIER_DEFAULTS.kernels;
  return Math.max(1, Math.min(wanted, Math.floor(n / ROWS_PER_KERNEL)));
}

/** `occam select-inputs TRAIN.csv --target COL`: Sykacek's reversible-jump input selection. */
export function registerSelectInputs(program: Command, io: Io): void {
  program
    .command("select-inputs")
    .description("posterior probabilities of input subsets for a mixture classifier (reversible-jump MCMC)")
    .argument("<train>", "training CSV with a header row")
    .requiredOption("--target <column>", "the class-label column")
    .option("--inputs <a,b,c>", "the candidate inputs (default: every column but the target)")
    .option("--test <file>", "test CSV with the same columns")
    .addOption(
      new Option(
        "--split <fraction>",
        "hold out this share of TRAIN, stratified by class, as the test set",
      ).argParser(openUnitInterval("--split")),
    )
    .addOption(
      new Option(
        "--kernels <D>",
        `number of Gaussian kernels (default ${MIXTURE_CLASSIFIER_DEFAULTS.kernels}, or ${MANY_KERNELS} with more than ${MANY_INPUTS} inputs; at most one for ${ROWS_PER_KERNEL} rows)`,
      ).argParser(wholeNumber("--kernels", 1)),
    )
    .addOption(
      new Option("--h <h>", "hyperprior scale h (h_i = h / R_i²)")
        .argParser(positiveNumber("--h"))
        .default(MIXTURE_CLASSIFIER_DEFAULTS.h),
    )
    .addOption(
      new Option("--draws <n>", "sweeps kept after burn-in, all chains together")
        .argParser(wholeNumber("--draws", 1))
        .default(MIXTURE_CLASSIFIER_DEFAULTS.draws - MIXTURE_CLASSIFIER_DEFAULTS.burnIn),
    )
    .addOption(
      new Option("--burn-in <n>", "sweeps discarded")
        .argParser(wholeNumber("--burn-in", 0))
        .default(MIXTURE_CLASSIFIER_DEFAULTS.burnIn),
    )
    .addOption(
      new Option("--chains <n>", "independent chains, pooled")
        .argParser(wholeNumber("--chains", 1))
        .default(MIXTURE_CLASSIFIER_DEFAULTS.chains),
    )
    .addOption(
      new Option(
        "--structure <kind>",
        "per-input: one mixture per input (every input the class depends on); shared: Sykacek's kernels shared by the selected inputs, the others regressed on them",
      )
        .choices(["per-input", "shared"])
        .default(MIXTURE_CLASSIFIER_DEFAULTS.structure),
    )
    .addOption(
      new Option("--seed <s>", "random seed").argParser(parseSeed).default(MIXTURE_CLASSIFIER_DEFAULTS.seed),
    )
    .option("--json", "print one JSON document")
    .option("--report <FILE.html>", REPORT_OPTION_HELP, parseReportPath)
    .action((path: string, flags: SelectFlags) => selectInputsAction(path, flags, io));
}

/** `occam select-inputs`' action: the data read and split, the chains run, the report written. */
async function selectInputsAction(path: string, flags: SelectFlags, io: Io): Promise<void> {
  if (flags.test !== undefined && flags.split !== undefined) {
    throw new OccamError("invalid-argument", "Give either --test or --split, not both.");
  }
  // The classifier is loaded only when the command runs.
  const { checkClassRows, classificationTable, fitMixtureClassifier, stratifiedSplit } = await import(
    "../models/mixture-classifier/index.js"
  );
  const { createRng } = await import("../random/rng.js");
  let train: ClassificationData = classificationTable(readCsv(path), {
    target: flags.target,
    inputs: flags.inputs === undefined ? undefined : columnList(flags.inputs, "--inputs"),
    source: path,
  });
  let test: ClassificationData | null = null;
  if (flags.test !== undefined) {
    test = classificationTable(readCsv(flags.test), {
      target: flags.target,
      inputs: train.inputNames,
      classNames: train.classNames,
      source: flags.test,
    });
  } else if (flags.split !== undefined) {
    // --split is the share held out for testing; stratifiedSplit takes the training share.
    const parts = stratifiedSplit(train, 1 - flags.split, createRng(flags.seed).split(2)[1]);
    checkClassRows(parts.train, `${path} after --split ${flags.split}`, train);
    train = parts.train;
    test = parts.test;
  }
  checkClassRows(train, path);
  const kernels = flags.kernels ?? defaultKernels(train.p, train.n);
  const h = flags.h;
  const fit = fitMixtureClassifier(train, {
    kernels,
    h,
    // The library counts a chain's sweeps with its burn-in.
    draws: Math.ceil(flags.draws / flags.chains) + flags.burnIn,
    burnIn: flags.burnIn,
    seed: flags.seed,
    chains: flags.chains,
    structure: flags.structure,
    test: test ? { X: test.X, n: test.n } : undefined,
  });
  let accuracy: number | null = null;
  if (test && fit.predictedClasses) {
    let right = 0;
    for (let t = 0; t < test.n; t++) if (fit.predictedClasses[t] === test.labels[t]) right++;
    accuracy = right / test.n;
  }
  const report: SelectInputsReport = {
    accuracy,
    meanInputs: fit.meanInputs,
    maxInputs: fit.maxInputs,
    distinctSubsets: fit.distinctSubsets,
    subsets: fit.subsets.slice(0, 20).map((s) => ({ inputs: [...s.names], probability: s.probability })),
    inputProbabilities: Object.fromEntries(
      fit.inputNames.map((name, i) => [name, fit.inputProbabilities[i]]),
    ),
    draws: fit.draws,
    burnIn: flags.burnIn,
    chains: fit.chains,
    seed: flags.seed,
    split: flags.split ?? null,
    inputProbabilitySpread: fit.inputProbabilitySpread,
    kernels,
    h,
    structure: flags.structure,
    testRows: test?.n ?? 0,
    seconds: fit.seconds,
  };
  io.stdout(flags.json ? `${checkedJson(report)}\n` : `${formatReport(report)}\n`);
  if (flags.report !== undefined) {
    const { selectInputsReportHtml } = await import("../report/select-inputs.js");
    const context = { data: path, target: flags.target, accuracy, testRows: test?.n ?? 0 };
    writeReport(flags.report, await selectInputsReportHtml(fit, context));
  }
}

function formatReport(r: SelectInputsReport): string {
  const subsets = formatTable(
    [{ header: "inputs", align: "left" }, { header: "probability" }],
    r.subsets.slice(0, 10).map((s) => [s.inputs.join(", "), formatNumber(s.probability, 3)]),
  );
  const inputs = formatTable(
    [{ header: "input", align: "left" }, { header: "probability" }],
    Object.entries(r.inputProbabilities)
      .sort((x, y) => y[1] - x[1])
      .map(([name, pr]) => [name, formatNumber(pr, 3)]),
  );
  return [
    `${r.draws} draws kept after ${r.burnIn} burn-in sweeps${r.chains > 1 ? " per chain" : ""}, seed ${r.seed}, --structure ${r.structure}, ${r.kernels} kernels, h = ${r.h}, ${formatNumber(r.seconds, 3)} s`,
    r.accuracy === null
      ? "no test data"
      : `test accuracy ${formatNumber(100 * r.accuracy, 3)} % on ${r.testRows} rows${r.split === null ? "" : ` (the rest of --split ${r.split})`}`,
    `inputs used: mean ${formatNumber(r.meanInputs, 3)}, max ${r.maxInputs}; ${r.distinctSubsets} distinct subsets`,
    r.chains > 1
      ? `between-chain spread of input probabilities: ${formatNumber(r.inputProbabilitySpread, 2)} (max sd over inputs${r.inputProbabilitySpread > 0.1 ? "; chains disagree: run longer" : ""})`
      : "one chain: use --chains 4 to check convergence",
    "",
    subsets,
    "",
    inputs,
  ].join("\n");
}
