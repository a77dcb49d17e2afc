/**
 * HMC throughput: a 100-dimensional Gaussian with diagonal scales log-spaced in [0.5, 2], fixed step
 * size 0.2 and 10 leapfrog steps (no adaptation), so each transition costs exactly 10 gradients and the
 * time is the kernel's own overhead plus an O(d) gradient.
 */
import type { Bench } from "tinybench";
import type { LogDensity } from "../src/model/model.js";
import { createRng, type Rng } from "../src/random/rng.js";
import { buildHmcKernel, type HmcKernel, type HmcState } from "../src/samplers/hmc.js";

const DIM = 100;
const STEPS = 10;
const STEP_SIZE = 0.2;

function diagonalGaussian(dim: number): LogDensity {
  const precision = Float64Array.from({ length: dim }, (_, i) => 1 / (0.5 * 4 ** (i / (dim - 1))) ** 2);
  return {
    dim,
    logDensity(x) {
      let s = 0;
      for (let i = 0; i < dim; i++) s += precision[i] * x[i] * x[i];
      return -0.5 * s;
    },
    gradLogDensity(x, g) {
      let s = 0;
      for (let i = 0; i < dim; i++) {
        const px = precision[i] * x[i];
        g[i] = -px;
        s += px * x[i];
      }
      return -0.5 * s;
    },
  };
}

interface Setup {
  kernel: HmcKernel;
  rng: Rng;
  state: HmcState;
}

function setup(seed: number): Setup {
  const kernel = buildHmcKernel({
    target: diagonalGaussian(DIM),
    stepSize: STEP_SIZE,
    steps: STEPS,
  });
  return { kernel, rng: createRng(seed), state: kernel.init(new Float64Array(DIM)) };
}

/** Runs `iterations` transitions and returns the gradient evaluations they cost. */
function run(s: Setup, iterations: number): number {
  let evaluations = 0;
  for (let i = 0; i < iterations; i++) {
    const r = s.kernel.step(s.rng, s.state);
    s.state = r.state;
    evaluations += r.info.evaluations;
  }
  return evaluations;
}

/** Adds the task "hmc d=100, 10 steps × 200 iterations" to `bench`. */
export default function register(bench: Bench): void {
  const s = setup(1);
  run(s, 200);
  bench.add(`hmc d=${DIM}, ${STEPS} leapfrog steps, 200 iterations`, () => {
    run(s, 200);
  });
}

/** Gradient evaluations per second of HMC on the benchmark target: 2000 timed iterations after 500 of warm-up. */
export function hmcGradientRate(): number {
  const s = setup(2);
  run(s, 500);
  const start = performance.now();
  const evaluations = run(s, 2000);
  const seconds = (performance.now() - start) / 1000;
  return evaluations / seconds;
}

/** Named throughput numbers for bench/run.ts. */
export function measurements(): Record<string, number> {
  return { [`hmc gradient evaluations per second (d=${DIM}, ${STEPS} steps)`]: hmcGradientRate() };
}
