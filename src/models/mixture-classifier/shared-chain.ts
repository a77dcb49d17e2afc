/**
 * The shared-kernel structure of the input-selecting mixture classifier (`structure: "shared"`):
 * Sykacek's class mixture over the selected inputs S, with the unselected inputs modelled by
 * regression on the selected ones (Raftery & Dean 2006), so that every input is in the model:
 *
 *   p(t, x) = p(t, x_S | class mixture) · Π_{j∉S} p(x_j | x_S).
 *
 * - Class mixture (Sykacek's eq. 1): D kernels with diagonal covariances shared by the classes,
 *   class-specific weights w_kd ~ Dirichlet(δ_w), class priors ~ Dirichlet(δ_P), one allocation z_n
 *   per row shared by every input in S. Each kernel of input i has a Normal–Gamma prior
 *   μ | λ ~ N(0, 1/(κ₀ λ)), λ ~ Gamma(a, β_i) on u_i = (x_i − ξ_i)/R_i, and β_i ~ Gamma(g, h) truncated
 *   to β_i ≥ a ρ² (Sykacek's h_i = h/R_i² in the original units). Kernel parameters and weights are
 *   integrated out.
 * - Background: each j ∉ S is a linear regression u_j = b₀ + bᵀ(u_S − ū_S) + ε, ε ~ N(0, 1/λ_j), with
 *   λ_j ~ Gamma(a, β_j) (the same prior as a kernel's precision), b₀ | λ ~ N(0, 1/(κ₀ λ)) (a kernel
 *   mean's prior) and Zellner's unit-information g-prior b | λ ~ N(0, (n/λ)(X_cᵀX_c)⁻¹) on the centred
 *   design X_c. Its evidence is closed-form (see {@link RegressionBackground}). With S empty it is one
 *   Gaussian per input. The background does not depend on the class, so it cancels from p(t | x),
 *   and predictions use x_S only, as in the paper.
 *
 * Why this background: Sykacek's likelihood covers x_S only, so subsets of different size are
 * compared by densities of different dimension and the answer depends on the inputs' units. Modelling
 * x_¬S makes every subset a model of the same data, and given x_S the background is independent of
 * the class (t ⊥ x_¬S | x_S). It also assumes what a selection must then answer for: each unselected
 * input is Gaussian given x_S and independent of the other unselected ones. An input that breaks
 * either — skewed or multimodal for reasons unrelated to the class, or one that other unselected
 * inputs depend on — is better explained inside the class mixture and is selected whether or not the
 * class depends on it. Regressions keep the jumps closed-form and cheap; a class-independent mixture
 * for x_¬S would model shapes too, but as a second clustering that competes with the class mixture
 * it leaves the chain unable to move inputs between the two.
 *
 * Jumps keep z: a birth of input i changes the target by log p(u_i | z) (its collapsed kernel
 * evidence) plus the change of the background, Σ_{j∉S+i} log p(u_j | u_{S+i}) − Σ_{j∉S} log p(u_j | u_S),
 * both closed-form; nothing is proposed. Sykacek's eq. 4 reallocates explicit kernel weights so that
 * dimensions match at a birth; with the weights integrated out there is nothing to match. Death and
 * exchange are the reverse and the combination. Each sweep: a collapsed Gibbs scan of z (over S, with
 * class-specific counts), the classes of unlabelled rows, Metropolis on each log β_i (under the kernel
 * evidence for i ∈ S, the regression evidence for i ∉ S) and `jumps` reversible jumps.
 */

import { LOG_2PI } from "../../math/constants.js";
import { logSumExp } from "../../math/logspace.js";
import { lowerScatter, mirrorLower, rowMean } from "../../math/moments.js";
import { gammaln } from "../../math/stdlib.js";
import type { Rng } from "../../random/rng.js";
import { metropolisHastings } from "../../samplers/accept.js";
import {
  addNormalised,
  countTables,
  drawFromLogits,
  LogBetaWalk,
  labelledRows,
  logSubsetPrior,
  NormalGammaKernels,
  standardiseInputs,
} from "./conjugate.js";
import type { ClassificationData } from "./data.js";
import type { Settings } from "./options.js";
import type { ChainResult } from "./sampler.js";
import { runSubsetChain, Subset } from "./subset-moves.js";

