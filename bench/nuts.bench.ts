/**
 * NUTS's effective draws per gradient evaluation, to set beside rstan's on the same models and settings
 * (bench/nuts-vs-stan.R): eight schools (non-centred, examples/real-models/), an iid 100-dimensional
 * normal, and the divergences on the centred eight schools. 4 chains of 1000 warm-up and 1000 kept
 * draws, seeds 1–3; ESS is the split ESS of each parameter (no rank normalisation), gradients are the
 * kept iterations' leapfrog steps. Usage: `npm run bench -- nuts` (after `npm run build`, which the
 * model files import).
 */
import { essPerParameter } from "../src/diagnostics/ess.js";
import { type BayesModel, type LogDensity, tempered } from "../src/model/model.js";
import { unbounded } from "../src/model/transform.js";
import { loadModelFile } from "../src/parallel/model-file.js";
import { nutsWarmup } from "../src/samplers/nuts.js";
import { runChain } from "../src/samplers/run.js";

function iidNormal(d: number): LogDensity {
  return {
    dim: d,
    logDensity: (x) => {
      let s = 0;
      for (let i = 0; i < d; i++) s += x[i] * x[i];
      return -0.5 * s;
    },
    gradLogDensity: (x, g) => {
      let s = 0;
      for (let i = 0; i < d; i++) {
        s += x[i] * x[i];
        g[i] = -x[i];
      }
      return -0.5 * s;
    },
  };
}

function run(
  name: string,
  target: LogDensity,
  initial: (rng: { normal(): number }) => Float64Array,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const seed of [1, 2, 3]) {
    const start = performance.now();
    const draws = runChain(nutsWarmup({ target }), {
      chains: 4,
      warmup: 1000,
      draws: 1000,
      seed,
      initial,
    });
    const ess = essPerParameter(draws);
    const gradients = draws.stats.reduce((n, s) => n + s.evaluations, 0);
    const divergences = draws.stats.reduce((n, s) => n + s.divergences, 0);
    const min = Math.min(...ess);
    const mean = ess.reduce((a, b) => a + b, 0) / ess.length;
    out[`${name} seed ${seed}: min ESS/gradient`] = min / gradients;
    out[`${name} seed ${seed}: mean ESS/gradient`] = mean / gradients;
    out[`${name} seed ${seed}: gradients`] = gradients;
    out[`${name} seed ${seed}: divergences`] = divergences;
    out[`${name} seed ${seed}: seconds`] = (performance.now() - start) / 1000;
  }
  return out;
}

/** The model file's posterior on its unbounded scale (τ's log), as Stan samples it. */
async function posterior(file: string): Promise<{ model: BayesModel; target: LogDensity }> {
  const model = unbounded(await loadModelFile(file), "bench").model;
  return { model, target: tempered(model, 1) };
}

export async function measurements(): Promise<Record<string, number>> {
  const noncentred = await posterior("examples/real-models/eight-schools-noncentred.mjs");
  const centred = await posterior("examples/real-models/eight-schools-centred.mjs");
  return {
    ...run("eight-schools-noncentred", noncentred.target, (rng) =>
      noncentred.model.samplePrior(rng as never),
    ),
    ...run("iid-normal-100", iidNormal(100), (rng) => Float64Array.from({ length: 100 }, () => rng.normal())),
    ...run("eight-schools-centred", centred.target, (rng) => centred.model.samplePrior(rng as never)),
  };
}
