import { effectiveSampleSize } from "../diagnostics/ess.js";
import { OccamError } from "../errors.js";
import { LOG_PI } from "../math/constants.js";
import { cholesky } from "../math/linalg.js";
import { digamma, gammaln } from "../math/stdlib.js";
import type { Draws } from "../model/draws.js";
import type { BayesModel } from "../model/model.js";
import { unbounded } from "../model/transform.js";
import { checkCount, checkLogValue, checkModel } from "./checks.js";
import { type PosteriorDrawsInput, posteriorDraws, unboundedDraws } from "./draws-input.js";
import { type EvidenceEstimate, evidenceResult, secondsSince } from "./result.js";
import { meanAndSd } from "./weights.js";

const WHERE = "entropyEvidence";

/** Options of {@link entropyEvidence}. */
export interface EntropyEvidenceOptions {
  /** Posterior draws (a Draws store from a sampler, or an array of Float64Array draws). Required. */
  draws: PosteriorDrawsInput;
  /**
   * Which nearest neighbour's distance the Kozachenko–Leonenko estimator uses.
   * @defaultValue 1
   */
  k?: number;
  /**
   * Whiten the draws by their sample covariance before the nearest-neighbour search, adding back the
   * log-determinant (H(θ) = H(L⁻¹θ) + log|L|, exact for the true entropy). The k-NN estimator's bias is
   * smallest for a near-isotropic density, so whitening helps for correlated or badly scaled posteriors.
   * @defaultValue true
   */
  whiten?: boolean;
  /**
   * Theiler window w: draws at most w steps apart in the same chain are not counted as neighbours, so
   * that an autocorrelated chain's near-copies of a draw do not shrink its neighbour distance (which
   * biases the entropy, and log Z, down by nats in higher dimensions). "auto" takes the largest
   * integrated autocorrelation time τ̂ = n/ESS among the coordinates and the log posterior, the lag-1
   * correlation ρ = (τ̂ − 1)/(τ̂ + 1) of an AR(1) chain with that τ̂, and the lag w = ⌊log 0.05 / log ρ⌋
   * at which such a chain's correlation falls to 0.05 (0 for independent draws).
   * @defaultValue "auto"
   */
  window?: number | "auto";
}

/** Diagnostics of {@link entropyEvidence}. */
export interface EntropyDiagnostics {
  readonly k: number;
  readonly whiten: boolean;
  /** The Theiler window used (draws this close in one chain are not neighbours). */
  readonly window: number;
  readonly draws: number;
  /** The two parts of the estimate: E_post[log p L] and the posterior's differential entropy. */
  readonly meanLogPosterior: number;
  readonly entropy: number;
  readonly ess: number;
}

/** The result of {@link entropyEvidence}. */
export type EntropyResult = EvidenceEstimate<"entropy", EntropyDiagnostics>;

/**
 * Why every entropy result is unreliable: its standard error leaves out the k-NN estimator's bias,
 * which grows with the dimension (5 nats at d = 50) and with the posterior's curvature (3.7 of its
 * standard errors on the 2-dimensional Rosenbrock problem).
 */
export const ENTROPY_WARNING =
  "the standard error leaves out the k-NN entropy estimator's bias, which grows with the dimension and the " +
  "posterior's curvature (several nats in 50 dimensions): use it only beside other methods.";

