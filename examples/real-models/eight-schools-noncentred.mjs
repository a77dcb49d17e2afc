// The eight schools in the non-centred form: θ_j = μ + τ η_j with η_j ~ N(0, 1), so the sampler sees
// no funnel; y_j ~ N(θ_j, σ_j²), μ ~ N(0, 5²), τ ~ half-Cauchy(0, 5). The same model, and the same log
// evidence, as eight-schools-centred.mjs.
//
//   npx occam evidence examples/real-models/eight-schools-noncentred.mjs
import { defineModel } from "occam";

const y = [28, 8, -3, 7, -1, 1, 18, 12];
const sigma = [15, 10, 16, 11, 9, 11, 10, 18];
const J = y.length;
const LOG_2PI = Math.log(2 * Math.PI);
const MU_SD = 5;
const TAU_SCALE = 5;

// θ = [μ, τ, η_1 … η_8]
function logPrior(t) {
  const [mu, tau] = t;
  if (!(tau > 0)) return Number.NEGATIVE_INFINITY;
  let lp = -0.5 * (LOG_2PI + 2 * Math.log(MU_SD)) - (mu * mu) / (2 * MU_SD ** 2);
  lp += Math.log(2 / (Math.PI * TAU_SCALE)) - Math.log1p((tau / TAU_SCALE) ** 2);
  for (let j = 0; j < J; j++) lp += -0.5 * LOG_2PI - (t[2 + j] * t[2 + j]) / 2;
  return lp;
}

function logLikelihood(t) {
  const [mu, tau] = t;
  let s = 0;
  for (let j = 0; j < J; j++) {
    const theta = mu + tau * t[2 + j];
    s += -0.5 * (LOG_2PI + 2 * Math.log(sigma[j])) - (y[j] - theta) ** 2 / (2 * sigma[j] ** 2);
  }
  return s;
}

export default defineModel({
  dim: 2 + J,
  names: ["mu", "tau", ...y.map((_, j) => `eta[${j + 1}]`)],
  bounds: {
    lower: [Number.NEGATIVE_INFINITY, 0, ...y.map(() => Number.NEGATIVE_INFINITY)],
    upper: [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, ...y.map(() => Number.POSITIVE_INFINITY)],
  },
  logPrior,
  logLikelihood,
  samplePrior: (rng) =>
    Float64Array.from([
      MU_SD * rng.normal(),
      TAU_SCALE * Math.abs(Math.tan(Math.PI * (rng.uniform() - 0.5))),
      ...y.map(() => rng.normal()),
    ]),
  gradLogPrior(t, g) {
    const tau = t[1];
    g[0] = -t[0] / MU_SD ** 2;
    g[1] = (-2 * tau) / (TAU_SCALE ** 2 + tau * tau);
    for (let j = 0; j < J; j++) g[2 + j] = -t[2 + j];
    return logPrior(t);
  },
  gradLogLikelihood(t, g) {
    const [mu, tau] = t;
    g[0] = 0;
    g[1] = 0;
    for (let j = 0; j < J; j++) {
      const r = (y[j] - (mu + tau * t[2 + j])) / sigma[j] ** 2;
      g[0] += r;
      g[1] += r * t[2 + j];
      g[2 + j] = r * tau;
    }
    return logLikelihood(t);
  },
});
