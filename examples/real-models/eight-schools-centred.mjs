// The eight schools (Rubin 1981; Gelman et al., Bayesian Data Analysis, §5.5): coaching effects y_j with
// known standard errors σ_j, y_j ~ N(θ_j, σ_j²), θ_j ~ N(μ, τ²), μ ~ N(0, 5²), τ ~ half-Cauchy(0, 5),
// written in the centred form whose funnel makes Stan report divergences. τ is bounded below by 0.
//
//   npx occam evidence examples/real-models/eight-schools-centred.mjs
import { defineModel } from "occam";

const y = [28, 8, -3, 7, -1, 1, 18, 12];
const sigma = [15, 10, 16, 11, 9, 11, 10, 18];
const J = y.length;
const LOG_2PI = Math.log(2 * Math.PI);
const MU_SD = 5;
const TAU_SCALE = 5;

// θ = [μ, τ, θ_1 … θ_8]
function logPrior(t) {
  const [mu, tau] = t;
  if (!(tau > 0)) return Number.NEGATIVE_INFINITY;
  let lp = -0.5 * (LOG_2PI + 2 * Math.log(MU_SD)) - (mu * mu) / (2 * MU_SD ** 2);
  lp += Math.log(2 / (Math.PI * TAU_SCALE)) - Math.log1p((tau / TAU_SCALE) ** 2);
  for (let j = 0; j < J; j++)
    lp += -0.5 * (LOG_2PI + 2 * Math.log(tau)) - (t[2 + j] - mu) ** 2 / (2 * tau * tau);
  return lp;
}

function logLikelihood(t) {
  let s = 0;
  for (let j = 0; j < J; j++)
    s += -0.5 * (LOG_2PI + 2 * Math.log(sigma[j])) - (y[j] - t[2 + j]) ** 2 / (2 * sigma[j] ** 2);
  return s;
}

export default defineModel({
  dim: 2 + J,
  names: ["mu", "tau", ...y.map((_, j) => `theta[${j + 1}]`)],
  bounds: {
    lower: [Number.NEGATIVE_INFINITY, 0, ...y.map(() => Number.NEGATIVE_INFINITY)],
    upper: [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, ...y.map(() => Number.POSITIVE_INFINITY)],
  },
  logPrior,
  logLikelihood,
  samplePrior(rng) {
    const mu = MU_SD * rng.normal();
    const tau = TAU_SCALE * Math.abs(Math.tan(Math.PI * (rng.uniform() - 0.5)));
    return Float64Array.from([mu, tau, ...y.map(() => mu + tau * rng.normal())]);
  },
  gradLogPrior(t, g) {
    const [mu, tau] = t;
    g[0] = -mu / MU_SD ** 2;
    g[1] = (-2 * tau) / (TAU_SCALE ** 2 + tau * tau) - J / tau;
    for (let j = 0; j < J; j++) {
      const r = t[2 + j] - mu;
      g[0] += r / (tau * tau);
      g[1] += (r * r) / tau ** 3;
      g[2 + j] = -r / (tau * tau);
    }
    return logPrior(t);
  },
  gradLogLikelihood(t, g) {
    g[0] = 0;
    g[1] = 0;
    for (let j = 0; j < J; j++) g[2 + j] = (y[j] - t[2 + j]) / sigma[j] ** 2;
    return logLikelihood(t);
  },
});
