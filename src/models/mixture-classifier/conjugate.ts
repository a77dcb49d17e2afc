/**
 * What both chains of the input-selecting mixture classifier share: the inputs standardised as
 * Sykacek does, the rows whose labels are known, the subset prior, tables of the log-gamma terms of the
 * collapsed Normal–Gamma kernels and Dirichlet–multinomial weights, the random walk on log β_i, and a
 * draw from unnormalised log probabilities.
 */

import { OccamError } from "../../errors.js";
import { LOG_2PI, LOG_PI } from "../../math/constants.js";
import { logSumExp } from "../../math/logspace.js";
import { gammaln } from "../../math/stdlib.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "./data.js";

/** Test predictions are averaged over every PREDICT_EVERY-th kept sweep (neighbouring sweeps are correlated). */
export const PREDICT_EVERY = 10;

/** Inputs on Sykacek's scale: u_i = (x_i − ξ_i)/R_i, ξ_i the midpoint and R_i the range of input i. */
export interface StandardisedInputs {
  /** Training inputs, n × p row-major. */
  readonly u: Float64Array;
  /** Test inputs, m × p row-major, on the training scale; null without test data. */
  readonly testU: Float64Array | null;
}

/**
 * Standardises the training (and test) inputs by the training midpoints and ranges. Throws
 * `invalid-data` for a constant input, which carries no information and has no range to scale by.
 */
export function standardiseInputs(
  data: ClassificationData,
  test: { readonly X: Float64Array; readonly n: number } | undefined,
): StandardisedInputs {
  const { n, p, X } = data;
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
  }
  const scale = (source: Float64Array, rows: number): Float64Array => {
    const out = new Float64Array(rows * p);
    for (let r = 0; r < rows; r++) {
      for (let i = 0; i < p; i++) out[r * p + i] = (source[r * p + i] - xi[i]) / R[i];
    }
    return out;
  };
  return { u: scale(X, n), testU: test ? scale(test.X, test.n) : null };
}

/** 1 for a row whose label is known, 0 for one labelled −1, whose class the chain samples. */
export function labelledRows(labels: Int32Array): Uint8Array {
  const labelled = new Uint8Array(labels.length);
  for (let r = 0; r < labels.length; r++) labelled[r] = labels[r] >= 0 ? 1 : 0;
  return labelled;
}

/**
 * log p(S) by subset size I = 0 … p: TruncatedPoisson(I; c, minInputs … p) / C(p, I) (Sykacek's prior
 * as SEEDS.md corrects it), −Infinity below `minInputs`.
 */
export function logSubsetPrior(p: number, c: number, minInputs: number): Float64Array {
  const logPS = new Float64Array(p + 1).fill(Number.NEGATIVE_INFINITY);
  let norm = 0;
  for (let I = minInputs; I <= p; I++) norm += Math.exp(I * Math.log(c) - gammaln(I + 1) - c);
  for (let I = minInputs; I <= p; I++) {
    const logChoose = gammaln(p + 1) - gammaln(I + 1) - gammaln(p - I + 1);
    logPS[I] = I * Math.log(c) - gammaln(I + 1) - c - Math.log(norm) - logChoose;
  }
  return logPS;
}

/** Log-gamma tables indexed by a count c = 0 … n. */
export interface CountTables {
  /** gammaln(a + c/2): the Normal–Gamma evidence of c points. */
  readonly lgA: Float64Array;
  /** gammaln(a + c/2 + 1/2) − gammaln(a + c/2): the Student-t predictive's constant. */
  readonly lgRatio: Float64Array;
  /** log(c + δ_w): a Dirichlet–multinomial predictive's numerator. */
  readonly logCountW: Float64Array;
  /** gammaln(c + δ_w): a Dirichlet–multinomial's factors. */
  readonly lgCountW: Float64Array;
  /** log(c + D δ_w): a Dirichlet–multinomial predictive's denominator. */
  readonly logTotal: Float64Array;
}

/** Tabulates {@link CountTables} for counts 0 … n, kernel-precision shape a, D kernels and prior count δ_w. */
export function countTables(n: number, a: number, D: number, deltaW: number): CountTables {
  const lgA = new Float64Array(n + 1);
  const lgRatio = new Float64Array(n + 1);
  const logCountW = new Float64Array(n + 1);
  const lgCountW = new Float64Array(n + 1);
  const logTotal = new Float64Array(n + 1);
  for (let c = 0; c <= n; c++) {
    lgA[c] = gammaln(a + 0.5 * c);
    lgRatio[c] = gammaln(a + 0.5 * c + 0.5) - lgA[c];
    logCountW[c] = Math.log(c + deltaW);
    lgCountW[c] = gammaln(c + deltaW);
    logTotal[c] = Math.log(c + D * deltaW);
  }
  return { lgA, lgRatio, logCountW, lgCountW, logTotal };
}

