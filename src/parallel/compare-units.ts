/**
 * The unit commands of `occam compare`: with a sampled estimator, the log evidences of a block of
 * models, each estimated with the seed hashed from the comparison's seed and the model (`subsetSeed`),
 * so a block's numbers do not depend on which other models share it; with exact evidences, the running
 * sums of blocks of the enumeration of every subset (`searchSubsetBlock`), merged in block order.
 */
import { z } from "zod";
import type { LinearData } from "../data/design.js";
import { OccamError } from "../errors.js";
import { type GlmModelEvidence, prepareGlmComparison } from "../selection/glm.js";
import { prepareLinearComparison } from "../selection/linear.js";
import { subsetEstimator } from "../selection/linear-estimated.js";
import { LINEAR_ESTIMATORS, linearPriorSchema } from "../selection/linear-options.js";
import {
  bestSubsets,
  membersOfMask,
  type SubsetSums,
  searchSubsetBlock,
  type TopSubset,
} from "../selection/subsets.js";
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
      columns: z.number().int().min(0),
      columnNames: z.array(z.string()),
      terms: z.array(
        z.object({
          name: z.string(),
          columns: z.array(index),
          parents: z.array(index),
          random: z
            .object({
              group: z.string(),
              levels: z.array(z.string()).min(2),
              codes: z.array(index),
              intercept: z.boolean(),
              slopes: z.array(z.string()),
              slopeValues: z.array(z.array(finite)),
            })
            .optional(),
        }),
      ),
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
      terms: design.terms.map((t) => ({
        name: t.name,
        columns: [...t.columns],
        parents: [...t.parents],
        ...(t.random === undefined
          ? {}
          : {
              random: {
                ...t.random,
                levels: [...t.random.levels],
                codes: Array.from(t.random.codes),
                slopes: [...t.random.slopes],
                slopeValues: t.random.slopeValues.map((v) => Array.from(v)),
              },
            }),
      })),
    },
    targetName: data.targetName,
    factors: data.factors.map((f) => ({ ...f, levels: [...f.levels] })),
  };
}

/** {@link plainLinearData} undone: the data a unit carries, as the comparison takes it. */
export function linearDataOf(data: PlainLinearData): LinearData {
  return {
    design: {
      ...data.design,
      X: Float64Array.from(data.design.X),
      y: Float64Array.from(data.design.y),
      terms: data.design.terms.map(({ random, ...t }) =>
        random === undefined
          ? t
          : {
              ...t,
              random: {
                ...random,
                codes: Int32Array.from(random.codes),
                slopeValues: random.slopeValues.map((v) => Float64Array.from(v)),
              },
            },
      ),
    },
    targetName: data.targetName,
    factors: data.factors,
  };
}

const positive = z.number().finite().positive();

/** The options of a comparison that decide its family of models (the prior and the design's scaling). */
const familyOptions = {
  prior: linearPriorSchema,
  intercept: z.boolean().optional(),
  standardize: z.boolean().optional(),
  heredity: z.boolean().optional(),
};

/** The options of a comparison that decide a model's estimate. */
export const estimateOptionsSchema = z
  .object({
    ...familyOptions,
    estimator: z.enum(LINEAR_ESTIMATORS.filter((e) => e !== "exact") as [string, ...string[]]),
    samples: z.number().int().min(4).max(10_000_000).optional(),
    folds: z.number().int().min(2).optional(),
    seed: z.number().int().min(0).max(0xffffffff),
  })
  .strict();

/** Checks that each model of a unit lists distinct ascending term indices below p. */
function checkModels(models: readonly (readonly number[])[], p: number, where: string): void {
  for (const members of models) {
    if (members.some((t, i) => t >= p || (i > 0 && t <= members[i - 1]))) {
      throw new OccamError(
        "invalid-argument",
        `${where}: a model's terms must be distinct ascending indices below ${p}, got [${members.join(", ")}].`,
      );
    }
  }
}

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
    const setup = prepareLinearComparison(linearDataOf(payload.data), payload.options as never);
    checkModels(payload.models, payload.data.design.terms.length, "compare-block");
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

/** The options of an exact comparison that decide its running sums. */
export const enumerateOptionsSchema = z
  .object({
    ...familyOptions,
    /** The terms every model holds, by name. */
    always: z.array(z.string()).optional(),
    modelPrior: z.union([
      z.enum(["uniform", "uniform-size"]),
      z
        .object({ name: z.literal("beta-binomial"), a: z.number().positive(), b: z.number().positive() })
        .strict(),
    ]),
    top: z
      .number()
      .int()
      .min(0)
      .max(2 ** 25),
  })
  .strict();

/** {@link SubsetSums} but the best models, as they cross (typed arrays are kept exactly by the result encoding). */
export type PlainSubsetSums = Omit<SubsetSums, "top">;

/** Best models as they cross: three parallel arrays, each model's terms as a bit mask (at most 25 terms are enumerated). */
export interface PlainTopSubsets {
  logPost: Float64Array;
  score: Float64Array;
  mask: Float64Array;
}

/**
 * What the quadrature tables of a unit's thread have done (see `GTableStats`): every panel they hold,
 * by key (the union over the units is the panels of one family), the values the unit integrated
 * directly and the largest error bound.
 */
export interface PlainTableWork {
  panels: number[];
  directEvaluations: number;
  maxError: number;
}

/**
 * A `compare-enumerate` unit's result: the running sums of its blocks, in order, the best models of
 * them all (see `bestSubsets`) and its tables' work.
 */
export interface EnumerateResult {
  sums: PlainSubsetSums[];
  top: PlainTopSubsets;
  tables: PlainTableWork;
}

