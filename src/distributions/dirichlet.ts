import { OccamError } from "../errors.js";
import { gammaln } from "../math/stdlib.js";
import type { Rng } from "../random/rng.js";
import { dirichlet as dirichletVariate } from "../random/variates.js";
import {
  checkDim,
  checkOptions,
  finiteVector,
  type MultivariateDistribution,
  xLogY,
} from "./distribution.js";

/** Options of {@link dirichlet}. */
export interface DirichletOptions {
  /** The concentrations α_1, …, α_K > 0 (K ≥ 2). */
  alpha: ArrayLike<number>;
}

/** The Dirichlet distribution on the (K − 1)-simplex. */
export interface Dirichlet extends MultivariateDistribution {
  readonly family: "dirichlet";
  /** The concentrations α. */
  readonly alpha: Float64Array;
  /** E[x] = α / Σα. */
  readonly mean: Float64Array;
}

/** How far Σ x may be from 1 for x to count as on the simplex. */
const SIMPLEX_TOLERANCE = 1e-9;

/**
 * The Dirichlet(α) distribution: log p(x) = log Γ(Σα) − Σ log Γ(α_i) + Σ (α_i − 1) log x_i, the
 * density with respect to Lebesgue measure on the first K − 1 coordinates. Points off the simplex
 * (a negative component, or |Σx − 1| > 1e-9) have log density −Infinity.
 */
export function dirichlet(options: DirichletOptions): Dirichlet {
  checkOptions(options, "dirichlet", "alpha");
  const alpha = finiteVector(options.alpha, "dirichlet: alpha");
  const k = alpha.length;
  if (k < 2) throw new OccamError("invalid-argument", `dirichlet: alpha needs at least 2 entries, got ${k}.`);
  let total = 0;
  let logNorm = 0;
  for (let i = 0; i < k; i++) {
    if (!(alpha[i] > 0)) {
      throw new OccamError("invalid-argument", `dirichlet: alpha[${i}] must be > 0, got ${alpha[i]}.`);
    }
    total += alpha[i];
    logNorm -= gammaln(alpha[i]);
  }
  logNorm += gammaln(total);
  const mean = alpha.map((a) => a / total);
  return Object.freeze({
    family: "dirichlet" as const,
    dim: k,
    alpha,
    mean,
    logPdf(x: Float64Array): number {
      checkDim(x, k, "dirichlet.logPdf");
      let sum = 0;
      let lp = logNorm;
      for (let i = 0; i < k; i++) {
        const xi = x[i];
        if (Number.isNaN(xi)) return xi;
        if (!(xi >= 0)) return Number.NEGATIVE_INFINITY;
        sum += xi;
        lp += xLogY(alpha[i] - 1, xi);
      }
      return Math.abs(sum - 1) <= SIMPLEX_TOLERANCE ? lp : Number.NEGATIVE_INFINITY;
    },
    sample(rng: Rng, out?: Float64Array): Float64Array {
      return dirichletVariate(rng, alpha, out);
    },
  });
}
