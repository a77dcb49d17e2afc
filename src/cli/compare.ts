import { type Command, InvalidArgumentError, Option } from "commander";
import { numericTable, readCsv } from "../data/csv.js";
import {
  compareLinearModels,
  DEFAULT_MCMC_STEPS,
  LINEAR_ESTIMATORS,
  LINEAR_PRIORS,
  type LinearComparison,
  type LinearEstimator,
  type LinearPrior,
  MAX_ESTIMATED_MODELS,
} from "../selection/linear.js";
import { parseSeed, positiveNumber, wholeNumber } from "./arguments.js";
import type { Io } from "./io.js";
import { checkedJson } from "./json.js";
import { formatNumber, formatTable } from "./table.js";

/** Parses --subsets: all, none, or max=K. */
export function parseSubsets(text: string): "all" | "none" | { max: number } {
  if (text === "all" || text === "none") return text;
  const match = /^max=(\d+)$/.exec(text);
  if (match && Number(match[1]) >= 1) return { max: Number(match[1]) };
  throw new InvalidArgumentError(`--subsets takes all, none or max=K (K ≥ 1), got "${text}".`);
}

interface CompareFlags {
  target: string;
  inputs?: string;
  subsets: "all" | "none" | { max: number };
  prior: LinearPrior;
  v: number;
  a: number;
  b: number;
  r?: number;
  alpha?: number;
  beta?: number;
  alphaW?: number;
  betaW?: number;
  intercept: boolean;
  standardize?: boolean;
  modelPrior: "uniform" | "uniform-size";
  top?: number;
  json?: boolean;
  estimator?: LinearEstimator;
  samples?: number;
  folds?: number;
  seed: number;
  mcmcSteps?: number;
}

/**
 * `occam compare DATA.csv --target COL …`: which inputs explain the target, by exact evidence (or an
 * estimator's, with --estimator), enumerating subsets, or sampling them by MCMC when there are too many.
 */
export function registerCompare(program: Command, io: Io): void {
  program
    .command("compare")
    .description("compare linear regressions on subsets of a CSV's inputs by their evidence")
    .argument("<data>", "CSV file with a header row")
    .requiredOption("--target <column>", "the column to explain")
    .option("--inputs <a,b,c>", "the candidate inputs (default: every other column)")
    .addOption(
      new Option("--subsets <which>", "all, none (only the full model) or max=K")
        .argParser(parseSubsets)
        .default("all"),
    )
    .addOption(new Option("--prior <name>", "prior of each model").choices([...LINEAR_PRIORS]).default("nig"))
    .addOption(
      new Option("--v <v>", "NIG prior scale of the weights").argParser(positiveNumber("--v")).default(1e4),
    )
    .addOption(new Option("--a <a>", "NIG inverse-gamma shape").argParser(positiveNumber("--a")).default(1))
    .addOption(new Option("--b <b>", "NIG inverse-gamma scale").argParser(positiveNumber("--b")).default(1))
    .addOption(
      new Option("--r <r>", "Zellner–Siow prior scale (default √2/4)").argParser(positiveNumber("--r")),
    )
    .addOption(
      new Option("--alpha <α>", "independent: Gamma shape of the noise precision (default 1/2)").argParser(
        positiveNumber("--alpha"),
      ),
    )
    .addOption(
      new Option("--beta <β>", "independent: Gamma scale of the noise precision (default 200)").argParser(
        positiveNumber("--beta"),
      ),
    )
    .addOption(
      new Option("--alpha-w <α>", "independent: Gamma shape of the weight precision (default 1/4)").argParser(
        positiveNumber("--alpha-w"),
      ),
    )
    .addOption(
      new Option("--beta-w <β>", "independent: Gamma scale of the weight precision (default 1600)").argParser(
        positiveNumber("--beta-w"),
      ),
    )
    .option("--no-intercept", "leave the intercept out of every model")
    .option("--standardize", "standardise the inputs first (recorded in the output)")
    .addOption(
      new Option("--model-prior <name>", "prior over models")
        .choices(["uniform", "uniform-size"])
        .default("uniform"),
    )
    .addOption(new Option("--top <K>", "list only the best K models").argParser(wholeNumber("--top")))
    .addOption(
      new Option(
        "--estimator <name>",
        `how each log evidence is computed (default exact; stepping-stone under --prior independent; ` +
          `sampled estimators: at most ${MAX_ESTIMATED_MODELS} models at the default --samples)`,
      ).choices([...LINEAR_ESTIMATORS]),
    )
    .addOption(
      new Option(
        "--samples <N>",
        "sample size of a sampled estimator: posterior draws (importance, bridge; default 4000), draws per " +
          "temperature (stepping-stone, path; 500), particles (ais, smc; 200), draws per fold (cv; 1000)",
      ).argParser(wholeNumber("--samples")),
    )
    .addOption(
      new Option("--folds <G>", "folds of the cv estimator (default 5)").argParser(wholeNumber("--folds")),
    )
    .addOption(new Option("--seed <S>", "random seed").argParser(parseSeed).default(1))
    .addOption(
      new Option(
        "--mcmc-steps <N>",
        `MCMC steps over subsets when there are too many inputs to enumerate (default ${DEFAULT_MCMC_STEPS})`,
      ).argParser(wholeNumber("--mcmc-steps")),
    )
    .option("--json", "print one JSON document instead of tables")
    .action((path: string, flags: CompareFlags) => {
      const inputs = flags.inputs?.split(",").map((s) => s.trim());
      const data = numericTable(readCsv(path), { target: flags.target, inputs });
      const progressLabel = flags.estimator ?? (flags.prior === "independent" ? "stepping-stone" : "exact");
      const result = compareLinearModels(data, {
        prior: flags.prior,
        v: flags.v,
        a: flags.a,
        b: flags.b,
        r: flags.r,
        alpha: flags.alpha,
        beta: flags.beta,
        alphaW: flags.alphaW,
        betaW: flags.betaW,
        intercept: flags.intercept,
        standardize: flags.standardize === true,
        subsets: flags.subsets,
        modelPrior: flags.modelPrior,
        top: flags.top ?? (flags.json ? undefined : 10),
        estimator: flags.estimator,
        samples: flags.samples,
        folds: flags.folds,
        seed: flags.seed,
        mcmcSteps: flags.mcmcSteps,
        // Progress goes to stderr, one overwritten line, and only on a terminal.
        onProgress: io.interactive
          ? (done, total) => io.stderr(`\r\x1b[2K${progressLabel}: model ${done} of ${total}`)
          : undefined,
      });
      if (io.interactive && result.estimator !== "exact") io.stderr("\r\x1b[2K");
      io.stdout(flags.json ? `${checkedJson(result)}\n` : `${formatComparison(result, data.targetName)}\n`);
    });
}

