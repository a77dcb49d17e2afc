/**
 * The shared-allocation variant of the input-selecting mixture classifier (`structure: "shared"`),
 * closest to Sykacek's model: one class mixture over the selected inputs S (D diagonal Gaussian
 * kernels shared by the classes, class-specific weights w_kd ~ Dirichlet(δ_w), allocations z_n shared
 * by every input in S: the paper's eq. 1) and one class-independent background mixture over ¬S (D
 * kernels, one weight vector, allocations z′_n shared by every input in ¬S), so
 * p(t, x) = p(t, x_S | class mixture) p(x_¬S | background) and the background cancels from p(t | x).
 * Kernel parameters (Normal–Gamma) and weights (Dirichlet–multinomial) are integrated out.
 *
 * Jumps: a birth moves input i from the background to S keeping z and z′, so the acceptance ratio is
 * p(u_i | z) / p(u_i | z′) (closed-form collapsed evidences) times the subset-prior and move-choice
 * ratios; nothing is proposed. Sykacek's eq. 4 reallocates explicit kernel weights to match
 * dimensions at a birth; with the weights integrated out there is nothing to match, so it is not
 * needed. Death and exchange are the reverse and the swap.
 *
 * Measured (see docs/select-inputs.md): correct (exact enumeration tests) but the chain hardly moves on
 * real data: each mixture's allocations are fitted to its own inputs, |log p(u_i | z) − log p(u_i | z′)|
 * is 10–200 nats on Pima, and fewer than one birth, death or exchange in 5000 is accepted on Pima and
 * Ionosphere. A swap of S and ¬S (z ↔ z′) joins modes that split the inputs the other way round.
 * β_i keeps its Gamma(g, h_i) hyperprior and is updated by Metropolis on log β_i, as in sampler.ts.
 */

import gammaln from "@stdlib/math-base-special-gammaln";
import { OccamError } from "../../errors.js";
import type { Rng } from "../../random/rng.js";
import { metropolisHastings } from "../../samplers/accept.js";
import { type Move, mixture } from "../../samplers/mixture.js";
import type { ClassificationData } from "./data.js";
import type { ChainResult, Settings } from "./sampler.js";

const LOG_PI = Math.log(Math.PI);
const LOG_2PI = Math.log(2 * Math.PI);
/** Test predictions are averaged over every PREDICT_EVERY-th kept sweep (as in sampler.ts). */
const PREDICT_EVERY = 5;
/** The kinds of reversible-jump move (the indices of the acceptance counters). */
const BIRTH = 0;
const DEATH = 1;
const EXCHANGE = 2;
const SWAP = 3;

/** A proposed change of subset, written in place by the moves. */
interface Proposal {
  kind: number;
  /** Input moved into S (birth, exchange) or −1. */
  add: number;
  /** Input moved out of S (death, exchange) or −1. */
  remove: number;
  /** log π(proposal) − log π(current) without the subset prior. */
  logLikRatio: number;
}

/** Data, priors and tables shared by the chains of the shared-allocation chain (read-only once built). */
interface SharedData {
  s: Settings;
  n: number;
  p: number;
  K: number;
  /** Standardised inputs (x − ξ)/R, row-major n × p. */
  u: Float64Array;
  labels: Int32Array;
  labelled: Uint8Array;
  /** log p(S) by size (−Infinity below minInputs). */
  logPS: Float64Array;
  /** gammaln(a + c/2) and gammaln(a + c/2 + 1/2) − gammaln(a + c/2), c = 0 … n. */
  lgA: Float64Array;
  lgRatio: Float64Array;
  /** log(c + δ_w) and gammaln(c + δ_w), c = 0 … n. */
  logCountW: Float64Array;
  lgCountW: Float64Array;
  betaMin: number;
  /** Standardised test inputs (m × p), or null. */
  testU: Float64Array | null;
  m: number;
}

