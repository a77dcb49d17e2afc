// Builds the browser module dist-web/occam.js (or the file given as the argument) from src/browser.ts: one ES module with its dependencies,
// for a page (or its Web Worker) to import. Nothing in it may need Node.js: a `node:` import fails the
// build (platform "browser" has no built-ins to resolve).
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outfile = process.argv[2] ?? `${root}dist-web/occam.js`;
const result = await build({
  entryPoints: [`${root}src/browser.ts`],
  outfile,
  bundle: true,
  platform: "browser",
  format: "esm",
  target: "es2022",
  minify: true,
  metafile: true,
  logLevel: "warning",
});
const bytes = Object.values(result.metafile.outputs).reduce((s, o) => s + o.bytes, 0);
console.log(`${outfile}: ${(bytes / 1024).toFixed(0)} kB`);
