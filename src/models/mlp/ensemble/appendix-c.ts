/**
 * The thesis's mean-field iteration for the ensemble approximation (Fabricius App. C.2), the start of
 * the refinement in {@link ensembleMlp}.
 */
import { OccamError } from "../../../errors.js";
import { invertFromCholesky } from "../../../math/linalg.js";
import { minimize } from "../../../math/optimize.js";
import type { BayesianMlp, MlpHyperparameters } from "../bayesian.js";
import {
  diagonalSumAt,
  mlpEnergy,
  mlpEnergyHessian,
  ridgedCholesky,
  squaredNormAt,
} from "../evidence-framework.js";
import { GROUP_COUNT } from "../network.js";
import type { ensembleMlp } from "./fit.js";
import type { EnsembleSettings } from "./options.js";

/** The App. C fixed point: q(w)'s mean and precision factor, and the rates of q(τ) and q(α_k). */
export interface AppendixCFit {
  readonly mean: Float64Array;
  /** Lower Cholesky factor of the precision A. */
  readonly precisionCholesky: Float64Array;
  readonly iterations: number;
  readonly converged: boolean;
  readonly ridge: number;
  readonly noiseRate: number;
  readonly groupRate: number[];
}

/** The number of target values N·O of the model's data. */
export function nValuesOf(model: BayesianMlp): number {
  return model.data.n * model.data.outputs;
}

/** The thesis's mean-field iteration (App. C.2), see {@link ensembleMlp}. */
export function appendixC(
  model: BayesianMlp,
  start: Float64Array,
  hyper: MlpHyperparameters | undefined,
  o: EnsembleSettings,
  where: string,
): AppendixCFit {
  const { network, sumOfSquares: ss, weightCount: W, noisePrior, groupPriors } = model;
  const groups = network.groups;
  let w = start;
  const noiseShape = noisePrior.shape + 0.5 * nValuesOf(model);
  let noiseRate = noisePrior.rate + 0.5 * ss.value(w);
  const groupShape = groupPriors.map((g, k) => g.shape + 0.5 * groups[k].length);
  const groupRate = groupPriors.map(
    (g, k) => g.rate + 0.5 * squaredNormAt(w, groups[k].offset, groups[k].length),
  );
  if (hyper !== undefined) {
    if (!(hyper.noisePrecision > 0) || hyper.groupPrecisions.length !== 4) {
      throw new OccamError(
        "invalid-argument",
        `${where}: initialHyper must hold noisePrecision > 0 and 4 groupPrecisions.`,
      );
    }
    noiseRate = noiseShape / hyper.noisePrecision;
    for (let k = 0; k < GROUP_COUNT; k++) groupRate[k] = groupShape[k] / hyper.groupPrecisions[k];
  }
  let converged = false;
  let it = 0;
  let L: Float64Array = new Float64Array(0);
  let ridge = 0;
  for (it = 1; it <= o.iterations; it++) {
    const tau = noiseShape / noiseRate;
    const alpha = groupShape.map((s, k) => s / groupRate[k]);
    const r = minimize(mlpEnergy(model, tau, alpha), w, {
      maxIterations: o.maxIterations,
      gradTolerance: 1e-9,
    });
    w = r.x;
    const chol = ridgedCholesky(mlpEnergyHessian(model, w, tau, alpha, 1, "gauss-newton"), W, where);
    L = chol.L;
    ridge = chol.ridge;
    const cov = invertFromCholesky(L, W);
    let change = 0;
    let weighted = 0;
    for (let k = 0; k < GROUP_COUNT; k++) {
      const { offset, length } = groups[k];
      const tr = diagonalSumAt(cov, W, offset, length);
      const sq = squaredNormAt(w, offset, length);
      weighted += alpha[k] * tr;
      const rate = groupPriors[k].rate + 0.5 * (sq + tr);
      change = Math.max(change, Math.abs(Math.log(rate / groupRate[k])));
      groupRate[k] = rate;
    }
    const expectedS = ss.value(w) + Math.max(0, W - weighted) / tau;
    const rate = noisePrior.rate + 0.5 * expectedS;
    change = Math.max(change, Math.abs(Math.log(rate / noiseRate)));
    noiseRate = rate;
    if (!(Number.isFinite(noiseRate) && groupRate.every(Number.isFinite))) {
      throw new OccamError("non-finite", `${where}: a precision's rate is not finite; standardise the data.`);
    }
    if (change < o.tolerance) {
      converged = true;
      break;
    }
  }
  return {
    mean: w,
    precisionCholesky: L,
    iterations: Math.min(it, o.iterations),
    converged,
    ridge,
    noiseRate,
    groupRate,
  };
}
