/**
 * The unit command of `occam compare --estimator …`: the log evidences of a block of models, each
 * estimated with the seed hashed from the comparison's seed and the model (`subsetSeed`), so a block's
 * numbers do not depend on which other models share it.
 */
import { z } from "zod";
import type { LinearData } from "../data/design.js";
import { OccamError } from "../errors.js";
import { prepareLinearComparison } from "../selection/linear.js";
import { subsetEstimator } from "../selection/linear-estimated.js";
import { LINEAR_ESTIMATORS, LINEAR_PRIORS } from "../selection/linear-options.js";
import { defineUnitCommand, unitCommands } from "./units.js";

const finite = z.number().finite();
const index = z.number().int().min(0);

/** A comparison's data as plain arrays: the design, the target's name and the factors. */
export const linearDataSchema = z
  .object({
    design: z.object({
      X: z.array(finite),
      y: z.array(finite),
      n: z.number().int().min(1),
      columns: z.number().int().min(1),
      columnNames: z.array(z.string()),
      terms: z.array(z.object({ name: z.string(), columns: z.array(index), parents: z.array(index) })),
    }),
    targetName: z.string(),
    factors: z.array(z.object({ name: z.string(), levels: z.array(z.string()), reference: z.string() })),
  })
  .refine((d) => d.design.X.length === d.design.n * d.design.columns && d.design.y.length === d.design.n, {
    message: "the design's X must hold n × columns numbers and y n numbers",
  });

/** The data of a comparison in plain arrays, as a unit carries it. */
export type PlainLinearData = z.infer<typeof linearDataSchema>;

/** {@link LinearData} as plain arrays (JSON round-trips every finite double exactly). */
export function plainLinearData(data: LinearData): PlainLinearData {
  const { design } = data;
  return {
    design: {
      X: Array.from(design.X),
      y: Array.from(design.y),
      n: design.n,
      columns: design.columns,
      columnNames: [...design.columnNames],
      terms: design.terms.map((t) => ({ name: t.name, columns: [...t.columns], parents: [...t.parents] })),
    },
    targetName: data.targetName,
    factors: data.factors.map((f) => ({ ...f, levels: [...f.levels] })),
  };
}

const positive = z.number().finite().positive();

/** The options of a comparison that decide a model's estimate. */
export const estimateOptionsSchema = z
  .object({
    prior: z.enum(LINEAR_PRIORS as [string, ...string[]]),
    v: positive.optional(),
    a: positive.optional(),
    b: positive.optional(),
    r: positive.optional(),
    hyperA: positive.optional(),
    alpha: positive.optional(),
    beta: positive.optional(),
    alphaW: positive.optional(),
    betaW: positive.optional(),
    intercept: z.boolean().optional(),
    standardize: z.boolean().optional(),
    heredity: z.boolean().optional(),
    estimator: z.enum(LINEAR_ESTIMATORS.filter((e) => e !== "exact") as [string, ...string[]]),
    samples: z.number().int().min(4).max(10_000_000).optional(),
    folds: z.number().int().min(2).optional(),
    seed: z.number().int().min(0).max(0xffffffff),
  })
  .strict();

/** The estimated log evidences of a block of models. */
export const compareBlockCommand = defineUnitCommand({
  name: "compare-block",
  payload: z
    .object({
      data: linearDataSchema,
      options: estimateOptionsSchema,
      models: z.array(z.array(index)).min(1).max(100_000),
    })
    .strict(),
  run(payload): { logZ: number[]; stdErr: number[] } {
    const data = payload.data;
    const linear: LinearData = {
      design: { ...data.design, X: Float64Array.from(data.design.X), y: Float64Array.from(data.design.y) },
      targetName: data.targetName,
      factors: data.factors,
    };
    const setup = prepareLinearComparison(linear, payload.options as never);
    const p = linear.design.terms.length;
    for (const members of payload.models) {
      if (members.some((t, i) => t >= p || (i > 0 && t <= members[i - 1]))) {
        throw new OccamError(
          "invalid-argument",
          `compare-block: a model's terms must be distinct ascending indices below ${p}, got [${members.join(", ")}].`,
        );
      }
    }
    const estimate = subsetEstimator(setup.family, setup.o);
    const logZ: number[] = [];
    const stdErr: number[] = [];
    for (const members of payload.models) {
      const [z, s] = estimate(members);
      logZ.push(z);
      stdErr.push(s);
    }
    return { logZ, stdErr };
  },
});

/** The commands of this module, for the worker threads. */
export const commands = unitCommands([compareBlockCommand]);
