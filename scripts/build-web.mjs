// Builds occam for the browser into dist-web/ (or the folder given as the argument):
// - occam.js, the library as one ES module (src/browser.ts) for a page or its Web Worker to import;
// - index.html and app.js, the page (web/): the page's script with the worker's code and the bundled
//   examples inside it as text, so that the page works offline and from file:// (where a page may load
//   neither a module script nor a worker file).
// Nothing in them may need Node.js: a `node:` import fails the build (platform "browser" has no
// built-ins to resolve).
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = process.argv[2] ?? `${root}dist-web`;
mkdirSync(out, { recursive: true });
const common = {
  bundle: true,
  platform: "browser",
  target: "es2022",
  minify: true,
  logLevel: "warning",
  // csv-parse's Node build uses Node's Buffer; its browser build carries its own.
  alias: { "csv-parse/sync": "csv-parse/browser/esm/sync" },
};

const library = await build({
  ...common,
  entryPoints: [`${root}src/browser.ts`],
  outfile: `${out}/occam.js`,
  format: "esm",
  metafile: true,
});
const worker = await build({
  ...common,
  entryPoints: [`${root}web/worker.ts`],
  format: "iife",
  write: false,
});
const workerText = worker.outputFiles[0].text;

/** "bundled:worker" is the worker's code, "bundled:PATH" the text of the repository's file PATH. */
const bundled = {
  name: "bundled",
  setup(b) {
    b.onResolve({ filter: /^bundled:/ }, (args) => ({
      path: args.path.slice("bundled:".length),
      namespace: "bundled",
    }));
    b.onLoad({ filter: /.*/, namespace: "bundled" }, (args) => ({
      contents: args.path === "worker" ? workerText : readFileSync(`${root}${args.path}`, "utf8"),
      loader: "text",
    }));
  },
};
const page = await build({
  ...common,
  entryPoints: [`${root}web/app.ts`],
  outfile: `${out}/app.js`,
  format: "iife",
  plugins: [bundled],
  metafile: true,
});
copyFileSync(`${root}web/index.html`, `${out}/index.html`);

const kB = (result) =>
  (Object.values(result.metafile.outputs).reduce((s, o) => s + o.bytes, 0) / 1024).toFixed(0);
console.log(
  `${out}: occam.js ${kB(library)} kB, app.js ${kB(page)} kB (the worker ${(workerText.length / 1024).toFixed(0)} kB inside), index.html`,
);
