import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Tests of the public API import "occam" by name, as a user's script does.
    alias: { occam: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Statistical tests run long chains; the machine has two cores.
    testTimeout: 120_000,
    pool: "threads",
    // Vitest's default is one thread fewer than the cores: one on this two-core machine.
    maxWorkers: 2,
    // A private Redis server for the tests of the queue (see the file).
    globalSetup: ["./test/support/redis-server.ts"],
  },
});
