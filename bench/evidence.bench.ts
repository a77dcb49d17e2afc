/**
 * Cost of a precise evidence: on the 10-dimensional Gaussian-mean model (20 observations, data seed 1),
 * the wall time each estimator needs to reach a standard error of 0.01 nats. The size of the run is
 * doubled from a small start until stdErr ≤ 0.01; the first run that reaches it is reported (its
 * seconds, stdErr, likelihood evaluations, size and actual error against the exact log Z). Earlier,
 * smaller runs are not counted in its time. Everything else is each estimator's default (HMC kernels).
 *
 * - bridge sampling: posterior draws per chain (4 chains, default warm-up), the time including the
 *   posterior sampling;
 * - stepping-stone: particles (32 islands, the default adaptive ladder; one run of that size, no precision target);
 * - tempered SMC: particles (32 islands; one run of that size, no precision target).
 */
import { bridgeSampling } from "../src/evidence/bridge-sampling.js";
import { samplePosterior } from "../src/evidence/posterior-sampling.js";
import { steppingStone } from "../src/evidence/stepping-stone.js";
import { temperedSmc } from "../src/evidence/tempered-smc.js";
import { type GaussianMeanModel, gaussianMeanModel } from "../src/models/gaussian-mean/index.js";

const TARGET = 0.01;
/** Doublings tried before giving up (the size then reaches start · 2^MAX_DOUBLINGS). */
const MAX_DOUBLINGS = 12;

interface Run {
  logZ: number;
  stdErr: number;
  nLikelihoodEvals: number;
}

/**
 * Doubles `size` from `start` until `run(size)` has stdErr ≤ TARGET and returns that run's numbers,
 * keyed by `name`, with the stdErr of the run at half its size (to show how close the stop was: a
 * stdErr is itself an estimate, and the first run under the target tends to be one whose stdErr came
 * out low); NaN entries when MAX_DOUBLINGS did not suffice. A run under a second is repeated (same
 * seed, same result) and the median of three times reported, since its time is at the mercy of the
 * garbage collector and the machine's load.
 */
function timeToTarget(
  name: string,
  unit: string,
  model: GaussianMeanModel,
  start: number,
  run: (size: number) => Run,
): Record<string, number> {
  const exact = model.exactLogEvidence();
  let previous = Number.NaN;
  for (let k = 0, size = start; k <= MAX_DOUBLINGS; k++, size *= 2) {
    const timed = (): { r: Run; seconds: number } => {
      const t0 = performance.now();
      const r = run(size);
      return { r, seconds: (performance.now() - t0) / 1000 };
    };
    const { r, seconds } = timed();
    if (r.stdErr <= TARGET) {
      const times = [seconds];
      if (seconds < 1) for (let i = 0; i < 2; i++) times.push(timed().seconds);
      times.sort((a, b) => a - b);
      return {
        [`${name} seconds to stdErr ${TARGET}`]: times[Math.floor(times.length / 2)],
        [`${name} stdErr`]: r.stdErr,
        [`${name} stdErr at half the size`]: previous,
        [`${name} likelihood evaluations`]: r.nLikelihoodEvals,
        [`${name} ${unit}`]: size,
        [`${name} |logZ - exact| (nats)`]: Math.abs(r.logZ - exact),
      };
    }
    previous = r.stdErr;
  }
  return {
    [`${name} seconds to stdErr ${TARGET}`]: Number.NaN,
    [`${name} ${unit}`]: Number.NaN,
  };
}

/** Seconds, stdErr, likelihood evaluations and size of the first run of each estimator reaching stdErr 0.01. */
export async function measurements(): Promise<Record<string, number>> {
  const model = gaussianMeanModel({ dim: 10, n: 20, seed: 1 });
  return {
    ...timeToTarget("bridge", "posterior draws per chain (4 chains)", model, 32, (draws) => {
      const posterior = samplePosterior(model, { chains: 4, draws, seed: 2 });
      const r = bridgeSampling(model, { draws: posterior.draws, seed: 3 });
      return { ...r, nLikelihoodEvals: r.nLikelihoodEvals + posterior.nLikelihoodEvals };
    }),
    ...timeToTarget("stepping-stone", "particles (32 islands)", model, 256, (particles) =>
      steppingStone(model, { particles, seed: 4 }),
    ),
    ...timeToTarget("smc", "particles (32 islands)", model, 256, (particles) =>
      temperedSmc(model, { particles, seed: 5 }),
    ),
  };
}
