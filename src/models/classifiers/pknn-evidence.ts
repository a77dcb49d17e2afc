/**
 * The probability of the labels under the pknn family, by the chain rule (see pknn.ts for why its
 * pseudo-likelihood needs it): each factor log p(y_Q | X_Q, D_S) predicts the rows Q from the rows S
 * before them, averaged over the pseudo-posterior of (k, β) given S. Two estimators of the same
 * numbers: posterior draws of (k, β) by the family's Metropolis kernel (each factor the log of the
 * average of p(y_Q | θ_t), as occam's cross-validated evidence does for the other families), and
 * exact sums over k with Gauss–Legendre quadrature over β, the sampler's check.
 */
import { weightTraceEss } from "../../diagnostics/ess.js";
import { samplePosterior } from "../../evidence/posterior-sampling.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "../../evidence/result.js";
import { logWeightSummary } from "../../evidence/weights.js";
import { logSumExp } from "../../math/logspace.js";
import type { Rng } from "../../random/rng.js";
import type { ChainRuleSettings } from "./family.js";
import type { PknnClassifier } from "./pknn.js";
import { type GroupedCounts, groupCounts, groupedLogProbability } from "./pknn-neighbours.js";

/** How many times the draws asked for the pknn chains run (see `sampledTerm`). */
const DRAWS_FACTOR = 4;

/** Which product of predictive factors: the chain rule (log p(y | X)) or Everson's G-fold product. */
export type PknnForm = "chain-rule" | "k-fold";

/** One factor log p(y_Q | X_Q, D_S) of a pknn chain rule. */
export interface PknnTerm {
  /** |Q| and |S|. */
  readonly predicted: number;
  readonly conditioning: number;
  readonly logTerm: number;
  readonly stdErr: number;
}

/** Diagnostics of the pknn chain rule. */
export interface PknnEvidenceDiagnostics {
  readonly form: PknnForm;
  /** "mcmc" (posterior draws of k and β) or "quadrature" (exact over k, Gauss–Legendre over β). */
  readonly estimator: "mcmc" | "quadrature";
  /** The factors, the first fold's rows one at a time first (chain rule). */
  readonly terms: readonly PknnTerm[];
}

/** A pknn chain-rule (or G-fold) result. */
export type PknnEvidenceResult = EvidenceEstimate<"pknn-mcmc" | "pknn-quadrature", PknnEvidenceDiagnostics>;

/** The (S, Q) pairs of a form: for the chain rule, fold 1 row by row, then each fold given the earlier ones. */
function conditionals(
  partition: readonly Int32Array[],
  n: number,
  form: PknnForm,
): { conditioning: Int32Array; predicted: Int32Array }[] {
  const out: { conditioning: Int32Array; predicted: Int32Array }[] = [];
  if (form === "k-fold") {
    for (const fold of partition) {
      const inFold = new Uint8Array(n);
      for (const r of fold) inFold[r] = 1;
      const rest: number[] = [];
      for (const g of partition) for (const r of g) if (!inFold[r]) rest.push(r);
      out.push({ conditioning: Int32Array.from(rest), predicted: fold });
    }
    return out;
  }
  const first = partition[0];
  for (let j = 0; j < first.length; j++) {
    out.push({ conditioning: first.slice(0, j), predicted: first.slice(j, j + 1) });
  }
  const earlier: number[] = Array.from(first);
  for (let g = 1; g < partition.length; g++) {
    out.push({ conditioning: Int32Array.from(earlier), predicted: partition[g] });
    earlier.push(...partition[g]);
  }
  return out;
}

/**
 * log p(y | X, M_pknn) by the chain rule over `settings.partition` (or, with `form` "k-fold",
 * Everson's Σ_g log p(D_g | D_−g)), each factor from pseudo-posterior draws of (k, β) given the
 * conditioning rows (`samplePosterior` with the family's kernel, chains from prior draws). Errors add
 * in quadrature over the independent factors; a factor whose draws are unreliable (chains that
 * disagree, too few effective draws) or whose average rests on a few draws makes the result unreliable.
 */
