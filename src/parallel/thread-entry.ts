/**
 * The program of each worker thread: it loads the module of unit commands its pool names (in
 * `workerData`), and runs the units it is handed. Errors come back as data, so that an OccamError keeps
 * its code across the thread boundary; results come back encoded, exactly as over the queue.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { type MessagePort, workerData } from "node:worker_threads";
import { OccamError } from "../errors.js";
import { dataFolderContext, encodeResult, runUnit, type UnitCommands } from "./units.js";

/** What a pool tells its threads. */
export interface ThreadData {
  /** URL of a module exporting `commands`: the {@link UnitCommands} this thread serves. */
  readonly commands: string;
  /** The folder bounding every path a unit names. */
  readonly dataFolder: string;
}

/** A unit's outcome as it crosses back: its encoded result, or its error. */
export type ThreadOutcome =
  | { readonly ok: true; readonly result: string }
  | { readonly ok: false; readonly code: string; readonly message: string };

const data = workerData as ThreadData;
const context = dataFolderContext(data.dataFolder);
/**
 * Imports the command module. Sources (`.ts`, under vitest or tsx) are required: in a worker thread on
 * Node 20 tsx's loader hooks serve `require` but not `import()`.
 */
async function loadCommands(url: string): Promise<UnitCommands> {
  const module: { commands: UnitCommands } = url.endsWith(".ts")
    ? createRequire(import.meta.url)(fileURLToPath(url))
    : await import(url);
  return module.commands;
}

// Loading starts with the thread, before its first unit arrives (not awaited here: a top-level await
// keeps tsx from loading this file). A failure is reported with each unit, not as an unhandled rejection.
const commands = loadCommands(data.commands);
commands.catch(() => {});

/**
 * A thread's share of a job run on this machine: the thread claims the units one by one from the
 * counter it shares with the other threads (`Atomics.add` on `claims[0]`), so that no thread waits for
 * another to hand it work, and posts each finished unit's index and encoded result on `progress`
 * (a {@link ShareProgress}), so that the caller has it at once (to show, or to keep in a checkpoint).
 */
export interface ThreadShare {
  readonly units: readonly unknown[];
  readonly claims: Int32Array;
  readonly progress: MessagePort;
}

/** A finished unit of a share, as its thread posts it: its index in the job and its encoded result. */
export type ShareProgress = readonly [number, string];

/** The outcomes of a share's units, by their index in the job. */
export type ShareOutcome = readonly (readonly [number, ThreadOutcome])[];

/** Runs one unit, or a share of units (piscina calls this for each task). */
export default async function runThreadTask(task: unknown): Promise<ThreadOutcome | ShareOutcome> {
  return isShare(task) ? runShare(task) : runThreadUnit(task);
}

function isShare(task: unknown): task is ThreadShare {
  return typeof task === "object" && task !== null && (task as ThreadShare).claims instanceof Int32Array;
}

async function runShare({ units, claims, progress }: ThreadShare): Promise<ShareOutcome> {
  const outcomes: [number, ThreadOutcome][] = [];
  for (let i = Atomics.add(claims, 0, 1); i < units.length; i = Atomics.add(claims, 0, 1)) {
    const outcome = await runThreadUnit(units[i]);
    outcomes.push([i, outcome]);
    if (!outcome.ok) {
      // No one else starts a unit: the job has failed.
      Atomics.store(claims, 0, units.length);
      break;
    }
    progress.postMessage([i, outcome.result] satisfies ShareProgress);
  }
  progress.close();
  return outcomes;
}

async function runThreadUnit(unit: unknown): Promise<ThreadOutcome> {
  try {
    return { ok: true, result: encodeResult(await runUnit(await commands, unit, context)) };
  } catch (error) {
    if (error instanceof OccamError) return { ok: false, code: error.code, message: error.message };
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { ok: false, code: "internal", message };
  }
}
