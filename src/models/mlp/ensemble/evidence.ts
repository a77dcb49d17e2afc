/** The evidence by importance sampling from the ensemble approximation, with the ELBO from the same draws. */
import { gammaLogDensityOfLog, gammaLogNormaliser } from "../../../distributions/gamma.js";
import { OccamError } from "../../../errors.js";
import { paretoKHat } from "../../../evidence/importance-sampling.js";
import { type EvidenceEstimate, evidenceResult } from "../../../evidence/result.js";
import { logWeightSummary, meanAndSd, weightReasons } from "../../../evidence/weights.js";
import { LOG_2PI } from "../../../math/constants.js";
import { lowerTriMatVec } from "../../../math/linalg.js";
import { createRng } from "../../../random/rng.js";
import { mlpSymmetryLogFactor } from "../evidence-framework.js";
import { GROUP_COUNT } from "../network.js";
import type { EnsembleMlpFit, EnsembleRefinement } from "./fit.js";

/** Options of {@link ensembleEvidence}. */
export interface EnsembleEvidenceOptions {
  /**
   * Draws from q.
   * @defaultValue 2000
   */
  samples?: number;
  /**
   * Seed. The fit's own draws come from other streams, so any seed gives draws independent of the
   * optimisation's. @defaultValue 0
   */
  seed?: number;
}

/** Diagnostics of {@link ensembleEvidence}. */
export interface EnsembleEvidenceDiagnostics {
  /** The evidence lower bound of the ensemble and its standard error. */
  readonly elbo: number;
  readonly elboStdErr: number;
  /** log(H! 2^H): the network's hidden-unit symmetries, added to both. */
  readonly symmetryLogFactor: number;
  /** Pareto k̂ of the importance weights (null when it cannot be estimated). */
  readonly paretoK: number | null;
  readonly ess: number;
  readonly maxWeightShare: number;
  readonly iterations: number;
  readonly converged: boolean;
  readonly ridge: number;
  readonly refinementSteps: number;
  readonly initialScale: number;
}

/** The result of {@link ensembleEvidence}: importance sampling from the ensemble approximation. */
export type EnsembleEvidenceResult = EvidenceEstimate<"ensemble-importance", EnsembleEvidenceDiagnostics>;

/**
 * Evidence by importance sampling from the ensemble approximation (thesis eqs. 6.65–6.66):
 * p(D | M) ≈ (1/N) Σ p(w_i, τ_i, α_i, D) / q(w_i, τ_i, α_i), θ_i ~ q, in log space, on the model's
 * coordinates (log τ, log α_k, with their Jacobians in both p and q). q covers one of the H!·2^H
 * equivalent modes (hidden-unit permutations and sign flips), so log(H!) + H log 2 is added, as for
 * the evidence framework; this over-counts when the mode is itself symmetric (two identical hidden
 * units, or a unit switched off).
 *
 * The standard error is the delta method sd(w/w̄)/√N; check `diagnostics.paretoK` (above 0.7 the
 * weights' variance is probably infinite and the standard error too small). The same draws give the
 * variational lower bound ELBO = E_q[log p(θ, D) − log q(θ)] ≤ log Z (with the same symmetry term)
 * and its standard error, in `diagnostics.elbo` and `diagnostics.elboStdErr`. In expectation the
 * importance estimate lies between the ELBO and log Z (log of a mean is at most the mean of the log).
 * `diagnostics` also carries the fit's App. C `iterations`, `converged` and `ridge`, and its
 * `refinementSteps` and `initialScale` (see {@link EnsembleRefinement}).
 */
export function ensembleEvidence(
  fit: EnsembleMlpFit,
  options: EnsembleEvidenceOptions = {},
): EnsembleEvidenceResult {
  const where = "ensembleEvidence";
  const start = performance.now();
  const samples = options.samples ?? 2000;
  if (!(Number.isInteger(samples) && samples >= 2)) {
    throw new OccamError("invalid-argument", `${where}: samples must be an integer ≥ 2, got ${samples}.`);
  }
  const { model, mean, covarianceCholesky: C } = fit;
  const W = model.weightCount;
  const rng = createRng(options.seed ?? 0);
  let logDetC = 0;
  for (let j = 0; j < W; j++) logDetC += Math.log(C[j * W + j]);
  const noiseNorm = gammaLogNormaliser(fit.noise.shape, fit.noise.rate);
  const groupNorm = fit.groups.map((g) => gammaLogNormaliser(g.shape, g.rate));
  const z = new Float64Array(W);
  const dw = new Float64Array(W);
  const logW = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const x = new Float64Array(model.dim);
    let zz = 0;
    for (let j = 0; j < W; j++) {
      z[j] = rng.normal();
      zz += z[j] * z[j];
    }
    // w = w̄ + C z, so log q(w) = −log|C| − ½ W log 2π − ½ zᵀz.
    lowerTriMatVec(C, W, z, dw);
    for (let j = 0; j < W; j++) x[j] = mean[j] + dw[j];
    let logQ = -logDetC - 0.5 * W * LOG_2PI - 0.5 * zz;
    const tau = rng.gamma(fit.noise.shape) / fit.noise.rate;
    x[W] = Math.log(tau);
    logQ += gammaLogDensityOfLog(x[W], fit.noise.shape, fit.noise.rate, noiseNorm);
    for (let k = 0; k < GROUP_COUNT; k++) {
      const a = rng.gamma(fit.groups[k].shape) / fit.groups[k].rate;
      x[W + 1 + k] = Math.log(a);
      logQ += gammaLogDensityOfLog(x[W + 1 + k], fit.groups[k].shape, fit.groups[k].rate, groupNorm[k]);
    }
    logW[i] = model.logPrior(x) + model.logLikelihood(x) - logQ;
    if (Number.isNaN(logW[i]) || logW[i] === Number.POSITIVE_INFINITY) {
      throw new OccamError("non-finite", `${where}: the log weight of draw ${i} is ${logW[i]}.`);
    }
  }
  const symmetry = mlpSymmetryLogFactor(model.network.hidden);
  const summary = logWeightSummary(logW, where);
  const { mean: elbo, sd } = meanAndSd(logW);
  const paretoK = paretoKHat(logW);
  return evidenceResult({
    method: "ensemble-importance",
    logZ: summary.logZ + symmetry,
    stdErr: summary.stdErr,
    nLikelihoodEvals: samples,
    seconds: (performance.now() - start) / 1000,
    unreliable: weightReasons(summary.ess, samples, paretoK, "the importance weights"),
    diagnostics: {
      elbo: elbo + symmetry,
      elboStdErr: sd / Math.sqrt(samples),
      symmetryLogFactor: symmetry,
      paretoK: Number.isFinite(paretoK) ? paretoK : null,
      ess: summary.ess,
      maxWeightShare: summary.maxWeightShare,
      iterations: fit.iterations,
      converged: fit.converged,
      ridge: fit.ridge,
      refinementSteps: fit.refinement.steps,
      initialScale: fit.refinement.initialScale,
    },
  });
}