export function pknnChainRule(
  model: PknnClassifier,
  settings: ChainRuleSettings,
  form: PknnForm = "chain-rule",
): PknnEvidenceResult {
  const start = performance.now();
  const pairs = conditionals(settings.partition, model.nObservations, form);
  const streams = settings.rng.split(pairs.length);
  const terms: PknnTerm[] = [];
  const unreliable: string[] = [];
  let logZ = 0;
  let variance = 0;
  let evaluations = 0;
  pairs.forEach(({ conditioning, predicted }, index) => {
    const label =
      form === "k-fold"
        ? `fold ${index + 1}`
        : `term ${index + 1} (${predicted.length} rows given ${conditioning.length})`;
    if (conditioning.length === 0) {
      // No earlier rows: no neighbours, so every class has probability 1/K whatever (k, β).
      const logTerm = -predicted.length * Math.log(model.classes);
      terms.push({ predicted: predicted.length, conditioning: 0, logTerm, stdErr: 0 });
      logZ += logTerm;
      return;
    }
    const term = sampledTerm(model, conditioning, predicted, settings, streams[index], label);
    terms.push(term.term);
    logZ += term.term.logTerm;
    variance += term.term.stdErr ** 2;
    evaluations += term.evaluations;
    unreliable.push(...term.unreliable);
  });
  return evidenceResult({
    method: "pknn-mcmc",
    logZ,
    stdErr: Math.sqrt(variance),
    nLikelihoodEvals: evaluations,
    seconds: secondsSince(start),
    unreliable,
    diagnostics: { form, estimator: "mcmc", terms },
  });
}

function sampledTerm(
  model: PknnClassifier,
  conditioning: Int32Array,
  predicted: Int32Array,
  settings: ChainRuleSettings,
  rng: Rng,
  label: string,
): { term: PknnTerm; evaluations: number; unreliable: string[] } {
  // The factors cost little and the posterior over k can have several humps (the first fold's few
  // rows leave it broad), so the chains run DRAWS_FACTOR times the draws asked for.
  const sample = samplePosterior(model.pseudoModel(conditioning), {
    rng,
    chains: settings.chains,
    warmup: settings.warmup,
    draws: Math.max(10, Math.ceil((DRAWS_FACTOR * settings.draws) / settings.chains)),
    starts: "prior",
  });
  const { draws } = sample;
  const table = groupCounts(model.predictiveTable(predicted, conditioning));
  const total = draws.size;
  const logW = new Float64Array(total);
  const position = new Float64Array(2);
  for (let t = 0; t < total; t++) {
    position[0] = draws.values[2 * t];
    logW[t] = groupedLogProbability(table, model.neighbours(position), draws.values[2 * t + 1]);
  }
  const summary = logWeightSummary(logW, `pknn (${label})`);
  // The draws are a Markov chain: the error of the mean weight uses the ESS of the weight trace.
  const ess = weightTraceEss(logW, draws.nChains, draws.nDraws);
  const stdErr = (summary.stdErr * Math.sqrt(total)) / Math.sqrt(ess);
  const unreliable = sample.unreliable.map((w) => `pknn ${label}: ${w}`);
  if (summary.ess < 50 || summary.maxWeightShare > 0.2) {
    unreliable.push(
      `pknn ${label}: the average of p(y_Q | k, β) rests on few draws (importance ESS ${summary.ess.toFixed(1)} of ${total}); ` +
        "its standard error is unreliable: use more draws or smaller folds.",
    );
  }
  return {
    term: { predicted: predicted.length, conditioning: conditioning.length, logTerm: summary.logZ, stdErr },
    evaluations: sample.nLikelihoodEvals + total,
    unreliable,
  };
}

// ---------------------------------------------------------------------------------------------
// Quadrature: exact over k, Gauss–Legendre over β.

/** The 8-point Gauss–Legendre rule on [−1, 1]. */
const GL_NODES = [
  -0.9602898564975363, -0.7966664774136267, -0.525532409916329, -0.1834346424956498, 0.1834346424956498,
  0.525532409916329, 0.7966664774136267, 0.9602898564975363,
];
const GL_WEIGHTS = [
  0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.362683783378362, 0.362683783378362,
  0.3137066458778873, 0.2223810344533745, 0.1012285362903763,
];

