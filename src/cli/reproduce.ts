import { type Command, InvalidArgumentError, Option } from "commander";
import { OccamError } from "../errors.js";
import { fileCheckpoint } from "../parallel/checkpoint.js";
import { parseSeed, positiveNumber, wholeNumber } from "./arguments.js";
import { type Io, progressLine } from "./io.js";
import { checkedJson } from "./json.js";
import { redisOption, withInterrupt, workersOption } from "./parallel.js";
import { parseReportPath, REPORT_OPTION_HELP, writeReport } from "./report-file.js";
import { type Reproduction, reproductions } from "./reproductions.js";

/** Parses `--hidden 1,2,4`: a comma-separated list of distinct integers from 1 to 64. */
export function parseHiddenList(text: string): number[] {
  const parts = text.split(",").map((p) => p.trim());
  const values = parts.map(Number);
  if (
    parts.some((p) => !/^\d+$/.test(p)) ||
    values.some((v) => v < 1 || v > 64) ||
    new Set(values).size !== values.length
  ) {
    throw new InvalidArgumentError(
      `--hidden must be a comma-separated list of distinct integers from 1 to 64 (e.g. 1,2,4,8,16), got "${text}".`,
    );
  }
  return values;
}

/** The reproductions that split into units of work, for the message refusing --workers to the others. */
const parallelNames = "robot-arm, calibration and real-models";

/**
 * `occam reproduce NAME [--json | --markdown] [--seed S] [--quick] [--report FILE.html]`: re-runs a seed
 * document's experiment.
 */
export function registerReproduce(program: Command, io: Io): void {
  const names = Object.keys(reproductions);
  program
    .command("reproduce")
    .description(`re-run an experiment of the documents occam implements (${names.join(", ")})`)
    .argument("<experiment>", `one of: ${names.join(", ")}`)
    .option("--json", "print one JSON document instead of a table")
    .option("--markdown", "print the table as its page in docs/ shows it (calibration)")
    .addOption(new Option("--seed <S>", "random seed").argParser(parseSeed).default(1))
    .option("--quick", "a smaller, faster run")
    .option(
      "--report <FILE.html>",
      `${REPORT_OPTION_HELP}: the paper's numbers beside occam's`,
      parseReportPath,
    )
    .addOption(
      new Option("--hidden <list>", "numbers of hidden units, e.g. 1,2,4,8,16 (robot-arm)").argParser(
        parseHiddenList,
      ),
    )
    .addOption(
      new Option(
        "--noise <sd>",
        "noise standard deviation of the data, 0.05 or 0.5 in the thesis (robot-arm)",
      ).argParser(positiveNumber("--noise")),
    )
    .addOption(
      new Option("--seeds <N>", "seeds per problem and method (calibration, real-models)").argParser(
        wholeNumber("--seeds"),
      ),
    )
    .addOption(workersOption())
    .addOption(redisOption())
    .option(
      "--checkpoint <FILE>",
      `keep each finished unit in FILE as it ends; run again with the same FILE to resume a stopped run (${parallelNames})`,
    )
    .action(async (name: string, options: ReproduceOptions) => {
      const load = reproductions[name];
      if (load === undefined) {
        throw new OccamError(
          "invalid-argument",
          `unknown experiment "${name}"; choose one of: ${names.join(", ")}.`,
        );
      }
      const progress = progressLine(io, name);
      checkOwnedFlags(name, options);
      const reproduction = await load();
      checkOutputs(name, reproduction, options);
      const settings = {
        seed: options.seed,
        quick: options.quick === true,
        onProgress: progress?.show,
        ...(options.hidden === undefined ? {} : { hidden: options.hidden }),
        ...(options.noise === undefined ? {} : { noise: options.noise }),
        ...(options.seeds === undefined ? {} : { seeds: options.seeds }),
      };
      // Ctrl-C is caught only where units run: a run in this thread could not see it until its end,
      // so there the default (the process ends at once, having written nothing) is the better stop.
      const result = reproduction.parallel
        ? await withInterrupt((signal) =>
            reproduction.run({
              ...settings,
              workers: options.workers,
              redis: options.redis,
              signal,
              ...(options.checkpoint === undefined ? {} : { checkpoint: fileCheckpoint(options.checkpoint) }),
            }),
          )
        : reproduction.run(settings);
      progress?.clear();
      if (options.report !== undefined && reproduction.report !== undefined) {
        const { reportHtml } = await import("../report/html.js");
        writeReport(options.report, reportHtml(await reproduction.report(result)));
      }
      const text = options.json
        ? checkedJson(result)
        : options.markdown === true && reproduction.markdown !== undefined
          ? reproduction.markdown(result)
          : reproduction.format(result);
      io.stdout(`${text}\n`);
    });
}

/** What `occam reproduce` takes. */
interface ReproduceOptions {
  json?: boolean;
  markdown?: boolean;
  seed: number;
  quick?: boolean;
  hidden?: number[];
  noise?: number;
  seeds?: number;
  report?: string;
  workers?: number;
  redis?: string;
  checkpoint?: string;
}

/** Refuses the flags that only some experiments take when `name` is not one of them. */
function checkOwnedFlags(name: string, options: ReproduceOptions): void {
  for (const [flag, owners] of [
    ["hidden", ["robot-arm"]],
    ["noise", ["robot-arm"]],
    ["seeds", ["calibration", "real-models"]],
  ] as const) {
    if (options[flag] !== undefined && !(owners as readonly string[]).includes(name)) {
      throw new OccamError(
        "invalid-argument",
        `--${flag} applies only to ${owners.join(" and ")}, not to ${name}.`,
      );
    }
  }
}

/**
 * Refuses, before the run, outputs and parallel flags the experiment does not have: a long
 * experiment never ends without the report or table asked for.
 */
function checkOutputs(name: string, reproduction: Reproduction, options: ReproduceOptions): void {
  if (options.report !== undefined && reproduction.report === undefined) {
    throw new OccamError(
      "invalid-argument",
      `reproduce ${name} has no HTML report; run it without --report (its table and --json have every number).`,
    );
  }
  if (options.markdown === true && reproduction.markdown === undefined) {
    throw new OccamError(
      "invalid-argument",
      `reproduce ${name} has no markdown table; --markdown applies only to calibration.`,
    );
  }
  if (options.markdown === true && options.json === true) {
    throw new OccamError("invalid-argument", "give --json or --markdown, not both.");
  }
  for (const flag of ["workers", "redis", "checkpoint"] as const) {
    if (options[flag] !== undefined && !reproduction.parallel) {
      throw new OccamError("invalid-argument", `--${flag} applies only to ${parallelNames}, not to ${name}.`);
    }
  }
}
