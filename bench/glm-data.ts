/**
 * A logistic-regression data set made from a seed, for benchmarks of large model spaces: n rows of p
 * inputs sharing a common factor (pairwise correlation 0.2), the first six with effects 0.9, −0.7, 0.5,
 * 0.35, 0.25, 0.15 on the log-odds and the rest none.
 */
import { createRng } from "../src/random/rng.js";

/** The data as CSV text, inputs x1 … xp then the 0/1 target y. */
export function logisticCsv(n: number, p: number, seed: number): string {
  const rng = createRng(seed);
  const effects = [0.9, -0.7, 0.5, 0.35, 0.25, 0.15];
  const lines = [[...Array.from({ length: p }, (_, j) => `x${j + 1}`), "y"].join(",")];
  for (let i = 0; i < n; i++) {
    const common = rng.normal();
    const x = Array.from({ length: p }, () => 0.5 * common + rng.normal());
    const eta = -0.3 + x.reduce((s, v, j) => s + v * (effects[j] ?? 0), 0);
    const y = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    lines.push([...x.map((v) => v.toFixed(4)), y].join(","));
  }
  return `${lines.join("\n")}\n`;
}
