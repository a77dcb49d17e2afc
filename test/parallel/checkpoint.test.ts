import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  runCalibrationExperiment,
  runCalibrationExperimentInParallel,
} from "../../src/experiments/calibration.js";
import { fileCheckpoint, type UnitCheckpoint } from "../../src/parallel/checkpoint.js";
import { withoutTimes } from "../support/parallel.js";

const options = {
  seed: 2,
  quick: true,
  seeds: 2,
  problems: ["rosenbrock" as const],
  methods: ["laplace" as const, "smc" as const],
};

/** The file's checkpoint, counting the units it is given to keep (those that ran). */
function countingCheckpoint(path: string): { checkpoint: UnitCheckpoint; ran: () => number } {
  const file = fileCheckpoint(path);
  let ran = 0;
  return {
    checkpoint: {
      find: (unit) => file.find(unit),
      keep(unit, encoded) {
        ran++;
        file.keep(unit, encoded);
      },
    },
    ran: () => ran,
  };
}

describe("a run's checkpoint file", () => {
  it("resumes a stopped run: only the missing units run, and the result is the uninterrupted one", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "occam-checkpoint-")), "run.jsonl");
    const serial = withoutTimes(runCalibrationExperiment(options));
    const first = countingCheckpoint(path);
    const whole = await runCalibrationExperimentInParallel({ ...options, workers: 2, ...first });
    expect(withoutTimes(whole)).toBe(serial);
    expect(first.ran()).toBe(4);

    // As if killed while writing the third unit: two whole lines and half of one.
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, `${lines[0]}\n${lines[1]}\n${lines[2].slice(0, 40)}`);
    const resumed = countingCheckpoint(path);
    expect(
      withoutTimes(await runCalibrationExperimentInParallel({ ...options, workers: 1, ...resumed })),
    ).toBe(serial);
    expect(resumed.ran()).toBe(2);

    // Another seed is other units: nothing is reused.
    const other = countingCheckpoint(path);
    await runCalibrationExperimentInParallel({ ...options, seed: 3, workers: 1, ...other });
    expect(other.ran()).toBe(4);
  });

  it("refuses a file that is not a checkpoint", () => {
    const path = join(mkdtempSync(join(tmpdir(), "occam-checkpoint-")), "notes.txt");
    writeFileSync(path, "my notes\nmore notes\n");
    expect(() => fileCheckpoint(path)).toThrowError(/line 1 is not JSON/);
    writeFileSync(path, '{"a": 1}\n');
    expect(() => fileCheckpoint(path)).toThrowError(/line 1 is not a finished unit/);
  });
});
