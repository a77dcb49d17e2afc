// @ts-check
/**
 * Node's module customisation hooks for a user's model file, registered by `loadModelFile` in every
 * thread that loads one. They run in Node's loader thread, so this file is plain JavaScript: it must
 * load the same way from the compiled package and from occam's sources, in the main thread and in
 * worker threads (where tsx's hooks do not reach on Node 20).
 *
 * - `import … from "occam"` resolves to the occam that loads the model, wherever the model's file is:
 *   a model in a folder without occam installed still finds it, and its `defineModel` is this occam's.
 * - A `.ts` or `.mts` file is loaded as an ES module with its types stripped (by esbuild), as Node's
 *   own type stripping does: imports name files with their extensions.
 */
import { readFile } from "node:fs/promises";
import { transform } from "esbuild";

/** The URL "occam" resolves to, given by `register`. */
let occamUrl = "";

/** @param {{ occam: string }} data */
export async function initialize(data) {
  occamUrl = data.occam;
}

/**
 * @param {string} specifier
 * @param {object} context
 * @param {(specifier: string, context: object) => Promise<object>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === "occam") return { url: occamUrl, format: "module", shortCircuit: true };
  return nextResolve(specifier, context);
}

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<object>} nextLoad
 */
export async function load(url, context, nextLoad) {
  if (!(url.startsWith("file:") && /\.m?ts$/.test(new URL(url).pathname))) return nextLoad(url, context);
  const source = await readFile(new URL(url), "utf8");
  const { code } = await transform(source, {
    loader: "ts",
    format: "esm",
    target: "node20",
    sourcefile: url,
    sourcemap: "inline",
  });
  return { format: "module", source: code, shortCircuit: true };
}
