/** The unit command of `occam reproduce calibration`: one method on one hard problem with one seed. */
import { z } from "zod";
import { EVIDENCE_METHODS } from "../evidence/estimate.js";
import { HARD_PROBLEM_NAMES } from "../models/hard-problems/index.js";
import { defineUnitCommand, unitCommands } from "../parallel/units.js";
import { type CalibrationRunSpec, calibrationRun } from "./calibration.js";

/** One run of the calibration suite. */
export const calibrationRunCommand = defineUnitCommand({
  name: "calibration-run",
  payload: z
    .object({
      problem: z.enum(HARD_PROBLEM_NAMES as unknown as [string, ...string[]]),
      method: z.enum(EVIDENCE_METHODS as unknown as [string, ...string[]]),
      seed: z.number().int().min(0).max(0xffffffff),
      settings: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  run: (payload) => calibrationRun(payload as CalibrationRunSpec),
});

/** The commands of this module, for the worker threads. */
export const commands = unitCommands([calibrationRunCommand]);
