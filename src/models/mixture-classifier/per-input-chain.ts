/**
 * The per-input structure of the input-selecting mixture classifier (`structure: "per-input"`): every
 * input has its own mixture. On inputs standardised to u_i = (x_i − ξ_i)/R_i (ξ_i the midpoint, R_i the
 * range), input i has D Gaussian kernels with a conjugate Normal–Gamma prior μ | λ ~ N(0, 1/(κ₀ λ)),
 * λ ~ Gamma(a, β_i), β_i ~ Gamma(g, h) (Sykacek's h_i = h / R_i² in the original units) truncated to
 * β_i ≥ a ρ², and its own allocations z_i. An input in S has class-specific kernel weights w_ki ~
 * Dirichlet(δ_w); an input outside S one weight vector shared by the classes. So
 * p(x | k) = Π_{i∈S} Σ_d w_kid N(u_i; μ_id, 1/λ_id) × Π_{i∉S} p(u_i), and p(k | x) = p(k | x_S).
 * Kernel parameters, weights and class priors (Dirichlet δ_P) are integrated out; the state is
 * (S, {z_i}, β, labels of unlabelled rows).
 *
 * A jump keeps z_i and changes only whether its weights depend on the class: the kernel evidence
 * cancels and the acceptance ratio is a ratio of Dirichlet–multinomials (with the subset-prior and
 * move-choice ratios), so the chain mixes. The price is the naive-Bayes structure: within a class the
 * inputs are independent, so correlated inputs that carry the same class information are all
 * selected: S answers "does the class depend on this input?", not "is it needed given the others?"
 * (the shared structure, shared-chain.ts, answers that). Moves: collapsed Gibbs on each z_i and on
 * unlabelled rows' classes, random-walk Metropolis on log β_i, and birth / death / exchange over S.
 */
