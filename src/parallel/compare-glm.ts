/**
 * `compareGlms` with its models' evidences spread over worker threads: the models are dealt into
 * blocks (one unit each), and the evidences put back in the models' order before anything is summed.
 * Each model's evidence is seeded by the model, so the result is the same bit for bit on any number of
 * threads.
 */
import type { LinearData } from "../data/design.js";
import { OccamError } from "../errors.js";
import {
  type CompareGlmOptions,
  compareGlms,
  finishGlmComparison,
  type GlmComparison,
  type GlmModelEvidence,
  prepareGlmComparison,
} from "../selection/glm.js";
import {
  modelsToCorrect,
  SCREEN_ABOVE,
  screenedEvidence,
  startingDraws,
} from "../selection/glm-screening.js";
import { plainLinearData } from "./compare-units.js";
import { siblingModule } from "./pool.js";
import { type ParallelOptions, resolveParallelOptions, runUnits } from "./run.js";
import type { Unit } from "./units.js";

/** Options of {@link compareGlmsInParallel}: a comparison's, and where it runs (threads only). */
export type CompareGlmsInParallelOptions = CompareGlmOptions & Omit<ParallelOptions, "redis" | "checkpoint">;

/** Units per thread: enough that models of uneven cost (random terms take seconds) even out. */
const UNITS_PER_THREAD = 16;

/**
 * {@link compareGlms} with the models' evidences computed on `workers` threads (the calling one among
 * them); the result is identical to a serial run's apart from `seconds`.
 */
export async function compareGlmsInParallel(
  data: LinearData,
  options: CompareGlmsInParallelOptions,
): Promise<GlmComparison> {
  if ((options as ParallelOptions).redis !== undefined) {
    throw new OccamError(
      "invalid-argument",
      "a GLM comparison runs on this machine's threads, not on a queue.",
    );
  }
  const { workers } = resolveParallelOptions(options);
  if (workers === 1) return compareGlms(data, options);
  const setup = prepareGlmComparison(data, options);
  const { subsets } = setup;
  const count = subsets.length;
  const plainData = plainLinearData(data);
  // The whole comparison's starting draws: a unit sets up one model's worth of it.
  const draws = startingDraws(count, options.draws);
  const payloadOptions = {
    family: options.family,
    link: setup.link,
    prior: setup.prior,
    ...(options.trials === undefined ? {} : { trials: Array.from(options.trials) }),
    ...(options.offset === undefined ? {} : { offset: Array.from(options.offset) }),
    ...(draws === undefined ? {} : { draws }),
    seed: setup.seed,
  };
  const run = async <R>(command: string, dealt: number[][], key: string, total: number): Promise<R[]> => {
    const units: Unit[] = dealt.map((indices, b) => ({
      key: `${key} ${b}`,
      command,
      payload: { data: plainData, options: payloadOptions, models: indices.map((i) => subsets[i]) },
    }));
    let done = 0;
    return (await runUnits(units, siblingModule(import.meta.url, "compare-units"), {
      workers,
      signal: options.signal,
      onUnit: (_done, _total, unitKey) => {
        done += dealt[units.findIndex((u) => u.key === unitKey)].length;
        options.onProgress?.(done, total);
      },
    })) as R[];
  };
  let chosen = subsets.map((_, i) => i);
  const evidences: GlmModelEvidence[] = new Array(count);
  if (count > SCREEN_ABOVE) {
    // Contiguous runs of the enumeration, so that a model's smaller neighbour shares its run.
    const runs = workers * 4;
    const dealt = Array.from({ length: runs }, (_, r) =>
      chosen.slice(Math.floor((r * count) / runs), Math.floor(((r + 1) * count) / runs)),
    );
    const results = await run<{ logZ: Float64Array; nLikelihoodEvals: Float64Array }>(
      "compare-glm-screen",
      dealt,
      "screen",
      count,
    );
    const scores = dealt.flatMap((_, r) =>
      Array.from(results[r].logZ, (logZ, k) => ({ logZ, nLikelihoodEvals: results[r].nLikelihoodEvals[k] })),
    );
    scores.forEach((score, i) => {
      evidences[i] = screenedEvidence(score);
    });
    chosen = modelsToCorrect(setup, scores);
  }
  // Dealt round-robin, so that every block holds models of every size.
  const blocks = Math.min(chosen.length, workers * UNITS_PER_THREAD);
  const dealt: number[][] = Array.from({ length: blocks }, () => []);
  chosen.forEach((i, c) => {
    dealt[c % blocks].push(i);
  });
  const results = await run<GlmModelEvidence[]>("compare-glm-block", dealt, "models", chosen.length);
  dealt.forEach((indices, b) => {
    indices.forEach((i, k) => {
      evidences[i] = results[b][k];
    });
  });
  return finishGlmComparison(setup, evidences);
}
