import { OccamError } from "../../errors.js";
import { columnMoments } from "../../math/moments.js";
import { type BayesianMlp, type BayesianMlpOptions, bayesianMlp } from "./bayesian.js";
import { checkMlpData, type MlpData } from "./data.js";
import { type MlpPredictive, type PredictBayesianMlpOptions, predictBayesianMlp } from "./prediction.js";
import { type BayesianMlpDraws, type SampleBayesianMlpOptions, sampleBayesianMlp } from "./sampling.js";

/** Options of {@link fitBayesianMlp}: the model's and the sampler's, plus standardisation. */
export interface FitBayesianMlpOptions extends BayesianMlpOptions, SampleBayesianMlpOptions {
  /**
   * Fit on standardised data: each input centred and scaled to unit sample standard deviation, each
   * target centred and all targets divided by one common scale (the root mean of their variances, so
   * that one noise precision still serves every output). The priors are then on the standardised
   * scale; predictions and the noise standard deviation are reported in the data's own units.
   * @defaultValue true
   */
  standardize?: boolean;
}

/** A fitted Bayesian network that predicts in the data's own units. */
export interface BayesianMlpFit {
  /** The model (on the standardised data when `standardize` is on). */
  readonly model: BayesianMlp;
  /** The draws. */
  readonly draws: BayesianMlpDraws;
  /** Posterior mean of the noise standard deviation τ^(−1/2), in the targets' units. */
  readonly noiseStdDev: number;
  /** Input means and standard deviations, and target means and common scale, used to standardise. */
  readonly scaling: {
    readonly inputMean: Float64Array;
    readonly inputSd: Float64Array;
    readonly targetMean: Float64Array;
    readonly targetScale: number;
  };
  /** The posterior predictive at new raw inputs (n × I row-major), in the targets' units. */
  predict(X: Float64Array, n: number, options?: PredictBayesianMlpOptions): MlpPredictive;
}

/**
 * Standardises the data (option `standardize`), builds a {@link bayesianMlp} and samples it with
 * {@link sampleBayesianMlp}; the result predicts at raw inputs. Throws an `OccamError` for bad data
 * (including a constant input column when standardising) and bad options.
 *
 * @example
 * const fit = fitBayesianMlp(train, { hidden: 16, draws: 200, seed: 1 });
 * const p = fit.predict(test.X, test.n); // p.mean, p.lower, p.upper
 */
export function fitBayesianMlp(data: MlpData, options: FitBayesianMlpOptions): BayesianMlpFit {
  const where = "fitBayesianMlp";
  checkMlpData(data, where);
  const standardize = options?.standardize ?? true;
  const { n, inputs: I, outputs: O } = data;
  const inputMean = new Float64Array(I);
  const inputSd = new Float64Array(I).fill(1);
  const targetMean = new Float64Array(O);
  let targetScale = 1;
  if (standardize) {
    if (n < 2) {
      throw new OccamError("invalid-data", `${where}: standardising needs at least 2 cases, got ${n}.`);
    }
    const inputs = columnMoments(data.X, n, I);
    for (let i = 0; i < I; i++) {
      const sd = Math.sqrt(inputs.variances[i]);
      if (!(sd > 0)) {
        throw new OccamError(
          "invalid-data",
          `${where}: input ${i} is constant (every case is ${data.X[i]}); it carries no information — leave it out.`,
        );
      }
      inputMean[i] = inputs.means[i];
      inputSd[i] = sd;
    }
    const targets = columnMoments(data.Y, n, O);
    let meanVariance = 0;
    for (let o = 0; o < O; o++) {
      targetMean[o] = targets.means[o];
      meanVariance += targets.variances[o] / O;
    }
    targetScale = Math.sqrt(meanVariance);
    if (!(targetScale > 0)) {
      throw new OccamError("invalid-data", `${where}: every target is constant; there is nothing to fit.`);
    }
  }
  const scaleX = (X: Float64Array, rows: number): Float64Array => {
    const out = new Float64Array(rows * I);
    for (let r = 0; r < rows; r++) {
      for (let i = 0; i < I; i++) out[r * I + i] = (X[r * I + i] - inputMean[i]) / inputSd[i];
    }
    return out;
  };
  const Ys = new Float64Array(n * O);
  for (let r = 0; r < n; r++) {
    for (let o = 0; o < O; o++) Ys[r * O + o] = (data.Y[r * O + o] - targetMean[o]) / targetScale;
  }
  const model = bayesianMlp({ X: scaleX(data.X, n), Y: Ys, n, inputs: I, outputs: O }, options);
  const draws = sampleBayesianMlp(model, options);
  let noiseSd = 0;
  for (let t = 0; t < draws.nDraws; t++) noiseSd += 1 / Math.sqrt(draws.noisePrecision[t]);
  noiseSd = (noiseSd / draws.nDraws) * targetScale;
  return Object.freeze({
    model,
    draws,
    noiseStdDev: noiseSd,
    scaling: Object.freeze({ inputMean, inputSd, targetMean, targetScale }),
    predict(X: Float64Array, rows: number, predictOptions?: PredictBayesianMlpOptions): MlpPredictive {
      if (!(X instanceof Float64Array) || !(Number.isInteger(rows) && rows >= 1) || X.length !== rows * I) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}.predict: X must be a Float64Array of n·I = ${rows}·${I} values.`,
        );
      }
      const p = predictBayesianMlp(model.network, draws, scaleX(X, rows), rows, predictOptions);
      const back = (v: Float64Array, shift: boolean) => {
        const out = new Float64Array(v.length);
        for (let k = 0; k < v.length; k++) out[k] = v[k] * targetScale + (shift ? targetMean[k % O] : 0);
        return out;
      };
      return Object.freeze({
        n: rows,
        outputs: O,
        level: p.level,
        mean: back(p.mean, true),
        sd: back(p.sd, false),
        lower: back(p.lower, true),
        upper: back(p.upper, true),
      });
    },
  });
}
