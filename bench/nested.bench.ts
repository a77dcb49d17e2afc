/**
 * The overhead of nested sampling: on a cheap 2-D likelihood (a Gaussian of width 0.01 on the unit
 * square, tens of nanoseconds an evaluation), where nearly all the time is the sampler's own,
 * likelihood evaluations per second and microseconds per iteration (one dead point replaced) for the
 * ellipsoids and for slice moves, 500 live points, the median of three runs of one seed. Each is timed
 * with the default 200 simulated runs behind the standard error (a user waits for them) and with 10,
 * which leaves the sampling's own cost. And the eggbox at the defaults (see `eggbox`).
 */

import { estimateEvidence } from "../src/evidence/estimate.js";
import { nestedSampling } from "../src/evidence/nested/nested-sampling.js";
import type { BayesModel } from "../src/model/model.js";
import { hardProblem } from "../src/models/hard-problems/index.js";

const model: BayesModel = {
  dim: 2,
  logPrior: (t) => (t[0] >= 0 && t[0] <= 1 && t[1] >= 0 && t[1] <= 1 ? 0 : Number.NEGATIVE_INFINITY),
  logLikelihood: (t) => -((t[0] - 0.5) ** 2 + (t[1] - 0.5) ** 2) / (2 * 1e-4),
  samplePrior: (rng) => Float64Array.of(rng.uniform(), rng.uniform()),
  priorTransform: (u, out) => {
    out[0] = u[0];
    out[1] = u[1];
    return out;
  },
};

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/**
 * Nested sampling at its defaults on the eggbox (2-D, 18 modes, exact log Z), seeds 1–5: how many runs
 * land within 0.1 nats of the truth, and the mean likelihood evaluations of a run (dynesty's default
 * run: 57 000–74 000, and 0.1 nats is about its standard error).
 */
function eggbox(out: Record<string, number>): void {
  const problem = hardProblem("eggbox");
  let within = 0;
  let evaluations = 0;
  let worst = 0;
  for (let seed = 1; seed <= 5; seed++) {
    const r = estimateEvidence(problem.model, { method: "nested", seed });
    const error = Math.abs(r.logZ - problem.logZ);
    if (error < 0.1) within++;
    worst = Math.max(worst, error);
    evaluations += r.nLikelihoodEvals / 5;
  }
  out["eggbox at the defaults, 5 seeds: runs within 0.1 nats"] = within;
  out["eggbox at the defaults, 5 seeds: largest error (nats)"] = worst;
  out["eggbox at the defaults, 5 seeds: mean likelihood evaluations"] = evaluations;
}

/** Evaluations per second, microseconds and evaluations per iteration of each sampler; the eggbox at the defaults. */
export function measurements(): Record<string, number> {
  const out: Record<string, number> = {};
  eggbox(out);
  for (const sampler of ["ellipsoid", "slice"] as const) {
    for (const simulations of [200, 10]) {
      const seconds: number[] = [];
      let evaluations = 0;
      let iterations = 0;
      for (let run = 0; run < 3; run++) {
        const r = nestedSampling(model, { livePoints: 500, sampler, seed: 1, simulations });
        seconds.push(r.seconds);
        evaluations = r.nLikelihoodEvals;
        iterations = r.diagnostics.iterations;
      }
      const s = median(seconds);
      const name = `${sampler}, ${simulations} simulations`;
      out[`${name}: likelihood evaluations per second`] = evaluations / s;
      out[`${name}: microseconds per iteration`] = (1e6 * s) / iterations;
      out[`${name}: evaluations per iteration`] = evaluations / iterations;
    }
  }
  return out;
}
