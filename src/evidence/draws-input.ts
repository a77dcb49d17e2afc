/** Posterior draws handed to the draw-based estimators: checked, moved to the unbounded scale, summarised. */
import { OccamError } from "../errors.js";
import { cholesky } from "../math/linalg.js";
import { Draws } from "../model/draws.js";
import type { UnboundedModel } from "../model/transform.js";

/** Posterior draws made elsewhere: a {@link Draws} store (any number of chains) or one chain of draws. */
export type PosteriorDrawsInput = Draws | readonly Float64Array[];

/**
 * Validates posterior draws for an estimator and returns them as a {@link Draws} store (one chain
 * when an array was given). Throws when they are missing (occam has no exact-posterior hook on
 * `BayesModel`, so draws must come from a sampler), have the wrong dimension, are non-finite, or
 * are fewer than `minDraws` (`minPerChain` per chain).
 */
export function posteriorDraws(
  input: PosteriorDrawsInput | undefined,
  dim: number,
  where: string,
  minDraws: number,
  minPerChain = 1,
): Draws {
  if (input === undefined) {
    throw new OccamError(
      "invalid-argument",
      `${where}: needs posterior draws ({ draws }): a Draws store from runChain or an array of Float64Array ` +
        "draws made elsewhere (occam models do not offer an exact posterior sampler to call instead).",
    );
  }
  let draws: Draws;
  if (input instanceof Draws) {
    if (input.dim !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}: the draws have dimension ${input.dim} but model.dim is ${dim}; pass draws of this model's parameters.`,
      );
    }
    draws = input;
    const { values } = draws;
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) {
        const t = Math.floor(i / dim);
        throw new OccamError(
          "non-finite",
          `${where}: coordinate ${i % dim} of draw ${t % draws.nDraws} of chain ${Math.floor(t / draws.nDraws)} is ${values[i]}.`,
        );
      }
    }
  } else {
    if (!Array.isArray(input) || input.length === 0) {
      throw new OccamError(
        "invalid-argument",
        `${where}: draws must be a Draws store or a non-empty array of Float64Array draws.`,
      );
    }
    const n = input.length;
    draws = new Draws({ dim, nChains: 1, nDraws: n });
    for (let t = 0; t < n; t++) {
      const x = input[t];
      if (!(x instanceof Float64Array) || x.length !== dim) {
        throw new OccamError(
          "dimension-mismatch",
          `${where}: draw ${t} must be a Float64Array of length ${dim} (model.dim), got ${describe(x)}.`,
        );
      }
      for (let j = 0; j < dim; j++) {
        if (!Number.isFinite(x[j])) {
          throw new OccamError(
            "non-finite",
            `${where}: coordinate ${j} of draw ${t} is ${x[j]}; draws must be finite.`,
          );
        }
      }
      draws.values.set(x, t * dim);
    }
    draws.logDensity.fill(Number.NaN);
  }
  if (draws.size < minDraws || draws.nDraws < minPerChain) {
    throw new OccamError(
      "invalid-argument",
      `${where}: needs at least ${minDraws} posterior draws${minPerChain > 1 ? ` and ${minPerChain} per chain` : ""}, ` +
        `got ${draws.nChains} chain(s) of ${draws.nDraws}; run the sampler longer.`,
    );
  }
  return draws;
}

/**
 * Draws of a bounded model mapped to the unbounded scale of `view` (a new store), or the draws
 * themselves when the model has no bounds. Throws when a draw lies on or outside the bounds.
 */
export function unboundedDraws(view: UnboundedModel, draws: Draws): Draws {
  if (view.identity) return draws;
  const d = draws.dim;
  const out = new Draws({ dim: d, nChains: draws.nChains, nDraws: draws.nDraws, names: draws.names });
  for (let t = 0; t < draws.size; t++) {
    view.toUnbounded(draws.values.subarray(t * d, (t + 1) * d), out.values.subarray(t * d, (t + 1) * d));
  }
  out.logDensity.fill(Number.NaN);
  return out;
}

/**
 * Mean and lower Cholesky factor of the covariance of some draws: the Gaussian that bridge and
 * importance sampling fit to posterior draws. A singular covariance is the user's to fix (too few draws,
 * a parameter that never moves), so it is reported as such, naming `what` the draws are for.
 */
export function fitGaussian(
  draws: Draws,
  where: string,
  what: string,
): { mean: Float64Array; L: Float64Array } {
  const d = draws.dim;
  try {
    return { mean: draws.mean(), L: cholesky(draws.covariance(), d) };
  } catch (error) {
    if (error instanceof OccamError && error.code === "not-positive-definite") {
      throw new OccamError(
        "not-positive-definite",
        `${where}: the covariance of the ${draws.size} draws ${what} is singular: give more draws than parameters, ` +
          "and check that every parameter moves in the chain.",
      );
    }
    throw error;
  }
}

/** What a draw was, for an error message. */
function describe(value: unknown): string {
  if (value instanceof Float64Array) return `length ${value.length}`;
  if (Array.isArray(value)) return `a plain array of length ${value.length} (use Float64Array)`;
  return String(value);
}