/**
 * Evidence by the entropy approach (seed 002 option 4): log Z = E_post[log p(θ) L(θ)] + H[p(θ | D)],
 * the posterior mean of the log unnormalised posterior plus the posterior's differential entropy,
 * both estimated from the same posterior draws. The entropy is the Kozachenko–Leonenko k-nearest-
 * neighbour estimate (Kozachenko & Leonenko 1987; see Beirlant et al. 2001, the seed's reference [1]):
 * H ≈ (1/n) Σ_i [ψ(M_i + 1) + d log ε_i] − ψ(k) + log V_d, ε_i the Euclidean distance from draw i to
 * its k-th nearest neighbour among its M_i candidates (M_i = n − 1 for independent draws, which gives
 * the textbook ψ(n)), and V_d = π^{d/2}/Γ(d/2 + 1) the volume of the unit ball.
 *
 * MCMC draws are not independent: a chain's next draw sits close to the last, which shrinks ε and
 * biases H down (by −3.6 nats in d = 10 for four AR(1) chains of 500 with ρ = 0.9). Draws within the
 * Theiler window `window` of each other in the same chain are therefore not candidates (Theiler 1986,
 * as in entropy estimation from time series); for independent draws the window is 0. The window
 * removes most, not all, of that bias (+0.33 nats remain in the same setting: the draws carry the
 * information of only ~200 independent ones), so thin strongly autocorrelated chains.
 *
 * Standard error: the estimate is the mean of per-draw terms a_i = log p L(θ_i) + d log ε_i (plus
 * constants), and stdErr = sd(a)/√ESS(a), the ESS of a over the chains (capped at n). The a_i are not
 * independent even for independent draws (neighbours share distances), yet on the Gaussian test
 * posterior with independent draws the z-scores have sd 1.00–1.05 in d = 1 and 10 (40 seeds); with the
 * AR(1) chains above, 1.3–1.4, so stdErr is then about 30 % too small. Batch means are no alternative:
 * a batch shorter than the Theiler window has no neighbour candidates.
 *
 * Bias: the k-NN entropy estimate is consistent, but its bias shrinks slowly with n in higher
 * dimensions, and stdErr does not include it. On the Gaussian test posterior with k = 1 and
 * independent draws the bias is about −0.01 nats in d = 10 with 2000 draws (+0.05 with 500), but
 * +0.74 nats in d = 20 with 2000 draws, fifteen standard errors (test/evidence/entropy.test.ts).
 * Larger k lowers the variance and raises the bias (k = 4: +0.07 in d = 10). Prefer bridge sampling
 * beyond d ≈ 10.
 *
 * Nearest neighbours are found by brute force, O(n² d) and allocation-free, fine for n ≤ 5000 or so.
 * Throws an `OccamError` when draws are missing, fewer than max(2(d + 2), 20, 4(k + 1)), of the
 * wrong length or non-finite; when a draw has k other draws at distance 0 (a Metropolis chain repeats
 * its draw when it rejects: thin the chain or use a sampler that does not repeat draws); when the
 * window leaves too few candidates; and when the log density at a draw is NaN or ±Infinity.
 */
