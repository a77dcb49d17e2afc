/** Runs the CLI from its sources as a separate process, as a user's shell does. */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository's folder. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** tsx's loader, by its full URL so that the CLI can run from any folder. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** A running `occam` process with what it has written so far. */
export interface Spawned {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stderr matches `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/** Starts `occam ARGS` (through tsx, from src/) in `cwd`. */
export function spawnOccam(args: readonly string[], cwd = ROOT): Spawned {
  const child = spawn(process.execPath, ["--import", TSX, `${ROOT}src/cli/main.ts`, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const listeners = new Set<() => void>();
  const run: Spawned = {
    child,
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal }))),
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(run.stderr)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${pattern} on stderr in ${timeoutMs} ms; stderr:\n${run.stderr}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
  child.stdout?.on("data", (chunk: Buffer) => {
    run.stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    run.stderr += chunk.toString();
    for (const check of [...listeners]) check();
  });
  return run;
}
