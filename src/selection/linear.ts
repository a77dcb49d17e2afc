import type { NumericTable } from "../data/csv.js";
import { standardize } from "../data/csv.js";
import { OccamError } from "../errors.js";
import {
  rSquared,
  ZELLNER_SIOW_MEDIUM_SCALE,
  zellnerSiowLogBayesFactor,
} from "../models/linear/zellner-siow.js";
import { compareSubsets, type ModelPrior, subsetMembers } from "./compare.js";
import { nigSubsets, type SubsetSystem, type SubsetTable, scoreSubsets } from "./subsets.js";

/** Options of {@link compareLinearModels}. */
export interface CompareLinearOptions {
  /**
   * The prior of each model: the conjugate Normal–Inverse-Gamma (exact log evidence) or the
   * Zellner–Siow mixture of g-priors (Bayes factors against the intercept-only model).
   * @defaultValue "nig"
   */
  prior?: "nig" | "zellner-siow";
  /** NIG: prior scale v of every weight, w | σ² ~ N(0, σ² v I). @defaultValue 10000 */
  v?: number;
  /** NIG: shape of the inverse-gamma prior of σ². @defaultValue 1 */
  a?: number;
  /** NIG: scale of the inverse-gamma prior of σ². @defaultValue 1 */
  b?: number;
  /** Zellner–Siow: prior scale r. @defaultValue √2/4 */
  r?: number;
  /** Put an intercept in every model. @defaultValue true */
  intercept?: boolean;
  /** Standardise the inputs first (recorded in the result). @defaultValue false */
  standardize?: boolean;
  /** Which models: every subset, every subset of at most `max` inputs, or only the full model. @defaultValue "all" */
  subsets?: "all" | "none" | { max: number };
  /** Prior over models. @defaultValue "uniform" */
  modelPrior?: ModelPrior;
  /** Keep only the best `top` models in the list. @defaultValue all */
  top?: number;
}

/** One model of a comparison. */
export interface LinearModelRow {
  inputs: string[];
  /** log p(y | X, M) in nats; null under Zellner–Siow, which gives Bayes factors only. */
  logEvidence: number | null;
  /** Exact methods have no Monte Carlo error. */
  stdErr: number;
  /** Against the intercept-only model (the empty model without an intercept). */
  logBayesFactor: number;
  posteriorProbability: number;
}

/** The result of {@link compareLinearModels}, as `occam compare --json` prints it. */
export interface LinearComparison {
  family: "linear";
  prior: { name: "nig"; v: number; a: number; b: number } | { name: "zellner-siow"; r: number };
  estimator: "exact";
  n: number;
  inputs: string[];
  intercept: boolean;
  standardized: boolean;
  modelPrior: ModelPrior;
  /** Number of models compared. */
  modelCount: number;
  models: LinearModelRow[];
  inclusionProbabilities: Record<string, number>;
  /** Inputs whose inclusion probability is at least ½. */
  medianModel: string[];
  seconds: number;
}

/**
 * Compares linear regressions of y on subsets of the inputs by their exact evidence: every subset (in
 * Gray-code order, one Cholesky row per step), those of at most K inputs, or only the full model.
 * Returns posterior model probabilities, Bayes factors against the intercept-only model, each input's
 * inclusion probability and the median-probability model.
 */
