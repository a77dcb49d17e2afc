/**
 * Zellner's g-prior with a fixed g: the Bayes factor of a linear model with k inputs (plus an
 * intercept with a flat prior, and p(σ²) ∝ 1/σ²) against the intercept-only model depends on the data
 * only through n and the coefficient of determination R² (Liang et al. 2008, JASA 103, eq. 5):
 *
 *   BF(g) = (1 + g)^((n − 1 − k)/2) · [1 + g(1 − R²)]^(−(n − 1)/2).
 *
 * Mixtures of g-priors (Zellner–Siow, in `zellner-siow.ts`) integrate this over a prior on g.
 */
import { OccamError } from "../../errors.js";

/**
 * Checks the summary statistics of a regression Bayes factor: R² in [0, 1), n and k integers with
 * 0 ≤ k ≤ n − 2 (the model needs k weights, an intercept and a noise variance). Throws an
 * `invalid-argument` OccamError naming `where` otherwise.
 */
export function checkR2Statistics(r2: number, n: number, k: number, where: string): void {
  if (!(Number.isFinite(r2) && r2 >= 0 && r2 < 1)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: R² must be in [0, 1), got ${r2}. R² = 1 is an exact fit, for which the Bayes factor is infinite; check the data for a column that copies the target.`,
    );
  }
  if (!(Number.isInteger(n) && n >= 2)) {
    throw new OccamError("invalid-argument", `${where}: n must be an integer of at least 2, got ${n}.`);
  }
  if (!(Number.isInteger(k) && k >= 0 && k <= n - 2)) {
    throw new OccamError(
      "invalid-argument",
      `${where}: the number of inputs k must be an integer in [0, n − 2] = [0, ${n - 2}], got ${k}: a model with an intercept needs n ≥ k + 2 observations.`,
    );
  }
}

/**
 * log BF of the linear model with k inputs against the intercept-only model under Zellner's g-prior
 * with a fixed g > 0 (Liang et al. 2008, eq. 5): (n − 1 − k)/2 · log(1 + g) − (n − 1)/2 · log(1 + g(1 − R²)).
 *
 * @example
 * gPriorLogBayesFactor(0.5, 30, 2, 30); // ≈ 6.156
 */
export function gPriorLogBayesFactor(r2: number, n: number, k: number, g: number): number {
  checkR2Statistics(r2, n, k, "gPriorLogBayesFactor");
  if (!(Number.isFinite(g) && g > 0)) {
    throw new OccamError(
      "invalid-argument",
      `gPriorLogBayesFactor: g must be a finite number greater than 0, got ${g}; g = n (the unit-information prior) is a common choice.`,
    );
  }
  return 0.5 * (n - 1 - k) * Math.log1p(g) - 0.5 * (n - 1) * Math.log1p(g * (1 - r2));
}
