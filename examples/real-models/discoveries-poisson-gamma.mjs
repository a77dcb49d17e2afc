// The yearly number of great inventions and scientific discoveries, 1860–1959 (datasets'
// discoveries; The World Almanac 1975), as Poisson counts with one rate λ ~ Gamma(shape 2, rate 0.5):
// written as the README advises, with λ's bound declared and both gradients. Its log evidence is
// known in closed form.
//
//   npx occam evidence examples/real-models/discoveries-poisson-gamma.mjs
import { readFileSync } from "node:fs";
import { defineModel } from "occam";

const [, ...lines] = readFileSync(new URL("./discoveries.csv", import.meta.url), "utf8")
  .trim()
  .split("\n");
const counts = lines.map((line) => Number(line.split(",")[1]));
const n = counts.length;
const total = counts.reduce((a, b) => a + b, 0);
let logFactorials = 0;
for (const y of counts) for (let k = 2; k <= y; k++) logFactorials += Math.log(k);
const SHAPE = 2;
const RATE = 0.5;

// Gamma(2, 0.5): log Γ(2) = 0.
const logPrior = ([l]) =>
  l > 0 ? SHAPE * Math.log(RATE) + (SHAPE - 1) * Math.log(l) - RATE * l : Number.NEGATIVE_INFINITY;
const logLikelihood = ([l]) => total * Math.log(l) - n * l - logFactorials;

export default defineModel({
  dim: 1,
  names: ["rate"],
  bounds: { lower: [0], upper: [Infinity] },
  logPrior,
  logLikelihood,
  samplePrior: (rng) => Float64Array.of(rng.gamma(SHAPE) / RATE),
  gradLogPrior: (t, g) => {
    g[0] = (SHAPE - 1) / t[0] - RATE;
    return logPrior(t);
  },
  gradLogLikelihood: (t, g) => {
    g[0] = total / t[0] - n;
    return logLikelihood(t);
  },
});
