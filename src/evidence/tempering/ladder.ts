/**
 * The ladder estimators on the engine's draws: the log likelihood of every draw at every temperature
 * of a run is recorded, and stepping-stone sampling, chaining and path sampling each turn the record
 * into one estimate of log Z per island.
 */
import { OccamError } from "../../errors.js";
import { kishEss, logSumExp } from "../../math/logspace.js";
import { paretoKHat } from "../importance-sampling.js";
import { islandStart } from "./cloud.js";
import type { TemperingObserver } from "./engine.js";
import { combineIslands, type IslandEstimate, type IslandKind } from "./estimates.js";
import { integrate, type QuadratureRule } from "./quadrature.js";

/** The log likelihoods of the draws at each temperature of a run. */
export interface LadderRecord {
  /** The temperatures with draws, increasing from β = 0 (the prior cloud). */
  readonly betas: number[];
  /** Per temperature, one array of N log likelihoods per sweep made there. */
  readonly draws: Float64Array[][];
  readonly particles: number;
  readonly islands: number;
}

/** An observer that records every draw's log likelihood, and the record it fills. */
export function recordLadder(
  particles: number,
  islands: number,
): {
  observer: TemperingObserver;
  record: LadderRecord;
} {
  const record: LadderRecord = { betas: [], draws: [], particles, islands };
  const observer: TemperingObserver = {
    draws(beta, cloud) {
      if (record.betas[record.betas.length - 1] !== beta) {
        record.betas.push(beta);
        record.draws.push([]);
      }
      record.draws[record.draws.length - 1].push(Float64Array.from(cloud.logLikelihood));
    },
  };
  return { observer, record };
}

/** One rung k → k + 1 of a ratio estimate, over the draws of all islands. */
export interface RungSummary {
  readonly from: number;
  readonly to: number;
  /** log Z_{to} − log Z_{from} estimated from all the draws. */
  readonly logRatio: number;
  /** Kish's effective sample size fraction of the rung's importance weights. */
  readonly essFraction: number;
  /** Pareto k̂ of the weights' upper tail: above 0.7 their variance is probably infinite. */
  readonly paretoK: number;
}

/**
 * One importance-sampling ratio of a ladder from a single chain's draws: log mean e^{scale · ℓ} over
 * the draws' log likelihoods ℓ, with the delta-method variance var(w/w̄)/ESS (`ess`: the chain's
 * effective sample size, at most the number of draws). Used by the temperature sweeps of one chain.
 */
export function ratioTerm(
  ell: ArrayLike<number>,
  scale: number,
  ess: number,
): { logRatio: number; variance: number } {
  const n = ell.length;
  const logW = Float64Array.from(ell, (l) => (scale === 0 ? 0 : scale * l));
  const logRatio = logSumExp(logW) - Math.log(n);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (Math.exp(logW[i] - logRatio) - 1) ** 2;
  return { logRatio, variance: ss / Math.max(1, n - 1) / Math.max(1, Math.min(n, ess)) };
}

/** Rungs whose weights' Pareto k̂ exceeds this make the estimate unreliable. */
export const RUNG_PARETO_K = 0.7;

/**
 * Adds to `islandLogZ[g]` sign · log mean over island g's draws at temperature `t` of L^scale, and
 * returns the pooled rung summary of those weights.
 */
function addRatioTerm(
  record: LadderRecord,
  t: number,
  scale: number,
  sign: number,
  islandLogZ: Float64Array,
): { logRatio: number; essFraction: number; paretoK: number } {
  const { particles: N, islands: G } = record;
  const sweeps = record.draws[t];
  const S = sweeps.length;
  const logW = new Float64Array(S * N);
  for (let s = 0; s < S; s++) {
    const ell = sweeps[s];
    // 0 · (−∞) must be 0: an unweighted draw has weight 1.
    for (let i = 0; i < N; i++) logW[s * N + i] = scale === 0 ? 0 : scale * ell[i];
  }
  const terms = new Float64Array(S);
  for (let g = 0; g < G; g++) {
    const a = islandStart(g, G, N);
    const b = islandStart(g + 1, G, N);
    for (let s = 0; s < S; s++) terms[s] = logSumExp(logW, s * N + a, b - a);
    // All zero only for an island that lost every particle: its estimate of Z is 0 (log −∞).
    const logMean = logSumExp(terms) - Math.log(S * (b - a));
    if (Number.isNaN(logMean) || (logMean === Number.POSITIVE_INFINITY && scale > 0)) {
      throw new OccamError(
        "non-finite",
        `the importance weights of island ${g + 1} at β = ${record.betas[t]} overflow; check the model's log likelihood.`,
      );
    }
    islandLogZ[g] =
      islandLogZ[g] === Number.NEGATIVE_INFINITY ? islandLogZ[g] : islandLogZ[g] + sign * logMean;
  }
  return {
    logRatio: sign * (logSumExp(logW) - Math.log(logW.length)),
    essFraction: kishEss(logW) / logW.length,
    paretoK: paretoKHat(logW),
  };
}

/**
 * Stepping-stone sampling (Xie et al. 2011) on the record: per island,
 * log Z = Σ_k log mean over the island's draws at β_k of L^{β_{k+1} − β_k}. With `ends: "both"`,
 * each rung is the geometric bridge of its two ends (chaining's second form),
 * log E_{β_k}[L^{Δ/2}] − log E_{β_{k+1}}[L^{−Δ/2}], which needs draws at β = 1: a run stopped by its
 * budget before β = 1 has the lower ends' rungs instead (and is unreliable for its budget anyway).
 */
