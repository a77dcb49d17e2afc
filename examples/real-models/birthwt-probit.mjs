// Probit regression of low birth weight on the mother's weight (MASS's birthwt, 189 births; Hosmer &
// Lemeshow 1989): P(low) = Φ(a + b · lwt), lwt standardised, a and b ~ N(0, 10²). JavaScript has no
// erfc, so Φ is written here with the Chebyshev approximation of Numerical Recipes (erfcc, fractional
// error below 1.2e-7), and log Φ with its asymptotic series where Φ underflows, as users write it; the
// gradient's φ/Φ is left as it is, so far out on a trajectory (|η| > 38) it is 0/0 = NaN.
//
//   npx occam evidence examples/real-models/birthwt-probit.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const PRIOR_SD = 10;
const [, ...lines] = readFileSync(new URL("./birthwt.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const low = lines.map((line) => Number(line.split(",")[0]));
const lwt = lines.map((line) => Number(line.split(",")[1]));
const n = low.length;
const mean = lwt.reduce((a, b) => a + b, 0) / n;
const sd = Math.sqrt(lwt.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
const x = lwt.map((v) => (v - mean) / sd);
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
// log Φ(z), with the first term of its asymptotic series where Φ underflows.
const logPhi = (z) => (z < -30 ? -0.5 * z * z - Math.log(-z) - 0.5 * LOG_2PI : Math.log(Phi(z)));

const logPrior = (t) =>
  -(LOG_2PI + 2 * Math.log(PRIOR_SD)) - (t[0] * t[0] + t[1] * t[1]) / (2 * PRIOR_SD ** 2);
const logLikelihood = (t) => {
  let s = 0;
  for (let i = 0; i < n; i++) {
    const eta = t[0] + t[1] * x[i];
    s += logPhi(low[i] === 1 ? eta : -eta);
  }
  return s;
};

export default defineModel({
  dim: 2,
  names: ["a", "b"],
  logPrior,
  logLikelihood,
  samplePrior: (rng) => Float64Array.of(PRIOR_SD * rng.normal(), PRIOR_SD * rng.normal()),
  gradLogPrior: (t, g) => {
    g[0] = -t[0] / PRIOR_SD ** 2;
    g[1] = -t[1] / PRIOR_SD ** 2;
    return logPrior(t);
  },
  gradLogLikelihood: (t, g) => {
    g[0] = 0;
    g[1] = 0;
    let s = 0;
    for (let i = 0; i < n; i++) {
      const eta = t[0] + t[1] * x[i];
      const sign = low[i] === 1 ? 1 : -1;
      s += logPhi(sign * eta);
      const r = (sign * phi(eta)) / Phi(sign * eta); // d log Φ(±η) / dη
      g[0] += r;
      g[1] += r * x[i];
    }
    return s;
  },
});
