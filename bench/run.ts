/**
 * Runs every benchmark in bench/: each `*.bench.ts` default-exports a function that adds tasks to a
 * tinybench Bench, and may export `measurements()` returning named throughput numbers of its own.
 * Usage: `npm run bench` (all) or `npm run bench -- hmc` (files whose name contains "hmc").
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Bench } from "tinybench";

interface BenchModule {
  default?: (bench: Bench) => void;
  measurements?: () => Record<string, number> | Promise<Record<string, number>>;
}

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? "";
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts") && f.includes(filter))
  .sort();

for (const file of files) {
  const module = (await import(pathToFileURL(join(here, file)).href)) as BenchModule;
  console.log(`\n# ${file}`);
  if (module.default) {
    const bench = new Bench({ time: 1000, warmupTime: 200 });
    module.default(bench);
    await bench.run();
    console.table(bench.table());
  }
  if (module.measurements) {
    for (const [name, value] of Object.entries(await module.measurements())) {
      console.log(`${name}: ${Number(value.toPrecision(4))}`);
    }
  }
}
