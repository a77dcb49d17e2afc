import { type Command, Option } from "commander";
import { readCsv } from "../data/csv-file.js";
import { OccamError } from "../errors.js";
import { classifierTable, encodeClassifierTable } from "../models/classifiers/data.js";
import {
  CLASSIFIER_FAMILIES,
  type ClassifierFamilyName,
  checkFamilyName,
  estimatorName,
} from "../models/classifiers/families.js";
import { type ClassificationData, stratifiedSplit } from "../models/mixture-classifier/data.js";
import { createRng } from "../random/rng.js";
import { formatProbability } from "../report/format.js";
import type {
  ClassifierFamilyComparison,
  CombinedScores,
  EstimateSummary,
} from "../selection/classifier-families.js";
import { CLASSIFY_DEFAULTS, CLASSIFY_MINIMA } from "../selection/classifier-options.js";
import { columnList, openUnitInterval, parseSeed, wholeNumber } from "./arguments.js";
import { type Io, progressLine } from "./io.js";
import { checkedJson } from "./json.js";
import { interruptible, redisOption, workersOption } from "./parallel.js";
import { parseReportPath, REPORT_OPTION_HELP, writeReport } from "./report-file.js";
import { formatNumber, formatTable } from "./table.js";

interface ClassifyFlags {
  target: string;
  test?: string;
  split?: number;
  families?: string;
  factors?: string;
  inputs?: string;
  folds: number;
  draws: number;
  everson?: boolean;
  includeUnreliable?: boolean;
  tempered?: boolean;
  temperedParticles: number;
  seed: number;
  json?: boolean;
  report?: string;
  workers?: number;
  redis?: string;
}

/** An evidence estimate in the JSON document. */
export interface EstimateJson {
  method: string;
  logEvidence: number;
  stdErr: number;
  reliable: boolean;
}

/** One family in the JSON document of `occam classify`. */
export interface ClassifyFamilyJson {
  name: string;
  /** log p(y | X, M) as the family is weighed: by the chain rule ("chain-rule"), or by tempered SMC ("smc", see `--tempered`). */
  method: string;
  logEvidence: number;
  stdErr: number;
  reliable: boolean;
  /** p(M | D); null when the family is left out (its evidence is not reliable). */
  probability: number | null;
  probabilityInterval: [number, number] | null;
  stackingWeight: number;
  accuracy: number | null;
  logLoss: number | null;
  logLossMcse: number | null;
  brier: number | null;
  crossCheck: (EstimateJson & { z: number }) | null;
  everson: EstimateJson | null;
  looElpd: number;
  model: string;
  warnings: string[];
  /** Seconds spent on this family (its evidence, cross-check, posterior and predictions). */
  seconds: number;
}

/** A combined predictive in the JSON document. */
export interface CombinedJson {
  accuracy: number;
  logLoss: number;
  logLossMcse: number;
  brier: number;
}

/** The JSON document of `occam classify`. */
export interface ClassifyReport {
  families: ClassifyFamilyJson[];
  average: CombinedJson | null;
  stacked: CombinedJson | null;
  classes: string[];
  /** The evidence-weighted average's confusion matrix, counts[observed][predicted]; null without test rows. */
  confusion: number[][] | null;
  seed: number;
  folds: number;
  trainRows: number;
  testRows: number;
  warnings: string[];
  seconds: number;
}

function estimate(e: EstimateSummary): EstimateJson {
  return { method: e.method, logEvidence: e.logZ, stdErr: e.stdErr, reliable: e.reliable };
}

function combined(c: CombinedScores | null): CombinedJson | null {
  return c === null
    ? null
    : { accuracy: c.accuracy, logLoss: c.logLoss, logLossMcse: c.logLossMcse, brier: c.brier };
}

/** The JSON document of a comparison. */
export function classifyReport(cmp: ClassifierFamilyComparison): ClassifyReport {
  return {
    families: cmp.families.map((f) => ({
      name: f.name,
      method: f.evidence.method,
      logEvidence: f.evidence.logZ,
      stdErr: f.evidence.stdErr,
      reliable: f.evidence.reliable,
      probability: f.included ? f.probability : null,
      probabilityInterval:
        f.probabilityInterval === null ? null : [f.probabilityInterval[0], f.probabilityInterval[1]],
      stackingWeight: f.stackingWeight,
      accuracy: f.test?.accuracy ?? null,
      logLoss: f.test?.logLoss ?? null,
      logLossMcse: f.test?.logLossMcse ?? null,
      brier: f.test?.brier ?? null,
      crossCheck:
        f.crossCheck === null || f.crossCheckZ === null
          ? null
          : { ...estimate(f.crossCheck), z: f.crossCheckZ },
      everson: f.everson === null ? null : estimate(f.everson),
      looElpd: f.loo.elpd,
      model: f.summary,
      // The evidence's warnings repeat the chains' where it was computed from them.
      warnings: [...new Set([...f.evidence.warnings, ...f.posterior.warnings])],
      seconds: f.seconds,
    })),
    average: combined(cmp.average),
    stacked: combined(cmp.stacked),
    classes: [...cmp.classes],
    confusion: cmp.average?.confusion ?? null,
    seed: cmp.seed,
    folds: cmp.folds,
    trainRows: cmp.trainRows,
    testRows: cmp.testRows,
    warnings: [...cmp.warnings],
    seconds: cmp.seconds,
  };
}

