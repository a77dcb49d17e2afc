import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Statistical tests run long chains; the machine has two cores.
    testTimeout: 120_000,
    pool: "threads",
  },
});