export function compareLinearModels(
  data: NumericTable,
  options: CompareLinearOptions = {},
): LinearComparison {
  const start = performance.now();
  const prior = options.prior ?? "nig";
  const intercept = options.intercept ?? true;
  const modelPrior = options.modelPrior ?? "uniform";
  const subsets = options.subsets ?? "all";
  const { n, p } = data;
  const X = options.standardize ? standardize(data.X, n, p).X : data.X;
  const names = [...data.inputNames];
  const maxSize = subsets === "all" ? p : subsets === "none" ? p : Math.min(subsets.max, p);
  if (subsets !== "all" && subsets !== "none" && !(Number.isInteger(subsets.max) && subsets.max >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `the largest subset size must be a whole number of at least 1, got ${subsets.max}.`,
    );
  }

  let table: SubsetTable;
  let priorSummary: LinearComparison["prior"];
  if (prior === "nig") {
    const v = options.v ?? 1e4;
    const a = options.a ?? 1;
    const b = options.b ?? 1;
    const nig = nigSubsets({ X, y: data.y, n, p, intercept, v, a, b, names });
    table =
      subsets === "none"
        ? singleModels(p, names, [[], range(p)], (m) => nig.logEvidence(m))
        : nig.enumerate({ maxSize });
    priorSummary = { name: "nig", v, a, b };
  } else {
    if (!intercept) {
      throw new OccamError(
        "invalid-argument",
        "the Zellner–Siow prior compares models that all have an (unpenalised) intercept; drop --no-intercept or use --prior nig.",
      );
    }
    const r = options.r ?? ZELLNER_SIOW_MEDIUM_SCALE;
    const { system, yy } = centredSystem(X, data.y, n, p);
    // R² of a subset is the share of the centred y's sum of squares its least-squares fit explains.
    const score = (size: number, quad: number) =>
      size === 0
        ? 0
        : zellnerSiowLogBayesFactor(Math.min(Math.max(quad / yy, 0), 1 - 1e-15), n, size, { rScale: r });
    table =
      subsets === "none"
        ? singleModels(p, names, [[], range(p)], (m) =>
            score(m.length, m.length === 0 ? 0 : rSquared(X, data.y, n, p, m) * yy),
          )
        : scoreSubsets(system, { maxSize, names }, (view) => score(view.size, view.quad));
    priorSummary = { name: "zellner-siow", r };
  }

  const reference = indexOfMask(table, 0);
  const comparison = compareSubsets(table, { prior: modelPrior, reference, top: options.top ?? table.count });
  const listed = subsets === "none" ? [indexOfMask(table, (2 ** p - 1) >>> 0)] : Array.from(comparison.top);
  const models = listed.map((i) => ({
    inputs: Array.from(subsetMembers(table, i), (j) => names[j]),
    logEvidence: prior === "nig" ? table.logEvidence[i] : null,
    stdErr: 0,
    logBayesFactor: comparison.logBayesFactor[i],
    posteriorProbability: subsets === "none" ? 1 : comparison.probability[i],
  }));
  const inclusionProbabilities: Record<string, number> = {};
  names.forEach((name, j) => {
    inclusionProbabilities[name] = subsets === "none" ? 1 : comparison.inclusion[j];
  });
  return {
    family: "linear",
    prior: priorSummary,
    estimator: "exact",
    n,
    inputs: names,
    intercept,
    standardized: options.standardize === true,
    modelPrior,
    modelCount: subsets === "none" ? 1 : table.count,
    models,
    inclusionProbabilities,
    medianModel: names.filter((name) => inclusionProbabilities[name] >= 0.5),
    seconds: (performance.now() - start) / 1000,
  };
}

function range(p: number): number[] {
  return Array.from({ length: p }, (_, j) => j);
}

function indexOfMask(table: SubsetTable, mask: number): number {
  for (let i = 0; i < table.count; i++) if (table.masks[i] === mask) return i;
  throw new OccamError("internal", `subset ${mask} is not in the table.`);
}

/** A table of just the given subsets (by their members), scored one by one. */
function singleModels(
  p: number,
  names: readonly string[],
  subsets: readonly number[][],
  score: (members: number[]) => number,
): SubsetTable {
  const masks = Uint32Array.from(subsets, (m) => m.reduce((mask, j) => (mask | (1 << j)) >>> 0, 0));
  return {
    p,
    count: subsets.length,
    masks,
    sizes: Uint8Array.from(subsets, (m) => m.length),
    logEvidence: Float64Array.from(subsets, score),
    names,
  };
}

/** The centred cross-products of X and y, whose subset quadratic forms give each subset's R². */
function centredSystem(
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
): { system: SubsetSystem; yy: number } {
  const xBar = new Float64Array(p);
  let yBar = 0;
  for (let i = 0; i < n; i++) {
    yBar += y[i] / n;
    for (let j = 0; j < p; j++) xBar[j] += X[i * p + j] / n;
  }
  const gram = new Float64Array(p * p);
  const rhs = new Float64Array(p);
  const xc = new Float64Array(p);
  let yy = 0;
  for (let i = 0; i < n; i++) {
    const yc = y[i] - yBar;
    yy += yc * yc;
    for (let j = 0; j < p; j++) xc[j] = X[i * p + j] - xBar[j];
    for (let j = 0; j < p; j++) {
      rhs[j] += xc[j] * yc;
      for (let k = 0; k <= j; k++) gram[j * p + k] += xc[j] * xc[k];
    }
  }
  for (let j = 0; j < p; j++) for (let k = 0; k < j; k++) gram[k * p + j] = gram[j * p + k];
  return { system: { p, fixed: 0, gram, rhs }, yy };
}
