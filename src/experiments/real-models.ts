/**
 * `occam reproduce real-models`: every evidence method at its defaults on published models written as
 * users write them (examples/real-models/: a model file each, on real data, with a reference log Z
 * computed outside occam by examples/real-models/references.py). For each model, method and seed:
 * is the result within its error of the reference, or does it say it is unreliable? And does
 * `occam evidence` at its default methods give a consensus near the reference?
 */
import { OccamError } from "../errors.js";
import { EVIDENCE_METHODS, type EvidenceMethod } from "../evidence/estimate.js";
import { siblingModule } from "../parallel/pool.js";
import { type ParallelOptions, runUnits } from "../parallel/run.js";
import { createRng } from "../random/rng.js";
import { type CalibrationCell, type CalibrationRun, summariseCell } from "./calibration.js";
import { unitProgress } from "./progress.js";

/** The models of the suite, by the name of their file in examples/real-models/. */
export const REAL_MODEL_NAMES = Object.freeze([
  "discoveries-poisson-gamma",
  "birthwt-probit",
  "pima-logistic-4",
  "pima-logistic-5",
  "warpbreaks-poisson",
  "stackloss-student-t",
  "states-income",
  "coal-changepoint",
  "eight-schools-noncentred",
  "eight-schools-centred",
  "bacteria-glmm",
] as const);

/** A model's name in the suite. */
export type RealModelName = (typeof REAL_MODEL_NAMES)[number];

/** The folder of the suite, relative to the folder occam runs in (a checkout of occam). */
export const REAL_MODELS_FOLDER = "examples/real-models";

/** A reference log evidence, as references.json records it. */
export interface RealModelReference {
  readonly logZ: number;
  readonly stdErr: number;
  readonly method: string;
}

/** `occam evidence` at its default methods on one model with one seed. */
export interface RealModelConsensus {
  readonly model: string;
  readonly seed: number;
  /** The inverse-variance mean of the reliable results; null when none was reliable. */
  readonly logZ: number | null;
  readonly stdErr: number | null;
  /** logZ − reference. */
  readonly error: number | null;
  /** Whether the reliable results agreed within 3 joint standard errors. */
  readonly agree: boolean;
  readonly reliableMethods: readonly EvidenceMethod[];
  readonly nLikelihoodEvals: number;
  readonly seconds: number;
}

/** The result of `occam reproduce real-models`. */
export interface RealModelsExperiment {
  readonly experiment: "real-models";
  readonly seed: number;
  readonly seeds: number;
  readonly quick: boolean;
  readonly methods: readonly EvidenceMethod[];
  readonly references: Readonly<Record<string, RealModelReference>>;
  readonly cells: readonly CalibrationCell[];
  readonly runs: readonly CalibrationRun[];
  /** `occam evidence`'s default methods, each model and seed. */
  readonly consensus: readonly RealModelConsensus[];
}

/** Options of {@link runRealModelsExperiment}. */
export interface RealModelsOptions extends ParallelOptions {
  /** @defaultValue 1 */
  seed?: number;
  /** Seeds per model and method. @defaultValue 3, or 1 when quick */
  seeds?: number;
  /** One seed, unless `seeds` says otherwise. @defaultValue false */
  quick?: boolean;
  /** Only these models. @defaultValue the whole suite */
  models?: readonly RealModelName[];
  /** Only these methods. @defaultValue every method but "cv", which needs data it can split */
  methods?: readonly EvidenceMethod[];
  /** The references (examples/real-models/references.json), read by the caller. */
  references: Readonly<Record<string, RealModelReference>>;
  /** Told what comes next. */
  onProgress?: (step: string) => void;
}

/** One unit: a method's run, or `occam evidence`'s default methods (`method` "consensus"), on a model. */
export interface RealModelRunSpec {
  readonly model: RealModelName;
  readonly method: EvidenceMethod | "consensus";
  readonly seed: number;
  readonly reference: number;
}

/**
 * Runs every method on every model over `seeds` seeds, and `occam evidence`'s default methods once per
 * model and seed, as units on worker threads or a Redis queue; each run's seed comes from its own
 * stream, so adding a model or a method changes no other run.
 */
export async function runRealModelsExperiment(options: RealModelsOptions): Promise<RealModelsExperiment> {
  const seed = options.seed ?? 1;
  const quick = options.quick ?? false;
  const seeds = options.seeds ?? (quick ? 1 : 3);
  const models = options.models ?? REAL_MODEL_NAMES;
  const methods = options.methods ?? EVIDENCE_METHODS.filter((m) => m !== "cv");
  for (const model of models) {
    if (!Number.isFinite(options.references[model]?.logZ)) {
      throw new OccamError(
        "invalid-argument",
        `real-models: ${REAL_MODELS_FOLDER}/references.json has no reference log Z for ${model}; run references.py again.`,
      );
    }
  }
  const specs: RealModelRunSpec[] = [];
  const modelStreams = createRng(seed).split(models.length);
  models.forEach((model, i) => {
    const reference = options.references[model].logZ;
    const streams = modelStreams[i].split(methods.length + 1);
    for (const [k, method] of [...methods, "consensus" as const].entries()) {
      const seedStreams = streams[k].split(seeds);
      for (let s = 0; s < seeds; s++) {
        specs.push({ model, method, seed: Math.floor(seedStreams[s].uniform() * 0xffffffff), reference });
      }
    }
  });
  const results = await runUnits(
    specs.map((r, i) => ({
      key: `${r.model}/${r.method}/${i % seeds}`,
      command: "real-model-run",
      payload: r,
    })),
    siblingModule(import.meta.url, "real-models-units"),
    { ...options, onUnit: unitProgress(options.onProgress) },
  );
  const runs = results.filter((_, i) => specs[i].method !== "consensus") as CalibrationRun[];
  const consensus = results.filter((_, i) => specs[i].method === "consensus") as RealModelConsensus[];
  const cells = models.flatMap((model) =>
    methods.map((method) =>
      summariseCell(
        model,
        method,
        runs.filter((r) => r.problem === model && r.method === method),
        options.references[model]?.stdErr ?? 0,
      ),
    ),
  );
  return {
    experiment: "real-models",
    seed,
    seeds,
    quick,
    methods,
    references: options.references,
    cells,
    runs,
    consensus,
  };
}
