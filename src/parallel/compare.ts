/**
 * `compareLinearModels` with its estimated evidences spread over worker threads or a Redis queue:
 * the models are dealt into blocks (one unit each), the blocks run anywhere, and the estimates are
 * put back in the models' order before anything is summed, so the result is the same bit for bit
 * whatever runs them.
 */
import type { NumericTable } from "../data/csv.js";
import { type LinearData, numericDesign } from "../data/design.js";
import { OccamError } from "../errors.js";
import {
  type CompareLinearOptions,
  compareLinearModels,
  type LinearComparison,
  linearComparisonResult,
  prepareLinearComparison,
} from "../selection/linear.js";
import { estimatorSettings, planEstimation, rankEstimates } from "../selection/linear-estimated.js";
import {
  enumerationBlocks,
  enumerationFloor,
  finishSubsetSums,
  MAX_ENUMERATED_INPUTS,
  mergeSubsetSums,
  type SubsetBlock,
} from "../selection/subsets.js";
import { type EnumerateResult, plainLinearData, topSubsetsOf } from "./compare-units.js";
import { siblingModule } from "./pool.js";
import { type ParallelOptions, resolveParallelOptions, runUnits } from "./run.js";
import type { Unit } from "./units.js";

/** Options of {@link compareLinearModelsInParallel}. */
export interface CompareLinearInParallelOptions extends CompareLinearOptions, ParallelOptions {
  /**
   * Models per unit. @defaultValue about an eighth of each worker's share on threads, and 1/256 of the
   * models on a queue (at least 1)
   */
  blockSize?: number;
}

/** Units per worker on threads: enough that uneven models even out. */
const UNITS_PER_THREAD = 16;
/** Units of a queued job: enough for many machines, few enough that each outweighs its overhead. */
const QUEUE_UNITS = 256;

/**
 * {@link compareLinearModels} with a sampled estimator's models estimated on `workers` threads or
 * through `redis` (see {@link ParallelOptions}); the result is identical to a serial run's apart from
 * `seconds`. The work limit (MAX_ESTIMATED_MODELS) grows with the number of threads and is lifted on a
 * queue. Exact evidences of every subset beyond 2^18 of them are enumerated in blocks
 * (`subsetBlocks`) on the threads or the queue, their running sums merged in block order; fewer
 * subsets, or a bounded model size, are enumerated in this thread at once (and refuse a queue).
 */
export async function compareLinearModelsInParallel(
  input: NumericTable | LinearData,
  options: CompareLinearInParallelOptions = {},
): Promise<LinearComparison> {
  const parallel = resolveParallelOptions(options);
  const setup = prepareLinearComparison(input, options);
  // Models with random terms are few (at most MAX_MIXED_MODELS) and quick: they run in this thread.
  if (setup.mixed) return compareLinearModels(input, options);
  if (setup.o.estimator === "exact") {
    const p = setup.family.terms.length;
    const blocks = blocksOfEnumeration(p, setup.o.subsets);
    if (blocks.length === 0) {
      if (parallel.redis !== undefined) {
        throw new OccamError(
          "invalid-argument",
          `redis: the exact evidences of these ${p} inputs are computed in this thread, in a moment; a queue serves sampled estimators and the enumeration of every subset of 19 to ${MAX_ENUMERATED_INPUTS} inputs.`,
        );
      }
      return compareLinearModels(input, options);
    }
    const threads = parallel.redis === undefined ? parallel.workers : 0;
    return enumerateInParallel(input, options, setup, blocks, threads);
  }
  const capacity = parallel.redis === undefined ? parallel.workers : Number.POSITIVE_INFINITY;
  const plan = planEstimation(setup.family, setup.o, capacity);
  const count = plan.estimated.length;
  const blocks = Math.max(
    1,
    Math.min(
      count,
      options.blockSize !== undefined
        ? Math.ceil(count / options.blockSize)
        : parallel.redis === undefined
          ? parallel.workers === 1
            ? 1
            : parallel.workers * UNITS_PER_THREAD
          : QUEUE_UNITS,
    ),
  );
  // Models are dealt round-robin, so every block holds models of every size.
  const members: number[][] = Array.from({ length: blocks }, () => []);
  for (let i = 0; i < count; i++) members[i % blocks].push(i);
  const data = plainLinearData("design" in input ? input : numericDesign(input));
  const estimateOptions = {
    // The prior with every parameter filled in: a unit need not know the defaults to agree.
    prior: setup.o.prior,
    ...pick(options, ["intercept", "standardize", "heredity", "samples", "folds"]),
    estimator: setup.o.estimator,
    seed: setup.o.seed,
  };
  const units: Unit[] = members.map((indices) => ({
    key: `models ${indices[0]}+${blocks}k`,
    command: "compare-block",
    payload: { data, options: estimateOptions, models: indices.map((i) => plan.estimated[i]) },
  }));
  let modelsDone = 0;
  const results = (await runUnits(units, siblingModule(import.meta.url, "compare-units"), {
    ...options,
    onUnit: (_done, _total, key) => {
      modelsDone += members[units.findIndex((u) => u.key === key)].length;
      options.onProgress?.(Math.min(modelsDone, plan.subsets.length), plan.subsets.length);
    },
  })) as { logZ: number[]; stdErr: number[] }[];
  const scores = new Float64Array(count);
  const stdErr = new Float64Array(count);
  members.forEach((indices, b) => {
    indices.forEach((i, k) => {
      scores[i] = results[b].logZ[k];
      stdErr[i] = results[b].stdErr[k];
    });
  });
  return linearComparisonResult(setup, {
    ...rankEstimates(setup.family, setup.o, setup.top, plan, scores, stdErr),
    settings: estimatorSettings(plan.estimator, setup.o),
  });
}

