/**
 * The unit command of `occam classify`: one classifier family's run (its chain-rule evidence,
 * posterior, predictions and leave-one-out densities) on the comparison's data, with the folds and the
 * family's stream rebuilt from the seed and its position, so a unit's result does not depend on where
 * it runs.
 */
import { z } from "zod";
import { CLASSIFIER_FAMILIES } from "../models/classifiers/index.js";
import type { ClassificationData } from "../models/mixture-classifier/data.js";
import { classifierFamilyRun } from "../selection/classifier-families.js";
import { defineUnitCommand, unitCommands } from "./units.js";

/** Classification rows as plain arrays. */
const tableSchema = z
  .object({
    X: z.array(z.number().finite()),
    labels: z.array(z.number().int().min(-1)),
    n: z.number().int().min(1),
    p: z.number().int().min(1),
    inputNames: z.array(z.string()),
    classNames: z.array(z.string()).min(2),
  })
  .strict()
  .refine((t) => t.X.length === t.n * t.p && t.labels.length === t.n && t.inputNames.length === t.p, {
    message: "X must hold n × p numbers, labels n, and inputNames p names",
  });

/** Classification rows as a unit carries them. */
export type PlainClassificationData = z.infer<typeof tableSchema>;

/** {@link ClassificationData} as plain arrays (JSON round-trips every finite double exactly). */
export function plainClassificationData(data: ClassificationData): PlainClassificationData {
  return {
    X: Array.from(data.X),
    labels: Array.from(data.labels),
    n: data.n,
    p: data.p,
    inputNames: [...data.inputNames],
    classNames: [...data.classNames],
  };
}

function fromPlain(t: PlainClassificationData): ClassificationData {
  return { ...t, X: Float64Array.from(t.X), labels: Int32Array.from(t.labels) };
}

const whole = (min: number) => z.number().int().min(min).max(10_000_000);

/** One family of a comparison of classifier families. */
export const classifierFamilyCommand = defineUnitCommand({
  name: "classifier-family",
  payload: z
    .object({
      train: tableSchema,
      test: tableSchema.nullable(),
      options: z
        .object({
          families: z.array(z.enum(CLASSIFIER_FAMILIES as unknown as [string, ...string[]])).min(1),
          folds: whole(2),
          seed: z.number().int().min(0).max(0xffffffff),
          draws: whole(100),
          warmup: whole(0),
          chains: whole(1),
          crossCheck: z.boolean(),
          everson: z.boolean(),
          tempered: z.boolean(),
          temperedParticles: whole(128),
          // Each family checks its own options when it is built.
          familyOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
        })
        .strict(),
      index: z.number().int().min(0),
    })
    .strict(),
  run(payload) {
    return classifierFamilyRun(
      fromPlain(payload.train),
      { ...payload.options, test: payload.test === null ? null : fromPlain(payload.test) } as never,
      payload.index,
    );
  },
});

/** The commands of this module, for the worker threads. */
export const commands = unitCommands([classifierFamilyCommand]);
