/**
 * Sykacek's input-selecting mixture classifier ("On input selection with reversible jump MCMC
 * sampling", NIPS 1999): class-conditional densities p(x_S | k) = Σ_d w_kd N(x_S; μ_d, diag σ_d²) over
 * an input subset S, with D kernels shared by the classes and class-specific weights w_kd (eq. 1);
 * Gibbs updates from the full conditionals of eq. 3 with latent kernel allocations and latent labels of
 * unlabelled rows; reversible-jump birth, death (eqs. 4–5) and exchange (eq. 6) moves over S, composed
 * by {@link mixture}.
 *
 * Departures from the text, each needed for a well-defined, well-mixing posterior over subsets:
 * - Sykacek's likelihood is a density of x_S alone, so subsets of different sizes are compared by
 *   densities on spaces of different dimension: the posterior changes with the inputs' units, and in
 *   range-normalised units (x_i / R_i) it includes every input that is more concentrated than uniform.
 *   Here every input is modelled. The inputs outside S follow a second, class-independent mixture
 *   ("background"): p(x_¬S) = Σ_e v_e N(x_¬S; μ^b_e, diag σ^b_e²), with its own D kernels, weights v,
 *   allocations and the same priors. The data are then p(t, x_S) p(x_¬S): moving an input into S pays
 *   off only when the class-dependent kernels explain it better than a mixture that ignores the class,
 *   so structure shared by irrelevant inputs stays in the background. The background cancels from the
 *   class posterior p(k | x) = p(k | x_S).
 * - A birth moves input i from the background into S: its class-kernel parameters are drawn from eq. 3's
 *   conditional with the allocations replaced by their responsibilities under the shared inputs, and its
 *   background parameters leave; the reverse (death) draws them back from the background's conditional.
 *   Both densities enter the acceptance ratio, so the dimension stays matched without eq. 4's weight
 *   reallocation, which is left out (the weights are unchanged by a jump).
 * - The subset prior is p(S) = TruncatedPoisson(|S|; c, 1 … I_max) / C(I_max, |S|) (SEEDS.md erratum).
 * - Gamma(shape, rate) throughout: τ = σ⁻² ~ Gamma(a, β_i), β_i ~ Gamma(g, h_i), as in Richardson &
 *   Green (1997), whose settings the text follows; β_i is shared by input i's kernels in whichever
 *   mixture holds it, and bounded below (see `resolution`).
 */
import gammaln from "@stdlib/math-base-special-gammaln";
import { OccamError } from "../../errors.js";
import { createRng, type Rng } from "../../random/rng.js";
import { dirichlet } from "../../random/variates.js";
import { metropolisHastings } from "../../samplers/accept.js";
import { type Move, mixture } from "../../samplers/mixture.js";
import type { ClassificationData } from "./data.js";

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

/** Options of {@link fitMixtureClassifier}. */
export interface MixtureClassifierOptions {
  /** Number D of Gaussian kernels shared by the classes (and of background kernels). @defaultValue 3 */
  kernels?: number;
  /** h of the hyperprior β_i ~ Gamma(g, h_i) with h_i = h / R_i² (R_i the range of input i). @defaultValue 0.25 */
  h?: number;
  /** Shape a of the kernel precisions' prior σ⁻² ~ Gamma(a, β_i). @defaultValue 2 */
  a?: number;
  /** Shape g of the hyperprior on β_i. @defaultValue 0.2 */
  g?: number;
  /** Dirichlet prior count δ_w of the kernel weights (class and background). @defaultValue 1 */
  deltaW?: number;
  /** Dirichlet prior count δ_P of the class priors. @defaultValue 1 */
  deltaP?: number;
  /**
   * Resolution ρ: the hyperparameter β_i is truncated to β_i ≥ a (ρ R_i)², which keeps the kernel
   * variances from collapsing onto repeated values (with ties in an input, as in integer or clipped
   * inputs, the posterior is improper without such a bound: the likelihood grows like τ^(ties/2)).
   * 0 removes the bound. @defaultValue 0.01
   */
  resolution?: number;
  /** Mean c of the truncated Poisson prior on the number of inputs. @defaultValue 3 */
  poissonMean?: number;
  /** Relative weights of the birth, death and exchange moves (birth and death must be equal). @defaultValue [1, 1, 1] */
  moveWeights?: readonly [number, number, number];
  /** Reversible-jump proposals after each Gibbs scan (0 keeps the starting subset fixed). @defaultValue 3 */
  jumpsPerSweep?: number;
  /** Sweeps in all, burn-in included (each sweep: one Gibbs scan and `jumpsPerSweep` jumps). @defaultValue 15000 */
  draws?: number;
  /** Sweeps discarded at the start. @defaultValue 5000 */
  burnIn?: number;
  /** Seed of the random stream. @defaultValue 1 */
  seed?: number;
  /** Starting subset (input indices). @defaultValue one input chosen at random */
  initialInputs?: readonly number[];
  /** Test inputs (m × p row-major) whose class probabilities are averaged over the kept draws. @defaultValue none */
  test?: { readonly X: Float64Array; readonly n: number };
  /**
   * Ignore the likelihood and sample the prior (the data only shape the proposals): for checking that
   * the moves leave the prior over subsets invariant. @defaultValue false
   */
  sampleFromPrior?: boolean;
  /** Called every 500 sweeps with the sweep number. @defaultValue none */
  onProgress?: (sweep: number, total: number) => void;
}

/** An input subset and its posterior probability (its share of the kept draws). */
export interface SubsetProbability {
  /** Input indices, ascending. */
  readonly inputs: readonly number[];
  /** Input names, in the same order. */
  readonly names: readonly string[];
  /** Fraction of kept draws in this subset. */
  readonly probability: number;
}

