// Poisson regression of yarn breaks on wool type and tension (datasets' warpbreaks, 54 looms; Tippett
// 1950): log E[breaks] = β₀ + β_B [wool B] + β_M [tension M] + β_H [tension H], each β ~ N(0, 10²).
//
//   npx occam evidence examples/real-models/warpbreaks-poisson.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const PRIOR_SD = 10;
const [, ...lines] = readFileSync(new URL("./warpbreaks.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const rows = lines.map((line) => line.split(","));
const breaks = rows.map((r) => Number(r[0]));
// The design: intercept, wool B, tension M, tension H (wool A and tension L are the baseline).
const X = rows.map((r) => [1, r[1] === "B" ? 1 : 0, r[2] === "M" ? 1 : 0, r[2] === "H" ? 1 : 0]);
const n = rows.length;
const d = 4;
const LOG_2PI = Math.log(2 * Math.PI);
// log y! for each count, once.
const logFactorial = breaks.map((y) => {
  let s = 0;
  for (let k = 2; k <= y; k++) s += Math.log(k);
  return s;
});

const logPrior = (t) => {
  let s = 0;
  for (let j = 0; j < d; j++) s += t[j] * t[j];
  return -0.5 * d * (LOG_2PI + 2 * Math.log(PRIOR_SD)) - s / (2 * PRIOR_SD ** 2);
};
const logLikelihood = (t) => {
  let s = 0;
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += X[i][j] * t[j];
    s += breaks[i] * eta - Math.exp(eta) - logFactorial[i];
  }
  return s;
};

export default defineModel({
  dim: d,
  names: ["intercept", "woolB", "tensionM", "tensionH"],
  logPrior,
  logLikelihood,
  samplePrior: (rng) => Float64Array.from({ length: d }, () => PRIOR_SD * rng.normal()),
  gradLogPrior: (t, g) => {
    for (let j = 0; j < d; j++) g[j] = -t[j] / PRIOR_SD ** 2;
    return logPrior(t);
  },
  gradLogLikelihood: (t, g) => {
    g.fill(0);
    let s = 0;
    for (let i = 0; i < n; i++) {
      let eta = 0;
      for (let j = 0; j < d; j++) eta += X[i][j] * t[j];
      const mean = Math.exp(eta);
      s += breaks[i] * eta - mean - logFactorial[i];
      for (let j = 0; j < d; j++) g[j] += (breaks[i] - mean) * X[i][j];
    }
    return s;
  },
});
