/** Shared pieces of the tests of units, threads and the queue. */
import type { NumericTable } from "../../src/data/csv.js";
import { createRng } from "../../src/random/rng.js";

/** A seeded regression table with p inputs, of which the first two matter. */
export function regressionTable(n: number, p: number, seed: number): NumericTable {
  const rng = createRng(seed);
  const X = new Float64Array(n * p);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) X[i * p + j] = rng.normal();
    y[i] = 1 + 0.8 * X[i * p] - 0.5 * X[i * p + 1] + 0.7 * rng.normal();
  }
  const inputNames = Array.from({ length: p }, (_, j) => `x${j + 1}`);
  return { X, y, inputNames, targetName: "y", n, p };
}

/** JSON of a result without its timings (`seconds`), which alone may differ between runs; typed arrays as arrays. */
export function withoutTimes(value: unknown): string {
  return JSON.stringify(value, (key, v) =>
    key === "seconds" ? undefined : ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v,
  );
}

/** The URL of a source module under src/, for the threads and the queue's workers. */
export function sourceModule(path: string): string {
  return new URL(`../../src/${path}`, import.meta.url).href;
}
