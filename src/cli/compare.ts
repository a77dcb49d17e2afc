import { availableParallelism } from "node:os";
import { type Command, InvalidArgumentError, Option } from "commander";
import { binaryTargetColumns } from "../data/binary-target.js";
import type { CsvColumns } from "../data/csv.js";
import { readCsvColumns } from "../data/csv-file.js";
import type { LinearData } from "../data/design.js";
import { formulaDesign, parseFormula } from "../data/formula.js";
import { OccamError, wordList } from "../errors.js";
import type { GlmLink } from "../models/glm/family.js";
import type { CompareLinearInParallelOptions } from "../parallel/compare.js";
import { type ModelPrior, parseModelPrior } from "../selection/compare.js";
import {
  DEFAULT_MCMC_STEPS,
  DEFAULT_SAMPLES,
  G_PRIORS,
  LINEAR_ESTIMATORS,
  LINEAR_PRIOR_DEFAULTS,
  LINEAR_PRIORS,
  type LinearEstimator,
  type LinearPrior,
  type LinearPriorName,
  MAX_ESTIMATED_MODELS,
  resolveLinearPrior,
} from "../selection/linear-options.js";
import { columnList, parseSeed, positiveNumber, wholeNumber } from "./arguments.js";
import { COMPARE_FAMILIES, compareGlmAction, type GlmFlags, newRows } from "./compare-glm.js";
import { type Io, progressLine } from "./io.js";
import { checkedJson } from "./json.js";
import { interruptible, redisOption, refuseRedis, workersOption } from "./parallel.js";
import { parseReportPath, REPORT_OPTION_HELP, writeReport } from "./report-file.js";
import { formatComparison } from "./reports/compare.js";

/** Parses --subsets: all, none, or max=K. */
export function parseSubsets(text: string): "all" | "none" | { max: number } {
  if (text === "all" || text === "none") return text;
  const match = /^max=(\d+)$/.exec(text);
  if (match && Number(match[1]) >= 1) return { max: Number(match[1]) };
  throw new InvalidArgumentError(`--subsets takes all, none or max=K (K ≥ 1), got "${text}".`);
}

/** A flag of one linear prior's parameter. */
type PriorFlag = "v" | "a" | "b" | "r" | "alpha" | "beta" | "alphaW" | "betaW";

/** The flag of one of the independent prior's Gamma parameters (see `GammaPrior`). */
function gammaFlag(precision: "noise" | "weights", parameter: "shape" | "scale", option: string) {
  return {
    priors: ["independent"] as const,
    path: [precision, parameter],
    option,
    help: `independent: Gamma ${parameter} of the ${precision === "noise" ? "noise" : "weight"} precision`,
  };
}

/**
 * The flags of the linear priors' parameters: the priors each belongs to, where its value goes in
 * such a prior (a path into `LinearPrior`, and into LINEAR_PRIOR_DEFAULTS for the default the help
 * shows), the option and its help.
 */
const PRIOR_FLAGS: Readonly<
  Record<
    PriorFlag,
    { priors: readonly LinearPriorName[]; path: readonly string[]; option: string; help: string }
  >
> = {
  v: { priors: ["nig"], path: ["v"], option: "--v <v>", help: "NIG prior scale of the coefficients" },
  a: {
    priors: ["nig", "hyper-g", "hyper-g-n"],
    path: ["a"],
    option: "--a <a>",
    help: "NIG inverse-gamma shape, or hyper-g's a > 2",
  },
  b: { priors: ["nig"], path: ["b"], option: "--b <b>", help: "NIG inverse-gamma scale" },
  r: { priors: ["zellner-siow"], path: ["r"], option: "--r <r>", help: "Zellner–Siow prior scale" },
  alpha: gammaFlag("noise", "shape", "--alpha <α>"),
  beta: gammaFlag("noise", "scale", "--beta <β>"),
  alphaW: gammaFlag("weights", "shape", "--alpha-w <α>"),
  betaW: gammaFlag("weights", "scale", "--beta-w <β>"),
};