/** Panels of the composite rule over (0, β_max); the error is judged against half as many. */
const PANELS = 48;

/**
 * log Σ_k ∫_0^β_max exp(f(k, β)) dβ for f = log PL_S and for f = log PL_S + log p(y_Q | D_S), by
 * composite 8-point Gauss–Legendre over `panels` equal panels, accumulated in log space. `predictive`
 * null gives the first only.
 */
function logQuadrature(
  model: PknnClassifier,
  pseudo: GroupedCounts,
  predictive: GroupedCounts | null,
  panels: number,
): { norm: number; joint: number } {
  const width = model.betaMax / panels;
  const count = model.kMax * panels * 8;
  const normValues = new Float64Array(count);
  const jointValues = new Float64Array(predictive === null ? 0 : count);
  let i = 0;
  for (let k = 1; k <= model.kMax; k++) {
    for (let q = 0; q < panels; q++) {
      for (let j = 0; j < 8; j++) {
        const beta = width * (q + 0.5 + 0.5 * GL_NODES[j]);
        const v = Math.log(0.5 * width * GL_WEIGHTS[j]) + groupedLogProbability(pseudo, k, beta);
        normValues[i] = v;
        if (predictive !== null) jointValues[i] = v + groupedLogProbability(predictive, k, beta);
        i++;
      }
    }
  }
  return { norm: logSumExp(normValues), joint: predictive === null ? Number.NaN : logSumExp(jointValues) };
}

/** One factor log p(y_Q | D_S) exactly: the pseudo-posterior's normaliser cancels between the two integrals. */
function quadratureTerm(
  model: PknnClassifier,
  pseudo: GroupedCounts,
  predictive: GroupedCounts,
  panels: number,
): number {
  const { norm, joint } = logQuadrature(model, pseudo, predictive, panels);
  return joint - norm;
}

/**
 * The exact pknn chain rule (or G-fold product) over a partition: each factor summed over k and
 * integrated over β by composite Gauss–Legendre (48 panels of 8 nodes); the reported error is the
 * change from 24 panels, a bound on the quadrature error, not a Monte Carlo error.
 */
export function pknnQuadratureChainRule(
  model: PknnClassifier,
  partition: readonly Int32Array[],
  form: PknnForm = "chain-rule",
): PknnEvidenceResult {
  const start = performance.now();
  const pairs = conditionals(partition, model.nObservations, form);
  const terms: PknnTerm[] = [];
  let logZ = 0;
  let error = 0;
  for (const { conditioning, predicted } of pairs) {
    const pseudo = groupCounts(model.pseudoTable(conditioning));
    const predictive = groupCounts(model.predictiveTable(predicted, conditioning));
    const fine = quadratureTerm(model, pseudo, predictive, PANELS);
    const coarse = quadratureTerm(model, pseudo, predictive, PANELS / 2);
    terms.push({
      predicted: predicted.length,
      conditioning: conditioning.length,
      logTerm: fine,
      stdErr: Math.abs(fine - coarse),
    });
    logZ += fine;
    error += Math.abs(fine - coarse);
  }
  return evidenceResult({
    method: "pknn-quadrature",
    logZ,
    stdErr: error,
    nLikelihoodEvals: 0,
    seconds: secondsSince(start),
    diagnostics: { form, estimator: "quadrature", terms },
  });
}

/**
 * log ∫ PL(k, β) p(k, β) d(k, β) over all training rows by the same quadrature: what treating the
 * pseudo-likelihood as a likelihood would call the evidence. Not a probability of the labels (see
 * pknn.ts); reported only to show how far it is from the chain rule.
 */
export function pknnPseudoLogEvidence(model: PknnClassifier): number {
  const all = Int32Array.from({ length: model.nObservations }, (_, i) => i);
  const table = groupCounts(model.pseudoTable(all));
  const logPrior = -Math.log(model.kMax) - Math.log(model.betaMax);
  return logPrior + logQuadrature(model, table, null, PANELS).norm;
}
