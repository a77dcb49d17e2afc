/**
 * The worker-thread pool (piscina): units run on up to N threads of this machine, each thread loading
 * the module of unit commands it is told about. Units are handed out in the order given (put the
 * costliest first) and their results filed by position, never by the order they finish in.
 */
import { setMaxListeners } from "node:events";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Piscina } from "piscina";
import { OccamError, type OccamErrorCode } from "../errors.js";
import type { ThreadData, ThreadOutcome } from "./thread-entry.js";
import { decodeResult, type Unit } from "./units.js";

/**
 * The URL of the module `name` beside `base` (an `import.meta.url`): the compiled `name.js` when it
 * exists (occam run from dist/), else `name.ts` (occam run from its sources, as under vitest or tsx).
 */
export function siblingModule(base: string, name: string): string {
  const compiled = new URL(`./${name}.js`, base);
  return existsSync(fileURLToPath(compiled)) ? compiled.href : new URL(`./${name}.ts`, base).href;
}

/** Node flags that let a thread load TypeScript sources: tsx's loader, when the entry is a `.ts` file. */
function threadExecArgv(entry: string): string[] | undefined {
  if (!entry.endsWith(".ts")) return undefined;
  const loader = createRequire(import.meta.url).resolve("tsx");
  return ["--import", pathToFileURL(loader).href];
}

/** Options of {@link createThreadPool}. */
export interface ThreadPoolOptions {
  /** Number of threads (≥ 1). */
  threads: number;
  /** URL of the module exporting `commands`, the unit commands the threads run (see {@link siblingModule}). */
  commands: string;
  /** The folder bounding the paths units name. @defaultValue the working directory */
  dataFolder?: string;
}

/** A pool of threads running units; `destroy` stops every thread at once, mid-unit if need be. */
export interface ThreadPool {
  /** Runs one unit on a free thread; resolves to its decoded result, rejects with its OccamError. */
  run(unit: Unit, signal?: AbortSignal): Promise<unknown>;
  destroy(): Promise<void>;
}

/** Starts a pool of threads that run units of the given command module. */
export function createThreadPool(options: ThreadPoolOptions): ThreadPool {
  const entry = siblingModule(import.meta.url, "thread-entry");
  const workerData: ThreadData = {
    commands: options.commands,
    dataFolder: options.dataFolder ?? process.cwd(),
  };
  const piscina = new Piscina({
    filename: entry,
    minThreads: 0,
    maxThreads: options.threads,
    idleTimeout: 1000,
    execArgv: threadExecArgv(entry),
    workerData,
  });
  return {
    async run(unit, signal) {
      const outcome = (await piscina.run(unit, signal === undefined ? {} : { signal })) as ThreadOutcome;
      if (!outcome.ok) throw new OccamError(outcome.code as OccamErrorCode, outcome.message);
      return decodeResult(outcome.result);
    },
    destroy: () => piscina.destroy(),
  };
}

/** Options of {@link runOnThreads}. */
export interface RunOnThreadsOptions extends ThreadPoolOptions {
  /** Stops the run: every thread is terminated and the run rejects with an `aborted` OccamError. */
  signal?: AbortSignal;
  /** Told after each unit finishes (in finishing order: for progress only). */
  onUnit?: (done: number, total: number, key: string) => void;
}

/**
 * Runs the units on a pool of threads and returns their results in the units' order. The first unit to
 * fail stops the others (the pool is destroyed) and its error is thrown.
 */
export async function runOnThreads(units: readonly Unit[], options: RunOnThreadsOptions): Promise<unknown[]> {
  const pool = createThreadPool({
    ...options,
    threads: Math.min(options.threads, Math.max(1, units.length)),
  });
  const stop = new AbortController();
  // Every queued unit listens to the same signal.
  setMaxListeners(0, stop.signal);
  const abort = () => stop.abort();
  options.signal?.addEventListener("abort", abort, { once: true });
  let done = 0;
  try {
    if (options.signal?.aborted) throw abortedError();
    const results = await Promise.all(
      units.map(async (unit) => {
        const result = await pool.run(unit, stop.signal);
        // Counted apart: `?.` would skip the increment when no one listens.
        done++;
        options.onUnit?.(done, units.length, unit.key);
        return result;
      }),
    ).catch((error: unknown) => {
      stop.abort();
      throw options.signal?.aborted ? abortedError() : error;
    });
    return results;
  } finally {
    options.signal?.removeEventListener("abort", abort);
    await pool.destroy();
  }
}

/** The error of a run stopped by its signal. */
export function abortedError(): OccamError {
  return new OccamError("aborted", "stopped before the work was done: nothing was written.");
}