/** Standardises the data and tabulates the subset prior and the log-gamma terms. */
function prepareShared(
  data: ClassificationData,
  s: Settings,
  test: { readonly X: Float64Array; readonly n: number } | undefined,
): SharedData {
  const { n, p, X } = data;
  const { a } = s;
  const u = new Float64Array(n * p);
  const xi = new Float64Array(p);
  const R = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    let lo = Number.POSITIVE_INFINITY;
    let up = Number.NEGATIVE_INFINITY;
    for (let r = 0; r < n; r++) {
      const x = X[r * p + i];
      if (x < lo) lo = x;
      if (x > up) up = x;
    }
    if (!(up - lo > 0)) {
      throw new OccamError(
        "invalid-data",
        `mixture classifier: input "${data.inputNames[i]}" is constant in the training data (every row is ${lo}); it carries no information: leave it out.`,
      );
    }
    xi[i] = 0.5 * (lo + up);
    R[i] = up - lo;
    for (let r = 0; r < n; r++) u[r * p + i] = (X[r * p + i] - xi[i]) / R[i];
  }
  let testU: Float64Array | null = null;
  if (test) {
    testU = new Float64Array(test.n * p);
    for (let t = 0; t < test.n; t++) {
      for (let i = 0; i < p; i++) testU[t * p + i] = (test.X[t * p + i] - xi[i]) / R[i];
    }
  }
  // log p(S): truncated Poisson over sizes minInputs … p, uniform within a size (SEEDS.md erratum).
  const logPS = new Float64Array(p + 1).fill(Number.NEGATIVE_INFINITY);
  let norm = 0;
  for (let I = s.minInputs; I <= p; I++) norm += Math.exp(I * Math.log(s.c) - gammaln(I + 1) - s.c);
  for (let I = s.minInputs; I <= p; I++) {
    const logChoose = gammaln(p + 1) - gammaln(I + 1) - gammaln(p - I + 1);
    logPS[I] = I * Math.log(s.c) - gammaln(I + 1) - s.c - Math.log(norm) - logChoose;
  }
  const lgA = new Float64Array(n + 1);
  const lgRatio = new Float64Array(n + 1);
  const logCountW = new Float64Array(n + 1);
  const lgCountW = new Float64Array(n + 1);
  for (let c = 0; c <= n; c++) {
    lgCountW[c] = gammaln(c + s.deltaW);
    lgA[c] = gammaln(a + 0.5 * c);
    lgRatio[c] = gammaln(a + 0.5 * c + 0.5) - lgA[c];
    logCountW[c] = Math.log(c + s.deltaW);
  }
  const labels = Int32Array.from(data.labels);
  const labelled = new Uint8Array(n);
  for (let r = 0; r < n; r++) labelled[r] = labels[r] >= 0 ? 1 : 0;
  return {
    s,
    n,
    p,
    K: data.classNames.length,
    u,
    labels,
    labelled,
    logPS,
    lgA,
    lgRatio,
    logCountW,
    lgCountW,
    betaMin: a * s.resolution * s.resolution,
    testU,
    m: test?.n ?? 0,
  };
}

/** The two mixtures: CLASS over the selected inputs (allocations z), BACK over the others (z′). */
const CLASS = 0;
const BACK = 1;

/**
 * One chain: collapsed Gibbs scans of z (over S) and z′ (over ¬S), the classes of unlabelled rows,
 * Metropolis on every log β_i, and reversible jumps over S.
 */
