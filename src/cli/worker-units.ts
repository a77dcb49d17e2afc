/**
 * Every unit command an `occam worker` serves: the units of compare, classify, evidence and the
 * reproductions. A worker's threads load this module, and a job naming any other command is refused.
 */
import { calibrationRunCommand } from "../experiments/calibration-units.js";
import { robotArmCommand } from "../experiments/robot-arm-units.js";
import { classifierFamilyCommand } from "../parallel/classify-units.js";
import { compareBlockCommand, compareEnumerateCommand } from "../parallel/compare-units.js";
import { evidenceMethodsCommand } from "../parallel/evidence-units.js";
import { unitCommands } from "../parallel/units.js";

/** The commands of a queue worker. */
export const commands = unitCommands([
  compareBlockCommand,
  compareEnumerateCommand,
  classifierFamilyCommand,
  robotArmCommand,
  calibrationRunCommand,
  evidenceMethodsCommand,
]);