/**
 * The collapsed Normal–Gamma kernels of one input's values u: μ | λ ~ N(0, 1/(κ₀ λ)), λ ~ Gamma(a, β).
 * Holds the Student-t predictive cache of every kernel (at an index of the caller's choosing): for a
 * new value u, log p(u) = C0 − (a + c/2 + 1/2) log(1 + Qc (u − M)²), c the kernel's count.
 */
export class NormalGammaKernels {
  /** Predictive centre Σu/κ_n, κ_n = κ₀ + c. */
  readonly M: Float64Array;
  /** Predictive scale κ_n / (2 b_n (κ_n + 1)), b_n = β + (Σu² − κ_n M²)/2. */
  readonly Qc: Float64Array;
  /** log Γ(a + c/2 + 1/2) − log Γ(a + c/2) + ½ log(Qc/π). */
  readonly C0: Float64Array;
  private readonly logKappa0: number;

  constructor(
    size: number,
    private readonly a: number,
    private readonly kappa0: number,
    private readonly tables: CountTables,
  ) {
    this.M = new Float64Array(size);
    this.Qc = new Float64Array(size);
    this.C0 = new Float64Array(size);
    this.logKappa0 = Math.log(kappa0);
  }

  /** Updates the cache at j for a kernel holding `count` values with sum Σu and Σu², at β. */
  refresh(j: number, count: number, sum: number, sumSq: number, beta: number): void {
    const kn = this.kappa0 + count;
    const mn = sum / kn;
    const bn = beta + Math.max(0, 0.5 * (sumSq - sum * mn));
    const q = kn / (2 * bn * (kn + 1));
    this.M[j] = mn;
    this.Qc[j] = q;
    this.C0[j] = this.tables.lgRatio[count] + 0.5 * (Math.log(q) - LOG_PI);
  }

  /** log ∫ Π N(u; μ, 1/λ) dNormalGamma(μ, λ | κ₀, a, β): the evidence of one kernel's values. */
  logEvidence(count: number, sum: number, sumSq: number, beta: number): number {
    if (count === 0) return 0;
    const { a, kappa0 } = this;
    const kn = kappa0 + count;
    const bn = beta + Math.max(0, 0.5 * (sumSq - (sum * sum) / kn));
    const lgA = this.tables.lgA;
    return (
      lgA[count] -
      lgA[0] +
      a * Math.log(beta) -
      (a + 0.5 * count) * Math.log(bn) +
      0.5 * (this.logKappa0 - Math.log(kn)) -
      0.5 * count * LOG_2PI
    );
  }
}

/**
 * The random-walk Metropolis step on log β_i of both chains, under β_i ~ Gamma(g, h) truncated to
 * β_i ≥ β_min. The proposal and the prior's part of the acceptance ratio are here; the chain adds its
 * evidence ratio, which is what differs between the structures.
 */
export class LogBetaWalk {
  /** Where every β_i starts: the prior mean g/h, or β_min when that is below it. */
  readonly start: number;

  constructor(
    private readonly betaMin: number,
    private readonly g: number,
    private readonly h: number,
  ) {
    this.start = Math.max(betaMin, g / h);
  }

  /** β′ = β e^{ε/2}, ε ~ N(0, 1) (one normal drawn). */
  propose(rng: Rng, beta: number): number {
    return beta * Math.exp(0.5 * rng.normal());
  }

  /** Whether β′ is inside the truncation: outside it the step is rejected without the evidence. */
  allows(beta: number): boolean {
    return beta >= this.betaMin;
  }

  /** The prior's (g − 1) log(β′/β) − h (β′ − β), plus log(β′/β) from the Jacobian of the log scale. */
  logPriorRatio(b0: number, b1: number): number {
    return this.g * Math.log(b1 / b0) - this.h * (b1 - b0);
  }
}

/**
 * Adds the probabilities ∝ exp(logp[0 … K)) to out[offset … offset + K): one test row's class
 * probabilities at one draw, accumulated over draws.
 */
export function addNormalised(logp: Float64Array, K: number, out: Float64Array, offset: number): void {
  const logTotal = logSumExp(logp, 0, K);
  for (let k = 0; k < K; k++) out[offset + k] += Math.exp(logp[k] - logTotal);
}

function maxOf(values: Float64Array, to: number): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let q = 0; q < to; q++) if (values[q] > max) max = values[q];
  return max;
}

/**
 * Draws an index in [0, to) with probability ∝ exp(logits[q]); overwrites `logits`. `max`, the largest
 * logit, may be given when the caller has it.
 */
export function drawFromLogits(rng: Rng, logits: Float64Array, to: number, max = maxOf(logits, to)): number {
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
