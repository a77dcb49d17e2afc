// Replaces dist/math/stdlib.js, which re-exports occam's @stdlib functions package by package, with one
// bundle of them (see src/math/stdlib.ts): Node then reads one file instead of a few thousand. Run by
// `npm run build` after tsc.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
await build({
  entryPoints: [`${root}src/math/stdlib.ts`],
  outfile: `${root}dist/math/stdlib.js`,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  allowOverwrite: true,
  logLevel: "warning",
  // stdlib's inverse incomplete gamma function requires `debug`, which requires Node's built-ins.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
});
