import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { binaryTargetColumns } from "../../src/data/binary-target.js";
import { csvColumns, parseCsv } from "../../src/data/csv.js";
import { formulaDesign, parseFormula } from "../../src/data/formula.js";
import {
  runCalibrationExperiment,
  runCalibrationExperimentInParallel,
} from "../../src/experiments/calibration.js";
import { runRobotArmExperiment, runRobotArmExperimentInParallel } from "../../src/experiments/robot-arm.js";
import { compareClassifierFamiliesInParallel } from "../../src/parallel/classify.js";
import { compareLinearModelsInParallel, enumeratedInBlocks } from "../../src/parallel/compare.js";
import { compareGlmsInParallel } from "../../src/parallel/compare-glm.js";
import { runUnits } from "../../src/parallel/run.js";
import { createRng } from "../../src/random/rng.js";
import { compareClassifierFamilies } from "../../src/selection/classifier-families.js";
import { compareGlms } from "../../src/selection/glm.js";
import { compareLinearModels } from "../../src/selection/linear.js";
import { regressionTable, sourceModule, withoutTimes } from "../support/parallel.js";
import { TINY_ROBOT_ARM } from "../support/robot-arm.js";

describe("units on worker threads", () => {
  it("compare --estimator gives the serial result bit for bit with 1, 2 and 4 workers", async () => {
    const table = regressionTable(30, 3, 11);
    const options = { prior: "nig" as const, estimator: "smc" as const, samples: 100, seed: 5 };
    const serial = withoutTimes(compareLinearModels(table, options));
    for (const workers of [1, 2, 4]) {
      const parallel = await compareLinearModelsInParallel(table, { ...options, workers });
      expect(withoutTimes(parallel)).toBe(serial);
    }
    // Blocks of any size give the same numbers: a model's estimate depends on its own seed only.
    const odd = await compareLinearModelsInParallel(table, { ...options, workers: 2, blockSize: 3 });
    expect(withoutTimes(odd)).toBe(serial);
  });

  it("compare with exact evidences of every subset of 19 inputs gives the serial result bit for bit with 1, 2 and 4 workers, and with terms in every model", async () => {
    // 2^19 subsets: two blocks of the enumeration, run as units.
    const table = regressionTable(60, 19, 13);
    const options = { top: 50 };
    const serialResult = compareLinearModels(table, options);
    expect(serialResult.quadrature?.panels).toBeGreaterThan(0);
    const serial = withoutTimes(serialResult);
    for (const workers of [1, 2, 4]) {
      const progress: number[] = [];
      const parallel = await compareLinearModelsInParallel(table, {
        ...options,
        workers,
        onProgress: (done) => progress.push(done),
      });
      expect(withoutTimes(parallel)).toBe(serial);
      expect(progress.at(-1)).toBe(2 ** 19);
    }
    // Terms in every model: each block skips the models without them.
    const held = { ...options, always: ["x2", "x7"] };
    const heldSerial = compareLinearModels(table, held);
    expect(heldSerial.modelCount).toBe(2 ** 17);
    expect(withoutTimes(await compareLinearModelsInParallel(table, { ...held, workers: 2 }))).toBe(
      withoutTimes(heldSerial),
    );
  });

  it("compare with exact evidences of 21 inputs gives the serial result when a unit holds several blocks, and with subsets max=p", async () => {
    // 2^21 subsets: eight blocks; one worker takes them in four units of two, two workers in eight of one.
    const table = regressionTable(60, 21, 17);
    const options = { top: 20 };
    const serial = withoutTimes(compareLinearModels(table, options));
    for (const workers of [1, 2]) {
      expect(withoutTimes(await compareLinearModelsInParallel(table, { ...options, workers }))).toBe(serial);
    }
    // A size limit of p is every subset: enumerated in the same blocks, as units.
    expect(enumeratedInBlocks(21, { max: 21 })).toBe(true);
    expect(enumeratedInBlocks(21, { max: 20 })).toBe(false);
    const limited = { ...options, subsets: { max: 21 } };
    expect(withoutTimes(await compareLinearModelsInParallel(table, { ...limited, workers: 2 }))).toBe(
      withoutTimes(compareLinearModels(table, limited)),
    );
  });

  it("compare --family gives the serial result bit for bit on 2 workers, random terms included", async () => {
    const quakes = formulaDesign(
      csvColumns(parseCsv(readFileSync("examples/real-models/quakes.csv", "utf8"))),
      parseFormula("stations ~ lat + long + depth + mag"),
      { heredity: true },
    );
    const counts = { family: "poisson" as const, prior: { name: "normal" as const, scale: 5 }, seed: 3 };
    expect(withoutTimes(await compareGlmsInParallel(quakes, { ...counts, workers: 2 }))).toBe(
      withoutTimes(compareGlms(quakes, counts)),
    );
    // The first 80 rows of MASS's bacteria: 18 children, a probit with a random intercept per child.
    const text = readFileSync("examples/real-models/bacteria.csv", "utf8")
      .split("\n")
      .slice(0, 81)
      .join("\n");
    const csv = binaryTargetColumns(csvColumns(parseCsv(text)), "y", "bernoulli");
    const grouped = formulaDesign(csv, parseFormula("y ~ (1 | ID)"), { heredity: true });
    const options = { family: "bernoulli" as const, link: "probit" as const, seed: 3 };
    expect(withoutTimes(await compareGlmsInParallel(grouped, { ...options, workers: 2 }))).toBe(
      withoutTimes(compareGlms(grouped, options)),
    );
  });

  it("reproduce robot-arm gives the serial result bit for bit with 1, 2 and 4 workers", async () => {
    const options = { seed: 3, quick: true, hidden: [1], settings: TINY_ROBOT_ARM };
    const serial = withoutTimes(runRobotArmExperiment(options));
    for (const workers of [1, 2, 4]) {
      expect(withoutTimes(await runRobotArmExperimentInParallel({ ...options, workers }))).toBe(serial);
    }
  });

  it("reproduce calibration gives the serial result bit for bit with 1 and 2 workers", async () => {
    const options = {
      seed: 2,
      quick: true,
      seeds: 2,
      problems: ["rosenbrock" as const],
      methods: ["laplace" as const, "smc" as const],
    };
    const serial = withoutTimes(runCalibrationExperiment(options));
    for (const workers of [1, 2]) {
      expect(withoutTimes(await runCalibrationExperimentInParallel({ ...options, workers }))).toBe(serial);
    }
  });

  it("classify gives the serial result bit for bit with 1 and 2 workers", async () => {
    const rng = createRng(4);
    const n = 40;
    const X = new Float64Array(n * 2);
    const labels = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      labels[i] = i % 2;
      X[2 * i] = (labels[i] === 1 ? 1 : -1) + rng.normal();
      X[2 * i + 1] = rng.normal();
    }
    const train = { X, labels, n, p: 2, inputNames: ["a", "b"], classNames: ["no", "yes"] };
    const options = { families: ["logistic", "pknn"] as const, draws: 200, warmup: 100, seed: 5, folds: 3 };
    const serial = withoutTimes(compareClassifierFamilies(train, options));
    for (const workers of [1, 2]) {
      expect(withoutTimes(await compareClassifierFamiliesInParallel(train, { ...options, workers }))).toBe(
        serial,
      );
    }
  });

  it("refuses a number of workers that is not a whole number from 1 to 1024", async () => {
    for (const workers of [0, 1.5, 2000, Number.NaN]) {
      const error = await runUnits([], sourceModule("parallel/compare-units.ts"), { workers }).catch(
        (e) => e,
      );
      expect(error.code).toBe("invalid-argument");
      expect(error.message).toMatch(/workers must be a whole number/);
    }
  });

  it("stops every thread and rejects with `aborted` when its signal fires", async () => {
    const table = regressionTable(40, 5, 12);
    const controller = new AbortController();
    const run = compareLinearModelsInParallel(table, {
      prior: "nig",
      estimator: "smc",
      samples: 2000,
      workers: 2,
      signal: controller.signal,
      // Once the first unit is done, while the others run, however fast or slow the machine.
      onProgress: () => controller.abort(),
    });
    const error = await run.catch((e) => e);
    expect(error.code).toBe("aborted");
  });
});
