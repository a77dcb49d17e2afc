/**
 * `occam compare --family bernoulli|binomial|poisson`: generalised linear models on subsets of the
 * inputs (see `compareGlms`), read from a CSV whose binary target may be text (two levels).
 */
import { type CsvColumns, namedNumericColumn } from "../data/csv.js";
import type { LinearData, NewRowsGroups } from "../data/design.js";
import { appendRows } from "../data/new-rows.js";
import { OccamError } from "../errors.js";
import type { GlmFamilyName, GlmLink } from "../models/glm/family.js";
import type { CompareGlmsInParallelOptions } from "../parallel/compare-glm.js";
import { formatLogBayesFactor, formatNumber, formatProbability, withError } from "../report/format.js";
import { describeModelPrior, type ModelPrior } from "../selection/compare.js";
import type { CompareGlmOptions, GlmComparison, GlmPrior } from "../selection/glm.js";
import type { Io } from "./io.js";
import { progressLine } from "./io.js";
import { checkedJson } from "./json.js";
import { interruptible } from "./parallel.js";
import { writeReport } from "./report-file.js";
import { formatTable } from "./table.js";

/** The outcome families `occam compare --family` takes. */
export const COMPARE_FAMILIES = ["gaussian", "bernoulli", "binomial", "poisson"] as const;

/** The flags of a GLM comparison. */
export interface GlmFlags {
  family: GlmFamilyName;
  link?: GlmLink;
  prior: string;
  scale?: number;
  trials?: string;
  offset?: string;
  subsets: "all" | "none" | { max: number };
  modelPrior: ModelPrior;
  heredity: boolean;
  always?: string[];
  top?: number;
  seed: number;
  json?: boolean;
  workers?: number;
  report?: string;
}

/**
 * The rows of `fresh` (the --predict CSV) in the design's candidate columns: the design is built again
 * on the training rows followed by them (`designOf`, as for the training rows alone), so that factors
 * keep their training levels, and the new rows' part taken; with their offsets when training has one.
 */
export function newRows(
  train: CsvColumns,
  fresh: CsvColumns,
  target: string,
  data: LinearData,
  designOf: (columns: CsvColumns) => LinearData,
  offset: string | undefined,
): NonNullable<CompareGlmOptions["predict"]> {
  if (fresh.rows === 0) throw new OccamError("invalid-data", "--predict: the file has no rows.");
  const both = designOf(appendRows(train, fresh, target)).design;
  const { n, columns: P, columnNames } = data.design;
  if (both.columnNames.join("\u0000") !== columnNames.join("\u0000")) {
    throw new OccamError(
      "internal",
      "--predict: the new rows' design has other columns than the training rows'.",
    );
  }
  const groups: Record<string, NewRowsGroups> = {};
  data.design.terms.forEach((term, t) => {
    const trained = term.random;
    const joined = both.terms[t].random;
    if (trained === undefined || joined === undefined) return;
    const index = new Map(trained.levels.map((level, j) => [level, j]));
    groups[term.name] = {
      codes: Int32Array.from(joined.codes.subarray(n), (c) => index.get(joined.levels[c]) ?? -1),
      slopeValues: joined.slopeValues.map((values) => values.slice(n)),
    };
  });
  return {
    X: both.X.slice(n * P),
    rows: fresh.rows,
    ...(Object.keys(groups).length === 0 ? {} : { groups }),
    ...(offset === undefined
      ? {}
      : { offset: namedNumericColumn(fresh, offset, "--offset (in the --predict file)") }),
  };
}

/** Runs the comparison (on `flags.workers` threads) and writes its table or JSON. */
export async function compareGlmAction(
  csv: CsvColumns,
  data: LinearData,
  flags: GlmFlags,
  io: Io,
  predict: CompareGlmOptions["predict"] | undefined,
  path: string,
): Promise<void> {
  if (flags.prior !== "normal" && flags.prior !== "robust" && flags.prior !== "hyper-g-n") {
    throw new OccamError(
      "invalid-argument",
      `--family ${flags.family} takes --prior robust (the default), hyper-g-n, or normal with --scale S, not --prior ${flags.prior}.`,
    );
  }
  if (flags.prior === "normal" && flags.scale === undefined) {
    throw new OccamError(
      "invalid-argument",
      "--prior normal needs its scale: --scale S (10 as Friel & Wyse 2012, 2.5 as rstanarm's default).",
    );
  }
  if (flags.prior !== "normal" && flags.scale !== undefined) {
    throw new OccamError(
      "invalid-argument",
      `--scale applies to --prior normal, not --prior ${flags.prior}.`,
    );
  }
  if (flags.trials !== undefined && flags.family !== "binomial") {
    throw new OccamError("invalid-argument", "--trials applies to --family binomial only.");
  }
  if (flags.offset !== undefined && flags.family !== "poisson") {
    throw new OccamError("invalid-argument", "--offset applies to --family poisson only.");
  }
  const progress = progressLine(io, `compare (${flags.family})`);
  const { compareGlmsInParallel } = await import("../parallel/compare-glm.js");
  const options: CompareGlmsInParallelOptions = {
    family: flags.family,
    ...(flags.link === undefined ? {} : { link: flags.link }),
    prior:
      flags.prior === "normal" ? { name: "normal", scale: flags.scale as number } : { name: flags.prior },
    ...(flags.trials === undefined ? {} : { trials: namedNumericColumn(csv, flags.trials, "--trials") }),
    ...(flags.offset === undefined ? {} : { offset: namedNumericColumn(csv, flags.offset, "--offset") }),
    subsets: flags.subsets,
    modelPrior: flags.modelPrior,
    heredity: flags.heredity,
    ...(flags.always === undefined ? {} : { always: flags.always }),
    seed: flags.seed,
    ...(predict === undefined ? {} : { predict }),
    ...(flags.json || flags.top === undefined ? {} : { top: flags.top }),
    onProgress:
      progress === undefined ? undefined : (done, total) => progress.show(`model ${done} of ${total}`),
    ...(flags.workers === undefined ? {} : { workers: flags.workers }),
  };
  const result = await interruptible(compareGlmsInParallel, data, options);
  progress?.clear();
  io.stdout(
    flags.json
      ? `${checkedJson(result)}\n`
      : `${formatGlmComparison(result, data.targetName, flags.top ?? 10)}\n`,
  );
  if (flags.report !== undefined) {
    const { glmReportHtml } = await import("../report/compare-glm.js");
    writeReport(flags.report, await glmReportHtml(result, { data: path, target: data.targetName }));
  }
}

