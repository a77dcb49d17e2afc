import gammaln from "@stdlib/math-base-special-gammaln";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../../src/errors.js";
import type { ClassificationData } from "../../../src/models/mixture-classifier/data.js";
import { fitMixtureClassifier } from "../../../src/models/mixture-classifier/sampler.js";

function table(columns: number[][], labels: number[], classes = ["a", "b"]): ClassificationData {
  const n = labels.length;
  const p = columns.length;
  const X = new Float64Array(n * p);
  for (let r = 0; r < n; r++) for (let i = 0; i < p; i++) X[r * p + i] = columns[i][r];
  return {
    X,
    labels: Int32Array.from(labels),
    n,
    p,
    inputNames: columns.map((_, i) => `x${i + 1}`),
    classNames: classes,
  };
}

/** log p(S) = log TruncatedPoisson(|S|; c, 1..p) − log C(p, |S|). */
function logSubsetPrior(size: number, p: number, c: number): number {
  let norm = 0;
  for (let j = 1; j <= p; j++) norm += Math.exp(j * Math.log(c) - gammaln(j + 1));
  const logChoose = gammaln(p + 1) - gammaln(size + 1) - gammaln(p - size + 1);
  return size * Math.log(c) - gammaln(size + 1) - Math.log(norm) - logChoose;
}

/** Frequencies of each subset key in the trace, with batch-means standard errors. */
function frequencies(trace: Int32Array, visited: readonly (readonly number[])[], batches: number) {
  const size = Math.floor(trace.length / batches);
  const out = new Map<string, { mean: number; se: number }>();
  const keys = visited.map((v) => v.join(","));
  for (const key of new Set(keys)) {
    const batchMeans: number[] = [];
    for (let b = 0; b < batches; b++) {
      let c = 0;
      for (let t = b * size; t < (b + 1) * size; t++) if (keys[trace[t]] === key) c++;
      batchMeans.push(c / size);
    }
    const mean = batchMeans.reduce((s, v) => s + v, 0) / batches;
    const sd = Math.sqrt(batchMeans.reduce((s, v) => s + (v - mean) ** 2, 0) / (batches - 1));
    out.set(key, { mean, se: sd / Math.sqrt(batches) });
  }
  return out;
}

function allSubsets(p: number): number[][] {
  const out: number[][] = [];
  for (let mask = 1; mask < 1 << p; mask++) {
    const s: number[] = [];
    for (let i = 0; i < p; i++) if (mask & (1 << i)) s.push(i);
    out.push(s);
  }
  return out;
}

describe("fitMixtureClassifier: detailed balance of the reversible-jump moves", () => {
  it("visits subsets with the exact posterior probabilities (one kernel, enumerable)", () => {
    // With one kernel the class mixture and the background are the same Gaussian model with the same
    // prior, so every input has the same marginal likelihood in S as outside it and p(S | D) = p(S)
    // exactly. The moves still see the data: their proposals are the data-driven conditionals, whose
    // densities must cancel correctly in the acceptance ratios (drop one and the sizes drift).
    const x1 = [-2.1, -1.9, -2.0, -1.7, 1.8, 2.2, 1.9, 2.05];
    const x2 = [0.1, 0.3, -0.2, 0.0, 0.5, 1.6, -0.4, 0.2];
    const x3 = [1.2, -0.7, 0.3, 0.9, -1.1, 0.4, -0.2, 0.6];
    const labels = [0, 1, 0, 1, 0, 1, 0, 1];
    const c = 1.5;
    const p = 3;
    const fit = fitMixtureClassifier(table([x1, x2, x3], labels), {
      kernels: 1,
      poissonMean: c,
      resolution: 0,
      jumpsPerSweep: 1,
      draws: 41000,
      burnIn: 1000,
      seed: 7,
    });
    const freq = frequencies(fit.subsetTrace, fit.visited, 40);
    for (const s of allSubsets(p)) {
      const prob = Math.exp(logSubsetPrior(s.length, p, c));
      const f = freq.get(s.join(",")) ?? { mean: 0, se: 0 };
      expect(f.se).toBeLessThan(0.02);
      expect(Math.abs(f.mean - prob)).toBeLessThan(4 * Math.max(f.se, 1e-4));
    }
  });

  it("leaves the subset prior invariant with three kernels", () => {
    // Without the likelihood the subset marginal is the prior p(S); the acceptance carries the
    // kernel priors of the moved input in both mixtures and the proposal densities (here the priors),
    // and any error in them shifts the distribution of |S|.
    const n = 30;
    const cols = [0, 1, 2, 3].map((i) =>
      Array.from({ length: n }, (_, r) => Math.sin(r * (i + 1.3)) + 0.1 * r),
    );
    const labels = Array.from({ length: n }, (_, r) => r % 2);
    const p = 4;
    const c = 2;
    const fit = fitMixtureClassifier(table(cols, labels), {
      kernels: 3,
      deltaW: 2,
      poissonMean: c,
      draws: 21000,
      burnIn: 1000,
      seed: 11,
      sampleFromPrior: true,
    });
    const freq = frequencies(fit.subsetTrace, fit.visited, 40);
    for (const s of allSubsets(p)) {
      const prob = Math.exp(logSubsetPrior(s.length, p, c));
      const f = freq.get(s.join(",")) ?? { mean: 0, se: 0 };
      expect(f.se).toBeLessThan(0.02);
      expect(Math.abs(f.mean - prob)).toBeLessThan(4 * Math.max(f.se, 1e-4));
    }
  });
});

describe("fitMixtureClassifier: bad input", () => {
  const cols = [
    [1, 2, 3, 4, 5, 6],
    [0.5, 0.1, 0.7, 0.2, 0.9, 0.3],
  ];
  it("refuses a single class", () => {
    expect(() => fitMixtureClassifier(table(cols, [0, 0, 0, 0, 0, 0]))).toThrow(/at least two/);
  });
  it("refuses more kernels than rows", () => {
    expect(() => fitMixtureClassifier(table(cols, [0, 1, 0, 1, 0, 1]), { kernels: 7 })).toThrow(OccamError);
  });
  it("refuses a constant input", () => {
    expect(() => fitMixtureClassifier(table([cols[0], [1, 1, 1, 1, 1, 1]], [0, 1, 0, 1, 0, 1]))).toThrow(
      /constant/,
    );
  });
});
