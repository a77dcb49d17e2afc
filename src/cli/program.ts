import { Command, CommanderError } from "commander";
import { OccamError } from "../errors.js";
import { registerClassify } from "./classify.js";
import { registerCompare } from "./compare.js";
import { registerEvidence } from "./evidence.js";
import { registerFitMlp } from "./fit-mlp.js";
import { type Io, processIo } from "./io.js";
import { Interrupted } from "./parallel.js";
import { registerReproduce } from "./reproduce.js";
import { registerSelectInputs } from "./select-inputs.js";
import { registerWorker } from "./worker.js";

/** Builds the `occam` command with all its subcommands, writing to `io`. */
export function buildProgram(io: Io): Command {
  const program = new Command("occam")
    .description("Bayesian model comparison: marginal likelihoods with honest error bars")
    .version("0.1.0")
    .option(
      "--progress",
      "show progress on stderr even when it is not a terminal (a line at most each second)",
    )
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      outputError: (message, write) => write(`occam: ${message.replace(/^error: /, "")}`),
    });
  registerClassify(program, io);
  registerCompare(program, io);
  registerEvidence(program, io);
  registerFitMlp(program, io);
  registerReproduce(program, io);
  registerSelectInputs(program, io);
  registerWorker(program, io);
  return program;
}

/**
 * Runs the CLI and returns its exit code: 0 on success, 2 for a user's mistake (bad arguments,
 * bad data), 1 for an internal fault, 130 when interrupted (Ctrl-C). Errors are printed as one line on stderr, never a stack trace.
 */
export async function main(argv: readonly string[], given: Io = processIo): Promise<number> {
  // A copy whose progress mode `--progress` may change before the command runs.
  const io: Io = { ...given };
  const program = buildProgram(io);
  program.hook("preAction", (command) => {
    if (command.opts().progress === true && io.progress === "off") io.progress = "lines";
  });
  try {
    await program.parseAsync(argv as string[], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version leave through here with code 0; usage errors were already printed.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof Interrupted) {
      io.stderr(`occam: ${error.message}\n`);
      return 130;
    }
    if (error instanceof OccamError) {
      io.stderr(`occam: ${error.message}\n`);
      return error.isUserError ? 2 : 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`occam: internal error: ${message}\n`);
    return 1;
  }
}