/** The coefficients' prior in words. */
function describeGlmPrior(prior: GlmPrior): string {
  if (prior.name === "normal") return `every coefficient ~ N(0, ${prior.scale}²) on standardised inputs`;
  const g =
    prior.name === "robust" ? "the robust prior (Bayarri et al. 2012)" : "the hyper-g/n prior (a = 3)";
  return `slopes ~ N(0, g J⁻¹), J their information at the fit, g under ${g}; flat intercept`;
}

/** The text report: the best models and the inclusion probabilities. */
export function formatGlmComparison(result: GlmComparison, target: string, top: number): string {
  const models = formatTable(
    [
      { header: "inputs", align: "left" },
      { header: "log evidence ± s.e." },
      { header: "log BF vs none" },
      { header: "probability [90 %]" },
      { header: "reliable", align: "left" },
    ],
    result.models
      .slice(0, top)
      .map((m) => [
        m.inputs.length === 0 ? "(none)" : m.inputs.join(", "),
        withError(m.logEvidence, m.stdErr),
        formatLogBayesFactor(m.logBayesFactor, m.logBayesFactorStdErr),
        `${formatProbability(m.posteriorProbability)} [${formatProbability(m.probabilityInterval[0])}, ${formatProbability(m.probabilityInterval[1])}]`,
        m.reliable ? "yes" : "NO",
      ]),
  );
  const inclusion = formatTable(
    [{ header: "input", align: "left" }, { header: "inclusion probability" }],
    Object.entries(result.inclusionProbabilities)
      .sort((a, b) => b[1] - a[1])
      .map(([name, p]) => [name, formatProbability(p)]),
  );
  const coefficients = formatTable(
    [
      { header: "coefficient", align: "left" },
      { header: "inclusion" },
      { header: "mean" },
      { header: "sd" },
      { header: "95 % interval" },
    ],
    result.coefficients.map((c) => [
      c.name,
      formatProbability(c.inclusionProbability),
      formatNumber(c.mean),
      formatNumber(c.sd),
      `[${formatNumber(c.lower)}, ${formatNumber(c.upper)}]`,
    ]),
  );
  const mean = result.link === "log" ? "expected count" : "probability";
  const predictions =
    result.predictions === undefined
      ? []
      : [
          "",
          `Model-averaged ${mean} at the new rows:`,
          formatTable(
            [{ header: "row" }, { header: mean }, { header: "90 % interval" }],
            result.predictions.map((p, i) => [
              String(i + 1),
              formatNumber(p.mean),
              `[${formatNumber(p.lower)}, ${formatNumber(p.upper)}]`,
            ]),
          ),
        ];
  const link = `${result.family} (${result.link} link)`;
  return [
    `${target}: ${link}, ${describeGlmPrior(result.prior)}; ${result.modelCount} model${result.modelCount === 1 ? "" : "s"}, ${describeModelPrior(result.modelPrior)} model prior${result.always.length > 0 ? ` over the terms not in every model (${result.always.join(", ")})` : ""}`,
    "",
    models,
    "",
    inclusion,
    "",
    `Median-probability model: ${result.medianModel.length > 0 ? result.medianModel.join(", ") : "(none)"}.`,
    "",
    "Model-averaged coefficients in the inputs' units (0 in the models that leave a term out):",
    coefficients,
    ...predictions,
    ...(result.screenedModels > 0
      ? [
          "",
          `${result.screenedModels} of the ${result.modelCount} models lie more than 10 nats below the best by Laplace's approximation, which is their evidence (not corrected, no standard error).`,
        ]
      : []),
    ...(result.unreliableModels > 0
      ? [
          "",
          `${result.unreliableModels} model(s) have evidences that are not reliable: see --json for their warnings.`,
        ]
      : []),
  ].join("\n");
}
