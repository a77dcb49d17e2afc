// A probit model with a random intercept for each of 50 children (MASS's bacteria: 220 tests for
// H. influenzae in children with otitis media, Menard 1990): P(y = 1) = Φ(β₀ + β_drug + β_drug+ + β_week
// · week / 10 + b_child), b_child ~ N(0, σ²), each β ~ N(0, 5²), and σ² with the proper prior
// p(σ²) = (1 + σ²)⁻². 55 parameters, σ² bounded below by 0. The same hand-written log Φ as
// birthwt-probit.mjs.
//
//   npx occam evidence examples/real-models/bacteria-glmm.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const BETA_SD = 5;
const [, ...lines] = readFileSync(new URL("./bacteria.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const rows = lines.map((line) => line.split(","));
const y = rows.map((r) => Number(r[0]));
const drug = rows.map((r) => (r[1] === "drug" ? 1 : 0));
const drugPlus = rows.map((r) => (r[1] === "drug+" ? 1 : 0));
const week = rows.map((r) => Number(r[2]) / 10);
const ids = [...new Set(rows.map((r) => r[3]))];
const child = rows.map((r) => ids.indexOf(r[3]));
const n = rows.length;
const G = ids.length;
const dim = 5 + G; // β₀, β_drug, β_drug+, β_week, σ², then b_1 … b_G
const LOG_2PI = Math.log(2 * Math.PI);

function erfc(v) {
  const z = Math.abs(v);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return v >= 0 ? r : 2 - r;
}
const Phi = (z) => 0.5 * erfc(-z / Math.SQRT2);
const phi = (z) => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
const eta = (t, i) => t[0] + t[1] * drug[i] + t[2] * drugPlus[i] + t[3] * week[i] + t[5 + child[i]];

function logPrior(t) {
  const s2 = t[4];
  if (!(s2 > 0)) return Number.NEGATIVE_INFINITY;
  let lp = -2 * Math.log1p(s2);
  for (let j = 0; j < 4; j++)
    lp += -0.5 * (LOG_2PI + 2 * Math.log(BETA_SD)) - (t[j] * t[j]) / (2 * BETA_SD ** 2);
  for (let g = 0; g < G; g++) lp += -0.5 * (LOG_2PI + Math.log(s2)) - (t[5 + g] * t[5 + g]) / (2 * s2);
  return lp;
}

function logLikelihood(t) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.log(y[i] === 1 ? Phi(eta(t, i)) : Phi(-eta(t, i)));
  return s;
}

export default defineModel({
  dim,
  names: ["b0", "drug", "drug+", "week", "sigma2", ...ids.map((id) => `b[${id}]`)],
  bounds: {
    lower: Array.from({ length: dim }, (_, j) => (j === 4 ? 0 : Number.NEGATIVE_INFINITY)),
    upper: Array.from({ length: dim }, () => Number.POSITIVE_INFINITY),
  },
  logPrior,
  logLikelihood,
  samplePrior(rng) {
    const t = new Float64Array(dim);
    for (let j = 0; j < 4; j++) t[j] = BETA_SD * rng.normal();
    // σ² = u / (1 − u) with u ~ U(0, 1) has density (1 + σ²)⁻².
    const u = rng.uniform();
    t[4] = u / (1 - u);
    for (let g = 0; g < G; g++) t[5 + g] = Math.sqrt(t[4]) * rng.normal();
    return t;
  },
  gradLogPrior(t, g) {
    g.fill(0);
    const s2 = t[4];
    for (let j = 0; j < 4; j++) g[j] = -t[j] / BETA_SD ** 2;
    let squares = 0;
    for (let k = 0; k < G; k++) {
      g[5 + k] = -t[5 + k] / s2;
      squares += t[5 + k] * t[5 + k];
    }
    g[4] = -2 / (1 + s2) - G / (2 * s2) + squares / (2 * s2 * s2);
    return logPrior(t);
  },
  gradLogLikelihood(t, g) {
    g.fill(0);
    let s = 0;
    for (let i = 0; i < n; i++) {
      const e = eta(t, i);
      const sign = y[i] === 1 ? 1 : -1;
      const p = Phi(sign * e);
      s += Math.log(p);
      const r = (sign * phi(e)) / p;
      g[0] += r;
      g[1] += r * drug[i];
      g[2] += r * drugPlus[i];
      g[3] += r * week[i];
      g[5 + child[i]] += r;
    }
    return s;
  },
});
