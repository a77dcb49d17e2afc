/** Runs occam's CLI in this process, as the benchmarks time it: its output, exit code and seconds. */
import type { Io } from "../src/cli/io.js";
import { main } from "../src/cli/program.js";

/** What one in-process run of the CLI printed and cost. */
export interface TimedRun {
  readonly code: number;
  readonly stdout: string;
  /** Wall seconds. */
  readonly wall: number;
  /** CPU seconds of this process (all its threads), robust to a loaded machine. */
  readonly cpu: number;
}

/** `occam ARGS…` in this process, standard error and progress discarded. */
export async function timedCli(args: readonly string[]): Promise<TimedRun> {
  let stdout = "";
  const io: Io = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: () => undefined,
    progress: "off",
  };
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const code = await main(args, io);
  const wall = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { code, stdout, wall, cpu: (cpu.user + cpu.system) / 1e6 };
}
