/**
 * The unit command of `occam reproduce real-models`: one method, or `occam evidence`'s default methods,
 * on one model of the suite with one seed. The model is loaded from its file in the worker's data
 * folder (a checkout of occam), as `occam evidence` loads a user's model.
 */
import { z } from "zod";
import { compareEstimators, DEFAULT_EVIDENCE_METHODS } from "../evidence/compare.js";
import { EVIDENCE_METHODS, type EvidenceMethod } from "../evidence/estimate.js";
import { loadModelFile } from "../parallel/model-file.js";
import { defineUnitCommand, unitCommands } from "../parallel/units.js";
import { type CalibrationRun, methodRun } from "./calibration.js";
import {
  REAL_MODEL_NAMES,
  REAL_MODELS_FOLDER,
  type RealModelConsensus,
  type RealModelRunSpec,
} from "./real-models.js";

/** One run of the real-model suite. */
export const realModelRunCommand = defineUnitCommand({
  name: "real-model-run",
  payload: z
    .object({
      model: z.enum(REAL_MODEL_NAMES as unknown as [string, ...string[]]),
      method: z.enum([...EVIDENCE_METHODS, "consensus"] as unknown as [string, ...string[]]),
      seed: z.number().int().min(0).max(0xffffffff),
      reference: z.number(),
    })
    .strict(),
  async run(payload, context): Promise<CalibrationRun | RealModelConsensus> {
    const spec = payload as RealModelRunSpec;
    const model = await loadModelFile(context.dataPath(`${REAL_MODELS_FOLDER}/${spec.model}.mjs`));
    if (spec.method !== "consensus")
      return methodRun(spec.model, model, spec.method, spec.seed, spec.reference);
    const start = performance.now();
    const c = compareEstimators(model, DEFAULT_EVIDENCE_METHODS, { seed: spec.seed });
    return {
      model: spec.model,
      seed: spec.seed,
      logZ: c.consensus?.logZ ?? null,
      stdErr: c.consensus?.stdErr ?? null,
      error: c.consensus === null ? null : c.consensus.logZ - spec.reference,
      agree: c.agree,
      reliableMethods: c.results.filter((r) => r.reliable).map((r) => r.method as EvidenceMethod),
      nLikelihoodEvals: c.results.reduce(
        (n, r) => n + r.nLikelihoodEvals,
        c.posterior?.nLikelihoodEvals ?? 0,
      ),
      seconds: (performance.now() - start) / 1000,
    };
  },
});

/** The commands of this module, for the worker threads. */
export const commands = unitCommands([realModelRunCommand]);
