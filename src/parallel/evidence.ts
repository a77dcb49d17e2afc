/**
 * `compareEstimators` on a user's model with its methods spread over worker threads or a Redis queue:
 * the methods that share posterior draws form one unit, every other method a unit of its own, and the
 * outcomes are put back in the methods' order, so the comparison is the same bit for bit.
 */
import { basename, dirname, resolve } from "node:path";
import {
  type CompareEstimatorsOptions,
  checkMethodCount,
  DEFAULT_EVIDENCE_METHODS,
  defaultPosteriorSize,
  defaultSettings,
  type EstimatorComparison,
  type EstimatorOutcome,
  FALLBACK_POSITIONS,
  FALLBACK_SETTINGS,
  needsFallback,
  summariseEstimators,
  WITH_FALLBACK,
} from "../evidence/compare.js";
import { type EvidenceMethod, NEEDS_DRAWS } from "../evidence/estimate.js";
import { type EvidenceUnitResult, reviveSample } from "./evidence-units.js";
import { loadModelFile } from "./model-file.js";
import { siblingModule } from "./pool.js";
import { type ParallelOptions, runUnits } from "./run.js";
import type { Unit } from "./units.js";

/** Told of each method's outcome as soon as it is known, before the others finish. */
export interface EvidenceProgress {
  onOutcome?: (outcome: EstimatorOutcome) => void;
}

/**
 * {@link compareEstimators} on the model whose module is at `modelPath` (on a queue, a path relative
 * to the workers' data folder). Posterior draws made elsewhere (`draws`) are not taken here.
 */
export async function compareEstimatorsInParallel(
  modelPath: string,
  methods: readonly EvidenceMethod[] = DEFAULT_EVIDENCE_METHODS,
  options: Omit<CompareEstimatorsOptions, "draws"> & ParallelOptions & EvidenceProgress = {},
): Promise<EstimatorComparison> {
  checkMethodCount(methods);
  const settings = defaultSettings(methods, options);
  const posterior = defaultPosteriorSize(methods, options);
  const model = await loadModelFile(modelPath);
  const positions = methods.map((_, i) => i);
  const first = await runMethods(modelPath, methods, positions, settings, { ...options, posterior });
  const comparison = summariseEstimators(model, first.outcomes, first.posterior, options.threshold);
  if (!needsFallback(methods, comparison)) return comparison;
  const more = await runMethods(
    modelPath,
    WITH_FALLBACK,
    FALLBACK_POSITIONS,
    { ...FALLBACK_SETTINGS, ...settings },
    options,
  );
  return {
    ...summariseEstimators(model, [...first.outcomes, ...more.outcomes], first.posterior, options.threshold),
    fellBack: true,
  };
}

/**
 * Runs the methods at `positions` of `methods` as units (the methods that share posterior draws
 * together, every other one alone) and puts their outcomes back in the order of `positions`.
 */
async function runMethods(
  modelPath: string,
  methods: readonly EvidenceMethod[],
  positions: readonly number[],
  settings: ReturnType<typeof defaultSettings>,
  options: Omit<CompareEstimatorsOptions, "draws"> & ParallelOptions & EvidenceProgress,
): Promise<{ outcomes: EstimatorOutcome[]; posterior: ReturnType<typeof reviveSample> | undefined }> {
  const shared = positions.filter((i) => NEEDS_DRAWS.has(methods[i]));
  const groups = [
    ...(shared.length > 0 ? [shared] : []),
    ...positions.filter((i) => !NEEDS_DRAWS.has(methods[i])).map((i) => [i]),
  ];
  const seed = options.seed ?? 1;
  // On this machine the model's own folder is the data folder; a queue's workers find it in theirs.
  const local = options.redis === undefined;
  const path = local ? basename(modelPath) : modelPath;
  const units: Unit[] = groups.map((only) => ({
    key: only.map((i) => methods[i]).join("+"),
    command: "evidence-methods",
    payload: {
      model: path,
      methods: [...methods],
      only,
      seed,
      ...(settings === undefined ? {} : { settings }),
      ...(options.posterior === undefined ? {} : { posterior: options.posterior }),
    },
  }));
  const parts = (await runUnits(units, siblingModule(import.meta.url, "evidence-units"), {
    ...options,
    ...(local ? { dataFolder: dirname(resolve(modelPath)) } : {}),
    onResult: (_index, part) => {
      for (const o of (part as EvidenceUnitResult).outcomes) options.onOutcome?.(o);
    },
  })) as EvidenceUnitResult[];
  const outcomes: EstimatorOutcome[] = [];
  groups.forEach((only, g) => {
    only.forEach((i, k) => {
      outcomes[positions.indexOf(i)] = parts[g].outcomes[k];
    });
  });
  const posterior = shared.length > 0 ? parts[0].posterior : undefined;
  return { outcomes, posterior: posterior === undefined ? undefined : reviveSample(posterior) };
}