function chain(
  sh: SharedData,
  rng: Rng,
  initialInputs: readonly number[] | undefined,
  onSweep: (sweep: number) => void,
): ChainResult {
  const { s, n, p, K, u, labelled, logPS, lgA, lgRatio, logCountW, lgCountW } = sh;
  const { D, a, g, h, kappa0, deltaW, deltaP } = s;
  const labels = Int32Array.from(sh.labels);
  const lgA0 = lgA[0];
  const logKappa0 = Math.log(kappa0);
  // log(c + D δ_w), c = 0 … n: the denominator of a class's Dirichlet–multinomial predictive
  const logTotal = new Float64Array(n + 1);
  for (let c = 0; c <= n; c++) logTotal[c] = Math.log(c + D * deltaW);

  // ---- state ---------------------------------------------------------------------------------
  const inS = new Uint8Array(p);
  const sel = new Int32Array(p); // sel[0 … I) lists S
  const out = new Int32Array(p); // out[0 … p − I) lists ¬S (rebuilt each sweep)
  let I = 0;
  const beta = new Float64Array(p);
  const z = new Int32Array(n); // class-mixture allocations, shared by the inputs in S
  const zb = new Int32Array(n); // background allocations, shared by the inputs in ¬S
  // Kernel statistics of EVERY input under BOTH groupings (a jump needs input i's evidence under
  // the grouping it leaves and the one it joins): counts at [mix * D + d], sums at [(mix * p + i) * D + d].
  const cnt = new Int32Array(2 * D);
  const s1 = new Float64Array(2 * p * D);
  const s2 = new Float64Array(2 * p * D);
  // Student-t predictive caches, same layout as s1
  const C0 = new Float64Array(2 * p * D);
  const M = new Float64Array(2 * p * D);
  const Qc = new Float64Array(2 * p * D);
  const mK = new Int32Array(K); // rows per class
  const mKD = new Int32Array(K * D); // class-mixture kernel counts per class [k * D + d]
  const logits = new Float64Array(Math.max(K, D));

  /**
   * Student-t predictive cache of kernel d of input i in mixture mix: for u ~ kernel,
   * log p(u) = C0 − (a + c/2 + 1/2) log(1 + Qc (u − M)²) with M = Σu/κ_n, κ_n = κ₀ + c,
   * b_n = β + (Σu² − κ_n M²)/2, Qc = κ_n / (2 b_n (κ_n + 1)), C0 = log Γ ratio + ½ log(Qc/π).
   */
  function refresh(mix: number, i: number, d: number): void {
    const j = (mix * p + i) * D + d;
    const c = cnt[mix * D + d];
    const kn = kappa0 + c;
    const mn = s1[j] / kn;
    const bn = beta[i] + Math.max(0, 0.5 * (s2[j] - s1[j] * mn));
    const q = kn / (2 * bn * (kn + 1));
    M[j] = mn;
    Qc[j] = q;
    C0[j] = lgRatio[c] + 0.5 * (Math.log(q) - LOG_PI);
  }

  /**
   * log p(u_i | allocations of mixture mix, β_i = b) = Σ_d log ∫ Π_{r: z_r = d} N(u_ri; μ, 1/λ)
   * dNormalGamma(μ, λ | κ₀, a, b): the collapsed evidence of input i's kernels.
   */
  function logEvidence(mix: number, i: number, b: number): number {
    const logB = Math.log(b);
    let total = 0;
    for (let d = 0; d < D; d++) {
      const nd = cnt[mix * D + d];
      if (nd === 0) continue;
      const j = (mix * p + i) * D + d;
      const kn = kappa0 + nd;
      const bn = b + Math.max(0, 0.5 * (s2[j] - (s1[j] * s1[j]) / kn));
      total +=
        lgA[nd] -
        lgA0 +
        a * logB -
        (a + 0.5 * nd) * Math.log(bn) +
        0.5 * (logKappa0 - Math.log(kn)) -
        0.5 * nd * LOG_2PI;
    }
    return total;
  }

  /**
   * log p(u_i | z) − log p(u_i | z′): how much better input i is explained by the class mixture's
   * allocations than by the background's. Both allocations persist through a jump and the weights
   * are integrated out, so this (with the prior and move-choice ratios) is the whole acceptance ratio.
   */
  const gain = (i: number): number => logEvidence(CLASS, i, beta[i]) - logEvidence(BACK, i, beta[i]);

  // ---- initial state -------------------------------------------------------------------------
  for (let i = 0; i < p; i++) beta[i] = Math.max(sh.betaMin, g / h);
  if (initialInputs !== undefined) {
    for (const i of initialInputs) {
      inS[i] = 1;
      sel[I++] = i;
    }
  } else {
    const size = Math.max(s.minInputs, 1 + rng.integer(Math.min(3, p)));
    const order = Array.from({ length: p }, (_, i) => i);
    for (let q = p - 1; q > 0; q--) {
      const e = rng.integer(q + 1);
      [order[q], order[e]] = [order[e], order[q]];
    }
    for (let q = 0; q < size; q++) {
      inS[order[q]] = 1;
      sel[I++] = order[q];
    }
  }
  for (let r = 0; r < n; r++) {
    if (!labelled[r]) labels[r] = rng.integer(K);
    z[r] = rng.integer(D);
    zb[r] = rng.integer(D);
  }

  /** Recomputes every statistic and cache from the allocations (twice per sweep: no drift). */
  function rebuild(): void {
    cnt.fill(0);
    s1.fill(0);
    s2.fill(0);
    mK.fill(0);
    mKD.fill(0);
    for (let r = 0; r < n; r++) {
      const k = labels[r];
      mK[k]++;
      mKD[k * D + z[r]]++;
      cnt[z[r]]++;
      cnt[D + zb[r]]++;
      const jc = z[r];
      const jb = p * D + zb[r];
      for (let i = 0; i < p; i++) {
        const x = u[r * p + i];
        s1[jc + i * D] += x;
        s2[jc + i * D] += x * x;
        s1[jb + i * D] += x;
        s2[jb + i * D] += x * x;
      }
    }
    for (let i = 0; i < p; i++) {
      for (let d = 0; d < D; d++) {
        refresh(CLASS, i, d);
        refresh(BACK, i, d);
      }
    }
  }

  // ---- collapsed Gibbs -----------------------------------------------------------------------
  /** Draws an index in [0, to) ∝ exp(logits) (overwrites logits). */
  function drawIndex(to: number): number {
    let max = Number.NEGATIVE_INFINITY;
    for (let q = 0; q < to; q++) if (logits[q] > max) max = logits[q];
    let sum = 0;
    for (let q = 0; q < to; q++) {
      const e = Math.exp(logits[q] - max);
      logits[q] = e;
      sum += e;
    }
    let v = rng.uniform() * sum;
    for (let q = 0; q < to; q++) {
      v -= logits[q];
      if (v < 0) return q;
    }
    return to - 1;
  }

  /**
   * One scan of one mixture's allocations: p(z_r = d | rest) ∝ (count + δ_w) × Π_i Student-t
   * predictive of u_ri under kernel d, the product over the mixture's inputs (list[0 … len)); the
   * count is the row's class's count of kernel d for the class mixture and the pooled count for the
   * background. The hot loop: statistics and caches of the mixture's inputs are updated incrementally
   * as a row leaves and joins a kernel (the other inputs' statistics are rebuilt after the scan).
   */
  function gibbsMixture(mix: number, alloc: Int32Array, list: Int32Array, len: number): void {
    const cOff = mix * D;
    const base = mix * p * D;
    for (let r = 0; r < n; r++) {
      const row = r * p;
      const kOff = labels[r] * D;
      const d0 = alloc[r];
      cnt[cOff + d0]--;
      if (mix === CLASS) mKD[kOff + d0]--;
      for (let q = 0; q < len; q++) {
        const i = list[q];
        const x = u[row + i];
        const j = base + i * D + d0;
        s1[j] -= x;
        s2[j] -= x * x;
        refresh(mix, i, d0);
      }
      for (let d = 0; d < D; d++) {
        // the Student-t exponent a + c/2 + 1/2 is the same for every input: the counts are shared
        const power = a + 0.5 * cnt[cOff + d] + 0.5;
        let v = mix === CLASS ? logCountW[mKD[kOff + d]] : logCountW[cnt[cOff + d]];
        for (let q = 0; q < len; q++) {
          const i = list[q];
          const j = base + i * D + d;
          const e = u[row + i] - M[j];
          v += C0[j] - power * Math.log1p(Qc[j] * e * e);
        }
        logits[d] = v;
      }
      const d1 = drawIndex(D);
      alloc[r] = d1;
      cnt[cOff + d1]++;
      if (mix === CLASS) mKD[kOff + d1]++;
      for (let q = 0; q < len; q++) {
        const i = list[q];
        const x = u[row + i];
        const j = base + i * D + d1;
        s1[j] += x;
        s2[j] += x * x;
        refresh(mix, i, d1);
      }
    }
  }

  /** The latent classes of unlabelled rows: p(t_r = k | rest) ∝ (m_k + δ_P)(m_{k,z_r} + δ_w)/(m_k + D δ_w). */
  function gibbsLabels(): void {
    for (let r = 0; r < n; r++) {
      if (labelled[r]) continue;
      const k0 = labels[r];
      mK[k0]--;
      mKD[k0 * D + z[r]]--;
      for (let k = 0; k < K; k++) {
        logits[k] = Math.log(mK[k] + deltaP) + logCountW[mKD[k * D + z[r]]] - logTotal[mK[k]];
      }
      const k1 = drawIndex(K);
      labels[r] = k1;
      mK[k1]++;
      mKD[k1 * D + z[r]]++;
    }
  }

  /**
   * Random-walk Metropolis on log β_i, target Gamma(g, h) on β ≥ β_min times input i's evidence
   * under the mixture it belongs to.
   */
  function updateBeta(i: number): void {
    const mix = inS[i] ? CLASS : BACK;
    const b0 = beta[i];
    const b1 = b0 * Math.exp(0.5 * rng.normal());
    let logRatio = Number.NEGATIVE_INFINITY;
    if (b1 >= sh.betaMin) {
      // prior (g − 1) log β − h β, plus log β from the Jacobian of the log scale
      logRatio = g * Math.log(b1 / b0) - h * (b1 - b0) + logEvidence(mix, i, b1) - logEvidence(mix, i, b0);
    }
    if (metropolisHastings(rng, logRatio).accepted) beta[i] = b1;
  }

  // ---- reversible-jump moves over S (see the module comment) ----------------------------------
  const proposal: Proposal = { kind: BIRTH, add: -1, remove: -1, logLikRatio: 0 };
  const result = { proposal, logFactor: 0 };
  const impossible = (kind: number) => {
    proposal.kind = kind;
    proposal.add = -1;
    proposal.remove = -1;
    result.logFactor = Number.NEGATIVE_INFINITY;
    return result;
  };
  const pickOutside = (): number => {
    let k = rng.integer(p - I);
    for (let i = 0; i < p; i++) {
      if (inS[i]) continue;
      if (k === 0) return i;
      k--;
    }
    return -1;
  };
  const birth: Move<null, Proposal> = () => {
    if (I === p) return impossible(BIRTH);
    const i = pickOutside();
    proposal.kind = BIRTH;
    proposal.add = i;
    proposal.remove = -1;
    proposal.logLikRatio = gain(i);
    // reverse: death picks i among I + 1; forward: birth picks i among p − I
    result.logFactor = Math.log(p - I) - Math.log(I + 1);
    return result;
  };
  const death: Move<null, Proposal> = () => {
    if (I <= s.minInputs) return impossible(DEATH);
    const j = sel[rng.integer(I)];
    proposal.kind = DEATH;
    proposal.add = -1;
    proposal.remove = j;
    proposal.logLikRatio = -gain(j);
    result.logFactor = Math.log(I) - Math.log(p - I + 1);
    return result;
  };
  const exchange: Move<null, Proposal> = () => {
    if (I === p || I === 0) return impossible(EXCHANGE);
    const j = sel[rng.integer(I)];
    const i = pickOutside();
    proposal.kind = EXCHANGE;
    proposal.add = i;
    proposal.remove = j;
    proposal.logLikRatio = gain(i) - gain(j);
    result.logFactor = 0;
    return result;
  };
  const jump = mixture<null, Proposal>([
    [birth, s.weights[0]],
    [death, s.weights[1]],
    [exchange, s.weights[2]],
  ]);

  function accept(prop: Proposal): void {
    if (prop.remove >= 0) {
      const j = prop.remove;
      inS[j] = 0;
      let q = 0;
      while (sel[q] !== j) q++;
      sel[q] = sel[I - 1];
      I--;
    }
    if (prop.add >= 0) {
      inS[prop.add] = 1;
      sel[I++] = prop.add;
    }
  }

  // ---- the swap move ----------------------------------------------------------------------
  const mKDb = new Int32Array(K * D);
  const zTmp = new Int32Array(n);
  /**
   * Swaps the roles of the two mixtures: S′ = ¬S, z_new = z′, z′_new = z. Every input keeps its
   * grouping, so the evidences cancel and the log ratio is that of the allocation priors (class-
   * specific Dirichlet–multinomial of z′ against z, pooled of z against z′) plus log p(S′)/p(S); the
   * map is a deterministic involution (proposal ratio 1). It joins modes that split the inputs into
   * the same two groups the other way round (seen on Pima). Returns whether it was accepted.
   */
  function swap(): boolean {
    if (logPS[p - I] === Number.NEGATIVE_INFINITY) {
      metropolisHastings(rng, Number.NEGATIVE_INFINITY);
      return false;
    }
    mKDb.fill(0);
    for (let r = 0; r < n; r++) mKDb[labels[r] * D + zb[r]]++;
    // Γ(D δ_w)/Γ(m_k + D δ_w) and Γ(δ_w) factors are the same on both sides and cancel
    let logRatio = logPS[p - I] - logPS[I];
    for (let q = 0; q < K * D; q++) logRatio += lgCountW[mKDb[q]] - lgCountW[mKD[q]];
    for (let d = 0; d < D; d++) logRatio += lgCountW[cnt[d]] - lgCountW[cnt[D + d]];
    if (!metropolisHastings(rng, logRatio).accepted) return false;
    zTmp.set(z);
    z.set(zb);
    zb.set(zTmp);
    I = 0;
    for (let i = 0; i < p; i++) {
      inS[i] = inS[i] ? 0 : 1;
      if (inS[i]) sel[I++] = i;
    }
    rebuild();
    return true;
  }

  // ---- predictions (collapsed posterior predictive; the background cancels) -------------------
  const m = sh.m;
  const testU = sh.testU;
  const testProb = testU ? new Float64Array(m * K) : null;
  const lk = new Float64Array(K);
  const ld = new Float64Array(D);
  /**
   * p(k | x_S, state) ∝ (m_k + δ_P) Σ_d (m_kd + δ_w)/(m_k + D δ_w) Π_{i∈S} Student-t_id(u_i): a test row
   * joins the class mixture; with S empty this is the class prior.
   */
  function predict(): void {
    if (!testU || !testProb) return;
    for (let t = 0; t < m; t++) {
      for (let d = 0; d < D; d++) {
        const power = a + 0.5 * cnt[d] + 0.5;
        let v = 0;
        for (let q = 0; q < I; q++) {
          const i = sel[q];
          const j = i * D + d;
          const e = testU[t * p + i] - M[j];
          v += C0[j] - power * Math.log1p(Qc[j] * e * e);
        }
        ld[d] = v;
      }
      let max = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < K; k++) {
        let dMax = Number.NEGATIVE_INFINITY;
        for (let d = 0; d < D; d++) {
          logits[d] = logCountW[mKD[k * D + d]] + ld[d];
          if (logits[d] > dMax) dMax = logits[d];
        }
        let sum = 0;
        for (let d = 0; d < D; d++) sum += Math.exp(logits[d] - dMax);
        lk[k] = Math.log(mK[k] + deltaP) + dMax + Math.log(sum) - logTotal[mK[k]];
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
  const keys: string[] = new Array(kept);
  const tried = new Float64Array(4);
  const acceptedMoves = new Float64Array(4);
  const subsetKey = () =>
    Array.from(sel.subarray(0, I))
      .sort((x, y) => x - y)
      .join(",");
  let key = subsetKey();
  rebuild();
  for (let sweep = 0; sweep < s.draws; sweep++) {
    let nOut = 0;
    for (let i = 0; i < p; i++) if (!inS[i]) out[nOut++] = i;
    gibbsMixture(CLASS, z, sel, I);
    gibbsMixture(BACK, zb, out, nOut);
    gibbsLabels();
    rebuild();
    for (let i = 0; i < p; i++) updateBeta(i);
    for (let jmp = 0; jmp < s.jumps; jmp++) {
      const { proposal: prop, logFactor } = jump(rng, null);
      const logRatio =
        logFactor === Number.NEGATIVE_INFINITY
          ? logFactor
          : prop.logLikRatio +
            logPS[I + (prop.kind === BIRTH ? 1 : prop.kind === DEATH ? -1 : 0)] -
            logPS[I] +
            logFactor;
      tried[prop.kind]++;
      if (metropolisHastings(rng, logRatio).accepted) {
        acceptedMoves[prop.kind]++;
        accept(prop);
        key = subsetKey();
      }
    }
    tried[SWAP]++;
    if (swap()) {
      acceptedMoves[SWAP]++;
      key = subsetKey();
    }
    // caches for the new β (and for the next scan and the predictions)
    for (let i = 0; i < p; i++) {
      for (let d = 0; d < D; d++) {
        refresh(CLASS, i, d);
        refresh(BACK, i, d);
      }
    }
    if (sweep >= s.burnIn) {
      keys[sweep - s.burnIn] = key;
      // test predictions from every PREDICT_EVERY-th kept sweep (neighbouring sweeps are correlated)
      if ((sweep - s.burnIn) % PREDICT_EVERY === 0) predict();
    }
    onSweep(sweep + 1);
  }
  return { keys, testProb, tried, accepted: acceptedMoves };
}

/**
 * Runs one chain of the shared-allocation model on labelled (label −1: unlabelled) training data;
 * called by {@link fitMixtureClassifier} with `structure: "shared"`.
 */
export function runSharedChain(
  data: ClassificationData,
  s: Settings,
  test: { readonly X: Float64Array; readonly n: number } | undefined,
  rng: Rng,
  initialInputs: readonly number[] | undefined,
  onSweep: (sweep: number) => void,
): ChainResult {
  return chain(prepareShared(data, s, test), rng, initialInputs, onSweep);
}