/**
 * The background's regressions of every input on the others' centred values, from the centred Gram
 * matrix G = X_cᵀX_c of the standardised inputs (computed once: a subset's regressions are its
 * sub-blocks).
 *
 * log p(u_j | u_S, β_j) = −(n/2) log 2π + ½ log(κ₀/(κ₀ + n)) − (r/2) log(1 + n) + log Γ(a + n/2) − log Γ(a)
 *                         + a log β_j − (a + n/2) log(β_j + Q_j/2),
 * Q_j = (n κ₀/(κ₀ + n)) ū_j² + G_jj − (n/(1 + n)) G_Sjᵀ G_SS⁻ G_Sj, r the rank of X_c:
 * marginally u_j ~ N(0, λ⁻¹(I + (n/κ₀) P₁ + n P_S)) with P₁, P_S the orthogonal projections on the
 * constant and on the centred columns of S, then λ ~ Gamma(a, β_j) integrated out.
 */
export class RegressionBackground {
  private readonly gram: Float64Array;
  /** Q_j with no regressors. */
  private readonly base: Float64Array;
  private readonly constant: number;
  private readonly a: number;
  private readonly logOnePlusG: number;
  private readonly shape: number;
  private readonly shrink: number;
  // scratch
  private readonly chol: Float64Array;
  private readonly solved: Float64Array;
  private readonly members: Int32Array;
  private readonly independent: Uint8Array;

  constructor(
    u: Float64Array,
    n: number,
    private readonly p: number,
    a: number,
    kappa0: number,
  ) {
    const mean = rowMean(u, p, n, new Float64Array(p));
    this.gram = mirrorLower(lowerScatter(u, p, n, mean, new Float64Array(p * p)), p);
    this.base = new Float64Array(p);
    for (let j = 0; j < p; j++)
      this.base[j] = ((n * kappa0) / (kappa0 + n)) * mean[j] * mean[j] + this.gram[j * p + j];
    const g = n; // unit information
    this.shrink = g / (1 + g);
    this.logOnePlusG = Math.log(1 + g);
    this.a = a;
    this.shape = a + 0.5 * n;
    this.constant =
      -0.5 * n * LOG_2PI + 0.5 * Math.log(kappa0 / (kappa0 + n)) + gammaln(this.shape) - gammaln(a);
    this.chol = new Float64Array(p * p);
    this.solved = new Float64Array(p);
    this.members = new Int32Array(p);
    this.independent = new Uint8Array(p);
  }

  /**
   * Writes Q_j for every j outside the subset `inS` into `Q` (entries of members are left as they
   * are) and returns the rank r of the centred design X_c, which takes the place of |S| in the
   * evidence. O(|S|³ + p |S|²): a Cholesky factor of G_SS that skips a column the previous ones span
   * (pivot below 10⁻¹⁰ of its diagonal: an exactly collinear input adds nothing to the regression) and
   * one triangular solve per j.
   */
  quadratics(inS: Uint8Array, Q: Float64Array): number {
    const { gram: G, chol: L, independent, solved: y, members, p } = this;
    let s = 0;
    for (let i = 0; i < p; i++) if (inS[i]) members[s++] = i;
    let rank = 0;
    for (let c = 0; c < s; c++) {
      const ic = members[c];
      for (let t = 0; t <= c; t++) {
        if (t < c && !independent[t]) {
          L[c * p + t] = 0;
          continue;
        }
        let v = G[ic * p + members[t]];
        for (let k = 0; k < t; k++) v -= L[c * p + k] * L[t * p + k];
        if (t < c) L[c * p + t] = v / L[t * p + t];
        else {
          independent[c] = v > 1e-10 * G[ic * p + ic] ? 1 : 0;
          if (independent[c]) {
            L[c * p + c] = Math.sqrt(v);
            rank++;
          }
        }
      }
    }
    for (let j = 0; j < p; j++) {
      if (inS[j]) continue;
      let quad = 0;
      for (let c = 0; c < s; c++) {
        if (!independent[c]) {
          y[c] = 0;
          continue;
        }
        let v = G[members[c] * p + j];
        for (let k = 0; k < c; k++) v -= L[c * p + k] * y[k];
        y[c] = v / L[c * p + c];
        quad += y[c] * y[c];
      }
      Q[j] = this.base[j] - this.shrink * quad;
    }
    return rank;
  }

  /** log p(u_j | u_S, β_j = b) from Q_j and the rank r of X_c. */
  evidence(Q: number, b: number, rank: number): number {
    return (
      this.constant -
      0.5 * rank * this.logOnePlusG +
      this.a * Math.log(b) -
      this.shape * Math.log(b + 0.5 * Q)
    );
  }
}

