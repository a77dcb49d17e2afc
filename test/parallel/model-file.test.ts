import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnOccam } from "../support/spawn.js";

/** y_i ~ N(mu, 1), mu ~ N(0, 2²) on 12 observations, written in TypeScript; exact log Z −14.6228. */
const TYPESCRIPT_MODEL = `import { type BayesModel, defineModel } from "occam";
import { observations } from "./data.ts";

const LOG_2PI: number = Math.log(2 * Math.PI);
const logPrior = (t: Float64Array): number => -0.5 * (LOG_2PI + 2 * Math.log(2) + (t[0] / 2) ** 2);
const logLikelihood = (t: Float64Array): number =>
  observations.reduce((s: number, v: number) => s - 0.5 * (LOG_2PI + (v - t[0]) ** 2), 0);
const model: BayesModel = { dim: 1, logPrior, logLikelihood, samplePrior: (rng) => Float64Array.of(2 * rng.normal()) };
export default defineModel(model);
`;

const DATA = `export const observations: readonly number[] = [0.8, 1.9, 1.1, 0.4, 1.6, 1.3, 0.9, 2.2, 1.0, 1.5, 0.7, 1.2];\n`;

/** A model whose likelihood throws away from the origin, past defineModel's checks at prior draws. */
const THROWING_MODEL = `import { defineModel } from "occam";

export default defineModel({
  dim: 2,
  logPrior: (t) => -0.5 * (t[0] * t[0] + t[1] * t[1]) - Math.log(2 * Math.PI),
  logLikelihood: (t) => {
    if (t[0] > 1.5) throw new Error("boom");
    return -t[0] * t[0];
  },
  samplePrior: (rng) => Float64Array.of(rng.normal(), rng.normal()),
});
`;

/** A model written as a class with a private field, as some users write one. */
const CLASS_MODEL = `import { defineModel } from "occam";

class Mean {
  #y = [0.8, 1.9, 1.1, 0.4, 1.6, 1.3, 0.9, 2.2, 1.0, 1.5, 0.7, 1.2];
  dim = 1;
  logPrior(t) {
    return -0.5 * (Math.log(2 * Math.PI) + 2 * Math.log(2) + (t[0] / 2) ** 2);
  }
  logLikelihood(t) {
    return this.#y.reduce((s, v) => s - 0.5 * (Math.log(2 * Math.PI) + (v - t[0]) ** 2), 0);
  }
  samplePrior(rng) {
    return Float64Array.of(2 * rng.normal());
  }
  exactLogEvidence() {
    return -14.62281;
  }
}
export default defineModel(new Mean());
`;

describe("a user's model file", () => {
  // A folder outside the repository, where no occam is installed.
  const dir = mkdtempSync(join(tmpdir(), "occam-model-"));
  writeFileSync(join(dir, "model.ts"), TYPESCRIPT_MODEL);
  writeFileSync(join(dir, "data.ts"), DATA);
  writeFileSync(join(dir, "throws.mjs"), THROWING_MODEL);
  writeFileSync(join(dir, "class.mjs"), CLASS_MODEL);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loads from a folder without occam, written in TypeScript, in this thread and in worker threads", async () => {
    const run = spawnOccam(
      ["evidence", "model.ts", "--methods", "bridge,smc", "--workers", "2", "--json"],
      dir,
    );
    const end = await run.exited;
    expect(end.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.failures).toEqual([]);
    for (const r of report.results) {
      expect(r.reliable).toBe(true);
      expect(Math.abs(r.logZ - -14.62281)).toBeLessThan(4 * r.stdErr + 1e-3);
    }
  });

  it("blames an exception thrown by the model's code on the model: exit 2, the file, the function, θ and the line", async () => {
    const run = spawnOccam(["evidence", "throws.mjs", "--methods", "bridge,smc"], dir);
    const end = await run.exited;
    expect(end.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      /^occam: .*throws\.mjs: model\.logLikelihood threw at θ = \[1\.[5-9]\d*, -?\d\.\d+\]: boom \(line 7:\d+\)\. The error is in the model's code/,
    );
    expect(run.stderr).not.toMatch(/internal error|\n {4}at /);
  });

  it("keeps a model written as a class, private fields and methods included", async () => {
    const run = spawnOccam(["evidence", "class.mjs", "--methods", "importance,laplace", "--json"], dir);
    const end = await run.exited;
    expect(end.code, run.stderr).toBe(0);
    const importance = JSON.parse(run.stdout).results[0];
    expect(Math.abs(importance.logZ - -14.62281)).toBeLessThan(4 * importance.stdErr + 1e-3);
  });
});