function parseFamilies(text: string | undefined): ClassifierFamilyName[] {
  if (text === undefined) return [...CLASSIFIER_FAMILIES];
  return columnList(text, "--families").map((name) => checkFamilyName(name));
}

/** Reads the training table and the test rows (a file, a stratified split, or none). */
function readTables(
  path: string,
  flags: ClassifyFlags,
): { train: ClassificationData; test: ClassificationData | null } {
  if (flags.test !== undefined && flags.split !== undefined) {
    throw new OccamError("invalid-argument", "Give either --test or --split, not both.");
  }
  const { data, encoding } = classifierTable(readCsv(path), {
    target: flags.target,
    factors: flags.factors === undefined ? undefined : columnList(flags.factors, "--factors"),
    inputs: flags.inputs === undefined ? undefined : columnList(flags.inputs, "--inputs"),
    source: path,
  });
  if (flags.test !== undefined) {
    return { train: data, test: encodeClassifierTable(readCsv(flags.test), encoding, flags.test) };
  }
  if (flags.split !== undefined) {
    // --split is the share held out for testing; stratifiedSplit takes the training share.
    const parts = stratifiedSplit(data, 1 - flags.split, createRng(flags.seed).split(2)[1]);
    return { train: parts.train, test: parts.test };
  }
  return { train: data, test: null };
}

/**
 * `occam classify TRAIN.csv --target COL`: which family of classifier the data favour, by the evidence
 * of the labels given the inputs, and the evidence-weighted and stacked predictions.
 */
export function registerClassify(program: Command, io: Io): void {
  program
    .command("classify")
    .description(
      "compare classifier families (logistic, rbf, pknn, mixture, mlp) by the evidence of the labels given the inputs; average their predictions",
    )
    .argument("<train>", "training CSV with a header row")
    .requiredOption("--target <column>", "the class-label column")
    .option("--test <file>", "test CSV with the same columns")
    .addOption(
      new Option(
        "--split <fraction>",
        "hold out this share of TRAIN, stratified by class, as the test set",
      ).argParser(openUnitInterval("--split")),
    )
    .option("--families <list>", `comma-separated families (default: ${CLASSIFIER_FAMILIES.join(",")})`)
    .option(
      "--factors <list>",
      "comma-separated input columns that hold categories (one indicator per level)",
    )
    .option("--inputs <list>", "comma-separated input columns (default: every column but the target)")
    .addOption(
      new Option("--folds <G>", "stratified folds of the chain rule")
        .argParser(wholeNumber("--folds", CLASSIFY_MINIMA.folds))
        .default(CLASSIFY_DEFAULTS.folds),
    )
    .addOption(
      new Option(
        "--draws <n>",
        `posterior draws kept per posterior, all ${CLASSIFY_DEFAULTS.chains} chains together`,
      )
        .argParser(wholeNumber("--draws", CLASSIFY_MINIMA.draws))
        .default(CLASSIFY_DEFAULTS.draws),
    )
    .option(
      "--everson",
      "also estimate Everson et al.'s G-fold product (the paper's number; G more posteriors per family)",
    )
    .option(
      "--tempered",
      "where a family's chain rule or chains fail their checks (separated modes), weigh and predict by tempered SMC on all rows",
    )
    .addOption(
      new Option("--tempered-particles <n>", "particles of each of its two tempered runs")
        .argParser(wholeNumber("--tempered-particles", CLASSIFY_MINIMA.temperedParticles))
        .default(CLASSIFY_DEFAULTS.temperedParticles),
    )
    .option(
      "--include-unreliable",
      "keep families whose evidence is not reliable in the probabilities and the average",
    )
    .addOption(new Option("--seed <s>", "random seed").argParser(parseSeed).default(CLASSIFY_DEFAULTS.seed))
    .option("--json", "print one JSON document")
    .option("--report <FILE.html>", REPORT_OPTION_HELP, parseReportPath)
    .addOption(workersOption())
    .addOption(redisOption())
    .action(async (path: string, flags: ClassifyFlags) => {
      const families = parseFamilies(flags.families);
      const { train, test } = readTables(path, flags);
      // Loaded only when asked for, so that other commands start quickly.
      const { compareClassifierFamiliesInParallel } = await import("../parallel/classify.js");
      const progress = progressLine(io, "classify");
      const cmp = await interruptible(compareClassifierFamiliesInParallel, train, {
        workers: flags.workers,
        redis: flags.redis,
        test,
        families,
        folds: flags.folds,
        draws: flags.draws,
        seed: flags.seed,
        everson: flags.everson === true,
        includeUnreliable: flags.includeUnreliable === true,
        tempered: flags.tempered === true,
        temperedParticles: flags.temperedParticles,
        onProgress: progress?.show,
      });
      progress?.clear();
      const report = classifyReport(cmp);
      io.stdout(flags.json ? `${checkedJson(report)}\n` : `${formatClassifyReport(report)}\n`);
      if (flags.report !== undefined) {
        const { classifyReportHtml } = await import("../report/classify.js");
        const held =
          flags.split === undefined
            ? null
            : `a stratified ${formatNumber(100 * flags.split, 3)} % of ${path}`;
        writeReport(
          flags.report,
          await classifyReportHtml(cmp, { data: path, target: flags.target, test: flags.test ?? held }),
        );
      }
    });
}