/** One chain of the shared-kernel structure (see the module comment). */
export function runSharedChain(
  data: ClassificationData,
  s: Settings,
  test: { readonly X: Float64Array; readonly n: number } | undefined,
  rng: Rng,
  initialInputs: readonly number[] | undefined,
  onSweep: (sweep: number) => void,
): ChainResult {
  const chain = new SharedChain(data, s, test, rng);
  chain.start(initialInputs);
  return runSubsetChain({
    rng,
    subset: chain.subset,
    s,
    logSubsetPrior: logSubsetPrior(data.p, s.c, s.minInputs),
    logLik: (add, remove) => chain.jumpLogLik(add, remove),
    onAccept: () => chain.acceptJump(),
    sweep: () => chain.sweep(),
    predict: () => chain.predict(),
    testProb: chain.testProb,
    onSweep,
  });
}

/**
 * The state of one shared-structure chain and its moves: the subset, the allocations, the labels of
 * unlabelled rows and β, with every kernel's statistics and Student-t cache and the background's
 * quadratics kept beside them. Buffers are allocated once; no move allocates.
 */
class SharedChain {
  readonly subset: Subset;
  /** The test rows' class probabilities, summed over the predicting sweeps; null without test data. */
  readonly testProb: Float64Array | null;
  private readonly n: number;
  private readonly p: number;
  private readonly K: number;
  private readonly u: Float64Array;
  private readonly testU: Float64Array | null;
  /** Test rows. */
  private readonly m: number;
  private readonly logCountW: Float64Array;
  private readonly logTotal: Float64Array;
  private readonly labels: Int32Array;
  private readonly labelled: Uint8Array;
  private readonly background: RegressionBackground;
  private readonly walk: LogBetaWalk;
  private readonly beta: Float64Array;
  /** Allocations, shared by the inputs in S. */
  private readonly z: Int32Array;
  // Kernel statistics of EVERY input under z (a birth needs the entering input's evidence):
  // counts at [d], sums at [i * D + d]; Student-t predictive caches in the same layout.
  private readonly cnt: Int32Array;
  private readonly s1: Float64Array;
  private readonly s2: Float64Array;
  private readonly kernels: NormalGammaKernels;
  /** Rows per class. */
  private readonly mK: Int32Array;
  /** Kernel counts per class [k * D + d]. */
  private readonly mKD: Int32Array;
  private readonly logits: Float64Array;
  // The background's Q_j under the current S (valid for j ∉ S), its design rank and its total log
  // evidence; and the same for a jump's proposed subset, kept if the jump is accepted.
  private readonly Qb: Float64Array;
  private rankB = 0;
  private backgroundLog = 0;
  private readonly Qtry: Float64Array;
  private readonly inTry: Uint8Array;
  private rankTry = 0;
  private readonly lk: Float64Array;
  private readonly ld: Float64Array;

  constructor(
    data: ClassificationData,
    private readonly s: Settings,
    test: { readonly X: Float64Array; readonly n: number } | undefined,
    private readonly rng: Rng,
  ) {
    const { n, p } = data;
    const K = data.classNames.length;
    const { D, a, kappa0 } = s;
    this.n = n;
    this.p = p;
    this.K = K;
    const { u, testU } = standardiseInputs(data, test);
    this.u = u;
    this.testU = testU;
    this.m = test?.n ?? 0;
    const tables = countTables(n, a, D, s.deltaW);
    this.logCountW = tables.logCountW;
    this.logTotal = tables.logTotal;
    this.labels = Int32Array.from(data.labels);
    this.labelled = labelledRows(this.labels);
    this.background = new RegressionBackground(u, n, p, a, kappa0);
    this.walk = new LogBetaWalk(a * s.resolution * s.resolution, s.g, s.h);
    this.subset = new Subset(p);
    this.beta = new Float64Array(p);
    this.z = new Int32Array(n);
    this.cnt = new Int32Array(D);
    this.s1 = new Float64Array(p * D);
    this.s2 = new Float64Array(p * D);
    this.kernels = new NormalGammaKernels(p * D, a, kappa0, tables);
    this.mK = new Int32Array(K);
    this.mKD = new Int32Array(K * D);
    this.logits = new Float64Array(Math.max(K, D));
    this.Qb = new Float64Array(p);
    this.Qtry = new Float64Array(p);
    this.inTry = new Uint8Array(p);
    this.testProb = testU ? new Float64Array(this.m * K) : null;
    this.lk = new Float64Array(K);
    this.ld = new Float64Array(D);
  }

  /** The starting state: β, the subset, random classes of unlabelled rows and random allocations. */
  start(initialInputs: readonly number[] | undefined): void {
    const { n, K, rng, labels, labelled, z } = this;
    const D = this.s.D;
    this.beta.fill(this.walk.start);
    this.subset.start(rng, this.s.minInputs, initialInputs);
    for (let r = 0; r < n; r++) {
      if (!labelled[r]) labels[r] = rng.integer(K);
      z[r] = rng.integer(D);
    }
    this.rebuild();
    this.refreshAll();
    this.rankB = this.background.quadratics(this.subset.inS, this.Qb);
  }