export function entropyEvidence(given: BayesModel, options: EntropyEvidenceOptions): EntropyResult {
  const start = performance.now();
  checkModel(given, WHERE);
  // On the unbounded scale, where a bounded posterior is closer to the smooth shape k-NN suits.
  const view = unbounded(given, WHERE);
  const model = view.model;
  if (options === null || typeof options !== "object") {
    throw new OccamError("invalid-argument", `${WHERE}: options with { draws } are required.`);
  }
  const k = options.k ?? 1;
  const whiten = options.whiten ?? true;
  const windowOption = options.window ?? "auto";
  checkCount(k, "k", WHERE, 1);
  if (windowOption !== "auto") checkCount(windowOption, "window", WHERE, 0);
  const d = model.dim;
  const draws = unboundedDraws(
    view,
    posteriorDraws(options.draws, d, WHERE, Math.max(2 * (d + 2), 20, 4 * (k + 1))),
  );
  const n = draws.size;
  const { values, nChains, nDraws } = draws;

  // log p(θ) L(θ) at each draw.
  const logPost = new Float64Array(n);
  const theta = new Float64Array(d);
  let evals = 0;
  for (let i = 0; i < n; i++) {
    theta.set(values.subarray(i * d, (i + 1) * d));
    const lp = checkLogValue(model.logPrior(theta), "logPrior", WHERE, "posterior draw", i, theta, false);
    evals++;
    const ll = checkLogValue(
      model.logLikelihood(theta),
      "logLikelihood",
      WHERE,
      "posterior draw",
      i,
      theta,
      false,
    );
    logPost[i] = lp + ll;
  }

  const window = windowOption !== "auto" ? windowOption : theilerWindow(draws, logPost);
  if (2 * window + 1 + k >= nDraws) {
    throw new OccamError(
      "invalid-argument",
      `${WHERE}: the Theiler window (${window} draws each side) leaves too few neighbour candidates in chains of ` +
        `${nDraws} draws: the chains are too autocorrelated for their length; run them longer or thin them.`,
    );
  }

  // Points for the neighbour search: whitened z_i = L⁻¹(θ_i − mean), or the draws themselves.
  const { points, logDetScale } = whiten ? whitenedDraws(draws) : { points: values, logDetScale: 0 };

  const search: NeighbourSearch = {
    points,
    d,
    k,
    nDraws,
    window,
    best: new Float64Array(n * k),
    logEps: new Float64Array(n),
    candidates: new Int32Array(n),
  };
  const logUnitBall = 0.5 * d * LOG_PI - gammaln(0.5 * d + 1);
  const constant = logUnitBall - digamma(k) + logDetScale;

  // Whole-sample estimate and the per-draw terms a_i = log p L(θ_i) + d log ε_i.
  kthNeighbourLogDistances(search, 0, n);
  const terms = new Float64Array(n);
  let psiSum = 0;
  for (let i = 0; i < n; i++) {
    terms[i] = logPost[i] + d * search.logEps[i];
    psiSum += digamma(search.candidates[i] + 1);
  }
  const logZ = meanAndSd(terms).mean + psiSum / n + constant;

  // stdErr = sd(a)/√ESS(a), ESS over the chains.
  const essRaw = effectiveSampleSize(chainsOf(terms, nChains, nDraws));
  const ess = Number.isNaN(essRaw) ? n : Math.min(essRaw, n);
  const meanLogPosterior = meanAndSd(logPost).mean;
  const stdErr = meanAndSd(terms).sd / Math.sqrt(ess);

  return evidenceResult({
    method: "entropy",
    logZ,
    stdErr,
    nLikelihoodEvals: evals,
    seconds: secondsSince(start),
    unreliable: [ENTROPY_WARNING],
    diagnostics: {
      k,
      whiten,
      window,
      draws: n,
      meanLogPosterior,
      entropy: logZ - meanLogPosterior,
      ess,
    },
  });
}

/**
 * The Theiler window of the draws: the lag at which an AR(1) chain with the largest integrated
 * autocorrelation time τ̂ = (1 + ρ)/(1 − ρ) among the coordinates and the log posterior decorrelates
 * to ρ^w ≤ 0.05, and at least the longest run of a repeated draw (a Metropolis or HMC chain repeats its
 * draw when it rejects: a run of r equal draws has neighbours at distance 0 up to r − 1 steps away).
 */
function theilerWindow(draws: Draws, logPost: Float64Array): number {
  const { values, nChains, nDraws, size: n, dim: d } = draws;
  let tau = 1;
  const series: Float64Array[][] = [chainsOf(logPost, nChains, nDraws)];
  for (let j = 0; j < d; j++) series.push(draws.chains(j));
  for (const chains of series) {
    const ess = effectiveSampleSize(chains);
    if (ess > 0) tau = Math.max(tau, n / ess);
  }
  const rho = (tau - 1) / (tau + 1);
  return Math.max(
    rho > 0.05 ? Math.floor(Math.log(0.05) / Math.log(rho)) : 0,
    longestRepeat(values, nChains, nDraws, d),
  );
}

/** The draws whitened, z_i = L⁻¹(θ_i − mean) with L the Cholesky factor of their covariance, and log |L|. */
function whitenedDraws(draws: Draws): { points: Float64Array; logDetScale: number } {
  const { values, size: n, dim: d } = draws;
  const mean = draws.mean();
  let L: Float64Array;
  try {
    L = cholesky(draws.covariance(), d);
  } catch (error) {
    if (error instanceof OccamError && error.code === "not-positive-definite") {
      throw new OccamError(
        "not-positive-definite",
        `${WHERE}: the covariance of the ${n} draws is singular, so they cannot be whitened: check that every ` +
          "parameter moves, or pass whiten: false.",
      );
    }
    throw error;
  }
  const points = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const row = i * d;
    for (let a = 0; a < d; a++) {
      let s = values[row + a] - mean[a];
      for (let b = 0; b < a; b++) s -= L[a * d + b] * points[row + b];
      points[row + a] = s / L[a * d + a];
    }
  }
  let logDetScale = 0;
  for (let a = 0; a < d; a++) logDetScale += Math.log(L[a * d + a]);
  return { points, logDetScale };
}