function pm(value: number, se: number): string {
  return `${formatNumber(value, 5)} ± ${formatNumber(se, 2)}`;
}

/** The readable table of `occam classify`. */
export function formatClassifyReport(r: ClassifyReport): string {
  const scores = (s: { accuracy: number | null; logLoss: number | null; brier: number | null }) => [
    s.accuracy === null ? "" : formatNumber(100 * s.accuracy, 3),
    s.logLoss === null ? "" : formatNumber(s.logLoss, 4),
    s.brier === null ? "" : formatNumber(s.brier, 4),
  ];
  const rows = r.families.map((f) => [
    f.name,
    `${pm(f.logEvidence, f.stdErr)} ${estimatorName(f.method)}${f.reliable ? "" : " (unreliable)"}`,
    f.crossCheck === null
      ? ""
      : `${pm(f.crossCheck.logEvidence, f.crossCheck.stdErr)} ${estimatorName(f.crossCheck.method)}${f.crossCheck.reliable ? "" : " (unreliable)"}`,
    f.everson === null ? "" : pm(f.everson.logEvidence, f.everson.stdErr),
    f.probability === null || f.probabilityInterval === null
      ? "left out"
      : `${formatProbability(f.probability)} [${formatProbability(f.probabilityInterval[0])}, ${formatProbability(f.probabilityInterval[1])}]`,
    formatNumber(f.stackingWeight, 3),
    ...scores(f),
  ]);
  const blank = ["", "", "", "", ""];
  if (r.average !== null) rows.push(["evidence-weighted average", ...blank, ...scores(r.average)]);
  if (r.stacked !== null) rows.push(["stacked", ...blank, ...scores(r.stacked)]);
  const showEverson = r.families.some((f) => f.everson !== null);
  const columns = [
    { header: "family", align: "left" as const },
    { header: "log p(y | X) ± s.e.", align: "left" as const },
    { header: "cross-check", align: "left" as const },
    { header: "Everson G-fold", align: "left" as const },
    { header: "p(M | D) [95 %]", align: "left" as const },
    { header: "stacking" },
    { header: "acc %" },
    { header: "log loss" },
    { header: "Brier" },
  ];
  const keep = columns.map((_, j) => j !== 3 || showEverson);
  const lines = [
    `${r.trainRows} training rows, ${r.testRows > 0 ? `${r.testRows} test rows` : "no test rows (give --test or --split for test scores)"}, ${r.folds}-fold chain rule, seed ${r.seed}, ${formatNumber(r.seconds, 3)} s`,
    "",
    formatTable(
      columns.filter((_, j) => keep[j]),
      rows.map((row) => row.filter((_, j) => keep[j])),
    ),
  ];
  if (r.confusion !== null) {
    lines.push(
      "",
      "confusion matrix of the evidence-weighted average (rows observed, columns predicted):",
      formatTable(
        [{ header: "", align: "left" }, ...r.classes.map((c) => ({ header: c }))],
        r.confusion.map((row, k) => [r.classes[k], ...row.map(String)]),
      ),
    );
  }
  if (r.warnings.length > 0) lines.push("", ...r.warnings.map((w) => `warning: ${w}`));
  const reasons = r.families
    .filter((f) => !f.reliable)
    .map((f) => `${f.name}: ${f.warnings[0] ?? "unreliable"}`);
  if (reasons.length > 0) lines.push("", "why:", ...reasons);
  return lines.join("\n");
}
