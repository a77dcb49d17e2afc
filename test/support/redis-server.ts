/**
 * Vitest global set-up: a private Redis server (Debian's redis-server) on a free port of 127.0.0.1 for
 * the tests of the queue, stopped when the run ends. Its URL reaches the tests as `inject("redisUrl")`,
 * null when redis-server is not installed; under CI (`CI` set) a missing redis-server fails the run
 * instead, so that the queue's tests are never skipped there unnoticed.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string | null;
  }
}

/** A port free on 127.0.0.1 at this moment. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the server prints that it accepts connections; rejects if it exits first. */
function ready(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    server.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const installed = spawnSync("redis-server", ["--version"]).status === 0;
  if (!installed) {
    if (process.env.CI)
      throw new Error(
        "redis-server is not installed: the queue's tests need it (apt-get install redis-server).",
      );
    project.provide("redisUrl", null);
    return async () => {};
  }
  const dir = mkdtempSync(join(tmpdir(), "occam-redis-"));
  const port = await freePort();
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await ready(server);
  project.provide("redisUrl", `redis://127.0.0.1:${port}`);
  return async () => {
    server.kill("SIGTERM");
    await new Promise((resolve) => (server.exitCode === null ? server.once("exit", resolve) : resolve(null)));
    rmSync(dir, { recursive: true, force: true });
  };
}
