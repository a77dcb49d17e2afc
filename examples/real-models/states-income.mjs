// Per capita income of the 50 US states against the share of high-school graduates (datasets'
// state.x77; U.S. Department of Commerce 1977), a conjugate regression written with log densities
// only, no gradients, at the scales of the data: income_i ~ N(α + β (grad_i − mean), 1/τ), with
// α | τ ~ N(4000, 1/(0.01 τ)), β | τ ~ N(0, 1/τ) and τ ~ Gamma(shape 2, rate 2 · 500²). The
// intercept is of order 4000, the slope of order 50 and the precision of order 10⁻⁶; τ is bounded
// below by 0. Its log evidence is known in closed form.
//
//   npx occam evidence examples/real-models/states-income.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const [, ...lines] = readFileSync(new URL("./states.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const income = lines.map((line) => Number(line.split(",")[0]));
const grad = lines.map((line) => Number(line.split(",")[1]));
const n = income.length;
const meanGrad = grad.reduce((a, b) => a + b, 0) / n;
const x = grad.map((v) => v - meanGrad);
const ALPHA_MEAN = 4000;
const ALPHA_PRECISION = 0.01; // relative to τ
const BETA_PRECISION = 1; // relative to τ
const TAU_SHAPE = 2;
const TAU_RATE = 2 * 500 ** 2;
const LOG_2PI = Math.log(2 * Math.PI);
// log Γ(2) = 0
const LOG_GAMMA_SHAPE = 0;

// θ = [α, β, τ]
function logPrior([alpha, beta, tau]) {
  if (!(tau > 0)) return Number.NEGATIVE_INFINITY;
  const logTau = Math.log(tau);
  return (
    TAU_SHAPE * Math.log(TAU_RATE) -
    LOG_GAMMA_SHAPE +
    (TAU_SHAPE - 1) * logTau -
    TAU_RATE * tau -
    0.5 * (LOG_2PI - Math.log(ALPHA_PRECISION * tau)) -
    0.5 * ALPHA_PRECISION * tau * (alpha - ALPHA_MEAN) ** 2 -
    0.5 * (LOG_2PI - Math.log(BETA_PRECISION * tau)) -
    0.5 * BETA_PRECISION * tau * beta * beta
  );
}

function logLikelihood([alpha, beta, tau]) {
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (income[i] - alpha - beta * x[i]) ** 2;
  return 0.5 * n * (Math.log(tau) - LOG_2PI) - 0.5 * tau * squares;
}

export default defineModel({
  dim: 3,
  names: ["alpha", "beta", "tau"],
  bounds: { lower: [-Infinity, -Infinity, 0], upper: [Infinity, Infinity, Infinity] },
  logPrior,
  logLikelihood,
  samplePrior(rng) {
    const tau = rng.gamma(TAU_SHAPE) / TAU_RATE;
    return Float64Array.of(
      ALPHA_MEAN + rng.normal() / Math.sqrt(ALPHA_PRECISION * tau),
      rng.normal() / Math.sqrt(BETA_PRECISION * tau),
      tau,
    );
  },
});