import { gammaln } from "../../math/stdlib.js";
import type { Rng } from "../../random/rng.js";
import { metropolisHastings } from "../../samplers/accept.js";
import {
  addNormalised,
  type CountTables,
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

/** Data, priors and tables shared by the chains (read-only once built). */
export interface PerInputData {
  s: Settings;
  n: number;
  p: number;
  K: number;
  /** Standardised inputs, column-major p × n (a scan runs down one input). */
  uc: Float64Array;
  labels: Int32Array;
  labelled: Uint8Array;
  /** log p(S) by size. */
  logPS: Float64Array;
  tables: CountTables;
  /** Starting allocations: per input, responsibilities (n × D) of an EM fit. */
  Q: Float64Array;
  betaMin: number;
  /** Standardised test inputs (m × p), or null. */
  testU: Float64Array | null;
  m: number;
}

/** Standardises the data, tabulates the log-gamma terms and fits each input's starting allocations. */
export function preparePerInput(
  data: ClassificationData,
  s: Settings,
  test: { readonly X: Float64Array; readonly n: number } | undefined,
): PerInputData {
  const { n, p } = data;
  const { u, testU } = standardiseInputs(data, test);
  const uc = new Float64Array(n * p);
  for (let r = 0; r < n; r++) for (let i = 0; i < p; i++) uc[i * n + r] = u[r * p + i];
  const labels = Int32Array.from(data.labels);
  return {
    s,
    n,
    p,
    K: data.classNames.length,
    uc,
    labels,
    labelled: labelledRows(labels),
    logPS: logSubsetPrior(p, s.c, s.minInputs),
    tables: countTables(n, s.a, s.D, s.deltaW),
    Q: startingResponsibilities(uc, n, p, s.D, s.resolution),
    betaMin: s.a * s.resolution * s.resolution,
    testU,
    m: test?.n ?? 0,
  };
}

/**
 * Where each input's allocations start: responsibilities of a D-component 1-D Gaussian mixture fitted
 * by EM (means started at quantiles, variances floored at ρ² + 10⁻⁴), mixed 1 % with uniform.
 */
function startingResponsibilities(
  uc: Float64Array,
  n: number,
  p: number,
  D: number,
  resolution: number,
): Float64Array {
  const Q = new Float64Array(p * n * D);
  const mean = new Float64Array(D);
  const vari = new Float64Array(D);
  const weight = new Float64Array(D);
  const sorted = new Float64Array(n);
  const floor = resolution * resolution + 1e-4;
  const eps = 0.01;
  for (let i = 0; i < p; i++) {
    const x = uc.subarray(i * n, (i + 1) * n);
    sorted.set(x);
    sorted.sort();
    for (let d = 0; d < D; d++) {
      mean[d] = sorted[Math.min(n - 1, Math.floor(((d + 0.5) / D) * n))];
      vari[d] = Math.max(floor, 1 / (D * D * 4));
      weight[d] = 1 / D;
    }
    const resp = Q.subarray(i * n * D, (i + 1) * n * D);
    for (let it = 0; it < 60; it++) {
      for (let r = 0; r < n; r++) {
        let max = Number.NEGATIVE_INFINITY;
        for (let d = 0; d < D; d++) {
          const e = x[r] - mean[d];
          const l = Math.log(weight[d]) - 0.5 * Math.log(vari[d]) - (0.5 * e * e) / vari[d];
          resp[r * D + d] = l;
          if (l > max) max = l;
        }
        let sum = 0;
        for (let d = 0; d < D; d++) {
          const e = Math.exp(resp[r * D + d] - max);
          resp[r * D + d] = e;
          sum += e;
        }
        for (let d = 0; d < D; d++) resp[r * D + d] /= sum;
      }
      for (let d = 0; d < D; d++) {
        let w = 0;
        let s1 = 0;
        for (let r = 0; r < n; r++) {
          w += resp[r * D + d];
          s1 += resp[r * D + d] * x[r];
        }
        const m = w > 0 ? s1 / w : mean[d];
        let s2 = 0;
        for (let r = 0; r < n; r++) s2 += resp[r * D + d] * (x[r] - m) ** 2;
        mean[d] = m;
        vari[d] = Math.max(floor, w > 0 ? s2 / w : vari[d]);
        weight[d] = (w + 1) / (n + D);
      }
    }
    for (let q = 0; q < n * D; q++) {
      resp[q] = (1 - eps) * resp[q] + eps / D;
    }
  }
  return Q;
}

/** One chain: collapsed Gibbs scans of every input's allocations, β updates and jumps over S. */
export function runPerInputChain(
  sh: PerInputData,
  rng: Rng,
  initialInputs: readonly number[] | undefined,
  onSweep: (sweep: number) => void,
): ChainResult {
  const chain = new PerInputChain(sh, rng);
  chain.start(initialInputs);
  return runSubsetChain({
    rng,
    subset: chain.subset,
    s: sh.s,
    logSubsetPrior: sh.logPS,
    // see the module comment: a jump's ratio is the entering and leaving inputs' class gains
    logLik: (add, remove) =>
      (add >= 0 ? chain.logClassGain(add) : 0) - (remove >= 0 ? chain.logClassGain(remove) : 0),
    sweep: () => chain.sweep(),
    predict: () => chain.predict(),
    testProb: chain.testProb,
    onSweep,
  });
}

/**
 * The state of one per-input chain and its moves: the subset, every input's allocations, the labels
 * of unlabelled rows and β, with every kernel's statistics and Student-t cache kept beside them.
 * Buffers are allocated once; no move allocates.
 */
class PerInputChain {
  readonly subset: Subset;
  /** The test rows' class probabilities, summed over the predicting sweeps; null without test data. */
  readonly testProb: Float64Array | null;
  private readonly labels: Int32Array;
  private readonly walk: LogBetaWalk;
  /** gammaln(D δ_w) and gammaln(c + D δ_w), c = 0 … n: the Dirichlet–multinomials' normalisers. */
  private readonly lgDW: number;
  private readonly lgTotal: Float64Array;
  private readonly beta: Float64Array;
  /** Allocations of every input, [i * n + r]. */
  private readonly z: Int32Array;
  /** Kernel counts [i * D + d], and the sums Σu, Σu² in the same layout. */
  private readonly cnt: Int32Array;
  private readonly s1: Float64Array;
  private readonly s2: Float64Array;
  /** Rows per class. */
  private readonly mK: Int32Array;
  /** Kernel counts per class [(i * K + k) * D + d]. */
  private readonly mKD: Int32Array;
  /** Student-t predictive caches at [i * D + d]. */
  private readonly kernels: NormalGammaKernels;
  private readonly logits: Float64Array;
  private readonly lk: Float64Array;
  private readonly lt: Float64Array;

  constructor(
    private readonly sh: PerInputData,
    private readonly rng: Rng,
  ) {
    const { n, p, K, s } = sh;
    const { D, deltaW } = s;
    this.labels = Int32Array.from(sh.labels);
    this.walk = new LogBetaWalk(sh.betaMin, s.g, s.h);
    this.lgDW = gammaln(D * deltaW);
    this.lgTotal = new Float64Array(n + 1);
    for (let c = 0; c <= n; c++) this.lgTotal[c] = gammaln(c + D * deltaW);
    this.subset = new Subset(p);
    this.beta = new Float64Array(p);
    this.z = new Int32Array(p * n);
    this.cnt = new Int32Array(p * D);
    this.s1 = new Float64Array(p * D);
    this.s2 = new Float64Array(p * D);
    this.mK = new Int32Array(K);
    this.mKD = new Int32Array(p * K * D);
    this.kernels = new NormalGammaKernels(p * D, s.a, s.kappa0, sh.tables);
    this.logits = new Float64Array(Math.max(K, D));
    this.testProb = sh.testU ? new Float64Array(sh.m * K) : null;
    this.lk = new Float64Array(K);
    this.lt = new Float64Array(D);
  }

  /**
   * The starting state: β, the subset, random classes of unlabelled rows, and each input's
   * allocations drawn from the responsibilities of its EM fit.
   */
  start(initialInputs: readonly number[] | undefined): void {
    const { rng, labels, z, sh } = this;
    const { n, p, K, labelled, Q } = sh;
    const D = sh.s.D;
    this.beta.fill(this.walk.start);
    this.subset.start(rng, sh.s.minInputs, initialInputs);
    for (let r = 0; r < n; r++) if (!labelled[r]) labels[r] = rng.integer(K);
    for (let i = 0; i < p; i++) {
      const base = i * n * D;
      for (let r = 0; r < n; r++) {
        let v = rng.uniform();
        let d = D - 1;
        for (let e = 0; e < D; e++) {
          v -= Q[base + r * D + e];
          if (v < 0) {
            d = e;
            break;
          }
        }
        z[i * n + r] = d;
      }
    }
    this.rebuild();
  }

  /** One sweep of the moves other than the jumps (see the module comment). */
  sweep(): void {
    const p = this.sh.p;
    this.rebuild();
    for (let i = 0; i < p; i++) this.gibbsInput(i);
    this.gibbsLabels();
    for (let i = 0; i < p; i++) this.updateBeta(i);
  }

  /** Kernel j = i·D + d's Student-t predictive cache from its statistics, at β = b. */
  private refresh(j: number, b: number): void {
    this.kernels.refresh(j, this.cnt[j], this.s1[j], this.s2[j], b);
  }

  /** log ∫ p(u_i | z_i, μ, λ) dp(μ, λ | β): the Normal–Gamma evidence of input i's kernels at β = b. */
  private logMarginal(i: number, b: number): number {
    const { cnt, s1, s2, kernels } = this;
    const D = this.sh.s.D;
    let total = 0;
    for (let j = i * D; j < (i + 1) * D; j++) total += kernels.logEvidence(cnt[j], s1[j], s2[j], b);
    return total;
  }

  /**
   * log p(z_i | t, i ∈ S) − log p(z_i | i ∉ S): Dirichlet–multinomial of the allocations with
   * class-specific weights against one shared weight vector. The kernel evidence is the same on both
   * sides and cancels: this is all a jump needs.
   */
  logClassGain(i: number): number {
    const { lgDW, lgTotal, cnt, mK, mKD } = this;
    const { n, K, tables } = this.sh;
    const D = this.sh.s.D;
    const lgCountW = tables.lgCountW;
    const lgW0 = lgCountW[0];
    let total = -(lgDW - lgTotal[n]);
    for (let d = 0; d < D; d++) total -= lgCountW[cnt[i * D + d]] - lgW0;
    for (let k = 0; k < K; k++) {
      total += lgDW - lgTotal[mK[k]];
      const off = (i * K + k) * D;
      for (let d = 0; d < D; d++) total += lgCountW[mKD[off + d]] - lgW0;
    }
    return total;
  }

  /** Recomputes every statistic and cache from the allocations (once per sweep: no drift). */
  private rebuild(): void {
    const { labels, z, cnt, s1, s2, mK, mKD, beta } = this;
    const { n, p, K, uc } = this.sh;
    const D = this.sh.s.D;
    cnt.fill(0);
    s1.fill(0);
    s2.fill(0);
    mK.fill(0);
    mKD.fill(0);
    for (let r = 0; r < n; r++) mK[labels[r]]++;
    for (let i = 0; i < p; i++) {
      for (let r = 0; r < n; r++) {
        const d = z[i * n + r];
        const j = i * D + d;
        const x = uc[i * n + r];
        cnt[j]++;
        s1[j] += x;
        s2[j] += x * x;
        mKD[(i * K + labels[r]) * D + d]++;
      }
      for (let d = 0; d < D; d++) this.refresh(i * D + d, beta[i]);
    }
  }

  /**
   * One scan of input i's allocations: p(z_ir = d | rest) ∝ (count + δ_w) × Student-t predictive,
   * where the count is the row's class's count of kernel d when i ∈ S and the pooled count otherwise.
   * The hot loop: statistics and caches are updated incrementally as a row leaves and joins a kernel.
   */
  private gibbsInput(i: number): void {
    const { rng, labels, z, cnt, s1, s2, mKD, logits } = this;
    const { n, K, uc } = this.sh;
    const { D, a } = this.sh.s;
    const logCountW = this.sh.tables.logCountW;
    const { M, Qc, C0 } = this.kernels;
    const off = i * D;
    const base = i * n;
    const selected = this.subset.inS[i] === 1;
    const b = this.beta[i];
    for (let r = 0; r < n; r++) {
      const x = uc[base + r];
      const kOff = (i * K + labels[r]) * D;
      const d0 = z[base + r];
      let j = off + d0;
      // the cache of kernel d0 with row r in it: restored, not recomputed, if the row stays there
      const m0 = M[j];
      const q0 = Qc[j];
      const c0 = C0[j];
      cnt[j]--;
      s1[j] -= x;
      s2[j] -= x * x;
      mKD[kOff + d0]--;
      this.refresh(j, b);
      let max = Number.NEGATIVE_INFINITY;
      for (let d = 0; d < D; d++) {
        const c = cnt[off + d];
        const e = x - M[off + d];
        const v =
          (selected ? logCountW[mKD[kOff + d]] : logCountW[c]) +
          C0[off + d] -
          (a + 0.5 * c + 0.5) * Math.log1p(Qc[off + d] * e * e);
        logits[d] = v;
        if (v > max) max = v;
      }
      const d1 = drawFromLogits(rng, logits, D, max);
      z[base + r] = d1;
      j = off + d1;
      cnt[j]++;
      s1[j] += x;
      s2[j] += x * x;
      mKD[kOff + d1]++;
      if (d1 === d0) {
        M[j] = m0;
        Qc[j] = q0;
        C0[j] = c0;
      } else this.refresh(j, b);
    }
  }

  /** The latent classes of unlabelled rows: p(t_r = k | rest) ∝ (m_k + δ_P) Π_{i∈S} (m_{k,i,z_ir} + δ_w)/(m_k + D δ_w). */
  private gibbsLabels(): void {
    const { rng, labels, z, mK, mKD, logits, subset } = this;
    const { n, p, K, labelled, tables } = this.sh;
    const { D, deltaP } = this.sh.s;
    const { logCountW, logTotal } = tables;
    const sel = subset.members;
    for (let r = 0; r < n; r++) {
      if (labelled[r]) continue;
      const k0 = labels[r];
      mK[k0]--;
      for (let i = 0; i < p; i++) mKD[(i * K + k0) * D + z[i * n + r]]--;
      for (let k = 0; k < K; k++) {
        let v = Math.log(mK[k] + deltaP);
        for (let q = 0; q < subset.size; q++) {
          const i = sel[q];
          v += logCountW[mKD[(i * K + k) * D + z[i * n + r]]] - logTotal[mK[k]];
        }
        logits[k] = v;
      }
      const k1 = drawFromLogits(rng, logits, K);
      labels[r] = k1;
      mK[k1]++;
      for (let i = 0; i < p; i++) mKD[(i * K + k1) * D + z[i * n + r]]++;
    }
  }

  /** Random-walk Metropolis on log β_i, target Gamma(g, h) on β ≥ β_min times the input's evidence. */
  private updateBeta(i: number): void {
    const { rng, beta, walk } = this;
    const D = this.sh.s.D;
    const b0 = beta[i];
    const b1 = walk.propose(rng, b0);
    let logRatio = Number.NEGATIVE_INFINITY;
    if (walk.allows(b1)) {
      logRatio = walk.logPriorRatio(b0, b1) + this.logMarginal(i, b1) - this.logMarginal(i, b0);
    }
    if (metropolisHastings(rng, logRatio).accepted) {
      beta[i] = b1;
      for (let d = 0; d < D; d++) this.refresh(i * D + d, b1);
    }
  }

  /** Adds each test row's p(k | x_S, state), the collapsed posterior predictive, to `testProb`. */
  predict(): void {
    const { testProb, cnt, mK, mKD, lk, lt, subset } = this;
    const { testU, m, p, K, tables } = this.sh;
    if (!testU || !testProb) return;
    const { D, a, deltaW, deltaP } = this.sh.s;
    const logTotal = tables.logTotal;
    const { M, Qc, C0 } = this.kernels;
    const sel = subset.members;
    for (let t = 0; t < m; t++) {
      for (let k = 0; k < K; k++) lk[k] = Math.log(mK[k] + deltaP);
      for (let q = 0; q < subset.size; q++) {
        const i = sel[q];
        const x = testU[t * p + i];
        const off = i * D;
        let ltMax = Number.NEGATIVE_INFINITY;
        for (let d = 0; d < D; d++) {
          const e = x - M[off + d];
          lt[d] = C0[off + d] - (a + 0.5 * cnt[off + d] + 0.5) * Math.log1p(Qc[off + d] * e * e);
          if (lt[d] > ltMax) ltMax = lt[d];
        }
        for (let d = 0; d < D; d++) lt[d] = Math.exp(lt[d] - ltMax);
        for (let k = 0; k < K; k++) {
          let v = 0;
          const kOff = (i * K + k) * D;
          for (let d = 0; d < D; d++) v += (mKD[kOff + d] + deltaW) * lt[d];
          lk[k] += Math.log(v) - logTotal[mK[k]];
        }
      }
      addNormalised(lk, K, testProb, t * K);
    }
  }
}
