/**
 * The insertion-rank test of nested sampling (Fowlie, Handley & Su 2020, MNRAS 497, 5256): when each
 * new point is a true draw from the prior above the bound, its likelihood's rank among the other live
 * points is uniform on 0 … K − 1. Constrained draws that remember their start (slice moves too short
 * to mix) or bounds that cut off part of the region make the ranks pile up, and bias log Z; a
 * Kolmogorov–Smirnov test of the ranks over the run detects it without knowing log Z.
 */

/** The ranks of the new points of one run with K live points. */
export class InsertionRanks {
  /** counts[r]: new points with r other live points below them. */
  readonly counts: Int32Array;
  total = 0;

  constructor(readonly livePoints: number) {
    this.counts = new Int32Array(livePoints);
  }

  /** Adds the rank of log L among the live log likelihoods `logL`, leaving out entry `skip` (the dead point). */
  add(logL: number, live: Float64Array, skip: number): void {
    let r = 0;
    for (let i = 0; i < live.length; i++) if (i !== skip && live[i] < logL) r++;
    this.counts[Math.min(r, this.livePoints - 1)]++;
    this.total++;
  }

  /**
   * The KS distance between the ranks' distribution and the uniform one on 0 … K − 1 (compared at the
   * steps of the discrete distribution), and its asymptotic p-value (null before 100 ranks).
   */
  test(): { statistic: number; pValue: number | null } {
    const k = this.livePoints;
    const n = this.total;
    if (n === 0) return { statistic: 0, pValue: null };
    let below = 0;
    let d = 0;
    for (let j = 0; j < k; j++) {
      below += this.counts[j];
      d = Math.max(d, Math.abs(below / n - (j + 1) / k));
    }
    return {
      statistic: d,
      pValue: n < 100 ? null : kolmogorovTail((Math.sqrt(n) + 0.12 + 0.11 / Math.sqrt(n)) * d),
    };
  }
}

/**
 * P(K > λ) for Kolmogorov's distribution, 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²λ²}, with Stephens' small-sample
 * correction applied to λ by the caller (as Numerical Recipes' probks). Written out rather than
 * imported: it is six lines, and the discrete ranks are compared at their own steps, not by a library's
 * continuous test.
 */
export function kolmogorovTail(lambda: number): number {
  if (lambda < 0.2) return 1;
  let sum = 0;
  for (let j = 1; j <= 100; j++) {
    const term = Math.exp(-2 * j * j * lambda * lambda);
    sum += (j % 2 === 1 ? 1 : -1) * term;
    if (term < 1e-16) break;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}
