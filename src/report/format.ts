import type { LinearPriorSummary } from "../selection/linear-options.js";

/** A number with `digits` significant digits, or "—" when it is not finite. */
export function formatNumber(value: number, digits = 4): string {
  if (!Number.isFinite(value)) return "—";
  if (value !== 0 && (Math.abs(value) >= 1e6 || Math.abs(value) < 1e-4))
    return value.toExponential(digits - 1);
  return Number(value.toPrecision(digits)).toString();
}

/** A value to the precision its standard error supports: two significant digits of the error. */
export function withError(value: number, stdErr: number): string {
  if (!(stdErr > 0 && Number.isFinite(stdErr))) return formatNumber(value, 6);
  const decimals = Math.max(0, 1 - Math.floor(Math.log10(stdErr)));
  return `${value.toFixed(decimals)} ± ${stdErr.toFixed(decimals)}`;
}

/** Decimals that show a standard error to two significant digits. */
function decimalsFor(stdErr: number): number {
  return stdErr > 0 ? Math.max(0, Math.min(6, 1 - Math.floor(Math.log10(stdErr)))) : 2;
}

/**
 * x to `decimals` places and no "-0". Its minus sign is the ASCII hyphen-minus, as in every other number
 * occam prints, so that a number copied from a table parses.
 */
function fixed(x: number, decimals: number): string {
  const text = x.toFixed(decimals);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** A log Bayes factor (± its standard error when it has one), to 0.01 nats or the error's precision. */
export function formatLogBayesFactor(value: number, stdErr?: number): string {
  if (stdErr === undefined || stdErr === 0) return fixed(value, stdErr === 0 ? decimalsFor(0) : 2);
  const d = decimalsFor(stdErr);
  return `${fixed(value, d)} ± ${fixed(stdErr, d)}`;
}

/** A probability: 3 significant digits, and near 1 the distance from 1, so 0.99996 is not "1". */
export function formatProbability(p: number): string {
  if (p === 1 || p === 0) return String(p);
  if (p > 0.999) return `1 − ${formatNumber(1 - p, 2)}`;
  if (p < 1e-3) return p.toExponential(1);
  return formatNumber(p, 3);
}

/** The prior of a comparison in words, with its settings. */
export function describePrior(prior: LinearPriorSummary): string {
  switch (prior.name) {
    case "zellner-siow":
      return `Zellner–Siow (g ~ InverseGamma(½, r²n/2), r = ${formatNumber(prior.r, 4)})`;
    case "g-prior":
      return `g-prior with g = n = ${prior.g} (unit information)`;
    case "hyper-g":
      return `hyper-g (a = ${prior.a})`;
    case "hyper-g-n":
      return `hyper-g/n (a = ${prior.a})`;
    case "nig":
      return (
        `Normal–Inverse-Gamma (v = ${prior.v} on ${prior.standardized ? "standardised inputs" : "the inputs in their own units"}, ` +
        `a = ${prior.a}, b = ${prior.b})`
      );
    case "independent":
      return (
        `independent precisions (τ ~ Gamma(${formatNumber(prior.noise.shape, 3)}, scale ${formatNumber(prior.noise.scale, 4)}), ` +
        `τ_w ~ Gamma(${formatNumber(prior.weights.shape, 3)}, scale ${formatNumber(prior.weights.scale, 4)})` +
        `${prior.standardized ? ", standardised inputs" : ""})`
      );
  }
}
