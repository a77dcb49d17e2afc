import { availableParallelism } from "node:os";
import { Option } from "commander";
import { OccamError } from "../errors.js";
import { wholeNumber } from "./arguments.js";

/** The parallel options every long command takes. */
export interface ParallelFlags {
  workers?: number;
  redis?: string;
}

/** The `--workers N` option of a long command. */
export function workersOption(): Option {
  return new Option(
    "--workers <N>",
    `worker threads on this machine (default ${availableParallelism()}, its available parallelism); the same result whatever N`,
  ).argParser(wholeNumber("--workers"));
}

/** The `--redis URL` option of a command that can queue its units. */
export function redisOption(): Option {
  return new Option(
    "--redis <URL>",
    "queue the work on this Redis server (redis://HOST:PORT) for `occam worker` processes to run",
  );
}

/** The error by which an interrupted command (Ctrl-C) leaves: the CLI exits 130, as a shell does. */
export class Interrupted extends Error {
  constructor() {
    super("interrupted: every worker was stopped and no output was written.");
    this.name = "Interrupted";
  }
}

/**
 * Runs `work(input, options)` with Ctrl-C (SIGINT) wired to `options.signal` (see {@link withInterrupt}).
 */
export function interruptible<I, O extends { signal?: AbortSignal } | undefined, T>(
  work: (input: I, options: O) => Promise<T>,
  input: I,
  options: NoInfer<O>,
): Promise<T> {
  return withInterrupt((signal) => work(input, { ...options, signal } as O));
}

/**
 * Runs a command's work with Ctrl-C (SIGINT) wired to the signal it is given: the first Ctrl-C stops
 * the workers (threads terminated, queued units withdrawn) and the command leaves by
 * {@link Interrupted}, before writing anything. The handler is removed when the work ends.
 */
export async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T> | T): Promise<T> {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.on("SIGINT", onInterrupt);
  try {
    return await work(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) throw new Interrupted();
    throw error;
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}

/** Refuses `--redis` on a run that does not split into units. */
export function refuseRedis(flags: ParallelFlags, why: string): void {
  if (flags.redis !== undefined)
    throw new OccamError("invalid-argument", `--redis does not apply here: ${why}`);
}
