/**
 * The worker-thread pool (piscina): units run on up to N threads of this machine, each thread loading
 * the module of unit commands it is told about. Units are handed out in the order given (put the
 * costliest first) and their results filed by position, never by the order they finish in.
 */
import { setMaxListeners } from "node:events";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import { OccamError, type OccamErrorCode } from "../errors.js";
import type { ShareOutcome, ShareProgress, ThreadData, ThreadOutcome, ThreadShare } from "./thread-entry.js";
import {
  dataFolderContext,
  decodeResult,
  encodeResult,
  runUnit,
  type Unit,
  type UnitCommands,
} from "./units.js";

/**
 * The URL of the module `name` beside `base` (an `import.meta.url`): the compiled `name.js` when it
 * exists (occam run from dist/), else `name.ts` (occam run from its sources, as under vitest or tsx);
 * `.cjs` and `.cts` for a CommonJS module.
 */
export function siblingModule(base: string, name: string, kind: "esm" | "cjs" = "esm"): string {
  const [compiledExtension, sourceExtension] = kind === "esm" ? [".js", ".ts"] : [".cjs", ".cts"];
  const compiled = new URL(`./${name}${compiledExtension}`, base);
  return existsSync(fileURLToPath(compiled))
    ? compiled.href
    : new URL(`./${name}${sourceExtension}`, base).href;
}

/** Node flags that let a thread load TypeScript sources: tsx's loader, when the entry is a source file. */
function threadExecArgv(entry: string): string[] | undefined {
  if (!/\.c?ts$/.test(entry)) return undefined;
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
  /**
   * Runs a share of a job on a free thread (see {@link ThreadShare}); resolves to the decoded results
   * of the units it claimed, by index, and rejects with the OccamError of the first that failed.
   */
  runShare(share: ThreadShare, signal?: AbortSignal): Promise<(readonly [number, unknown])[]>;
  destroy(): Promise<void>;
}

/** A unit's decoded result, or its error thrown. */
function unitResult(outcome: ThreadOutcome): unknown {
  if (!outcome.ok) throw new OccamError(outcome.code as OccamErrorCode, outcome.message);
  return decodeResult(outcome.result);
}

/** Starts a pool of threads that run units of the given command module. */
export function createThreadPool(options: ThreadPoolOptions): ThreadPool {
  // Piscina loads the CommonJS boot file, which imports the thread's program (see thread-boot.cts).
  const boot = siblingModule(import.meta.url, "thread-boot", "cjs");
  const workerData: ThreadData & { entry: string } = {
    entry: siblingModule(import.meta.url, "thread-entry"),
    commands: options.commands,
    dataFolder: options.dataFolder ?? process.cwd(),
  };
  const piscina = new Piscina({
    filename: boot,
    // Started at once: each thread loads occam while the job is being handed out.
    minThreads: options.threads,
    maxThreads: options.threads,
    execArgv: threadExecArgv(boot),
    workerData,
  });
  return {
    async run(unit, signal) {
      return unitResult((await piscina.run(unit, signal === undefined ? {} : { signal })) as ThreadOutcome);
    },
    async runShare(share, signal) {
      const transferList = [share.progress];
      const outcomes = (await piscina.run(share, {
        transferList,
        ...(signal === undefined ? {} : { signal }),
      })) as ShareOutcome;
      return outcomes.map(([i, outcome]) => [i, unitResult(outcome)] as const);
    },
    destroy: () => piscina.destroy(),
  };
}

/** Threads started ahead of their job by {@link startThreadsEarly}, until a run takes them. */
let early: { pool: ThreadPool; options: ThreadPoolOptions } | undefined;

/**
 * Starts the pool threads of a coming {@link runOnThreads} now, so that they load occam while the
 * calling thread reads the data and prepares the units. The next run with the same commands and data
 * folder takes them; a caller must {@link releaseEarlyThreads} when it is done (they would keep the
 * process alive if an error came before the run).
 */
export function startThreadsEarly(options: ThreadPoolOptions): void {
  if (early !== undefined || options.threads < 1) return;
  early = { pool: createThreadPool(options), options };
}