/** What {@link fitMixtureClassifier} returns. */
export interface MixtureClassifierFit {
  readonly inputNames: readonly string[];
  readonly classNames: readonly string[];
  /** Kept draws (draws − burnIn). */
  readonly draws: number;
  /** Mean number of inputs over the kept draws. */
  readonly meanInputs: number;
  /** Largest number of inputs in a kept draw. */
  readonly maxInputs: number;
  /** Number of distinct subsets among the kept draws. */
  readonly distinctSubsets: number;
  /** Subsets visited in the kept draws, most probable first. */
  readonly subsets: readonly SubsetProbability[];
  /** Posterior probability that each input is in the subset. */
  readonly inputProbabilities: Float64Array;
  /** Every subset visited (burn-in included), in order of first visit; `subsetTrace` indexes it. */
  readonly visited: readonly (readonly number[])[];
  /** The index into `visited` of each kept draw's subset. */
  readonly subsetTrace: Int32Array;
  /** Acceptance rates of the birth, death and exchange moves (over all sweeps). */
  readonly acceptance: { readonly birth: number; readonly death: number; readonly exchange: number };
  /** Test class probabilities averaged over kept draws (m × K row-major), or null without test data. */
  readonly testProbabilities: Float64Array | null;
  /** The most probable class of each test row, or null. */
  readonly predictedClasses: Int32Array | null;
  /** Wall-clock seconds. */
  readonly seconds: number;
}

interface Settings {
  D: number;
  h: number;
  a: number;
  g: number;
  deltaW: number;
  deltaP: number;
  c: number;
  resolution: number;
  weights: readonly [number, number, number];
  jumps: number;
  draws: number;
  burnIn: number;
  seed: number;
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be a finite number > 0, got ${value}.`,
    );
  }
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: ${name} must be a finite number ≥ 0, got ${value}.`,
    );
  }
  return value;
}