  /** One sweep of the moves other than the jumps (see the module comment). */
  sweep(): void {
    this.gibbsAllocations();
    this.gibbsLabels();
    this.rebuild();
    for (let i = 0; i < this.p; i++) this.updateBeta(i);
    // caches and the background's evidence for the new β (Qb changes only with S)
    this.refreshAll();
    this.backgroundLog = this.backgroundEvidence(this.subset.inS, this.Qb, this.rankB);
  }

  /** Kernel d of input i's Student-t predictive cache, at [i * D + d], from its statistics under z. */
  private refresh(i: number, d: number): void {
    const j = i * this.s.D + d;
    this.kernels.refresh(j, this.cnt[d], this.s1[j], this.s2[j], this.beta[i]);
  }

  /** Every kernel's Student-t cache, from the statistics and the current β. */
  private refreshAll(): void {
    for (let i = 0; i < this.p; i++) for (let d = 0; d < this.s.D; d++) this.refresh(i, d);
  }

  /** log p(u_i | z, β_i = b): the collapsed Normal–Gamma evidence of input i's kernels. */
  private kernelEvidence(i: number, b: number): number {
    const { D } = this.s;
    let total = 0;
    for (let d = 0; d < D; d++) {
      total += this.kernels.logEvidence(this.cnt[d], this.s1[i * D + d], this.s2[i * D + d], b);
    }
    return total;
  }

  /** Σ_{j∉S} log p(u_j | u_S) for the subset `mask` with design rank `rank`, from its Q_j. */
  private backgroundEvidence(mask: Uint8Array, Q: Float64Array, rank: number): number {
    let total = 0;
    for (let j = 0; j < this.p; j++)
      if (!mask[j]) total += this.background.evidence(Q[j], this.beta[j], rank);
    return total;
  }

  /** Recomputes every kernel statistic from z and the labels (once per sweep: no drift). */
  private rebuild(): void {
    const { n, p, z, labels, u, cnt, s1, s2, mK, mKD } = this;
    const D = this.s.D;
    cnt.fill(0);
    s1.fill(0);
    s2.fill(0);
    mK.fill(0);
    mKD.fill(0);
    for (let r = 0; r < n; r++) {
      const d = z[r];
      mK[labels[r]]++;
      mKD[labels[r] * D + d]++;
      cnt[d]++;
      for (let i = 0; i < p; i++) {
        const x = u[r * p + i];
        s1[i * D + d] += x;
        s2[i * D + d] += x * x;
      }
    }
  }

  /**
   * One scan of z: p(z_r = d | rest) ∝ (m_{t_r,d} + δ_w) × Π_{i∈S} Student-t predictive of u_ri under
   * kernel d. The hot loop: the statistics of the inputs in S are updated incrementally as a row
   * leaves and joins a kernel (the others' are rebuilt after the scan).
   */
  private gibbsAllocations(): void {
    const { n, p, rng, z, labels, u, cnt, s1, s2, mKD, logits, logCountW } = this;
    const { D, a } = this.s;
    const { M, Qc, C0 } = this.kernels;
    const sel = this.subset.members;
    const I = this.subset.size;
    for (let r = 0; r < n; r++) {
      const row = r * p;
      const kOff = labels[r] * D;
      const d0 = z[r];
      cnt[d0]--;
      mKD[kOff + d0]--;
      for (let q = 0; q < I; q++) {
        const i = sel[q];
        const x = u[row + i];
        s1[i * D + d0] -= x;
        s2[i * D + d0] -= x * x;
        this.refresh(i, d0);
      }
      for (let d = 0; d < D; d++) {
        // the Student-t exponent a + c/2 + 1/2 is the same for every input: the counts are shared
        const power = a + 0.5 * cnt[d] + 0.5;
        let v = logCountW[mKD[kOff + d]];
        for (let q = 0; q < I; q++) {
          const j = sel[q] * D + d;
          const e = u[row + sel[q]] - M[j];
          v += C0[j] - power * Math.log1p(Qc[j] * e * e);
        }
        logits[d] = v;
      }
      const d1 = drawFromLogits(rng, logits, D);
      z[r] = d1;
      cnt[d1]++;
      mKD[kOff + d1]++;
      for (let q = 0; q < I; q++) {
        const i = sel[q];
        const x = u[row + i];
        s1[i * D + d1] += x;
        s2[i * D + d1] += x * x;
        this.refresh(i, d1);
      }
    }
  }

