/**
 * The probabilistic k-nearest-neighbour classifier of Holmes & Adams (2002, JRSS B 64: 295–306),
 * Everson et al.'s local family. Given the other rows, a row's label has probability
 * p(y_i = c | y_−i, X, k, β) = exp(β n_ic/k) / Σ_c′ exp(β n_ic′/k), n_ic the number of class-c rows
 * among its k nearest neighbours (Euclidean, standardised inputs); a new input's label is predicted
 * the same way from its k nearest training rows. Prior: k uniform on 1 … k_max, β uniform on
 * (0, β_max).
 *
 * Its likelihood is a pseudo-likelihood. Holmes & Adams multiply the conditionals,
 * PL(k, β) = ∏_i p(y_i | y_−i, X, k, β), and sample p(k, β | D) ∝ p(k, β) PL(k, β). But each label
 * appears in its neighbours' conditionals too: the product is not a probability distribution over
 * the labels (summed over all labellings it is not 1), so ∫ PL p(k, β) is not an evidence and cannot be
 * set beside the other families' (it is reported as `pseudoLogEvidence`, for reference only).
 *
 * How occam handles it: the chain rule. Each factor p(y_g | X_g, D_1 … D_{g−1}) predicts a fold's
 * labels from the earlier folds' rows alone (neighbours among them only), and that is a proper
 * distribution over the fold's labels given (k, β), averaged over the pseudo-posterior of (k, β) given
 * the earlier folds. The product over folds, the first fold predicted one row at a time from the rows
 * before it (the first row from none: 1/K), is a probability of the labels given the inputs, summing
 * to one over labellings, on the same footing as the other families' log p(y | X, M). Unlike theirs it
 * depends on the order in which the rows are revealed (a prequential probability, Dawid 1984): occam
 * uses the same folds for every family, and says so.
 *
 * Sampling: θ = (u, β) with u uniform on (0, k_max) and k = ⌈u⌉, so that the prior is a density on a
 * box and every estimator of occam applies; the kernel moves k by Metropolis steps of a few
 * neighbours (then u uniformly within its cell, exact given k) and β by reflected random-walk
 * Metropolis with a mixture of scales. With two parameters the posterior and each chain-rule factor
 * are also computed exactly, summing over k and integrating β by Gauss–Legendre quadrature: the
 * check on the sampler.
 */
import { OccamError } from "../../errors.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { metropolisHastings } from "../../samplers/accept.js";
import type { Kernel, PositionState, StepInfo } from "../../samplers/kernel.js";
import type { ClassificationData } from "../mixture-classifier/data.js";
import type { ChainRuleSettings, ClassifierModel } from "./family.js";
import {
  type PknnEvidenceResult,
  type PknnForm,
  pknnChainRule,
  pknnPseudoLogEvidence,
  pknnQuadratureChainRule,
} from "./pknn-evidence.js";
import {
  type GroupedCounts,
  groupCounts,
  groupedLogProbability,
  type NeighbourCounts,
  type NeighbourOrder,
  neighbourCounts,
  neighbourOrder,
  queryLogProbabilities,
} from "./pknn-neighbours.js";

/** Options of {@link pknnClassifier}. */
export interface PknnClassifierOptions {
  /** k_max, the largest number of neighbours. @defaultValue min(40, max(2, ⌊n/4⌋)) for n training rows */
  maxNeighbours?: number;
  /** β_max, the upper end of the interaction strength's uniform prior. @defaultValue 10 */
  maxInteraction?: number;
}

/** The pknn family on its training data (see the module header). */
export interface PknnClassifier extends ClassifierModel {
  readonly kMax: number;
  readonly betaMax: number;
  /** The neighbour count k of a position θ = (u, β): ⌈u⌉. */
  neighbours(theta: Float64Array): number;
  /** The pseudo-likelihood model of a subset S of the training rows: neighbours among S only. */
  pseudoModel(rows: Int32Array): BayesModel;
  /** log p(y_Q | X_Q, D_S) given (k, β): the rows Q predicted from the rows S (disjoint), for each draw. */
  predictiveTable(predicted: Int32Array, conditioning: Int32Array): NeighbourCounts;
  /** The pseudo-likelihood table of the rows S (each given the others of S). */
  pseudoTable(rows: Int32Array): NeighbourCounts;
  /** The chain rule by posterior draws of (k, β) (see pknn-evidence.ts). */
  chainRuleEvidence(settings: ChainRuleSettings, form?: PknnForm): PknnEvidenceResult;
  /** The exact chain rule over a partition, by summing over k and quadrature over β. */
  exactChainRule(partition: readonly Int32Array[], form?: PknnForm): PknnEvidenceResult;
  /** log ∫ PL(k, β) p(k, β): the pseudo-likelihood's "evidence", not a probability of the labels. */
  pseudoLogEvidence(): number;
}

