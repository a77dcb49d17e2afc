/**
 * Loading a user's model from its file, for `occam evidence` and its worker threads: the module's
 * default export, checked by `defineModel`, with every function the user wrote wrapped so that an
 * exception it throws is reported as the model's (the file, the function, the point θ), not occam's.
 */
import { existsSync } from "node:fs";
import { createRequire, register } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { OccamError } from "../errors.js";
import { type BayesModel, defineModel } from "../model/model.js";
import { describePosition } from "../samplers/accept.js";

/**
 * The URL `import … from "occam"` resolves to in a model: this occam's compiled entry, so that the
 * model's `defineModel` is the one that checks it. Run from its sources (under tsx or vitest), occam
 * gives the package's build when there is one: Node 20's worker threads cannot load TypeScript sources.
 */
function occamUrl(): string {
  for (const candidate of ["../index.js", "../../dist/index.js"]) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(url)) return url.href;
  }
  return new URL("../index.ts", import.meta.url).href;
}

/** Whether this thread has registered the hooks (Node keeps them per thread). */
let hooksRegistered = false;

/**
 * Whether loading `file` needs the hooks: a TypeScript model, or one from whose folder "occam" does not
 * already resolve to this occam (the hooks run on a thread of their own, through which every later
 * import then passes: about half a second of each thread's start that a model in occam's own examples,
 * or in a project that has this occam installed, does without).
 */
function needsModelHooks(file: string): boolean {
  if (/\.[cm]?ts$/.test(file)) return true;
  try {
    return pathToFileURL(createRequire(file).resolve("occam")).href !== occamUrl();
  } catch {
    return true;
  }
}

/** Registers model-hooks.mjs in this thread, once: "occam" resolves to this occam, `.ts` files load. */
function registerModelHooks(): void {
  if (hooksRegistered) return;
  hooksRegistered = true;
  register(new URL("./model-hooks.mjs", import.meta.url), { data: { occam: occamUrl() } });
}

/** The functions of a model that run the user's code, and what each is given. */
const USER_FUNCTIONS = [
  "logPrior",
  "logLikelihood",
  "gradLogPrior",
  "gradLogLikelihood",
  "logLikelihoodPointwise",
  "priorTransform",
] as const;

/**
 * Loads the module `file` (`.mjs`, `.js` or `.ts`, from any folder) whose default export is a model
 * made with `defineModel`, checks it, and returns it with its functions wrapped (see the file's
 * comment). A module that cannot be loaded, has no model as its default export, or fails the checks
 * gives an `OccamError` naming the file.
 */
export async function loadModelFile(file: string): Promise<BayesModel> {
  if (needsModelHooks(resolve(file))) registerModelHooks();
  const url = pathToFileURL(resolve(file)).href;
  let module: { default?: unknown };
  try {
    module = await import(url);
  } catch (error) {
    throw new OccamError(
      "invalid-argument",
      `cannot load the model module ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const model = module.default;
  if (model === undefined || model === null || typeof model !== "object") {
    throw new OccamError(
      "invalid-argument",
      `${file} has no default export that is a model: end it with \`export default defineModel({ … })\`.`,
    );
  }
  const wrapped = blameModel(model as BayesModel, file);
  try {
    return defineModel(wrapped);
  } catch (error) {
    if (error instanceof OccamError) throw new OccamError(error.code, `${file}: ${error.message}`);
    throw error;
  }
}

/**
 * A copy of `model` whose user functions rethrow what they throw as an `OccamError` with code
 * `model-error`, saying which file and function threw, at which point, and where in the user's code.
 */
function blameModel(model: BayesModel, file: string): BayesModel {
  // A copy with the model's fields; every method runs on the model itself (a class's private fields
  // belong to it), the user's functions wrapped.
  const copy: Record<string, unknown> = { ...model };
  // Read through the prototype too, where a class keeps its getters.
  for (const name of [
    "dim",
    "names",
    "bounds",
    "hmcTargetAccept",
    "hmcTrajectoryLength",
    "hmcMaxSteps",
  ] as const) {
    if (model[name] !== undefined) copy[name] = model[name];
  }
  for (const name of ["powerPosteriorKernel", "exactLogEvidence"] as const) {
    const fn = model[name];
    if (typeof fn === "function") copy[name] = fn.bind(model);
  }
  for (const name of USER_FUNCTIONS) {
    const fn = model[name] as ((theta: Float64Array, out: Float64Array) => unknown) | undefined;
    if (typeof fn !== "function") continue;
    copy[name] = (theta: Float64Array, out: Float64Array) => {
      try {
        return fn.call(model, theta, out);
      } catch (error) {
        throw modelError(file, name, theta, error);
      }
    };
  }
  if (typeof model.samplePrior === "function") {
    const samplePrior = model.samplePrior;
    copy.samplePrior = (rng: Parameters<BayesModel["samplePrior"]>[0]) => {
      try {
        return samplePrior.call(model, rng);
      } catch (error) {
        throw modelError(file, "samplePrior", undefined, error);
      }
    };
  }
  return copy as unknown as BayesModel;
}

/** The error of a model function that threw: its message, the point, and the line of the model's file that threw. */
function modelError(file: string, name: string, theta: Float64Array | undefined, error: unknown): OccamError {
  if (error instanceof OccamError && error.code === "model-error") return error;
  const message = error instanceof Error ? error.message : String(error);
  const at = theta === undefined ? "" : ` at θ = ${describePosition(theta)}`;
  const line = error instanceof Error ? lineInFile(error.stack, resolve(file)) : undefined;
  return new OccamError(
    "model-error",
    `${file}: model.${name} threw${at}: ${message}${line === undefined ? "" : ` (line ${line})`}. ` +
      "The error is in the model's code: fix it there.",
  );
}

/** The line:column of the first frame of `stack` in the file at `path`, if any. */
function lineInFile(stack: string | undefined, path: string): string | undefined {
  const frame = stack?.split("\n").find((l) => l.includes(path));
  return frame?.match(/:(\d+:\d+)\)?$/)?.[1];
}
