/**
 * The file piscina loads in each worker thread. Piscina loads its `filename` with `require` first; on
 * Node ≥ 20.19 that require of an ES module (`require(esm)`) instantiates it synchronously, and a
 * thread terminated in the middle of it aborts the whole process (a V8 fatal error, exit 134), which
 * happens when a job fails while its threads are still starting. This file is CommonJS, so its require
 * is ordinary; it loads the thread's real program (thread-entry) by `import()`, which a terminated
 * thread simply abandons.
 */
import { fileURLToPath } from "node:url";
import { workerData } from "node:worker_threads";

/** What the pool tells this file: the URL of the thread's program. */
interface BootData {
  readonly entry: string;
}

const { entry } = workerData as BootData;

/**
 * The program's task handler. Sources (`.ts`, under vitest or tsx) are required: in a worker thread on
 * Node 20, tsx's loader serves `require` but not `import()`, and it compiles them to CommonJS itself.
 */
const handler = (async (): Promise<(task: unknown) => Promise<unknown>> =>
  entry.endsWith(".ts") ? require(fileURLToPath(entry)).default : (await import(entry)).default)();
// A failure to load is reported with the first task, not as an unhandled rejection.
handler.catch(() => {});

/** Runs one task of the pool with the thread's program. */
module.exports = async function runTask(task: unknown): Promise<unknown> {
  return (await handler)(task);
};