/** A uniform variate kept strictly inside (0, 1), so that positions stay strictly inside the bounds. */
function inside(v: number): number {
  return Math.min(1 - 1e-12, Math.max(1e-12, v));
}

/** The neighbour count of u: ⌈u⌉, clamped to 1 … k_max. */
function countOf(u: number, kMax: number): number {
  return Math.min(kMax, Math.max(1, Math.ceil(u)));
}

/**
 * Builds the pknn family on training data with standardised inputs. Throws `invalid-argument` for
 * k_max < 1 or ≥ n, or β_max ≤ 0.
 *
 * @example
 * const model = pknnClassifier(train);
 * const draws = samplePosterior(model, { seed: 1 }).draws; // (u, β); k = ⌈u⌉
 */
export function pknnClassifier(
  data: ClassificationData,
  options: PknnClassifierOptions = {},
): PknnClassifier {
  const { n, labels } = data;
  const K = data.classNames.length;
  const kMax = options.maxNeighbours ?? Math.min(40, Math.max(2, Math.floor(n / 4)));
  const betaMax = options.maxInteraction ?? 10;
  if (!(Number.isInteger(kMax) && kMax >= 1 && kMax < n)) {
    throw new OccamError(
      "invalid-argument",
      `pknn: maxNeighbours must be an integer in [1, ${n - 1}] (fewer than the ${n} training rows), got ${kMax}.`,
    );
  }
  if (!(Number.isFinite(betaMax) && betaMax > 0)) {
    throw new OccamError(
      "invalid-argument",
      `pknn: maxInteraction must be a finite number > 0, got ${betaMax}.`,
    );
  }
  const order = neighbourOrder(data, data.X, n, true);
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const mask = (rows: ArrayLike<number>): Uint8Array => {
    const m = new Uint8Array(n);
    for (let t = 0; t < rows.length; t++) m[rows[t]] = 1;
    return m;
  };
  const pseudoTable = (rows: Int32Array) => neighbourCounts(order, rows, mask(rows), labels, labels, K, kMax);
  const predictiveTable = (predicted: Int32Array, conditioning: Int32Array) =>
    neighbourCounts(order, predicted, mask(conditioning), labels, labels, K, kMax);
  const full = pseudoTable(all);
  const logPriorDensity = -Math.log(kMax) - Math.log(betaMax);
  const bounds = Object.freeze({ lower: Object.freeze([0, 0]), upper: Object.freeze([kMax, betaMax]) });
  const scratch = new Float64Array(K);
  const testTables = new WeakMap<Float64Array, { m: number; table: NeighbourCounts }>();

  const pseudoModel = (table: NeighbourCounts): BayesModel => {
    const grouped = groupCounts(table);
    const pl = (theta: Float64Array) => groupedLogProbability(grouped, countOf(theta[0], kMax), theta[1]);
    return {
      dim: 2,
      names: ["u (k = ⌈u⌉)", "beta"],
      bounds,
      logPrior: (theta) =>
        theta[0] > 0 && theta[0] <= kMax && theta[1] > 0 && theta[1] <= betaMax
          ? logPriorDensity
          : Number.NEGATIVE_INFINITY,
      logLikelihood: pl,
      samplePrior: (rng) => Float64Array.of(kMax * inside(rng.uniform()), betaMax * inside(rng.uniform())),
      powerPosteriorKernel: (temperature) => pknnKernel(grouped, kMax, betaMax, logPriorDensity, temperature),
    };
  };
  const base = pseudoModel(full);

  const model: PknnClassifier = {
    ...base,
    family: "pknn",
    classes: K,
    data,
    nObservations: n,
    kMax,
    betaMax,
    summary: `k ≤ ${kMax}, β < ${betaMax}`,
    neighbours: (theta) => countOf(theta[0], kMax),
    pseudoModel: (rows) => pseudoModel(pseudoTable(rows)),
    pseudoTable,
    predictiveTable,
    logLikelihoodPointwise(theta, out) {
      const k = countOf(theta[0], kMax);
      for (let t = 0; t < n; t++) {
        queryLogProbabilities(full, t, k, theta[1], scratch);
        out[t] = scratch[labels[t]];
      }
    },
    logPredictive(theta, X, m, out) {
      let cached = testTables.get(X);
      if (cached === undefined || cached.m !== m) {
        const testOrder: NeighbourOrder = neighbourOrder(data, X, m, false);
        const queries = Int32Array.from({ length: m }, (_, i) => i);
        cached = { m, table: neighbourCounts(testOrder, queries, mask(all), labels, null, K, kMax) };
        testTables.set(X, cached);
      }
      const k = countOf(theta[0], kMax);
      for (let r = 0; r < m; r++) {
        queryLogProbabilities(cached.table, r, k, theta[1], scratch);
        for (let c = 0; c < K; c++) out[r * K + c] = scratch[c];
      }
    },
    chainRuleEvidence: (settings: ChainRuleSettings, form) => pknnChainRule(model, settings, form),
    exactChainRule: (partition, form) => pknnQuadratureChainRule(model, partition, form),
    pseudoLogEvidence: () => pknnPseudoLogEvidence(model),
  };
  return Object.freeze(model);
}

