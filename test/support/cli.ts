import type { Io } from "../../src/cli/io.js";
import { main } from "../../src/cli/program.js";

/** What one CLI run produced: its exit code and everything it wrote to each stream. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `occam ARGS` in-process with captured output (not a terminal unless `interactive`). */
export async function runCli(args: string[], interactive = false): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    progress: interactive ? "terminal" : "off",
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