function fillOptions(options: MixtureClassifierOptions): Settings {
  const D = options.kernels ?? 3;
  if (!(Number.isInteger(D) && D >= 1)) {
    throw new OccamError("invalid-argument", `mixture classifier: kernels must be an integer ≥ 1, got ${D}.`);
  }
  const draws = options.draws ?? 15000;
  const burnIn = options.burnIn ?? 5000;
  if (!(Number.isInteger(draws) && Number.isInteger(burnIn) && burnIn >= 0 && draws > burnIn)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: need integers draws > burnIn ≥ 0, got draws = ${draws}, burnIn = ${burnIn}.`,
    );
  }
  const weights = options.moveWeights ?? [1, 1, 1];
  weights.forEach((w, j) => {
    positive(w, `moveWeights[${j}]`);
  });
  if (weights[0] !== weights[1]) {
    throw new OccamError(
      "invalid-argument",
      "mixture classifier: the birth and death moves must have equal weights (each is the other's reverse).",
    );
  }
  const jumps = options.jumpsPerSweep ?? 3;
  if (!(Number.isInteger(jumps) && jumps >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `mixture classifier: jumpsPerSweep must be an integer ≥ 0, got ${jumps}.`,
    );
  }
  return {
    D,
    h: positive(options.h ?? 0.25, "h"),
    a: positive(options.a ?? 2, "a"),
    g: positive(options.g ?? 0.2, "g"),
    deltaW: positive(options.deltaW ?? 1, "deltaW"),
    deltaP: positive(options.deltaP ?? 1, "deltaP"),
    c: positive(options.poissonMean ?? 3, "poissonMean"),
    resolution: nonNegative(options.resolution ?? 0.01, "resolution"),
    weights,
    jumps,
    draws,
    burnIn,
    seed: options.seed ?? 1,
  };
}

/** The kinds of reversible-jump move. */
const BIRTH = 0;
const DEATH = 1;
const EXCHANGE = 2;

/** A proposed change of subset: written in place by the moves (one buffer, no allocation per sweep). */
interface Proposal {
  kind: number;
  /** Input moved into S (birth, exchange) or −1. */
  add: number;
  /** Input moved out of S (death, exchange) or −1. */
  remove: number;
  /** The added input's new class-kernel means and precisions (length D). */
  readonly mu: Float64Array;
  readonly tau: Float64Array;
  /** The removed input's new background-kernel means and precisions (length D). */
  readonly muB: Float64Array;
  readonly tauB: Float64Array;
  /** Per-row, per-kernel log densities after the move: class mixture (n × D) and background (n × D). */
  L: Float64Array;
  Lb: Float64Array;
}

/**
 * Runs Sykacek's hybrid sampler on labelled (and optionally unlabelled: label −1) training data and
 * returns posterior subset and input probabilities and, given test inputs, model-averaged class
 * probabilities. Throws `invalid-data` for fewer than two classes, a constant input, or more kernels
 * than training rows.
 *
 * @example
 * const fit = fitMixtureClassifier(train, { kernels: 3, h: 0.16, test: { X: test.X, n: test.n } });
 * fit.subsets[0]; // { inputs: [1, 4], names: ["glu", "bmi"], probability: 0.17 }
 */
export function fitMixtureClassifier(
  data: ClassificationData,
  options: MixtureClassifierOptions = {},
): MixtureClassifierFit {
  const started = performance.now();
  const s = fillOptions(options);
  const { n, p, X } = data;
  const K = data.classNames.length;
  const { D, a, g, deltaW, deltaP } = s;
  const priorOnly = options.sampleFromPrior === true;
  checkData(data, D);
  const test = options.test;
  if (test !== undefined && test.X.length !== test.n * p) {
    throw new OccamError(
      "dimension-mismatch",
      `mixture classifier: the test inputs have length ${test.X.length}, expected ${test.n} × ${p}.`,
    );
  }

  // ---- data summaries and priors -------------------------------------------------------------
  const xc = new Float64Array(n * p); // column-major copy: xc[i * n + r]
  const xi = new Float64Array(p); // midpoints ξ_i
  const kappa = new Float64Array(p); // 1 / R_i²
  const hi = new Float64Array(p); // h / R_i²
  const betaMin = new Float64Array(p); // lower bound of β_i
  const colVar = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    let lo = Number.POSITIVE_INFINITY;
    let up = Number.NEGATIVE_INFINITY;
    let sum = 0;
    for (let r = 0; r < n; r++) {
      const x = X[r * p + i];
      xc[i * n + r] = x;
      if (x < lo) lo = x;
      if (x > up) up = x;
      sum += x;
    }
    const R = up - lo;
    if (!(R > 0)) {
      throw new OccamError(
        "invalid-data",
        `mixture classifier: input "${data.inputNames[i]}" is constant in the training data (every row is ${lo}); it carries no information: leave it out.`,
      );
    }
    xi[i] = 0.5 * (lo + up);
    kappa[i] = 1 / (R * R);
    hi[i] = s.h / (R * R);
    betaMin[i] = a * (s.resolution * R) ** 2;
    const m = sum / n;
    let ss = 0;
    for (let r = 0; r < n; r++) ss += (xc[i * n + r] - m) ** 2;
    colVar[i] = ss / n;
  }

  // log p(S) for |S| = 1 … p: truncated Poisson over sizes, uniform within a size (SEEDS.md).
  const logPS = new Float64Array(p + 1);
  {
    let norm = Number.NEGATIVE_INFINITY;
    for (let I = 1; I <= p; I++) {
      const v = I * Math.log(s.c) - gammaln(I + 1);
      norm =
        norm === Number.NEGATIVE_INFINITY ? v : Math.max(norm, v) + Math.log1p(Math.exp(-Math.abs(norm - v)));
    }
    logPS[0] = Number.NEGATIVE_INFINITY;
    for (let I = 1; I <= p; I++) {
      const logChoose = gammaln(p + 1) - gammaln(I + 1) - gammaln(p - I + 1);
      logPS[I] = I * Math.log(s.c) - gammaln(I + 1) - norm - logChoose;
    }
  }

  // ---- state ---------------------------------------------------------------------------------
  const rng = createRng(s.seed);
  const inS = new Uint8Array(p);
  const sel = new Int32Array(p); // selected inputs, sel[0 … I − 1]
  let I = 0;
  // Kernel parameters at [d * p + i]: class kernels for i ∈ S, background kernels for i ∉ S.
  const mu = new Float64Array(D * p);
  const tau = new Float64Array(D * p);
  const muB = new Float64Array(D * p);
  const tauB = new Float64Array(D * p);
  const beta = new Float64Array(p);
  const w = new Float64Array(K * D);
  const logw = new Float64Array(K * D);
  const v = new Float64Array(D); // background weights
  const logv = new Float64Array(D);
  const P = new Float64Array(K);
  const logP = new Float64Array(K);
  const labels = Int32Array.from(data.labels);
  const labelled = new Uint8Array(n);
  for (let r = 0; r < n; r++) labelled[r] = data.labels[r] >= 0 ? 1 : 0;
  const alloc = new Int32Array(n); // class-mixture kernel of each row
  const allocB = new Int32Array(n); // background kernel of each row
  // Σ_{i∈S} log N(x_ri; μ_di, 1/τ_di) at [r * D + d], and the same over i ∉ S for the background.
  let L: Float64Array = new Float64Array(n * D);
  let Lb: Float64Array = new Float64Array(n * D);
  let logLik = 0;

  // scratch
  const Rsp = new Float64Array(n * D); // responsibilities for proposals
  const col = new Float64Array(n * D); // one input's contribution to L or Lb
  const qN = new Float64Array(D);
  const qM = new Float64Array(D);
  const qS = new Float64Array(D);
  const tmpD = new Float64Array(D);
  const tmpK = new Float64Array(K);
  const alphaD = new Float64Array(D);
  const tmpW = new Float64Array(D);
  const alphaK = new Float64Array(K);
  const mK = new Float64Array(K);
  const mKD = new Float64Array(K * D);
  const nD = new Float64Array(D);
  const sx = new Float64Array(D);
  const sxx = new Float64Array(D);
  const logits = new Float64Array(K * D);
  const proposal: Proposal = {
    kind: BIRTH,
    add: -1,
    remove: -1,
    mu: new Float64Array(D),
    tau: new Float64Array(D),
    muB: new Float64Array(D),
    tauB: new Float64Array(D),
    L: new Float64Array(n * D),
    Lb: new Float64Array(n * D),
  };
  const oldMu = new Float64Array(D); // class parameters of the input leaving S
  const oldTau = new Float64Array(D);
  const oldMuB = new Float64Array(D); // background parameters of the input entering S
  const oldTauB = new Float64Array(D);

  // ---- initial state -------------------------------------------------------------------------
  {
    const start = options.initialInputs ?? randomSubset(rng, p, 1);
    if (start.length === 0)
      throw new OccamError("invalid-argument", "mixture classifier: initialInputs is empty.");
    for (const i of start) {
      if (!(Number.isInteger(i) && i >= 0 && i < p) || inS[i]) {
        throw new OccamError("invalid-argument", `mixture classifier: bad or repeated initial input ${i}.`);
      }
      inS[i] = 1;
      sel[I++] = i;
    }
    for (let d = 0; d < D; d++) {
      const row = rng.integer(n);
      const rowB = rng.integer(n);
      for (let i = 0; i < p; i++) {
        mu[d * p + i] = X[row * p + i];
        tau[d * p + i] = 1 / colVar[i];
        muB[d * p + i] = X[rowB * p + i];
        tauB[d * p + i] = 1 / colVar[i];
      }
    }
    for (let i = 0; i < p; i++) beta[i] = Math.max(betaMin[i], a * colVar[i]);
    w.fill(1 / D);
    v.fill(1 / D);
    P.fill(1 / K);
    for (let j = 0; j < K * D; j++) logw[j] = Math.log(w[j]);
    for (let d = 0; d < D; d++) logv[d] = Math.log(v[d]);
    for (let k = 0; k < K; k++) logP[k] = Math.log(P[k]);
    for (let r = 0; r < n; r++) if (!labelled[r]) labels[r] = rng.integer(K);
    recompute();
    logLik = logLikelihood(L, Lb);
  }

  // ---- building blocks -------------------------------------------------------------------------

  /** Writes input i's log N(x_ri; m_d, 1/t_d) at [r * D + d] into `out`. */
  function contribution(i: number, m: Float64Array, t: Float64Array, out: Float64Array): void {
    const base = i * n;
    for (let d = 0; d < D; d++) {
      const md = m[d];
      const td = t[d];
      const cd = 0.5 * Math.log(td) - HALF_LOG_2PI;
      for (let r = 0; r < n; r++) {
        const e = xc[base + r] - md;
        out[r * D + d] = cd - 0.5 * td * e * e;
      }
    }
  }

  function column(src: Float64Array, i: number, out: Float64Array): void {
    for (let d = 0; d < D; d++) out[d] = src[d * p + i];
  }

  /** Recomputes L (inputs in S, class kernels) and Lb (inputs outside S, background kernels). */
  function recompute(): void {
    L.fill(0);
    Lb.fill(0);
    for (let i = 0; i < p; i++) {
      const target = inS[i] ? L : Lb;
      const m = inS[i] ? mu : muB;
      const t = inS[i] ? tau : tauB;
      const base = i * n;
      for (let d = 0; d < D; d++) {
        const md = m[d * p + i];
        const td = t[d * p + i];
        const cd = 0.5 * Math.log(td) - HALF_LOG_2PI;
        for (let r = 0; r < n; r++) {
          const e = xc[base + r] - md;
          target[r * D + d] += cd - 0.5 * td * e * e;
        }
      }
    }
  }

  /** log Σ_d exp(lw[wo + d] + Lx[lo + d]). */
  function logSumExpRow(lw: Float64Array, wo: number, Lx: Float64Array, lo: number): number {
    let max = Number.NEGATIVE_INFINITY;
    for (let d = 0; d < D; d++) {
      const val = lw[wo + d] + Lx[lo + d];
      tmpD[d] = val;
      if (val > max) max = val;
    }
    if (max === Number.NEGATIVE_INFINITY) return max;
    let sum = 0;
    for (let d = 0; d < D; d++) sum += Math.exp(tmpD[d] - max);
    return max + Math.log(sum);
  }

  /**
   * log p(T, X | θ, S) = Σ_r log p(t_r, x_rS | θ) + log p(x_r¬S | θ^b): the class mixture over S (the
   * labels of unlabelled rows summed out) times the background mixture over the other inputs.
   */
  function logLikelihood(Lc: Float64Array, Lbg: Float64Array): number {
    if (priorOnly) return 0;
    let total = 0;
    for (let r = 0; r < n; r++) {
      const off = r * D;
      if (labelled[r]) {
        const k = labels[r];
        total += logP[k] + logSumExpRow(logw, k * D, Lc, off);
      } else {
        let max = Number.NEGATIVE_INFINITY;
        for (let k = 0; k < K; k++) {
          const val = logP[k] + logSumExpRow(logw, k * D, Lc, off);
          tmpK[k] = val;
          if (val > max) max = val;
        }
        let sum = 0;
        for (let k = 0; k < K; k++) sum += Math.exp(tmpK[k] - max);
        total += max + Math.log(sum);
      }
      total += logSumExpRow(logv, 0, Lbg, off);
    }
    if (Number.isNaN(total)) {
      throw new OccamError(
        "non-finite",
        "mixture classifier: the log-likelihood is NaN; a kernel precision over- or underflowed.",
      );
    }
    return total;
  }

  /** Normalises row r of Rsp (log weights in, probabilities out). */
  function normaliseRow(off: number, max: number): void {
    let sum = 0;
    for (let d = 0; d < D; d++) {
      const e = Math.exp(Rsp[off + d] - max);
      Rsp[off + d] = e;
      sum += e;
    }
    for (let d = 0; d < D; d++) Rsp[off + d] /= sum;
  }

  /** Class-mixture responsibilities Rsp[r, d] ∝ p(d | x_rS, t_r) under log densities Lc (class summed out when unlabelled). */
  function classResponsibilities(Lc: Float64Array): void {
    for (let r = 0; r < n; r++) {
      const off = r * D;
      let max = Number.NEGATIVE_INFINITY;
      for (let d = 0; d < D; d++) {
        let lw: number;
        if (labelled[r]) lw = logw[labels[r] * D + d];
        else {
          let acc = 0;
          for (let k = 0; k < K; k++) acc += P[k] * w[k * D + d];
          lw = Math.log(acc);
        }
        const val = lw + (priorOnly ? 0 : Lc[off + d]);
        Rsp[off + d] = val;
        if (val > max) max = val;
      }
      normaliseRow(off, max);
    }
  }

  /** Background responsibilities Rsp[r, e] ∝ v_e exp(Lbg[r, e]). */
  function backgroundResponsibilities(Lbg: Float64Array): void {
    for (let r = 0; r < n; r++) {
      const off = r * D;
      let max = Number.NEGATIVE_INFINITY;
      for (let d = 0; d < D; d++) {
        const val = logv[d] + (priorOnly ? 0 : Lbg[off + d]);
        Rsp[off + d] = val;
        if (val > max) max = val;
      }
      normaliseRow(off, max);
    }
  }

  /** Weighted counts, means and sums of squares of input i under the responsibilities Rsp. */
  function proposalStats(i: number): void {
    qN.fill(0);
    qM.fill(0);
    qS.fill(0);
    // Without a likelihood the proposal is the prior itself (no data enter the target).
    if (priorOnly) return;
    const base = i * n;
    for (let r = 0; r < n; r++) {
      const x = xc[base + r];
      for (let d = 0; d < D; d++) {
        const rd = Rsp[r * D + d];
        qN[d] += rd;
        qM[d] += rd * x;
      }
    }
    for (let d = 0; d < D; d++) qM[d] = qN[d] > 0 ? qM[d] / qN[d] : xi[i];
    for (let r = 0; r < n; r++) {
      const x = xc[base + r];
      for (let d = 0; d < D; d++) {
        const e = x - qM[d];
        qS[d] += Rsp[r * D + d] * e * e;
      }
    }
  }

  /**
   * The proposal for input i's kernel parameters: τ_d ~ Gamma(a + N_d/2, β_i + S_d/2) and
   * μ_d | τ_d ~ N((τ_d N_d m_d + κ_i ξ_i)/(τ_d N_d + κ_i), 1/(τ_d N_d + κ_i)) — eq. 3's conditionals with
   * soft allocations (N_d, m_d, S_d from proposalStats). Draws into (m, t) when `draw`; returns log q(m, t).
   */
  function proposalDensity(i: number, m: Float64Array, t: Float64Array, draw: boolean): number {
    let logq = 0;
    for (let d = 0; d < D; d++) {
      const shape = a + 0.5 * qN[d];
      const rate = beta[i] + 0.5 * qS[d];
      if (draw) t[d] = rng.gamma(shape) / rate;
      const td = t[d];
      const prec = td * qN[d] + kappa[i];
      const mean = (td * qN[d] * qM[d] + kappa[i] * xi[i]) / prec;
      if (draw) m[d] = mean + rng.normal() / Math.sqrt(prec);
      const e = m[d] - mean;
      logq +=
        shape * Math.log(rate) -
        gammaln(shape) +
        (shape - 1) * Math.log(td) -
        rate * td +
        0.5 * Math.log(prec) -
        HALF_LOG_2PI -
        0.5 * prec * e * e;
    }
    return logq;
  }

  /** log prior of input i's kernel parameters: μ_d ~ N(ξ_i, R_i²), τ_d ~ Gamma(a, β_i). */
  function logPriorColumn(i: number, m: Float64Array, t: Float64Array): number {
    let lp = 0;
    const lb = Math.log(beta[i]);
    const lg = gammaln(a);
    for (let d = 0; d < D; d++) {
      const e = m[d] - xi[i];
      lp += 0.5 * Math.log(kappa[i]) - HALF_LOG_2PI - 0.5 * kappa[i] * e * e;
      lp += a * lb - lg + (a - 1) * Math.log(t[d]) - beta[i] * t[d];
    }
    return lp;
  }

  function pickOutside(): number {
    let u = rng.integer(p - I);
    for (let i = 0; i < p; i++) {
      if (!inS[i]) {
        if (u === 0) return i;
        u--;
      }
    }
    throw new OccamError("internal", "mixture classifier: no input outside the subset to pick.");
  }

  // ---- the reversible-jump moves: each returns { proposal, logFactor } ------------------------
  // Each move is a bijection between (θ, u) and (θ′, u′) with unit Jacobian: the parameters an input
  // gets in its new mixture are drawn (u), the ones it had are dropped (u′), so logFactor is
  // log q(u′) − log q(u) plus the log ratio of the probabilities of choosing the inputs.
  const result = { proposal, logFactor: 0 };
  const impossible = (kind: number) => {
    proposal.kind = kind;
    result.logFactor = Number.NEGATIVE_INFINITY;
    return result;
  };

  const birth: Move<null, Proposal> = () => {
    if (I === p) return impossible(BIRTH);
    const i = pickOutside();
    // forward: class parameters of i given the class responsibilities under S
    classResponsibilities(L);
    proposalStats(i);
    const logqNew = proposalDensity(i, proposal.mu, proposal.tau, true);
    contribution(i, proposal.mu, proposal.tau, col);
    for (let q = 0; q < n * D; q++) proposal.L[q] = L[q] + col[q];
    // reverse: i's background parameters given the background responsibilities without i
    column(muB, i, oldMuB);
    column(tauB, i, oldTauB);
    contribution(i, oldMuB, oldTauB, col);
    for (let q = 0; q < n * D; q++) proposal.Lb[q] = Lb[q] - col[q];
    backgroundResponsibilities(proposal.Lb);
    proposalStats(i);
    const logqOld = proposalDensity(i, oldMuB, oldTauB, false);
    proposal.kind = BIRTH;
    proposal.add = i;
    proposal.remove = -1;
    // choice of input: reverse 1/(I + 1), forward 1/(p − I)
    result.logFactor = Math.log(p - I) - Math.log(I + 1) + logqOld - logqNew;
    return result;
  };

  const death: Move<null, Proposal> = (rngArg) => {
    if (I === 1) return impossible(DEATH);
    const j = sel[rngArg.integer(I)];
    // forward: background parameters of j given the background responsibilities (j not in it)
    backgroundResponsibilities(Lb);
    proposalStats(j);
    const logqNew = proposalDensity(j, proposal.muB, proposal.tauB, true);
    contribution(j, proposal.muB, proposal.tauB, col);
    for (let q = 0; q < n * D; q++) proposal.Lb[q] = Lb[q] + col[q];
    // reverse: j's class parameters given the class responsibilities under S \ {j}
    column(mu, j, oldMu);
    column(tau, j, oldTau);
    contribution(j, oldMu, oldTau, col);
    for (let q = 0; q < n * D; q++) proposal.L[q] = L[q] - col[q];
    classResponsibilities(proposal.L);
    proposalStats(j);
    const logqOld = proposalDensity(j, oldMu, oldTau, false);
    proposal.kind = DEATH;
    proposal.add = -1;
    proposal.remove = j;
    result.logFactor = Math.log(I) - Math.log(p - I + 1) + logqOld - logqNew;
    return result;
  };

  const exchange: Move<null, Proposal> = (rngArg) => {
    if (I === p) return impossible(EXCHANGE);
    const j = sel[rngArg.integer(I)];
    const i = pickOutside();
    // class side: responsibilities under S \ {j} serve both i's new and j's old parameters
    column(mu, j, oldMu);
    column(tau, j, oldTau);
    contribution(j, oldMu, oldTau, col);
    for (let q = 0; q < n * D; q++) proposal.L[q] = L[q] - col[q];
    classResponsibilities(proposal.L);
    proposalStats(j);
    let logFactor = proposalDensity(j, oldMu, oldTau, false);
    proposalStats(i);
    logFactor -= proposalDensity(i, proposal.mu, proposal.tau, true);
    contribution(i, proposal.mu, proposal.tau, col);
    for (let q = 0; q < n * D; q++) proposal.L[q] += col[q];
    // background side: responsibilities under ¬S \ {i} serve j's new and i's old parameters
    column(muB, i, oldMuB);
    column(tauB, i, oldTauB);
    contribution(i, oldMuB, oldTauB, col);
    for (let q = 0; q < n * D; q++) proposal.Lb[q] = Lb[q] - col[q];
    backgroundResponsibilities(proposal.Lb);
    proposalStats(i);
    logFactor += proposalDensity(i, oldMuB, oldTauB, false);
    proposalStats(j);
    logFactor -= proposalDensity(j, proposal.muB, proposal.tauB, true);
    contribution(j, proposal.muB, proposal.tauB, col);
    for (let q = 0; q < n * D; q++) proposal.Lb[q] += col[q];
    proposal.kind = EXCHANGE;
    proposal.add = i;
    proposal.remove = j;
    result.logFactor = logFactor;
    return result;
  };

  const jump = mixture<null, Proposal>([
    [birth, s.weights[0]],
    [death, s.weights[1]],
    [exchange, s.weights[2]],
  ]);

  let proposalLogLik = 0;
  /** log π(proposal) − log π(current): likelihood, subset prior and the moved inputs' kernel priors. */
  function logTargetRatio(prop: Proposal): number {
    proposalLogLik = logLikelihood(prop.L, prop.Lb);
    let ratio = proposalLogLik - logLik;
    if (prop.kind === BIRTH) ratio += logPS[I + 1] - logPS[I];
    if (prop.kind === DEATH) ratio += logPS[I - 1] - logPS[I];
    if (prop.add >= 0) {
      ratio += logPriorColumn(prop.add, prop.mu, prop.tau) - logPriorColumn(prop.add, oldMuB, oldTauB);
    }
    if (prop.remove >= 0) {
      ratio += logPriorColumn(prop.remove, prop.muB, prop.tauB) - logPriorColumn(prop.remove, oldMu, oldTau);
    }
    return ratio;
  }

  function accept(prop: Proposal): void {
    if (prop.remove >= 0) {
      const j = prop.remove;
      inS[j] = 0;
      let q = 0;
      while (sel[q] !== j) q++;
      sel[q] = sel[I - 1];
      I--;
      for (let d = 0; d < D; d++) {
        muB[d * p + j] = prop.muB[d];
        tauB[d * p + j] = prop.tauB[d];
      }
    }
    if (prop.add >= 0) {
      const i = prop.add;
      inS[i] = 1;
      sel[I++] = i;
      for (let d = 0; d < D; d++) {
        mu[d * p + i] = prop.mu[d];
        tau[d * p + i] = prop.tau[d];
      }
    }
    let t = L;
    L = prop.L;
    prop.L = t;
    t = Lb;
    Lb = prop.Lb;
    prop.Lb = t;
    logLik = proposalLogLik;
  }

  // ---- the Gibbs scan (eq. 3, and its analogue for the background mixture) -------------------
  /** Draws one row's index ∝ exp(logits[from … to − 1]) (overwrites logits with the weights). */
  function drawIndex(from: number, to: number): number {
    let max = Number.NEGATIVE_INFINITY;
    for (let q = from; q < to; q++) if (logits[q] > max) max = logits[q];
    let sum = 0;
    for (let q = from; q < to; q++) {
      const e = Math.exp(logits[q] - max);
      logits[q] = e;
      sum += e;
    }
    let u = rng.uniform() * sum;
    for (let q = from; q < to; q++) {
      u -= logits[q];
      if (u < 0) return q;
    }
    return to - 1;
  }

  /** Draws kernel means and precisions of input i from their conditionals given allocations `al`. */
  function updateKernels(
    i: number,
    al: Int32Array,
    counts: Float64Array,
    m: Float64Array,
    t: Float64Array,
  ): void {
    sx.fill(0);
    sxx.fill(0);
    if (!priorOnly) {
      const base = i * n;
      for (let r = 0; r < n; r++) {
        const x = xc[base + r];
        const d = al[r];
        sx[d] += x;
        sxx[d] += x * x;
      }
    }
    let sumTau = 0;
    for (let d = 0; d < D; d++) {
      const j = d * p + i;
      const prec = counts[d] * t[j] + kappa[i];
      const mean = (t[j] * sx[d] + kappa[i] * xi[i]) / prec;
      const md = mean + rng.normal() / Math.sqrt(prec);
      m[j] = md;
      const ss = Math.max(0, sxx[d] - 2 * md * sx[d] + counts[d] * md * md);
      const td = rng.gamma(a + 0.5 * counts[d]) / (beta[i] + 0.5 * ss);
      if (!(td > 0 && Number.isFinite(td))) {
        throw new OccamError(
          "non-finite",
          `mixture classifier: a kernel precision of input "${data.inputNames[i]}" became ${td}; rescale the input.`,
        );
      }
      t[j] = td;
      sumTau += td;
    }
    beta[i] = gammaAbove(rng, g + D * a, hi[i] + sumTau, betaMin[i]);
  }

  function gibbs(): void {
    mK.fill(0);
    mKD.fill(0);
    nD.fill(0);
    tmpW.fill(0); // background counts
    if (!priorOnly) {
      for (let r = 0; r < n; r++) {
        // Latent label (unlabelled rows) and class-kernel allocation, jointly.
        const off = r * D;
        const k0 = labelled[r] ? labels[r] : 0;
        const k1 = labelled[r] ? labels[r] + 1 : K;
        for (let k = k0; k < k1; k++) {
          for (let d = 0; d < D; d++) logits[k * D + d] = logP[k] + logw[k * D + d] + L[off + d];
        }
        const pick = drawIndex(k0 * D, k1 * D);
        const k = (pick / D) | 0;
        const d = pick - k * D;
        labels[r] = k;
        alloc[r] = d;
        mK[k]++;
        mKD[pick]++;
        nD[d]++;
        // Background allocation.
        for (let e = 0; e < D; e++) logits[e] = logv[e] + Lb[off + e];
        const e = drawIndex(0, D);
        allocB[r] = e;
        tmpW[e]++;
      }
    }
    for (let k = 0; k < K; k++) alphaK[k] = deltaP + mK[k];
    dirichlet(rng, alphaK, P);
    for (let k = 0; k < K; k++) logP[k] = Math.log(P[k]);
    for (let k = 0; k < K; k++) {
      for (let d = 0; d < D; d++) alphaD[d] = deltaW + mKD[k * D + d];
      dirichlet(rng, alphaD, tmpD);
      for (let d = 0; d < D; d++) {
        w[k * D + d] = tmpD[d];
        logw[k * D + d] = Math.log(tmpD[d]);
      }
    }
    for (let d = 0; d < D; d++) alphaD[d] = deltaW + tmpW[d];
    dirichlet(rng, alphaD, v);
    for (let d = 0; d < D; d++) logv[d] = Math.log(v[d]);
    for (let i = 0; i < p; i++) {
      if (inS[i]) updateKernels(i, alloc, nD, mu, tau);
      else updateKernels(i, allocB, tmpW, muB, tauB);
    }
    recompute();
    logLik = logLikelihood(L, Lb);
  }

  // ---- predictions ---------------------------------------------------------------------------
  const m = test?.n ?? 0;
  const testProb = test ? new Float64Array(m * K) : null;
  const lt = new Float64Array(D);
  const lk = new Float64Array(K);
  function predict(): void {
    if (!test || !testProb) return;
    const TX = test.X;
    for (let t = 0; t < m; t++) {
      for (let d = 0; d < D; d++) {
        let acc = 0;
        for (let q = 0; q < I; q++) {
          const i = sel[q];
          const j = d * p + i;
          const e = TX[t * p + i] - mu[j];
          acc += 0.5 * Math.log(tau[j]) - 0.5 * tau[j] * e * e;
        }
        lt[d] = acc;
      }
      let max = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < K; k++) {
        lk[k] = logP[k] + logSumExpRow(logw, k * D, lt, 0);
        if (lk[k] > max) max = lk[k];
      }
      let sum = 0;
      for (let k = 0; k < K; k++) {
        lk[k] = Math.exp(lk[k] - max);
        sum += lk[k];
      }
      for (let k = 0; k < K; k++) testProb[t * K + k] += lk[k] / sum;
    }
  }

  // ---- the chain -----------------------------------------------------------------------------
  const kept = s.draws - s.burnIn;
  const visited: number[][] = [];
  const ids = new Map<string, number>();
  const subsetTrace = new Int32Array(kept);
  const inputCounts = new Float64Array(p);
  const tried = new Float64Array(3);
  const acceptedMoves = new Float64Array(3);
  let currentId = -1;
  const identify = () => {
    const members = Array.from(sel.subarray(0, I)).sort((x, y) => x - y);
    const key = members.join(",");
    let id = ids.get(key);
    if (id === undefined) {
      id = visited.length;
      ids.set(key, id);
      visited.push(members);
    }
    currentId = id;
  };
  identify();
  let sumInputs = 0;
  let maxInputs = 0;
  for (let sweep = 0; sweep < s.draws; sweep++) {
    gibbs();
    for (let jmp = 0; jmp < s.jumps; jmp++) {
      const { proposal: prop, logFactor } = jump(rng, null);
      const logRatio = logFactor === Number.NEGATIVE_INFINITY ? logFactor : logTargetRatio(prop) + logFactor;
      const decision = metropolisHastings(rng, logRatio);
      tried[prop.kind]++;
      if (decision.accepted) {
        acceptedMoves[prop.kind]++;
        accept(prop);
        identify();
      }
    }
    if (sweep >= s.burnIn) {
      const t = sweep - s.burnIn;
      subsetTrace[t] = currentId;
      sumInputs += I;
      if (I > maxInputs) maxInputs = I;
      for (let q = 0; q < I; q++) inputCounts[sel[q]]++;
      predict();
    }
    if (options.onProgress && (sweep + 1) % 500 === 0) options.onProgress(sweep + 1, s.draws);
  }

  // ---- summaries -----------------------------------------------------------------------------
  const counts = new Float64Array(visited.length);
  for (let t = 0; t < kept; t++) counts[subsetTrace[t]]++;
  const subsets: SubsetProbability[] = [];
  counts.forEach((c, id) => {
    if (c > 0) {
      const inputs = visited[id];
      subsets.push(
        Object.freeze({
          inputs: Object.freeze([...inputs]),
          names: Object.freeze(inputs.map((i) => data.inputNames[i])),
          probability: c / kept,
        }),
      );
    }
  });
  subsets.sort((x, y) => y.probability - x.probability);
  let predicted: Int32Array | null = null;
  if (testProb) {
    for (let q = 0; q < testProb.length; q++) testProb[q] /= kept;
    predicted = new Int32Array(m);
    for (let t = 0; t < m; t++) {
      let best = 0;
      for (let k = 1; k < K; k++) if (testProb[t * K + k] > testProb[t * K + best]) best = k;
      predicted[t] = best;
    }
  }
  for (let i = 0; i < p; i++) inputCounts[i] /= kept;
  return Object.freeze({
    inputNames: data.inputNames,
    classNames: data.classNames,
    draws: kept,
    meanInputs: sumInputs / kept,
    maxInputs,
    distinctSubsets: subsets.length,
    subsets: Object.freeze(subsets),
    inputProbabilities: inputCounts,
    visited: Object.freeze(visited.map((v) => Object.freeze(v))),
    subsetTrace,
    acceptance: Object.freeze({
      birth: tried[BIRTH] > 0 ? acceptedMoves[BIRTH] / tried[BIRTH] : 0,
      death: tried[DEATH] > 0 ? acceptedMoves[DEATH] / tried[DEATH] : 0,
      exchange: tried[EXCHANGE] > 0 ? acceptedMoves[EXCHANGE] / tried[EXCHANGE] : 0,
    }),
    testProbabilities: testProb,
    predictedClasses: predicted,
    seconds: (performance.now() - started) / 1000,
  });
}

/**
 * log marginal likelihood of one column under x ~ N(μ, 1/τ) with
 * the conjugate Normal–Gamma prior μ | τ ~ N(ξ, 1/(κ₀τ)), τ ~ Gamma(α₀, β₀) with α₀ = 2,
 * β₀ = α₀ (R/4)² (prior mean precision 16/R², a standard deviation of a quarter of the range) and
 * κ₀ = 1/16 (so μ's prior spread is about R). Closed form (e.g. Murphy 2007, eq. 95).
 */
export function gaussianLogEvidence(x: Float64Array, xi: number, R: number): number {
  const n = x.length;
  let m = 0;
  for (let r = 0; r < n; r++) m += x[r];
  m /= n;
  let S = 0;
  for (let r = 0; r < n; r++) S += (x[r] - m) ** 2;
  const a0 = 2;
  const b0 = a0 * (R / 4) ** 2;
  const k0 = 1 / 16;
  const kn = k0 + n;
  const an = a0 + 0.5 * n;
  const bn = b0 + 0.5 * S + (k0 * n * (m - xi) ** 2) / (2 * kn);
  return (
    gammaln(an) -
    gammaln(a0) +
    a0 * Math.log(b0) -
    an * Math.log(bn) +
    0.5 * Math.log(k0 / kn) -
    n * HALF_LOG_2PI
  );
}

/**
 * A Gamma(shape, rate) variate conditioned on being ≥ b. Below the mean: plain rejection. Above it:
 * the tail proposal b + Exp(λ), accepted with probability (x/b)^(shape−1) e^{−(rate−λ)(x−b)}, with
 * λ = rate − (shape − 1)/b for shape ≥ 1 (the rate that makes the bound tight at x = b) and λ = rate
 * for shape < 1.
 */
export function gammaAbove(rng: Rng, shape: number, rate: number, b: number): number {
  if (!(b > 0)) return rng.gamma(shape) / rate;
  if (b <= shape / rate) {
    for (;;) {
      const x = rng.gamma(shape) / rate;
      if (x >= b) return x;
    }
  }
  const lambda = shape >= 1 ? rate - (shape - 1) / b : rate;
  for (;;) {
    const x = b - Math.log(1 - rng.uniform()) / lambda;
    const logAccept = (shape - 1) * Math.log(x / b) - (rate - lambda) * (x - b);
    if (Math.log(1 - rng.uniform()) <= logAccept) return x;
  }
}

function randomSubset(rng: Rng, p: number, size: number): number[] {
  const all = Array.from({ length: p }, (_, i) => i);
  for (let i = p - 1; i > 0; i--) {
    const j = rng.integer(i + 1);
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, size);
}

function checkData(data: ClassificationData, D: number): void {
  const { n, p, labels, classNames } = data;
  const K = classNames.length;
  if (!(p >= 1 && data.X.length === n * p && labels.length === n)) {
    throw new OccamError(
      "dimension-mismatch",
      `mixture classifier: X must be n × p = ${n} × ${p} and labels length ${n}.`,
    );
  }
  const seen = new Set<number>();
  let labelledRows = 0;
  for (let r = 0; r < n; r++) {
    const k = labels[r];
    if (!(Number.isInteger(k) && k >= -1 && k < K)) {
      throw new OccamError(
        "invalid-data",
        `mixture classifier: row ${r} has label ${k}, outside −1 … ${K - 1}.`,
      );
    }
    if (k >= 0) {
      seen.add(k);
      labelledRows++;
    }
  }
  if (K < 2 || seen.size < 2) {
    throw new OccamError(
      "invalid-data",
      `mixture classifier: the training labels hold ${seen.size} class${seen.size === 1 ? "" : "es"} (${[...seen].map((k) => classNames[k]).join(", ")}); a classifier needs at least two.`,
    );
  }
  if (D > n) {
    throw new OccamError(
      "invalid-data",
      `mixture classifier: ${D} kernels for ${n} training rows; use at most as many kernels as rows (fewer kernels, or more data).`,
    );
  }
  if (labelledRows === 0) throw new OccamError("invalid-data", "mixture classifier: no labelled rows.");
}