/**
 * Whether an exact comparison of p inputs is enumerated in blocks that run as units (on threads, the
 * queue, or one after the other in this thread, where Ctrl-C is heard between them): every subset of
 * more than 2^18 (p of 19 to MAX_ENUMERATED_INPUTS). Otherwise it runs in this thread at once.
 */
export function enumeratedInBlocks(p: number, subsets: CompareLinearOptions["subsets"]): boolean {
  return blocksOfEnumeration(p, subsets).length > 0;
}

/** The blocks of {@link enumeratedInBlocks}, or none when the comparison runs in this thread at once. */
function blocksOfEnumeration(p: number, subsets: CompareLinearOptions["subsets"]): SubsetBlock[] {
  if (p > MAX_ENUMERATED_INPUTS) return [];
  const maxSize = subsets === undefined || subsets === "all" ? p : subsets === "none" ? 0 : subsets.max;
  return enumerationBlocks(p, maxSize);
}

/**
 * The exact comparison of every subset with the enumeration's blocks run on `threads` threads (0: on
 * the queue), dealt in contiguous runs so that the sums merge in block order whatever ran them.
 */
async function enumerateInParallel(
  input: NumericTable | LinearData,
  options: CompareLinearInParallelOptions,
  setup: ReturnType<typeof prepareLinearComparison>,
  blocks: readonly SubsetBlock[],
  threads: number,
): Promise<LinearComparison> {
  // Blocks cost about the same: a few units per thread even out, and each unit sends back its best models.
  const unitCount = Math.min(blocks.length, threads > 0 ? threads * 4 : QUEUE_UNITS);
  const runs: SubsetBlock[][] = Array.from({ length: unitCount }, (_, u) =>
    blocks.slice(
      Math.floor((u * blocks.length) / unitCount),
      Math.floor(((u + 1) * blocks.length) / unitCount),
    ),
  );
  const data = plainLinearData("design" in input ? input : numericDesign(input));
  const enumerateOptions = {
    prior: setup.o.prior,
    ...pick(options, ["intercept", "standardize", "heredity", "always"]),
    modelPrior: setup.o.modelPrior,
    top: setup.top,
  };
  const floor = enumerationFloor(setup.family, {
    prior: setup.o.modelPrior,
    heredity: setup.o.heredity,
    always: setup.o.always,
  });
  const units: Unit[] = runs.map((run) => ({
    key: `subsets ${run[0].from}-${run[run.length - 1].to}`,
    command: "compare-enumerate",
    payload: { data, options: enumerateOptions, blocks: run, floor: Number.isFinite(floor) ? floor : null },
  }));
  const total = 2 ** setup.family.terms.length;
  let subsetsDone = 0;
  const results = (await runUnits(units, siblingModule(import.meta.url, "compare-units"), {
    ...options,
    onUnit: (_done, _total, key) => {
      const run = runs[units.findIndex((u) => u.key === key)];
      subsetsDone += run[run.length - 1].to - run[0].from;
      options.onProgress?.(subsetsDone, total);
    },
  })) as EnumerateResult[];
  // Each unit's best models ride on its first block: the units' lists, in order, merge as the blocks' would.
  const parts = results.flatMap((r) =>
    r.sums.map((sums, b) => ({ ...sums, top: b === 0 ? topSubsetsOf(r.top) : [] })),
  );
  const sums = mergeSubsetSums(parts, setup.top);
  // The tables' work as one family's: each panel counted once, whichever threads built it (this one
  // too, for the floor).
  const { tables } = setup;
  const panels = new Set([...(tables.builtPanels ?? []), ...results.flatMap((r) => r.tables.panels)]);
  tables.panels = panels.size;
  for (const r of results) {
    tables.directEvaluations += r.tables.directEvaluations;
    tables.maxError = Math.max(tables.maxError, r.tables.maxError);
  }
  return linearComparisonResult(setup, { summary: finishSubsetSums(sums) });
}

/** The fields of `options` named in `keys` that are set. */
function pick<T extends object, K extends keyof T>(options: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (options[key] !== undefined) out[key] = options[key];
  return out;
}