function chainsOf(flat: Float64Array, nChains: number, nDraws: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let c = 0; c < nChains; c++) out.push(flat.slice(c * nDraws, (c + 1) * nDraws));
  return out;
}

/** Inputs and preallocated outputs of {@link kthNeighbourLogDistances}. */
interface NeighbourSearch {
  /** n × d row-major, chain-major order (draw t of chain c is row c · nDraws + t). */
  points: Float64Array;
  d: number;
  k: number;
  nDraws: number;
  window: number;
  /** size × k scratch: the k smallest squared distances of each point, ascending. */
  best: Float64Array;
  /** Output: log ε of each point of the range. */
  logEps: Float64Array;
  /** Output: number of neighbour candidates M of each point of the range. */
  candidates: Int32Array;
}

/**
 * log of the distance from each of the rows from … from + size − 1 to its k-th nearest neighbour
 * among the same rows, excluding rows of the same chain within `window` steps, into
 * logEps[0 … size − 1], and each row's number of candidates into candidates[0 … size − 1].
 *
 * Hand-written brute force, O(size² d): each pair is visited once and its squared distance offered to
 * both points' sorted lists of the k smallest, so the search allocates nothing.
 */
function kthNeighbourLogDistances(s: NeighbourSearch, from: number, size: number): void {
  const { points, d, k, nDraws, window, best, logEps, candidates } = s;
  best.fill(Number.POSITIVE_INFINITY, 0, size * k);
  candidates.fill(size - 1, 0, size);
  for (let i = 0; i < size; i++) {
    const gi = from + i;
    const ri = gi * d;
    const chainI = Math.floor(gi / nDraws);
    for (let j = i + 1; j < size; j++) {
      const gj = from + j;
      if (gj - gi <= window && Math.floor(gj / nDraws) === chainI) {
        // Same chain, inside the Theiler window: not a candidate for either point.
        candidates[i]--;
        candidates[j]--;
        continue;
      }
      const rj = gj * d;
      let dist = 0;
      for (let a = 0; a < d; a++) {
        const diff = points[ri + a] - points[rj + a];
        dist += diff * diff;
      }
      insert(best, i * k, k, dist);
      insert(best, j * k, k, dist);
    }
  }
  for (let i = 0; i < size; i++) {
    const eps2 = best[i * k + k - 1];
    if (!(eps2 > 0 && eps2 < Number.POSITIVE_INFINITY)) {
      throw new OccamError(
        "invalid-argument",
        eps2 === 0
          ? `${WHERE}: posterior draw ${from + i} has ${k} other draw(s) at distance 0: the draws repeat (a Metropolis ` +
              "chain repeats its draw when it rejects). The nearest-neighbour entropy needs distinct draws: thin the " +
              "chain, use a sampler without repeats (HMC), or raise k."
          : `${WHERE}: posterior draw ${from + i} has fewer than ${k} neighbour candidates; use a smaller window or longer chains.`,
      );
    }
    logEps[i] = 0.5 * Math.log(eps2);
  }
}

/** Offers `value` to the ascending list best[offset … offset + k − 1] of the k smallest so far. */
function insert(best: Float64Array, offset: number, k: number, value: number): void {
  let p = offset + k - 1;
  if (!(value < best[p])) return;
  while (p > offset && best[p - 1] > value) {
    best[p] = best[p - 1];
    p--;
  }
  best[p] = value;
}

/** The largest number of steps over which a chain repeats one draw (0 when no two consecutive draws are equal). */
function longestRepeat(values: Float64Array, nChains: number, nDraws: number, d: number): number {
  let longest = 0;
  for (let c = 0; c < nChains; c++) {
    let run = 0;
    for (let t = 1; t < nDraws; t++) {
      const a = (c * nDraws + t - 1) * d;
      const b = a + d;
      let same = true;
      for (let j = 0; j < d && same; j++) same = values[a + j] === values[b + j];
      run = same ? run + 1 : 0;
      if (run > longest) longest = run;
    }
  }
  return longest;
}
