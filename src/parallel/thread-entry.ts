/**
 * The program of each worker thread: it loads the module of unit commands its pool names (in
 * `workerData`), and runs the units it is handed. Errors come back as data, so that an OccamError keeps
 * its code across the thread boundary; results come back encoded, exactly as over the queue.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { workerData } from "node:worker_threads";
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
// Loaded at the first unit, not at the top level: a top-level await keeps tsx from loading this file.
let commands: Promise<UnitCommands> | undefined;

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

/** Runs one unit (piscina calls this for each task). */
export default async function runThreadUnit(unit: unknown): Promise<ThreadOutcome> {
  try {
    commands ??= loadCommands(data.commands);
    return { ok: true, result: encodeResult(await runUnit(await commands, unit, context)) };
  } catch (error) {
    if (error instanceof OccamError) return { ok: false, code: error.code, message: error.message };
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { ok: false, code: "internal", message };
  }
}
