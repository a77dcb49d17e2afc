/**
 * Would a batched log likelihood (many θ at once on one Float64Array, as a tempered cloud could ask
 * for) make evaluations cheaper? On the Pima logistic regression (200 rows, 8 coefficients), the
 * microseconds per evaluation of: the built-in model one θ at a time; the same sums for a cloud of
 * 1024 θ with the rows in the outer loop (each row read once for the whole cloud); and that batched
 * loop without its log(1 + e^η) terms, the floor of any reordering of it. Measured: 23, 28 and 16 µs
 * (two busy cores) — the exponentials and logarithms, not memory, set the cost, and one θ at a time,
 * with Σ y_i x_i summed once, is already the cheaper loop.
 * Usage: `npm run bench -- batched-likelihood`.
 */
import { logisticModel, pimaDesign } from "../src/models/hard-problems/logistic-regression.js";
import { createRng } from "../src/random/rng.js";

const CLOUD = 1024;
const REPEATS = 30;

/** Microseconds per evaluation of `evaluateCloud`, after a warm-up of five clouds. */
function microseconds(evaluateCloud: () => void): number {
  for (let r = 0; r < 5; r++) evaluateCloud();
  const start = performance.now();
  for (let r = 0; r < REPEATS; r++) evaluateCloud();
  return ((performance.now() - start) * 1000) / (REPEATS * CLOUD);
}

/** Per-evaluation cost of the three loops (see the module header). */
export function measurements(): Record<string, number> {
  const design = pimaDesign();
  const { X, y, n, p } = design;
  const model = logisticModel(design, 2.5);
  const rng = createRng(1);
  const cloud = new Float64Array(CLOUD * p);
  for (let i = 0; i < cloud.length; i++) cloud[i] = 0.5 * rng.normal();
  const out = new Float64Array(CLOUD);
  const views = Array.from({ length: CLOUD }, (_, j) => cloud.subarray(j * p, (j + 1) * p));
  const one = microseconds(() => {
    for (let j = 0; j < CLOUD; j++) out[j] = model.logLikelihood(views[j]);
  });
  const batched = microseconds(() => {
    out.fill(0);
    for (let i = 0; i < n; i++) {
      const row = i * p;
      for (let j = 0; j < CLOUD; j++) {
        let eta = 0;
        for (let a = 0; a < p; a++) eta += X[row + a] * cloud[j * p + a];
        out[j] += y[i] * eta - Math.max(eta, 0) - Math.log1p(Math.exp(-Math.abs(eta)));
      }
    }
  });
  const linearOnly = microseconds(() => {
    out.fill(0);
    for (let i = 0; i < n; i++) {
      const row = i * p;
      for (let j = 0; j < CLOUD; j++) {
        let eta = 0;
        for (let a = 0; a < p; a++) eta += X[row + a] * cloud[j * p + a];
        out[j] += y[i] * eta;
      }
    }
  });
  return {
    "Pima logistic, one θ at a time: µs per evaluation": one,
    [`Pima logistic, a cloud of ${CLOUD} θ, rows outermost: µs per evaluation`]: batched,
    "Pima logistic, linear predictors alone (the floor): µs per evaluation": linearOnly,
  };
}