/** The flag of a prior's parameter as the user types it. */
const flagName = (key: PriorFlag) => PRIOR_FLAGS[key].option.split(" ")[0];

interface CompareFlags extends Partial<Record<PriorFlag, number>> {
  family: (typeof COMPARE_FAMILIES)[number];
  link?: GlmLink;
  scale?: number;
  trials?: string;
  offset?: string;
  predict?: string;
  always?: string[];
  target?: string;
  inputs?: string;
  formula?: string;
  heredity: boolean;
  subsets: "all" | "none" | { max: number };
  prior: LinearPriorName | "normal" | "robust";
  intercept: boolean;
  standardize?: boolean;
  modelPrior: ModelPrior;
  top?: number;
  json?: boolean;
  estimator?: LinearEstimator;
  samples?: number;
  folds?: number;
  seed: number;
  mcmcSteps?: number;
  report?: string;
  workers?: number;
  redis?: string;
}

/**
 * `occam compare DATA.csv --target COL …`: which inputs explain the target, by exact evidence (or an
 * estimator's, with --estimator), enumerating subsets, or sampling them by MCMC when there are too many.
 */
export function registerCompare(program: Command, io: Io): void {
  const compare = program
    .command("compare")
    .description(
      "compare regressions on subsets of a CSV's inputs by their evidence: linear, logistic or probit, binomial, Poisson",
    )
    .argument("<data>", "CSV file with a header row")
    .addOption(
      new Option(
        "--family <name>",
        "the target's distribution: gaussian (linear regression), bernoulli (two levels: text or 0/1), binomial (successes out of --trials), poisson (counts)",
      )
        .choices([...COMPARE_FAMILIES])
        .default("gaussian"),
    )
    .addOption(
      new Option("--link <name>", "bernoulli, binomial: logit (default) or probit").choices([
        "logit",
        "probit",
        "log",
      ]),
    )
    .addOption(
      new Option(
        "--scale <S>",
        "--prior normal: every coefficient ~ N(0, S²) on standardised inputs (e.g. 10, or 2.5 as rstanarm)",
      ).argParser(positiveNumber("--scale")),
    )
    .option("--trials <column>", "binomial: the column of each row's number of trials")
    .option("--offset <column>", "poisson: the column added to the linear predictor (log exposure)")
    .option(
      "--predict <NEW.csv>",
      "the model-averaged mean response (gaussian: with a new observation's interval too; probability, expected count) at these rows, with 90 % intervals",
    )
    .option("--target <column>", "the column to explain (or give --formula)")
    .option("--inputs <a,b,c>", "the candidate inputs (default: every other column)")
    .option(
      "--formula <formula>",
      'the target and candidate terms in R\'s syntax, e.g. "y ~ a + b + a:b", "y ~ a*b - a:b", "y ~ ."; random terms "(1 | g)", "(x | g)"',
    )
    .option("--no-heredity", "let an interaction enter a model without its main effects")
    .addOption(
      new Option(
        "--always <a,b>",
        'terms every model holds (BAS\'s include.always), e.g. "age,sex" or, with --family bernoulli, binomial or poisson, "age,(1 | clinic)"; the model prior applies to the others',
      ).argParser((value: string) => columnList(value, "--always")),
    )
    .addOption(
      new Option("--subsets <which>", "all, none (only the full model) or max=K")
        .argParser(parseSubsets)
        .default("all"),
    )
    .addOption(
      new Option(
        "--prior <name>",
        "prior of each model's coefficients (gaussian: default zellner-siow; bernoulli, binomial, poisson: robust (default), hyper-g-n or normal with --scale)",
      )
        .choices([...LINEAR_PRIORS, "normal", "robust"])
        .default("zellner-siow"),
    );
  for (const option of linearPriorOptions()) compare.addOption(option);
  compare
    .option("--no-intercept", "leave the intercept out of every model")
    .option("--standardize", "NIG, independent: standardise the inputs first (the default)")
    .option("--no-standardize", "NIG, independent: keep the inputs in their own units")
    .addOption(
      new Option(
        "--model-prior <name>",
        "prior over models: uniform, uniform-size, beta-binomial (BAS's default, a = b = 1) or beta-binomial:A,B",
      )
        .argParser(parseModelPrior)
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
        `sample size of a sampled estimator: posterior draws (importance ${DEFAULT_SAMPLES.importance}, ` +
          `bridge ${DEFAULT_SAMPLES.bridge}), ` +
          `particles of the tempered run (stepping-stone ${DEFAULT_SAMPLES["stepping-stone"]}, path ${DEFAULT_SAMPLES.path}, ` +
          `smc ${DEFAULT_SAMPLES.smc}, ais ${DEFAULT_SAMPLES.ais}), ` +
          `draws per fold (cv ${DEFAULT_SAMPLES.cv})`,
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
    .option("--report <FILE.html>", REPORT_OPTION_HELP, parseReportPath)
    .addOption(workersOption())
    .addOption(redisOption())
    .action((path: string, flags: CompareFlags, command: Command) => runCompare(path, flags, command, io));
}

/** The options of the linear priors' parameters, with their defaults (each prior's, where several share one). */
function linearPriorOptions(): Option[] {
  return (Object.keys(PRIOR_FLAGS) as PriorFlag[]).map((key) => {
    const { priors, path, option, help } = PRIOR_FLAGS[key];
    const defaults = priors.map((prior) => {
      const value = path.reduce<unknown>(
        (at, k) => (at as Record<string, unknown>)[k],
        LINEAR_PRIOR_DEFAULTS[prior],
      );
      return defaultText(value as number) + (priors.length > 1 ? ` for ${prior}` : "");
    });
    return new Option(option, `${help} (default ${defaults.join(", ")})`).argParser(
      positiveNumber(flagName(key)),
    );
  });
}

/** A default as the help shows it: 1600, 1/4, or four significant digits. */
function defaultText(value: number): string {
  if (Number.isInteger(value)) return String(value);
  if (Number.isInteger(1 / value)) return `1/${1 / value}`;
  return String(Number(value.toPrecision(4)));
}

/**
 * The prior the flags ask for, as the library takes it: --prior's family with the parameters given
 * by its flags, checked. A flag of another prior, or --no-intercept or --standardize with a g-prior,
 * is refused in the flags' words.
 */
function linearPriorOf(flags: CompareFlags, given: (name: string) => boolean): LinearPrior {
  // "normal" and "robust" were refused for a gaussian target.
  const name = flags.prior as LinearPriorName;
  const prior: Record<string, unknown> = { name };
  for (const key of Object.keys(PRIOR_FLAGS) as PriorFlag[]) {
    if (!given(key)) continue;
    const { priors, path } = PRIOR_FLAGS[key];
    if (!priors.includes(name)) {
      throw new OccamError(
        "invalid-argument",
        `${flagName(key)} applies only to --prior ${wordList(priors, "or")}, not to ${name}.`,
      );
    }
    let at = prior;
    for (const k of path.slice(0, -1)) {
      at[k] ??= {};
      at = at[k] as Record<string, unknown>;
    }
    at[path[path.length - 1]] = flags[key];
  }
  for (const key of ["intercept", "standardize"] as const) {
    if (given(key) && G_PRIORS.includes(name)) {
      throw new OccamError(
        "invalid-argument",
        `${key === "intercept" ? "--no-intercept" : "--standardize"} applies only to --prior ${wordList(
          LINEAR_PRIORS.filter((p) => !G_PRIORS.includes(p)),
          "or",
        )}, not to ${name}` +
          (key === "standardize" ? ": that prior is invariant to the columns' units." : "."),
      );
    }
  }
  return resolveLinearPrior(prior as LinearPrior);
}

/** `occam compare`'s action: a GLM comparison for --family bernoulli, binomial, poisson, else a linear one. */
async function runCompare(path: string, flags: CompareFlags, command: Command, io: Io): Promise<void> {
  if (flags.family !== "gaussian") {
    const given = (name: string) => command.getOptionValueSource(name) === "cli";
    const linearOnly = [
      ...Object.keys(PRIOR_FLAGS),
      "estimator",
      "samples",
      "folds",
      "mcmcSteps",
      "intercept",
      "standardize",
    ].filter(given);
    if (linearOnly.length > 0) {
      throw new OccamError(
        "invalid-argument",
        `${linearOnly.map((o) => (o === "intercept" ? "--no-intercept" : `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`)).join(", ")} ` +
          `${linearOnly.length === 1 ? "does" : "do"} not apply to --family ${flags.family}: a GLM comparison takes --prior normal --scale S, and its own estimator.`,
      );
    }
    refuseRedis(flags, "--family bernoulli, binomial and poisson run on this machine.");
    const threads = flags.workers ?? availableParallelism();
    const pool = threads === 1 ? undefined : await import("../parallel/pool.js");
    // The worker threads load occam while this thread reads the data.
    pool?.startThreadsEarly({ commands: pool.unitModule("compare-units"), threads: threads - 1 });
    try {
      await glmComparison(path, flags, given("prior"), io);
    } finally {
      await pool?.releaseEarlyThreads();
    }
    return;
  }
  if (
    flags.prior === "normal" ||
    flags.prior === "robust" ||
    flags.scale !== undefined ||
    flags.link !== undefined
  ) {
    throw new OccamError(
      "invalid-argument",
      "--prior normal, --prior robust, --scale and --link apply to --family bernoulli, binomial and poisson; a gaussian target takes the linear priors.",
    );
  }
  const exact = (flags.estimator ?? "exact") === "exact" && flags.prior !== "independent";
  const threads = flags.workers ?? availableParallelism();
  const pool =
    exact || flags.redis !== undefined || threads === 1 ? undefined : await import("../parallel/pool.js");
  // The worker threads load occam while this thread reads the data.
  pool?.startThreadsEarly({ commands: pool.unitModule("compare-units"), threads: threads - 1 });
  try {
    await compareAction(path, flags, command, io);
  } finally {
    await pool?.releaseEarlyThreads();
  }
}

/** `occam compare`: reads the data, compares the models and writes the table, JSON or report. */
async function compareAction(path: string, flags: CompareFlags, command: Command, io: Io): Promise<void> {
  const csv = await readCsvColumns(path);
  const designOf = (columns: CsvColumns) => linearData(columns, flags);
  const data = designOf(csv);
  warnIfBinary(data, io);
  const predict =
    flags.predict === undefined
      ? undefined
      : newRows(csv, await readCsvColumns(flags.predict), data.targetName, data, designOf, undefined);
  const progress = progressLine(
    io,
    `compare (${flags.estimator ?? (flags.prior === "independent" ? "stepping-stone" : "exact")})`,
  );
  const given = (name: string) => command.getOptionValueSource(name) === "cli";
  const exact = (flags.estimator ?? "exact") === "exact" && flags.prior !== "independent";
  // The computation is loaded only now: `occam --help` and the other commands do without it.
  const { compareLinearModelsInParallel, enumeratedInBlocks } = await import("../parallel/compare.js");
  // Exact evidences run as units (on workers, and hearing Ctrl-C between them) only when every subset
  // of many inputs is enumerated; otherwise they take a moment in this thread.
  const inUnits = !exact || enumeratedInBlocks(data.design.terms.length, flags.subsets);
  if (!inUnits) {
    refuseRedis(
      flags,
      "these exact evidences are computed here, in a moment; --redis serves --estimator runs and the enumeration of every subset of 19 or more inputs.",
    );
  }
  const options: CompareLinearInParallelOptions = {
    workers: flags.workers,
    redis: flags.redis,
    prior: linearPriorOf(flags, given),
    intercept: given("intercept") ? flags.intercept : undefined,
    standardize: flags.standardize,
    heredity: flags.heredity,
    always: flags.always,
    subsets: flags.subsets,
    modelPrior: flags.modelPrior,
    // The table shows 10 models by default; JSON, the report's plots and predictions get every listed
    // model (predictions average them all, and the table and JSON are cut to --top below).
    top:
      predict !== undefined
        ? undefined
        : (flags.top ?? (flags.json || flags.report !== undefined ? undefined : 10)),
    estimator: flags.estimator,
    samples: flags.samples,
    folds: flags.folds,
    seed: flags.seed,
    mcmcSteps: flags.mcmcSteps,
    ...(predict === undefined ? {} : { predict }),
    onProgress:
      progress === undefined ? undefined : (done, total) => progress.show(`model ${done} of ${total}`),
  };
  // Ctrl-C is caught only where units run: elsewhere this thread could not see it until the end, so
  // there the default (the process ends at once) is kept.
  const result = inUnits
    ? await interruptible(compareLinearModelsInParallel, data, options)
    : await compareLinearModelsInParallel(data, options);
  progress?.clear();
  const listed = flags.top ?? (flags.json ? result.models.length : 10);
  const shown = { ...result, models: result.models.slice(0, listed) };
  io.stdout(flags.json ? `${checkedJson(shown)}\n` : `${formatComparison(shown, data.targetName)}\n`);
  if (flags.report !== undefined) {
    const { compareReportHtml } = await import("../report/compare.js");
    writeReport(flags.report, await compareReportHtml(result, { data: path, target: data.targetName }));
  }
}

/**
 * Warns when the target takes only two values: a Gaussian linear model of a 0/1 outcome gives
 * probabilities outside [0, 1] and a wrong noise model, so its Bayes factors are not the ones to trust.
 */
function warnIfBinary(data: LinearData, io: Io): void {
  const values = new Set(data.design.y);
  if (values.size !== 2) return;
  const [a, b] = [...values].sort((u, v) => u - v);
  io.stderr(
    `occam: warning: ${data.targetName} takes only the values ${a} and ${b}: compare fits a Gaussian linear model, ` +
      "which is wrong for a binary outcome (its residuals are not Gaussian and its fitted values leave [0, 1]); " +
      "compare logistic regressions with --family bernoulli --prior normal --scale S.\n",
  );
}

/** A comparison of GLMs (--family bernoulli, binomial, poisson): the CSV read, the design built, the models compared. */
async function glmComparison(path: string, flags: CompareFlags, priorGiven: boolean, io: Io): Promise<void> {
  const csv = await readCsvColumns(path);
  const target = flags.formula === undefined ? (flags.target ?? "") : parseFormula(flags.formula).target;
  const family = flags.family as GlmFlags["family"];
  const designOf = (columns: CsvColumns) =>
    linearData(binaryTargetColumns(columns, target, family), {
      ...flags,
      exclude: [flags.trials, flags.offset],
    });
  const data = designOf(csv);
  const predict =
    flags.predict === undefined
      ? undefined
      : newRows(csv, await readCsvColumns(flags.predict), target, data, designOf, flags.offset);
  await compareGlmAction(
    csv,
    data,
    {
      ...flags,
      family,
      // --scale alone asks for the normal prior; without either, the robust g-prior.
      prior: priorGiven ? flags.prior : flags.scale === undefined ? "robust" : "normal",
    },
    io,
    predict,
    path,
  );
}

/** The design of the comparison: from --formula, or the target and the numeric or text input columns. */
function linearData(
  csv: CsvColumns,
  flags: Pick<CompareFlags, "formula" | "target" | "inputs" | "heredity"> & {
    exclude?: (string | undefined)[];
  },
): LinearData {
  if (flags.formula !== undefined) {
    if (flags.target !== undefined || flags.inputs !== undefined) {
      throw new OccamError(
        "invalid-argument",
        "--formula names the target and the terms: leave out --target and --inputs, or drop --formula.",
      );
    }
    return formulaDesign(csv, parseFormula(flags.formula), { heredity: flags.heredity });
  }
  if (flags.target === undefined) {
    throw new OccamError("invalid-argument", "give the column to explain with --target (or a --formula).");
  }
  const inputs = flags.inputs === undefined ? undefined : columnList(flags.inputs, "--inputs");
  const columns = inputs ?? csv.columns.filter((c) => c !== flags.target && !flags.exclude?.includes(c));
  return formulaDesign(
    csv,
    { target: flags.target, terms: columns.map((c) => [c]), dot: false },
    { heredity: flags.heredity },
  );
}