  /** The classes of unlabelled rows: p(t_r = k | rest) ∝ (m_k + δ_P)(m_{k,z_r} + δ_w)/(m_k + D δ_w). */
  private gibbsLabels(): void {
    const { n, K, rng, z, labels, labelled, mK, mKD, logits, logCountW, logTotal } = this;
    const { D, deltaP } = this.s;
    for (let r = 0; r < n; r++) {
      if (labelled[r]) continue;
      const k0 = labels[r];
      mK[k0]--;
      mKD[k0 * D + z[r]]--;
      for (let k = 0; k < K; k++) {
        logits[k] = Math.log(mK[k] + deltaP) + logCountW[mKD[k * D + z[r]]] - logTotal[mK[k]];
      }
      const k1 = drawFromLogits(rng, logits, K);
      labels[r] = k1;
      mK[k1]++;
      mKD[k1 * D + z[r]]++;
    }
  }

  /**
   * Random-walk Metropolis on log β_i: target Gamma(g, h) on β ≥ β_min times input i's evidence, its
   * kernels' if i ∈ S and its regression's if not.
   */
  private updateBeta(i: number): void {
    const { rng, beta, walk, background, Qb, rankB } = this;
    const b0 = beta[i];
    const b1 = walk.propose(rng, b0);
    let logRatio = Number.NEGATIVE_INFINITY;
    if (walk.allows(b1)) {
      const evidence = this.subset.inS[i]
        ? this.kernelEvidence(i, b1) - this.kernelEvidence(i, b0)
        : background.evidence(Qb[i], b1, rankB) - background.evidence(Qb[i], b0, rankB);
      logRatio = walk.logPriorRatio(b0, b1) + evidence;
    }
    if (metropolisHastings(rng, logRatio).accepted) beta[i] = b1;
  }

  /**
   * log π(S′) − log π(S) of a jump that adds input `add` and removes `remove` (−1: none), z kept: the
   * entering and leaving inputs' kernel evidence and the change of the background, whose quadratics
   * under S′ are kept for {@link acceptJump}.
   */
  jumpLogLik(add: number, remove: number): number {
    const { inTry, beta } = this;
    inTry.set(this.subset.inS);
    if (add >= 0) inTry[add] = 1;
    if (remove >= 0) inTry[remove] = 0;
    this.rankTry = this.background.quadratics(inTry, this.Qtry);
    let v = this.backgroundEvidence(inTry, this.Qtry, this.rankTry) - this.backgroundLog;
    if (add >= 0) v += this.kernelEvidence(add, beta[add]);
    if (remove >= 0) v -= this.kernelEvidence(remove, beta[remove]);
    return v;
  }

  /** After an accepted jump: the background of the new S, from the quadratics its proposal computed. */
  acceptJump(): void {
    this.Qb.set(this.Qtry);
    this.rankB = this.rankTry;
    this.backgroundLog = this.backgroundEvidence(this.subset.inS, this.Qb, this.rankB);
  }

  /**
   * Adds each test row's p(k | x_S, state) to `testProb`, the collapsed posterior predictive (the
   * background cancels): ∝ (m_k + δ_P) Σ_d (m_kd + δ_w)/(m_k + D δ_w) Π_{i∈S} Student-t_id(u_i), a
   * test row joining the class mixture; with S empty this is the class prior.
   */
  predict(): void {
    const { testU, testProb, m, p, K, cnt, mK, mKD, logits, logCountW, logTotal, lk, ld } = this;
    if (!testU || !testProb) return;
    const { D, a, deltaP } = this.s;
    const { M, Qc, C0 } = this.kernels;
    const sel = this.subset.members;
    const I = this.subset.size;
    for (let t = 0; t < m; t++) {
      for (let d = 0; d < D; d++) {
        const power = a + 0.5 * cnt[d] + 0.5;
        let v = 0;
        for (let q = 0; q < I; q++) {
          const j = sel[q] * D + d;
          const e = testU[t * p + sel[q]] - M[j];
          v += C0[j] - power * Math.log1p(Qc[j] * e * e);
        }
        ld[d] = v;
      }
      for (let k = 0; k < K; k++) {
        for (let d = 0; d < D; d++) logits[d] = logCountW[mKD[k * D + d]] + ld[d];
        lk[k] = Math.log(mK[k] + deltaP) + logSumExp(logits, 0, D) - logTotal[mK[k]];
      }
      addNormalised(lk, K, testProb, t * K);
    }
  }
}