function describePrior(prior: LinearComparison["prior"]): string {
  switch (prior.name) {
    case "nig":
      return `Normal–Inverse-Gamma (v = ${prior.v}, a = ${prior.a}, b = ${prior.b})`;
    case "zellner-siow":
      return `Zellner–Siow (r = ${formatNumber(prior.r, 4)})`;
    case "independent":
      return (
        `independent precisions (τ ~ Gamma(${formatNumber(prior.alpha, 3)}, scale ${formatNumber(prior.beta, 4)}), ` +
        `τ_w ~ Gamma(${formatNumber(prior.alphaW, 3)}, scale ${formatNumber(prior.betaW, 4)}))`
      );
  }
}

function formatComparison(result: LinearComparison, target: string): string {
  const prior = describePrior(result.prior);
  const estimated = result.estimator !== "exact";
  const models = formatTable(
    [
      { header: "inputs", align: "left" },
      { header: result.prior.name === "zellner-siow" ? "log BF" : "log evidence" },
      ...(estimated ? [{ header: "std. error" }] : []),
      { header: "log BF vs intercept only" },
      { header: "probability" },
    ],
    result.models.map((m) => [
      m.inputs.length > 0 ? m.inputs.join(", ") : "(none)",
      m.logEvidence === null ? formatNumber(m.logBayesFactor, 6) : formatNumber(m.logEvidence, 6),
      ...(estimated ? [formatNumber(m.stdErr, 2)] : []),
      formatNumber(m.logBayesFactor, 4),
      formatNumber(m.posteriorProbability, 3),
    ]),
  );
  const inclusion = formatTable(
    [{ header: "input", align: "left" }, { header: "inclusion probability" }],
    Object.entries(result.inclusionProbabilities)
      .sort((x, y) => y[1] - x[1])
      .map(([name, pr]) => [name, formatNumber(pr, 3)]),
  );
  const p = result.inputs.length;
  const how = estimated
    ? [
        `log evidences estimated by ${result.estimator} (seed ${result.settings?.seed}` +
          `${result.settings?.samples === undefined ? "" : `, ${result.settings.samples} samples`}` +
          `${result.settings?.folds === undefined ? "" : `, ${result.settings.folds} folds`}); probabilities use the estimates`,
        ...(result.agreement === undefined
          ? []
          : [
              `against the exact evidences: largest error ${formatNumber(result.agreement.maxAbsError, 3)} nats; ` +
                `${result.agreement.beyondFourStdErr} of ${result.modelCount} estimates beyond 4 std. errors`,
            ]),
      ]
    : [];
  const search = result.mcmc
    ? [
        `${p} inputs: too many to enumerate 2^${p} models; sampled subsets by MCMC (${result.mcmc.steps} steps, ` +
          `${result.mcmc.distinctModels} distinct models visited, seed ${result.settings?.seed}); probabilities are ` +
          `exact evidences renormalised over the visited models (visit frequencies differ by ${formatNumber(result.mcmc.frequencyDiscrepancy, 2)} in total variation)`,
      ]
    : [];
  return [
    `${target} on ${p} inputs, ${result.n} rows, ${result.modelCount} models; prior ${prior}` +
      `${result.intercept ? ", intercept in every model" : ", no intercept"}${result.standardized ? ", inputs standardised" : ""}`,
    ...search,
    ...how,
    "",
    models,
    "",
    inclusion,
    "",
    `median-probability model: ${result.medianModel.length > 0 ? result.medianModel.join(", ") : "(none)"}`,
  ].join("\n");
}
