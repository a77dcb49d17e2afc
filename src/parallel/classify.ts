/**
 * `compareClassifierFamilies` with each family a unit on worker threads or a Redis queue; the runs are
 * put back in the families' order before they are weighed, so the comparison is the same bit for bit.
 */
import type { ClassificationData } from "../models/mixture-classifier/data.js";
import {
  type ClassifierFamilyComparison,
  type CompareClassifierFamiliesOptions,
  checkClassifierComparison,
  type FamilyRun,
  weighClassifierFamilies,
} from "../selection/classifier-families.js";
import { plainClassificationData } from "./classify-units.js";
import { siblingModule } from "./pool.js";
import { type ParallelOptions, runUnits } from "./run.js";

/**
 * {@link compareClassifierFamilies} with the families run on `workers` threads or through `redis` (see
 * {@link ParallelOptions}); the result is identical to a serial run's apart from `seconds`.
 */
export async function compareClassifierFamiliesInParallel(
  train: ClassificationData,
  options: CompareClassifierFamiliesOptions & ParallelOptions = {},
): Promise<ClassifierFamilyComparison> {
  const start = performance.now();
  // Checked here, before anything is queued.
  const { families, folds, seed, draws, warmup, chains, tempered, temperedParticles } =
    checkClassifierComparison(train, options);
  const plainOptions = {
    families,
    folds,
    seed,
    draws,
    warmup,
    chains,
    tempered,
    temperedParticles,
    crossCheck: options.crossCheck ?? true,
    everson: options.everson ?? false,
    ...(options.familyOptions === undefined ? {} : { familyOptions: options.familyOptions }),
  };
  const plainTrain = plainClassificationData(train);
  const test = options.test == null ? null : plainClassificationData(options.test);
  // pknn, which samples no chains and takes a few seconds, is queued last, to fill a worker that the
  // sampled families leave idle at the end.
  const order = [...families.filter((f) => f !== "pknn"), ...families.filter((f) => f === "pknn")];
  const units = order.map((name) => ({
    key: name,
    command: "classifier-family",
    payload: { train: plainTrain, test, options: plainOptions, index: families.indexOf(name) },
  }));
  const done = (await runUnits(units, siblingModule(import.meta.url, "classify-units"), {
    ...options,
    onUnit: (_done, _total, key) => options.onProgress?.(`${key} done`),
  })) as FamilyRun[];
  const runs = families.map((name) => done[order.indexOf(name)]);
  return weighClassifierFamilies(train, { ...options, families }, runs, start);
}