export function ratioIslands(
  record: LadderRecord,
  ends: "lower" | "both",
): { islandLogZ: Float64Array; rungs: RungSummary[] } {
  const betas = record.betas;
  const atOne = betas[betas.length - 1] === 1;
  const bridges = ends === "both" && atOne;
  // Rungs from each temperature with draws to the next (the last one to β = 1).
  const K = atOne ? betas.length - 1 : betas.length;
  const islandLogZ = new Float64Array(record.islands);
  const rungs: RungSummary[] = [];
  for (let k = 0; k < K; k++) {
    const from = betas[k];
    const to = k + 1 < betas.length ? betas[k + 1] : 1;
    const delta = to - from;
    if (!bridges) {
      rungs.push({ from, to, ...addRatioTerm(record, k, delta, 1, islandLogZ) });
    } else {
      const lower = addRatioTerm(record, k, delta / 2, 1, islandLogZ);
      const upper = addRatioTerm(record, k + 1, -delta / 2, -1, islandLogZ);
      rungs.push({
        from,
        to,
        logRatio: lower.logRatio + upper.logRatio,
        essFraction: Math.min(lower.essFraction, upper.essFraction),
        paretoK: Math.max(lower.paretoK, upper.paretoK),
      });
    }
  }
  return { islandLogZ, rungs };
}

/** Below this Kish ESS fraction a rung's weights rest on too few draws to trust. */
export const RUNG_MIN_ESS_FRACTION = 0.01;

/** Why a ladder estimate cannot be trusted: rungs whose weights are too heavy-tailed or rest on too few draws. */
export function rungReasons(rungs: readonly RungSummary[]): string[] {
  const bad = rungs.filter((r) => r.paretoK > RUNG_PARETO_K || r.essFraction < RUNG_MIN_ESS_FRACTION);
  if (bad.length === 0) return [];
  const worst = bad.reduce((a, b) => (b.essFraction < a.essFraction ? b : a));
  return [
    `${bad.length} rung(s) have importance weights with Pareto k̂ > ${RUNG_PARETO_K} or an effective sample size below ` +
      `${100 * RUNG_MIN_ESS_FRACTION} % of their draws (worst: β ${worst.from.toPrecision(3)} → ${worst.to.toPrecision(3)}, ` +
      `ESS ${(100 * worst.essFraction).toPrecision(2)} %): their ratios may be far off; use more temperatures (a higher targetEss).`,
  ];
}

/**
 * One run of a ratio estimator (`stepping-stone`, `chaining`) from its record: its islands' log Z
 * ({@link ratioIslands}) combined as `kind` says, its rungs' heavy-tailed weights as reasons not to
 * trust it ({@link rungReasons}), and the rungs.
 */
export function ratioRun(
  record: LadderRecord,
  ends: "lower" | "both",
  kind: IslandKind,
): { estimate: IslandEstimate; reasons: string[]; rungs: RungSummary[] } {
  const { islandLogZ, rungs } = ratioIslands(record, ends);
  return { estimate: combineIslands(islandLogZ, kind), reasons: rungReasons(rungs), rungs };
}

/** E_β[log L] and Var_β[log L] at each temperature of the record, per island and pooled. */
export interface NodeMoments {
  /** [temperature][island] */
  readonly means: Float64Array[];
  readonly variances: Float64Array[];
  readonly pooledMeans: Float64Array;
  readonly pooledVariances: Float64Array;
}

/** The moments of log L over the draws at each temperature, per island and pooled. */
export function nodeMoments(record: LadderRecord): NodeMoments {
  const { particles: N, islands: G } = record;
  const K = record.betas.length;
  const means: Float64Array[] = [];
  const variances: Float64Array[] = [];
  const pooledMeans = new Float64Array(K);
  const pooledVariances = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    const sweeps = record.draws[k];
    const m = new Float64Array(G);
    const v = new Float64Array(G);
    let total = 0;
    for (let g = 0; g < G; g++) {
      const a = islandStart(g, G, N);
      const b = islandStart(g + 1, G, N);
      let sum = 0;
      for (const ell of sweeps) for (let i = a; i < b; i++) sum += ell[i];
      const count = sweeps.length * (b - a);
      m[g] = sum / count;
      let ss = 0;
      for (const ell of sweeps) for (let i = a; i < b; i++) ss += (ell[i] - m[g]) ** 2;
      v[g] = ss / Math.max(1, count - 1);
      total += sum;
    }
    const count = sweeps.length * N;
    pooledMeans[k] = total / count;
    let ss = 0;
    for (const ell of sweeps) for (let i = 0; i < N; i++) ss += (ell[i] - pooledMeans[k]) ** 2;
    pooledVariances[k] = ss / Math.max(1, count - 1);
    means.push(m);
    variances.push(v);
  }
  return { means, variances, pooledMeans, pooledVariances };
}

/**
 * Path sampling on the record: per island, ∫ E_β[log L] dβ by `rule` over the temperatures from
 * `first` on (with "hermite", the slopes are the island's Var_β[log L]).
 */
export function pathIslands(
  record: LadderRecord,
  moments: NodeMoments,
  rule: QuadratureRule,
  first: number,
): Float64Array {
  const x = record.betas.slice(first);
  const islandLogZ = new Float64Array(record.islands);
  for (let g = 0; g < record.islands; g++) {
    const m = x.map((_, k) => moments.means[k + first][g]);
    const v = x.map((_, k) => moments.variances[k + first][g]);
    islandLogZ[g] = integrate(x, m, v, rule);
  }
  return islandLogZ;
}
