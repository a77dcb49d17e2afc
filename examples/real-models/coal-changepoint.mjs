// A change point in the rate of British coal-mining disasters, 1851–1962 (boot's coal, counted by year;
// Jarrett 1979): the count of year t is Poisson(λ₁) before the change point c and Poisson(λ₂) from it
// on, with c ~ U(1851, 1963) and λ₁, λ₂ ~ Gamma(shape 2, rate 1). The likelihood is a step function of
// c, so the posterior of c is a comb of flat pieces, one per year; written without gradients. Its log
// evidence is a sum over the years, in closed form.
//
//   npx occam evidence examples/real-models/coal-changepoint.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const [, ...lines] = readFileSync(new URL("./coal.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const years = lines.map((line) => Number(line.split(",")[0]));
const counts = lines.map((line) => Number(line.split(",")[1]));
const FIRST = 1851;
const END = 1963;
const SHAPE = 2;
const RATE = 1;
const logFactorials = counts.map((y) => {
  let s = 0;
  for (let k = 2; k <= y; k++) s += Math.log(k);
  return s;
});
// log of the Gamma(2, 1) density: log Γ(2) = 0.
const logGamma21 = (l) => SHAPE * Math.log(RATE) + (SHAPE - 1) * Math.log(l) - RATE * l;

// θ = [c, λ₁, λ₂]
function logPrior([c, l1, l2]) {
  if (!(c > FIRST && c < END && l1 > 0 && l2 > 0)) return Number.NEGATIVE_INFINITY;
  return -Math.log(END - FIRST) + logGamma21(l1) + logGamma21(l2);
}

function logLikelihood([c, l1, l2]) {
  let s = 0;
  for (let i = 0; i < years.length; i++) {
    const rate = years[i] < c ? l1 : l2;
    s += counts[i] * Math.log(rate) - rate - logFactorials[i];
  }
  return s;
}

export default defineModel({
  dim: 3,
  names: ["change", "rate1", "rate2"],
  bounds: { lower: [FIRST, 0, 0], upper: [END, Infinity, Infinity] },
  logPrior,
  logLikelihood,
  samplePrior: (rng) =>
    Float64Array.of(FIRST + (END - FIRST) * rng.uniform(), rng.gamma(SHAPE) / RATE, rng.gamma(SHAPE) / RATE),
});
