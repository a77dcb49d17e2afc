// A model for `occam evidence`: the mean μ of twelve measurements y_i ~ N(μ, 1), with the prior
// μ ~ N(0, 2²). The likelihood keeps every normalising constant, as the evidence needs. Its exact log
// evidence is −14.6228 (y ~ N(0, I + 4·11ᵀ)), so the estimates can be checked.
//
//   npx occam evidence examples/evidence-model.mjs
import { defineModel } from "occam";

const y = [0.8, 1.9, 1.1, 0.4, 1.6, 1.3, 0.9, 2.2, 1.0, 1.5, 0.7, 1.2];
const LOG_2PI = Math.log(2 * Math.PI);
const PRIOR_SD = 2;

const logPrior = (t) => -0.5 * (LOG_2PI + 2 * Math.log(PRIOR_SD) + (t[0] / PRIOR_SD) ** 2);
const logLikelihood = (t) => y.reduce((s, v) => s - 0.5 * (LOG_2PI + (v - t[0]) ** 2), 0);

export default defineModel({
  dim: 1,
  names: ["mu"],
  logPrior,
  logLikelihood,
  samplePrior: (rng) => Float64Array.of(PRIOR_SD * rng.normal()),
  gradLogPrior: (t, g) => {
    g[0] = -t[0] / PRIOR_SD ** 2;
    return logPrior(t);
  },
  gradLogLikelihood: (t, g) => {
    g[0] = y.reduce((s, v) => s + (v - t[0]), 0);
    return logLikelihood(t);
  },
});