/** State of the pknn kernel: (u, β), the tempered log density and the log pseudo-likelihood there. */
interface PknnState extends PositionState {
  readonly logLikelihood: number;
}

/**
 * The Metropolis-within-Gibbs kernel of p(k, β) PL(k, β)^T for one pseudo-likelihood table: a move of
 * k, with probability ⅓ each by ±1 … ±s (s = ⌈k_max/10⌉; outside 1 … k_max rejected), to a uniform
 * draw from 1 … k_max, or of (k, β) together to a draw from the (uniform) prior — all symmetric; the
 * global moves let a flat or two-humped posterior mix in a few steps — then u redrawn uniformly in (k − 1, k] (exact given k, the density being flat there),
 * then a random-walk move of β reflected at 0 and β_max, its scale drawn from {0.02, 0.1, 0.5} × β_max
 * (a symmetric choice: the posterior's width varies by orders of magnitude between the first fold
 * and all the data).
 */
function pknnKernel(
  table: GroupedCounts,
  kMax: number,
  betaMax: number,
  logPrior: number,
  temperature: number,
): Kernel<PknnState, StepInfo> {
  const span = Math.max(1, Math.ceil(kMax / 10));
  const scales = [0.02 * betaMax, 0.1 * betaMax, 0.5 * betaMax];
  const pl = (k: number, beta: number) => groupedLogProbability(table, k, beta);
  const reflect = (beta: number): number => {
    let b = beta;
    // Fold into (0, 2β_max), then reflect the upper half back.
    b = ((b % (2 * betaMax)) + 2 * betaMax) % (2 * betaMax);
    return b > betaMax ? 2 * betaMax - b : b;
  };
  return {
    init(position) {
      const k = countOf(position[0], kMax);
      const ll = pl(k, position[1]);
      return {
        position: Float64Array.from(position),
        logDensity: logPrior + temperature * ll,
        logLikelihood: ll,
      };
    },
    step(rng: Rng, state) {
      const pos = Float64Array.from(state.position);
      let ll = state.logLikelihood;
      let k = countOf(pos[0], kMax);
      // k: ±1 … ±span, anywhere, or (k, β) together from the prior.
      const move = rng.integer(3);
      const k2 =
        move === 0 ? k + (1 + rng.integer(span)) * (rng.uniform() < 0.5 ? -1 : 1) : 1 + rng.integer(kMax);
      const b2 = move === 2 ? betaMax * inside(rng.uniform()) : pos[1];
      let probability = 0;
      let accepted = false;
      if (k2 >= 1 && k2 <= kMax) {
        const ll2 = pl(k2, b2);
        const d = metropolisHastings(rng, temperature * (ll2 - ll));
        probability += d.acceptProbability;
        if (d.accepted) {
          k = k2;
          pos[1] = b2;
          ll = ll2;
          accepted = true;
        }
      } else metropolisHastings(rng, Number.NEGATIVE_INFINITY);
      pos[0] = k - inside(rng.uniform());
      // β: reflected random walk.
      const scale = scales[rng.integer(scales.length)];
      const beta2 = reflect(pos[1] + scale * rng.normal());
      if (beta2 > 0 && beta2 < betaMax) {
        const ll2 = pl(k, beta2);
        const d = metropolisHastings(rng, temperature * (ll2 - ll));
        probability += d.acceptProbability;
        if (d.accepted) {
          pos[1] = beta2;
          ll = ll2;
          accepted = true;
        }
      } else metropolisHastings(rng, Number.NEGATIVE_INFINITY);
      return {
        state: { position: pos, logDensity: logPrior + temperature * ll, logLikelihood: ll },
        info: { accepted, acceptProbability: probability / 2, evaluations: 2 },
      };
    },
  };
}
