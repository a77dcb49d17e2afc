/**
 * `compareLinearModels` with its estimated evidences spread over worker threads or a Redis queue:
 * the models are dealt into blocks (one unit each), the blocks run anywhere, and the estimates are
 * put back in the models' order before anything is summed, so the result is the same bit for bit
 * whatever runs them.
 */
import type { NumericTable } from "../data/csv.js";
import { type LinearData, numericDesign } from "../data/design.js";
import {
  type CompareLinearOptions,
  compareLinearModels,
  type LinearComparison,
  linearComparisonResult,
  prepareLinearComparison,
} from "../selection/linear.js";
import { planEstimation, rankEstimates } from "../selection/linear-estimated.js";
import { plainLinearData } from "./compare-units.js";
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
 * queue. Exact evidences are computed in this thread.
 */
export async function compareLinearModelsInParallel(
  input: NumericTable | LinearData,
  options: CompareLinearInParallelOptions = {},
): Promise<LinearComparison> {
  const parallel = resolveParallelOptions(options);
  const setup = prepareLinearComparison(input, options);
  if (setup.o.estimator === "exact") return compareLinearModels(input, options);
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
    prior: setup.o.prior,
    ...pick(options, ["v", "a", "b", "r", "hyperA", "alpha", "beta", "alphaW", "betaW", "intercept"]),
    ...pick(options, ["standardize", "heredity", "samples", "folds"]),
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
  return linearComparisonResult(setup, rankEstimates(setup.family, setup.o, setup.top, plan, scores, stdErr));
}

/** The fields of `options` named in `keys` that are set. */
function pick<T extends object, K extends keyof T>(options: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (options[key] !== undefined) out[key] = options[key];
  return out;
}
