// Robust regression of the stack loss of an ammonia plant on air flow, water temperature and acid
// concentration (datasets' stackloss, 21 days; Brownlee 1965), with Student-t errors of 4 degrees of
// freedom, on the inputs' own scales: intercept ~ N(0, 100²), slopes ~ N(0, 10²), scale σ ~ half-N(0, 10²).
//
//   npx occam evidence examples/real-models/stackloss-student-t.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const NU = 4;
const [, ...lines] = readFileSync(new URL("./stackloss.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const rows = lines.map((line) => line.split(",").map(Number));
const X = rows.map((r) => [1, r[0], r[1], r[2]]);
const y = rows.map((r) => r[3]);
const n = rows.length;
const PRIOR_SD = [100, 10, 10, 10];
const SIGMA_SD = 10;
const LOG_2PI = Math.log(2 * Math.PI);
// log Γ((ν+1)/2) − log Γ(ν/2) − ½ log(νπ) for ν = 4: Γ(2.5) = 1.329340388…, Γ(2) = 1.
const T_CONSTANT = Math.log(1.329340388179137) - 0.5 * Math.log(NU * Math.PI);

// θ = [β₀, β₁, β₂, β₃, σ]
function logPrior(t) {
  const sigma = t[4];
  if (!(sigma > 0)) return Number.NEGATIVE_INFINITY;
  let lp = Math.log(2) - 0.5 * (LOG_2PI + 2 * Math.log(SIGMA_SD)) - (sigma * sigma) / (2 * SIGMA_SD ** 2);
  for (let j = 0; j < 4; j++)
    lp += -0.5 * (LOG_2PI + 2 * Math.log(PRIOR_SD[j])) - (t[j] * t[j]) / (2 * PRIOR_SD[j] ** 2);
  return lp;
}

function logLikelihood(t) {
  const sigma = t[4];
  let s = 0;
  for (let i = 0; i < n; i++) {
    const r = y[i] - (X[i][0] * t[0] + X[i][1] * t[1] + X[i][2] * t[2] + X[i][3] * t[3]);
    s += T_CONSTANT - Math.log(sigma) - ((NU + 1) / 2) * Math.log1p((r * r) / (NU * sigma * sigma));
  }
  return s;
}

export default defineModel({
  dim: 5,
  names: ["intercept", "air_flow", "water_temp", "acid_conc", "sigma"],
  bounds: {
    lower: [-Infinity, -Infinity, -Infinity, -Infinity, 0],
    upper: [Infinity, Infinity, Infinity, Infinity, Infinity],
  },
  logPrior,
  logLikelihood,
  samplePrior: (rng) =>
    Float64Array.from([...PRIOR_SD.map((s) => s * rng.normal()), SIGMA_SD * Math.abs(rng.normal())]),
  gradLogPrior(t, g) {
    for (let j = 0; j < 4; j++) g[j] = -t[j] / PRIOR_SD[j] ** 2;
    g[4] = -t[4] / SIGMA_SD ** 2;
    return logPrior(t);
  },
  gradLogLikelihood(t, g) {
    const sigma = t[4];
    g.fill(0);
    for (let i = 0; i < n; i++) {
      const r = y[i] - (X[i][0] * t[0] + X[i][1] * t[1] + X[i][2] * t[2] + X[i][3] * t[3]);
      const w = (NU + 1) / (NU * sigma * sigma + r * r);
      for (let j = 0; j < 4; j++) g[j] += w * r * X[i][j];
      g[4] += -1 / sigma + (w * r * r) / sigma;
    }
    return logLikelihood(t);
  },
});
