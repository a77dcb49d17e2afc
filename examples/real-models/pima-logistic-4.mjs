// Logistic regression of diabetes on four inputs of the Pima Indians data (532 women, MASS's Pima.tr
// and Pima.te): npreg, glu, bmi and ped, standardised, with an intercept; every coefficient ~ N(0, 10²)
// (Friel & Wyse 2012, Statistica Neerlandica 66(3), "model 1"; their log evidence is −257.23).
//
//   npx occam evidence examples/real-models/pima-logistic-4.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const INPUTS = ["npreg", "glu", "bmi", "ped"];
const PRIOR_SD = 10;

const [header, ...lines] = readFileSync(new URL("./pima.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const names = header.split(",");
const rows = lines.map((line) => line.split(","));
const y = Float64Array.from(rows, (r) => (r[names.indexOf("type")] === "Yes" ? 1 : 0));
const n = rows.length;
const d = INPUTS.length + 1;
// The design, row-major: an intercept and the standardised inputs (sample sd, n − 1).
const X = new Float64Array(n * d);
INPUTS.forEach((name, k) => {
  const x = rows.map((r) => Number(r[names.indexOf(name)]));
  const mean = x.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  for (let i = 0; i < n; i++) X[i * d + k + 1] = (x[i] - mean) / sd;
});
for (let i = 0; i < n; i++) X[i * d] = 1;
const LOG_2PI = Math.log(2 * Math.PI);

const linear = (t, i) => {
  let eta = 0;
  for (let j = 0; j < d; j++) eta += t[j] * X[i * d + j];
  return eta;
};

const logPrior = (t) => {
  let s = 0;
  for (let j = 0; j < d; j++) s += t[j] * t[j];
  return -0.5 * (d * (LOG_2PI + 2 * Math.log(PRIOR_SD)) + s / PRIOR_SD ** 2);
};
// Σ y η − log(1 + e^η), with log(1 + e^η) = max(η, 0) + log1p(e^−|η|), which never overflows.
const logLikelihood = (t) => {
  let s = 0;
  for (let i = 0; i < n; i++) {
    const eta = linear(t, i);
    s += y[i] * eta - Math.max(eta, 0) - Math.log1p(Math.exp(-Math.abs(eta)));
  }
  return s;
};

export default defineModel({
  dim: d,
  names: ["intercept", ...INPUTS],
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
      const eta = linear(t, i);
      const e = Math.exp(-Math.abs(eta));
      s += y[i] * eta - Math.max(eta, 0) - Math.log1p(e);
      // y − σ(η), with σ(η) from the same exponential.
      const r = y[i] - (eta >= 0 ? 1 / (1 + e) : e / (1 + e));
      for (let j = 0; j < d; j++) g[j] += r * X[i * d + j];
    }
    return s;
  },
});
