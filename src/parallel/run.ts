/**
 * Where a job's units run: in this thread, on a pool of worker threads, or through a Redis queue to
 * `occam worker` processes on other machines. Whichever, the results come back in the units' order,
 * so a job's assembled result is the same bit for bit.
 */
import { availableParallelism } from "node:os";
import { OccamError } from "../errors.js";
import type { UnitCheckpoint } from "./checkpoint.js";
import { abortedError, runOnThreads } from "./pool.js";
import { decodeResult, encodeResult, type Unit, type UnitCommands } from "./units.js";

/** Where and how widely the units of a long computation run. */
export interface ParallelOptions {
  /**
   * Threads working on this machine, the calling thread among them; 1 runs every unit in the calling
   * thread. Results are the same whatever the number.
   * @defaultValue the machine's available parallelism (`os.availableParallelism()`)
   */
  workers?: number;
  /**
   * A Redis server, `redis://HOST:PORT`: the units are queued there and run by `occam worker`
   * processes (on any machine that reaches the server) instead of local threads.
   */
  redis?: string;
  /** Stops the run: threads are terminated, queued units withdrawn, and the call rejects (`aborted`). */
  signal?: AbortSignal;
  /**
   * Keeps each finished unit's result as it comes (see `fileCheckpoint`); units it already holds are not
   * run again, so a stopped run resumes where it was, with the same result.
   */
  checkpoint?: UnitCheckpoint;
}

/** {@link ParallelOptions} checked, with the default filled in. */
export interface ResolvedParallelOptions {
  workers: number;
  redis: string | undefined;
  signal: AbortSignal | undefined;
}

/** Checks {@link ParallelOptions}: `workers` a whole number from 1 to 1024. */
export function resolveParallelOptions(options: ParallelOptions): ResolvedParallelOptions {
  const workers = options.workers ?? availableParallelism();
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 1024)) {
    throw new OccamError(
      "invalid-argument",
      `workers must be a whole number from 1 to 1024, got ${workers}.`,
    );
  }
  return { workers, redis: options.redis, signal: options.signal };
}

/** Options of {@link runUnits}. */
export interface RunUnitsOptions extends ParallelOptions {
  /** Told after each unit finishes, with the count done, the total and the unit's key. */
  onUnit?: (done: number, total: number, key: string) => void;
  /** Told each unit's result (by the unit's index) as soon as this thread has it, before the run ends. */
  onResult?: (index: number, result: unknown) => void;
  /** The folder bounding the paths units name, on this machine. @defaultValue the working directory */
  dataFolder?: string;
}

/**
 * Runs the units of one job where the options say and returns their results in the units' order.
 * `commandsModule` is the URL of the module exporting the `commands` that run them (see
 * `siblingModule`); in this thread and on the queue's coordinator it is imported here. Every result
 * passes through the queue's encoding, also in this thread, so that each way of running gives the
 * same numbers.
 */
export async function runUnits(
  units: readonly Unit[],
  commandsModule: string,
  options: RunUnitsOptions = {},
): Promise<unknown[]> {
  const { checkpoint, ...rest } = options;
  if (checkpoint === undefined) return runFreshUnits(units, commandsModule, rest);
  const results = units.map((unit) => {
    const encoded = checkpoint.find(unit);
    return encoded === undefined ? undefined : decodeResult(encoded);
  });
  const pending = units.flatMap((_unit, i) => (results[i] === undefined ? [i] : []));
  const kept = units.length - pending.length;
  const fresh = await runFreshUnits(
    pending.map((i) => units[i]),
    commandsModule,
    {
      ...rest,
      onUnit: (done, _total, key) => options.onUnit?.(kept + done, units.length, key),
      onResult(index, result) {
        checkpoint.keep(units[pending[index]], encodeResult(result));
        options.onResult?.(pending[index], result);
      },
    },
  );
  pending.forEach((i, k) => {
    results[i] = fresh[k];
  });
  return results;
}

/** {@link runUnits} without a checkpoint: every unit runs. */
async function runFreshUnits(
  units: readonly Unit[],
  commandsModule: string,
  options: RunUnitsOptions,
): Promise<unknown[]> {
  const { workers, redis, signal } = resolveParallelOptions(options);
  if (signal?.aborted) throw abortedError();
  if (units.length === 0) return [];
  const load = async () => ((await import(commandsModule)) as { commands: UnitCommands }).commands;
  if (redis !== undefined) {
    // BullMQ is loaded only for a queued run: it takes half a second that local runs need not pay.
    const { runOnQueue } = await import("./queue.js");
    return runOnQueue(units, {
      redis,
      commands: await load(),
      signal,
      onUnit: options.onUnit,
      onResult: options.onResult,
    });
  }
  return runOnThreads(units, {
    threads: workers,
    commands: commandsModule,
    commandsHere: load,
    dataFolder: options.dataFolder,
    signal,
    onUnit: options.onUnit,
    onResult: options.onResult,
  });
}
