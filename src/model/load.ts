import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { OccamError } from "../errors.js";
import { type BayesModel, defineModel } from "./model.js";

/** Loads a module whose default export is a model made with `defineModel`, and checks it. */
export async function loadModel(file: string): Promise<BayesModel> {
  const url = pathToFileURL(resolve(file)).href;
  let module: { default?: unknown };
  try {
    module = await import(url);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new OccamError("invalid-argument", `cannot load the model module ${file}: ${message}`);
  }
  const model = module.default;
  if (model === undefined || model === null || typeof model !== "object") {
    throw new OccamError(
      "invalid-argument",
      `${file} has no default export that is a model: end it with \`export default defineModel({ … })\`.`,
    );
  }
  try {
    return defineModel(model as BayesModel);
  } catch (error) {
    if (error instanceof OccamError) throw new OccamError(error.code, `${file}: ${error.message}`);
    throw error;
  }
}
