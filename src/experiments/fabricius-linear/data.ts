/** The simulated data sets of the Fabricius linear toy problem (thesis §6.2.4) and their settings. */
import type { Rng } from "../../random/rng.js";

/** One data set: n training cases (X, y) and m test cases (Xt, yt), inputs row-major n × p. */
export interface DataSet {
  X: Float64Array;
  y: Float64Array;
  Xt: Float64Array;
  yt: Float64Array;
}

/** The resolved sizes of the problem: repetitions, training and test cases, inputs, relevant inputs, σ. */
export interface Settings {
  reps: number;
  n: number;
  m: number;
  p: number;
  q: number;
  sigma: number;
}

/**
 * Draws one data set from its stream: the training rows, then the test rows, each row its p inputs
 * x ~ N(0, I) then its noise, y = x₁ + … + x_q + σε.
 */
export function generate(rng: Rng, s: Settings): DataSet {
  const { n, m, p, q, sigma } = s;
  const draw = (rows: number) => {
    const X = new Float64Array(rows * p);
    const y = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      let mean = 0;
      for (let j = 0; j < p; j++) {
        const x = rng.normal();
        X[i * p + j] = x;
        if (j < q) mean += x;
      }
      y[i] = mean + sigma * rng.normal();
    }
    return { X, y };
  };
  const train = draw(n);
  const test = draw(m);
  return { X: train.X, y: train.y, Xt: test.X, yt: test.y };
}
