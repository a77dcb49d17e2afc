/**
 * The unit command of `occam evidence`: some of the methods on a user's model, named by its module's
 * path inside the worker's data folder (a path outside it is refused before anything is loaded).
 */
import { z } from "zod";
import { type EstimatorOutcome, type EvidenceSettingsByMethod, runEstimators } from "../evidence/compare.js";
import { EVIDENCE_METHODS, type EvidenceMethod } from "../evidence/estimate.js";
import type { PosteriorSample } from "../evidence/posterior-sampling.js";
import { Draws } from "../model/draws.js";
import { loadModelFile } from "./model-file.js";
import { defineUnitCommand, unitCommands } from "./units.js";

/** What an evidence unit returns: the outcomes of its methods and the draws it made, if any. */
export interface EvidenceUnitResult {
  readonly outcomes: readonly EstimatorOutcome[];
  readonly posterior?: PosteriorSample;
}

/** Some of a comparison's methods on the model in `model`. */
export const evidenceMethodsCommand = defineUnitCommand({
  name: "evidence-methods",
  payload: z
    .object({
      model: z.string().min(1).max(4096),
      methods: z.array(z.enum(EVIDENCE_METHODS as unknown as [string, ...string[]])).min(1),
      only: z.array(z.number().int().min(0)).min(1),
      seed: z.number().int().min(0).max(0xffffffff),
      // Each method's own options, checked by the method itself.
      settings: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
      posterior: z
        .object({
          chains: z.number().int().min(1).optional(),
          warmup: z.number().int().min(0).optional(),
          draws: z.number().int().min(10).optional(),
        })
        .strict()
        .optional(),
    })
    .strict()
    .refine((p) => p.only.every((i) => i < p.methods.length), {
      message: "only must index the methods",
    }),
  async run(payload, context): Promise<EvidenceUnitResult> {
    const model = await loadModelFile(context.dataPath(payload.model));
    return runEstimators(model, payload.methods as EvidenceMethod[], {
      seed: payload.seed,
      only: payload.only,
      ...(payload.settings === undefined ? {} : { settings: payload.settings as EvidenceSettingsByMethod }),
      ...(payload.posterior === undefined ? {} : { posterior: payload.posterior }),
    });
  },
});

/**
 * A posterior sample as it arrives from a unit (its Draws store decoded to plain data), made whole
 * again.
 */
export function reviveSample(plain: PosteriorSample): PosteriorSample {
  const p = plain.draws;
  const draws = new Draws({ dim: p.dim, nChains: p.nChains, nDraws: p.nDraws, names: p.names });
  draws.values.set(p.values);
  draws.logDensity.set(p.logDensity);
  draws.stats.splice(0, draws.stats.length, ...p.stats);
  return { ...plain, draws };
}

/** The commands of this module, for the worker threads. */
export const commands = unitCommands([evidenceMethodsCommand]);
