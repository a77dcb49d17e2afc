/**
 * The calibration of every evidence method on the hard-problem suite at default settings, over
 * `OCCAM_CALIBRATION_SEEDS` seeds per problem (20 unless set), the experiment behind
 * `occam reproduce calibration`. Long: hours on two cores for 20 seeds. `OCCAM_CALIBRATION_PROBLEMS`
 * and `OCCAM_CALIBRATION_METHODS` (comma-separated names) run only some problems and methods. Prints
 * the table, and writes the whole result as JSON to `OCCAM_CALIBRATION_OUT` when set.
 */
import { writeFileSync } from "node:fs";
import { formatCalibrationReport } from "../src/cli/reports/calibration.js";
import type { EvidenceMethod } from "../src/evidence/estimate.js";
import { runCalibrationExperiment } from "../src/experiments/calibration.js";
import type { HardProblemName } from "../src/models/hard-problems/index.js";

/** Silent failures in all, and over the reliable runs of all cells the worst |z|. */
export function measurements(): Record<string, number> {
  const seeds = Number(process.env.OCCAM_CALIBRATION_SEEDS ?? 20);
  const problems = process.env.OCCAM_CALIBRATION_PROBLEMS?.split(",") as HardProblemName[] | undefined;
  const methods = process.env.OCCAM_CALIBRATION_METHODS?.split(",") as EvidenceMethod[] | undefined;
  const result = runCalibrationExperiment({
    seeds,
    problems,
    methods,
    onProgress: (step) => process.stderr.write(`\r\x1b[2K${step}`),
  });
  process.stderr.write("\n");
  console.log(formatCalibrationReport(result));
  if (process.env.OCCAM_CALIBRATION_OUT)
    writeFileSync(process.env.OCCAM_CALIBRATION_OUT, JSON.stringify(result));
  const worst = Math.max(0, ...result.cells.map((c) => c.worstZ ?? 0));
  return {
    "silent failures": result.cells.reduce((s, c) => s + c.silentFailures, 0),
    "worst |z| of a reliable run": worst,
    "cells with |z| < 2 in under 85 % of reliable runs": result.cells.filter(
      (c) => c.fractionWithin2 !== null && c.fractionWithin2 < 0.85,
    ).length,
  };
}