/** Stops the threads {@link startThreadsEarly} started, if no run took them. */
export async function releaseEarlyThreads(): Promise<void> {
  const pool = early?.pool;
  early = undefined;
  await pool?.destroy();
}

/** The URL of one of occam's unit-command modules, by name (e.g. "compare-units"). */
export function unitModule(name: string): string {
  return siblingModule(import.meta.url, name);
}

/** Options of {@link runOnThreads}. */
export interface RunOnThreadsOptions extends ThreadPoolOptions {
  /** Loads the unit commands in this thread: the calling thread runs units too. */
  commandsHere: () => Promise<UnitCommands>;
  /** Stops the run: every thread is terminated and the run rejects with an `aborted` OccamError. */
  signal?: AbortSignal;
  /** Told after each unit finishes (in finishing order: for progress only). */
  onUnit?: (done: number, total: number, key: string) => void;
  /** Told each unit's result as soon as this thread has it: a pool thread's when its share ends. */
  onResult?: (index: number, result: unknown) => void;
}

/**
 * Runs the units on `threads` threads, the calling thread and `threads − 1` pool threads, and returns
 * their results in the units' order. Every thread claims the next unit from a shared counter when it is
 * free, so none waits for another to hand it work. The calling thread works rather than waits because
 * a pool thread's start (loading occam, warming up the JIT) costs about a second, as much as several
 * units of a short job. The first unit to fail stops the others (the pool is destroyed) and its error is
 * thrown.
 */
export async function runOnThreads(units: readonly Unit[], options: RunOnThreadsOptions): Promise<unknown[]> {
  const total = units.length;
  const taken =
    early?.options.commands === options.commands && early.options.dataFolder === options.dataFolder
      ? early
      : undefined;
  if (taken !== undefined) early = undefined;
  const poolThreads = taken?.options.threads ?? Math.min(options.threads, total) - 1;
  const pool =
    taken?.pool ?? (poolThreads >= 1 ? createThreadPool({ ...options, threads: poolThreads }) : undefined);
  const claims = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const abort = () => stop.abort();
  options.signal?.addEventListener("abort", abort, { once: true });
  stop.signal.addEventListener("abort", () => Atomics.store(claims, 0, total), { once: true });
  const results = new Array<unknown>(total);
  const reported = new Uint8Array(total);
  let done = 0;
  const finished = (i: number, result: unknown) => {
    if (reported[i] === 1) return;
    reported[i] = 1;
    results[i] = result;
    done++;
    options.onUnit?.(done, total, units[i].key);
    options.onResult?.(i, result);
  };
  const poolShare = async (threadPool: ThreadPool) => {
    const { port1, port2 } = new MessageChannel();
    // Each result as its unit ends; the share's returned results, at its end, fill in any message
    // the closing port did not deliver.
    port1.on("message", ([i, encoded]: ShareProgress) => finished(i, decodeResult(encoded)));
    try {
      for (const [i, result] of await threadPool.runShare({ units, claims, progress: port2 }, stop.signal)) {
        finished(i, result);
      }
    } finally {
      port1.close();
    }
  };
  const hereShare = async () => {
    const commands = await options.commandsHere();
    const context = dataFolderContext(options.dataFolder ?? process.cwd());
    for (let i = Atomics.add(claims, 0, 1); i < total; i = Atomics.add(claims, 0, 1)) {
      // Through the encoding, as a pool thread's result is, so that both give the same numbers.
      finished(i, decodeResult(encodeResult(await runUnit(commands, units[i], context))));
      // Let the pool threads' progress and a pending abort (Ctrl-C) through.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (stop.signal.aborted) throw abortedError();
  };
  try {
    if (options.signal?.aborted) throw abortedError();
    const shares = [hereShare()];
    for (let k = 0; k < poolThreads; k++) shares.push(poolShare(pool as ThreadPool));
    await Promise.all(shares).catch((error: unknown) => {
      stop.abort();
      throw options.signal?.aborted ? abortedError() : error;
    });
    return results;
  } finally {
    options.signal?.removeEventListener("abort", abort);
    await pool?.destroy();
  }
}

/** The error of a run stopped by its signal. */
export function abortedError(): OccamError {
  return new OccamError("aborted", "stopped before the work was done: nothing was written.");
}