/**
 * The comparison a thread set up for its last `compare-enumerate` unit, kept for the next unit of the
 * same job: building a family's quadrature tables costs as much as a third of a block. A table's panel
 * is the same whichever unit built it, so the blocks' numbers do not depend on what ran before.
 */
let lastSetup: { key: string; setup: ReturnType<typeof prepareLinearComparison> } | undefined;

/** The running sums of blocks of the enumeration of every subset (exact evidences). */
export const compareEnumerateCommand = defineUnitCommand({
  name: "compare-enumerate",
  payload: z
    .object({
      data: linearDataSchema,
      options: enumerateOptionsSchema,
      blocks: z
        .array(z.object({ from: index, to: index }).refine((b) => b.from < b.to, "a block needs from < to"))
        .min(1)
        .max(100_000),
      /** Where every block's summary starts (`enumerationFloor`, computed once by the caller); null for −∞. */
      floor: z.number().nullable(),
    })
    .strict(),
  run(payload): EnumerateResult {
    const key = JSON.stringify([payload.options, payload.data]);
    if (lastSetup?.key !== key) {
      lastSetup = {
        key,
        setup: prepareLinearComparison(linearDataOf(payload.data), payload.options as never),
      };
    }
    const { setup } = lastSetup;
    const p = setup.family.terms.length;
    if (setup.o.estimator !== "exact" || setup.search !== "enumerated") {
      throw new OccamError(
        "invalid-argument",
        `compare-enumerate: the ${setup.o.prior.name} prior on ${p} inputs is not enumerated exactly.`,
      );
    }
    for (const block of payload.blocks) {
      if (block.to > 2 ** p) {
        throw new OccamError(
          "invalid-argument",
          `compare-enumerate: a block ends beyond the 2^${p} subsets.`,
        );
      }
    }
    const { tables } = setup;
    const directBefore = tables.directEvaluations;
    const search = {
      prior: setup.o.modelPrior,
      top: setup.top,
      heredity: setup.o.heredity,
      always: setup.o.always,
    };
    const floor = payload.floor ?? Number.NEGATIVE_INFINITY;
    const blocks = payload.blocks.map((block) => searchSubsetBlock(setup.family, search, block, floor));
    const top = bestSubsets(
      blocks.map((block) => block.top),
      setup.top,
    );
    return {
      sums: blocks.map(({ top: _top, ...sums }) => sums),
      top: {
        logPost: Float64Array.from(top, (t) => t.logPost),
        score: Float64Array.from(top, (t) => t.score),
        mask: Float64Array.from(top, (t) => t.members.reduce((mask, j) => mask + 2 ** j, 0)),
      },
      tables: {
        panels: [...(tables.builtPanels ?? [])],
        directEvaluations: tables.directEvaluations - directBefore,
        maxError: tables.maxError,
      },
    };
  },
});

/** A unit's best models back as {@link TopSubset}s, their members from the masks. */
export function topSubsetsOf(plain: PlainTopSubsets): TopSubset[] {
  return Array.from(plain.logPost, (logPost, i) => ({
    logPost,
    score: plain.score[i],
    members: membersOfMask(plain.mask[i]),
  }));
}

/** The options of a GLM comparison that decide a model's evidence. */
export const glmOptionsSchema = z
  .object({
    family: z.enum(["bernoulli", "binomial", "poisson"]),
    link: z.enum(["logit", "probit", "log"]),
    prior: z.union([
      z.object({ name: z.literal("normal"), scale: positive }).strict(),
      z.object({ name: z.enum(["robust", "hyper-g-n"]) }).strict(),
    ]),
    trials: z.array(finite).optional(),
    offset: z.array(finite).optional(),
    draws: z.number().int().min(1).optional(),
    seed: z.number().int().min(0).max(0xffffffff),
  })
  .strict();

/** The log evidences of a block of GLMs (see `prepareGlmComparison`), each seeded by its model. */
export const compareGlmBlockCommand = defineUnitCommand({
  name: "compare-glm-block",
  payload: z
    .object({
      data: linearDataSchema,
      options: glmOptionsSchema,
      models: z.array(z.array(index)).min(1).max(100_000),
    })
    .strict(),
  run(payload): GlmModelEvidence[] {
    const setup = glmSetup(payload);
    return payload.models.map((members) => setup.evidence(members));
  },
});

/** A GLM unit's comparison set up, its models checked. */
function glmSetup(payload: z.infer<typeof compareGlmBlockCommand.payload>) {
  const { trials, offset, ...options } = payload.options;
  const setup = prepareGlmComparison(linearDataOf(payload.data), {
    ...options,
    ...(trials === undefined ? {} : { trials: Float64Array.from(trials) }),
    ...(offset === undefined ? {} : { offset: Float64Array.from(offset) }),
    subsets: "none",
  });
  checkModels(payload.models, payload.data.design.terms.length, "compare-glm");
  return setup;
}

/**
 * The screening scores of a run of GLMs (see `GlmComparisonSetup.screen`): a run in the enumeration's
 * order, so that most models start Newton's method at a smaller model's fit from the same run.
 */
export const compareGlmScreenCommand = defineUnitCommand({
  name: "compare-glm-screen",
  payload: compareGlmBlockCommand.payload,
  run(payload): { logZ: Float64Array; nLikelihoodEvals: Float64Array } {
    const setup = glmSetup(payload);
    const scores = payload.models.map((members) => setup.screen(members));
    return {
      logZ: Float64Array.from(scores, (s) => s.logZ),
      nLikelihoodEvals: Float64Array.from(scores, (s) => s.nLikelihoodEvals),
    };
  },
});

/** The commands of this module, for the worker threads. */
export const commands = unitCommands([
  compareBlockCommand,
  compareEnumerateCommand,
  compareGlmBlockCommand,
  compareGlmScreenCommand,
]);
