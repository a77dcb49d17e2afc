/**
 * Throughput of the random variates and of a 100 × 100 Cholesky factorisation. Each task draws in a
 * batch of 1000 (so the per-call overhead of the harness does not dominate); tinybench reports
 * batches per second — multiply by 1000 for draws per second.
 */
import type { Bench } from "tinybench";
import { cholesky, matMul, transpose } from "../src/math/linalg.js";
import { createRng } from "../src/random/rng.js";
import { dirichlet, multivariateNormal } from "../src/random/variates.js";

const BATCH = 1000;

/** A well-conditioned SPD matrix BᵀB + nI with B uniform in [−1, 1]. */
function spd(n: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const b = new Float64Array(n * n);
  for (let i = 0; i < b.length; i++) b[i] = 2 * rng.uniform() - 1;
  const a = matMul(transpose(b, n, n), b, n, n, n);
  for (let i = 0; i < n; i++) a[i * n + i] += n;
  return a;
}

export default function variatesBench(bench: Bench): void {
  const rng = createRng(1);
  let sink = 0;

  bench.add(`rng.normal ×${BATCH}`, () => {
    for (let i = 0; i < BATCH; i++) sink += rng.normal();
  });
  bench.add(`rng.gamma(0.5) ×${BATCH}`, () => {
    for (let i = 0; i < BATCH; i++) sink += rng.gamma(0.5);
  });
  bench.add(`rng.gamma(5) ×${BATCH}`, () => {
    for (let i = 0; i < BATCH; i++) sink += rng.gamma(5);
  });

  const alpha = new Float64Array(10).fill(1.5);
  const alphaSmall = new Float64Array(10).fill(0.3);
  const out10 = new Float64Array(10);
  bench.add(`dirichlet d=10 (α=1.5) ×${BATCH}`, () => {
    for (let i = 0; i < BATCH; i++) sink += dirichlet(rng, alpha, out10)[0];
  });
  bench.add(`dirichlet d=10 (α=0.3, log space) ×${BATCH}`, () => {
    for (let i = 0; i < BATCH; i++) sink += dirichlet(rng, alphaSmall, out10)[0];
  });

  const d = 50;
  const L50 = cholesky(spd(d, 2), d);
  const mean50 = new Float64Array(d);
  const out50 = new Float64Array(d);
  bench.add(`multivariateNormal d=50 ×${BATCH}`, () => {
    for (let i = 0; i < BATCH; i++) sink += multivariateNormal(rng, mean50, L50, d, out50)[0];
  });

  const n = 100;
  const a100 = spd(n, 3);
  const work = new Float64Array(n * n);
  bench.add("cholesky 100×100", () => {
    sink += cholesky(a100, n, work)[n * n - 1];
  });

  // Keep the accumulated values observable so the loops are not optimised away.
  bench.addEventListener("complete", () => {
    if (Number.isNaN(sink)) throw new Error("variates bench produced NaN");
  });
}
