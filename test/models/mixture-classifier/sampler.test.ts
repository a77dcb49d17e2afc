import gammaln from "@stdlib/math-base-special-gammaln";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../../src/errors.js";
import type { ClassificationData } from "../../../src/models/mixture-classifier/data.js";
import { fitMixtureClassifier } from "../../../src/models/mixture-classifier/sampler.js";
import { RegressionBackground } from "../../../src/models/mixture-classifier/shared-chain.js";

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

/** log p(S) = log TruncatedPoisson(|S|; c, minInputs..p) − log C(p, |S|). */
function logSubsetPrior(size: number, p: number, c: number, minInputs = 1): number {
  let norm = 0;
  for (let j = minInputs; j <= p; j++) norm += Math.exp(j * Math.log(c) - gammaln(j + 1));
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

function allSubsets(p: number, minInputs = 1): number[][] {
  const out: number[][] = [];
  for (let mask = minInputs === 0 ? 0 : 1; mask < 1 << p; mask++) {
    const s: number[] = [];
    for (let i = 0; i < p; i++) if (mask & (1 << i)) s.push(i);
    out.push(s);
  }
  return out;
}

function logSumExp(values: number[]): number {
  const max = Math.max(...values);
  return max + Math.log(values.reduce((acc, x) => acc + Math.exp(x - max), 0));
}

/**
 * The exact posterior over subsets of the collapsed model, by enumeration: given the labels, inputs
 * are independent, so p(S | t, x) ∝ p(S) Π_{i∈S} Z_class(i) Π_{i∉S} Z_back(i), where Z sums over all D^n
 * allocations of input i the Dirichlet–multinomial prior (class-specific or pooled weights) times the
 * Normal–Gamma evidence, integrated over β ~ Gamma(g, h) by quadrature on log β. Written from the
 * model's definition, independently of the sampler.
 */
function exactPosteriorPerInput(
  columns: number[][],
  labels: number[],
  o: { D: number; a: number; g: number; h: number; kappa0: number; deltaW: number; c: number },
): Map<string, number> {
  const n = labels.length;
  const p = columns.length;
  const K = Math.max(...labels) + 1;
  const { D, a, g, h, kappa0, deltaW } = o;
  const grid: number[] = [];
  for (let t = -25; t <= 8; t += 0.05) grid.push(t);
  const logZ = (col: number[], classes: boolean): number => {
    const lo = Math.min(...col);
    const hi = Math.max(...col);
    const u = col.map((x) => (x - 0.5 * (lo + hi)) / (hi - lo));
    const terms: number[] = [];
    const z = new Array(n).fill(0);
    for (let code = 0; code < D ** n; code++) {
      let v = code;
      for (let r = 0; r < n; r++) {
        z[r] = v % D;
        v = Math.floor(v / D);
      }
      // allocation prior
      let lp = 0;
      const groups = classes ? K : 1;
      for (let k = 0; k < groups; k++) {
        const counts = new Array(D).fill(0);
        let total = 0;
        for (let r = 0; r < n; r++) {
          if (classes && labels[r] !== k) continue;
          counts[z[r]]++;
          total++;
        }
        lp += gammaln(D * deltaW) - gammaln(total + D * deltaW);
        for (const m of counts) lp += gammaln(m + deltaW) - gammaln(deltaW);
      }
      // kernel statistics
      const cnt = new Array(D).fill(0);
      const s1 = new Array(D).fill(0);
      const s2 = new Array(D).fill(0);
      for (let r = 0; r < n; r++) {
        cnt[z[r]]++;
        s1[z[r]] += u[r];
        s2[z[r]] += u[r] * u[r];
      }
      // ∫ evidence(β) Gamma(β; g, h) dβ on a grid in log β
      const vals: number[] = [];
      for (const t of grid) {
        const b = Math.exp(t);
        let le = g * Math.log(h) - gammaln(g) + g * t - h * b;
        for (let d = 0; d < D; d++) {
          if (cnt[d] === 0) continue;
          const kn = kappa0 + cnt[d];
          const bn = b + 0.5 * (s2[d] - (s1[d] * s1[d]) / kn);
          const an = a + 0.5 * cnt[d];
          le +=
            gammaln(an) -
            gammaln(a) +
            a * Math.log(b) -
            an * Math.log(bn) +
            0.5 * Math.log(kappa0 / kn) -
            0.5 * cnt[d] * Math.log(2 * Math.PI);
        }
        vals.push(le);
      }
      const max = Math.max(...vals);
      terms.push(lp + max + Math.log(vals.reduce((acc, x) => acc + Math.exp(x - max), 0) * 0.05));
    }
    const max = Math.max(...terms);
    return max + Math.log(terms.reduce((acc, x) => acc + Math.exp(x - max), 0));
  };
  const zc = columns.map((col) => logZ(col, true));
  const zb = columns.map((col) => logZ(col, false));
  const logPost = allSubsets(p).map((S) => {
    let lp = logSubsetPrior(S.length, p, o.c);
    for (let i = 0; i < p; i++) lp += S.includes(i) ? zc[i] : zb[i];
    return lp;
  });
  const max = Math.max(...logPost);
  const norm = logPost.reduce((acc, x) => acc + Math.exp(x - max), 0);
  return new Map(allSubsets(p).map((S, q) => [S.join(","), Math.exp(logPost[q] - max) / norm]));
}

/** log det and xᵀ A⁻¹ x of a small symmetric positive definite matrix, by a plain Cholesky. */
function logDetAndQuadratic(A: number[][], x: number[]): { logDet: number; quad: number } {
  const n = x.length;
  const L = A.map(() => new Array(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let v = A[i][j];
      for (let k = 0; k < j; k++) v -= L[i][k] * L[j][k];
      L[i][j] = i === j ? Math.sqrt(v) : v / L[j][j];
    }
  }
  const y = new Array(n).fill(0);
  let quad = 0;
  let logDet = 0;
  for (let i = 0; i < n; i++) {
    let v = x[i];
    for (let k = 0; k < i; k++) v -= L[i][k] * y[k];
    y[i] = v / L[i][i];
    quad += y[i] * y[i];
    logDet += 2 * Math.log(L[i][i]);
  }
  return { logDet, quad };
}

/**
 * log p(u_j | u_S, β) of the background's regression, from the marginal covariance written out as an
 * n × n matrix: u_j | λ ~ N(0, λ⁻¹(I + 11ᵀ/κ₀ + n X_c(X_cᵀX_c)⁻¹X_cᵀ)), λ ~ Gamma(a, β). S must have
 * linearly independent centred columns.
 */
function regressionLogEvidence(
  us: number[][],
  j: number,
  S: number[],
  b: number,
  a: number,
  kappa0: number,
): number {
  const n = us[j].length;
  // centred regressors and the projection on their span
  const Xc = S.map((i) => {
    const mean = us[i].reduce((acc, v) => acc + v, 0) / n;
    return us[i].map((v) => v - mean);
  });
  const gram = Xc.map((xi) => Xc.map((xk) => xi.reduce((acc, v, r) => acc + v * xk[r], 0)));
  // column q of the projection X_c (X_cᵀX_c)⁻¹ X_cᵀ
  const projection = Array.from({ length: n }, (_, q) => {
    const w = solveSmall(
      gram,
      Xc.map((xi) => xi[q]),
    );
    return Array.from({ length: n }, (__, r) => Xc.reduce((acc, xi, i) => acc + xi[r] * w[i], 0));
  });
  const cov = Array.from({ length: n }, (_, r) =>
    Array.from({ length: n }, (__, q) => (r === q ? 1 : 0) + 1 / kappa0 + n * projection[q][r]),
  );
  const { logDet, quad } = logDetAndQuadratic(cov, us[j]);
  return (
    -0.5 * n * Math.log(2 * Math.PI) -
    0.5 * logDet +
    gammaln(a + 0.5 * n) -
    gammaln(a) +
    a * Math.log(b) -
    (a + 0.5 * n) * Math.log(b + 0.5 * quad)
  );
}

/**
 * The exact posterior over subsets of the shared-kernel model, by enumeration:
 * p(S | t, x) ∝ p(S) [Σ_z DM(z | t) Π_{i∈S} E_i(z)] Π_{j∉S} R_j(S), where DM is the class-specific
 * Dirichlet–multinomial of the allocations, E_i(z) the Normal–Gamma evidence of input i grouped by z
 * and R_j(S) the evidence of input j's regression on the inputs in S, each integrated over its own
 * β ~ Gamma(g, h) by quadrature on log β. The sum runs over all D^n allocations; R_j(S) is computed from
 * the marginal covariance of u_j written out as a matrix, u_j | λ ~ N(0, λ⁻¹(I + 11ᵀ/κ₀ + n X_c(X_cᵀX_c)⁻¹X_cᵀ)),
 * λ ~ Gamma(a, β). Written from the model's definition, independently of the sampler.
 */
function exactPosteriorShared(
  columns: number[][],
  labels: number[],
  o: { D: number; a: number; g: number; h: number; kappa0: number; deltaW: number; c: number },
  minInputs = 1,
): Map<string, number> {
  const n = labels.length;
  const p = columns.length;
  const { D, a, g, h, kappa0, deltaW } = o;
  const grid: number[] = [];
  for (let t = -25; t <= 8; t += 0.05) grid.push(t);
  const us = columns.map((col) => {
    const lo = Math.min(...col);
    const hi = Math.max(...col);
    return col.map((x) => (x - 0.5 * (lo + hi)) / (hi - lo));
  });
  /** log ∫ exp(f(β)) Gamma(β; g, h) dβ on the grid in log β. */
  const overBeta = (f: (b: number) => number): number =>
    logSumExp(grid.map((t) => g * Math.log(h) - gammaln(g) + g * t - h * Math.exp(t) + f(Math.exp(t)))) +
    Math.log(0.05);
  const logDM = (z: number[]): number => {
    let lp = 0;
    for (const k of new Set(labels)) {
      const counts = new Array(D).fill(0);
      let total = 0;
      for (let r = 0; r < n; r++) {
        if (labels[r] !== k) continue;
        counts[z[r]]++;
        total++;
      }
      lp += gammaln(D * deltaW) - gammaln(total + D * deltaW);
      for (const m of counts) lp += gammaln(m + deltaW) - gammaln(deltaW);
    }
    return lp;
  };
  const kernelEvidence = (u: number[], z: number[]): number => {
    const cnt = new Array(D).fill(0);
    const s1 = new Array(D).fill(0);
    const s2 = new Array(D).fill(0);
    for (let r = 0; r < n; r++) {
      cnt[z[r]]++;
      s1[z[r]] += u[r];
      s2[z[r]] += u[r] * u[r];
    }
    return overBeta((b) => {
      let le = 0;
      for (let d = 0; d < D; d++) {
        if (cnt[d] === 0) continue;
        const kn = kappa0 + cnt[d];
        const an = a + 0.5 * cnt[d];
        le +=
          gammaln(an) -
          gammaln(a) +
          a * Math.log(b) -
          an * Math.log(b + 0.5 * (s2[d] - (s1[d] * s1[d]) / kn)) +
          0.5 * Math.log(kappa0 / kn) -
          0.5 * cnt[d] * Math.log(2 * Math.PI);
      }
      return le;
    });
  };
  const regressionEvidence = (j: number, S: number[]): number =>
    overBeta((b) => regressionLogEvidence(us, j, S, b, a, kappa0));
  const classDM: number[] = [];
  const evidence: number[][] = columns.map(() => []);
  for (let code = 0; code < D ** n; code++) {
    const z: number[] = [];
    let v = code;
    for (let r = 0; r < n; r++) {
      z.push(v % D);
      v = Math.floor(v / D);
    }
    classDM.push(logDM(z));
    for (let i = 0; i < p; i++) evidence[i].push(kernelEvidence(us[i], z));
  }
  const subsets = allSubsets(p, minInputs);
  const logPost = subsets.map((S) => {
    let lp =
      logSubsetPrior(S.length, p, o.c, minInputs) +
      logSumExp(classDM.map((l, code) => l + S.reduce((acc, i) => acc + evidence[i][code], 0)));
    for (let j = 0; j < p; j++) if (!S.includes(j)) lp += regressionEvidence(j, S);
    return lp;
  });
  const norm = logSumExp(logPost);
  return new Map(subsets.map((S, q) => [S.join(","), Math.exp(logPost[q] - norm)]));
}

/** Solves a small linear system by Gaussian elimination with partial pivoting. */
function solveSmall(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[piv][c])) piv = r;
    [M[c], M[piv]] = [M[piv], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = M[r][n];
    for (let k = r + 1; k < n; k++) v -= M[r][k] * x[k];
    x[r] = v / M[r][r];
  }
  return x;
}

describe("RegressionBackground: the shared structure's model of the unselected inputs", () => {
  // Means far from 0 and κ₀ = 2 make the intercept's term count; x4 duplicates x1 (scaled), so a
  // subset holding both spans what x1 alone does and the slope penalty must count one regressor.
  const x1 = [0.1, 0.9, 0.4, 0.8, 0.3, 0.7, 0.95, 0.2, 0.5];
  const x2 = [0.6, 0.2, 0.9, 0.1, 0.8, 0.75, 0.3, 0.4, 0.55];
  const x3 = [0.5, 0.7, 0.65, 0.9, 0.55, 0.6, 0.85, 0.52, 0.7];
  const x4 = x1.map((v) => 2 * v);
  const us = [x1, x2, x3, x4];
  const n = x1.length;
  const p = us.length;
  const u = new Float64Array(n * p);
  for (let r = 0; r < n; r++) for (let i = 0; i < p; i++) u[r * p + i] = us[i][r];
  const a = 2;
  const kappa0 = 2;
  const background = new RegressionBackground(u, n, p, a, kappa0);
  const Q = new Float64Array(p);
  it.each([
    [[], [], 0],
    [[0], [0], 1],
    [[1, 2], [1, 2], 2],
    [[0, 3], [0], 1],
    [[0, 1, 3], [0, 1], 2],
  ])("matches the evidence of the regression written out as matrices (S = %j)", (S, independent, rank) => {
    const inS = new Uint8Array(p);
    for (const i of S) inS[i] = 1;
    expect(background.quadratics(inS, Q)).toBe(rank);
    for (let j = 0; j < p; j++) {
      if (inS[j]) continue;
      for (const b of [0.05, 0.7]) {
        const expected = regressionLogEvidence(us, j, independent, b, a, kappa0);
        expect(Math.abs(background.evidence(Q[j], b, rank) - expected)).toBeLessThan(
          1e-9 * Math.abs(expected),
        );
      }
    }
  });
});

describe("fitMixtureClassifier: detailed balance of the reversible-jump moves", () => {
  // x1 separates the classes, x2 is mildly bimodal and class-independent, x3 is noise: the posterior over
  // the subsets is far from the prior, so a wrong move-choice, prior or evidence term shows.
  // minInputs 0 also visits S = ∅ (every input a Gaussian) besides ¬S = ∅ (S = every input). The
  // background's regressions on the selected inputs enter every ratio, so a wrong regression
  // evidence shows as well as a wrong kernel evidence.
  it.each([1, 0] as const)(
    "visits subsets with the exact posterior probabilities (shared structure, minInputs %i)",
    (minInputs) => {
      const x1 = [-2.1, -1.9, -2.0, -1.7, 1.8, 2.2, 1.9, 2.05];
      const x2 = [0.1, 1.3, -0.2, 1.0, 0.5, 1.6, -0.4, 1.2];
      const x3 = [1.2, -0.7, 0.3, 0.9, -1.1, 0.4, -0.2, 0.6];
      const labels = [0, 0, 0, 0, 1, 1, 1, 1];
      const o = { D: 2, a: 2, g: 0.2, h: 0.25, kappa0: 0.05, deltaW: 1, c: 1.5 };
      const exact = exactPosteriorShared([x1, x2, x3], labels, o, minInputs);
      const fit = fitMixtureClassifier(table([x1, x2, x3], labels), {
        kernels: o.D,
        kappa0: o.kappa0,
        h: o.h,
        poissonMean: o.c,
        minInputs,
        structure: "shared",
        resolution: 0,
        jumpsPerSweep: 1,
        draws: 41000,
        burnIn: 1000,
        seed: 7,
      });
      const freq = frequencies(fit.subsetTrace, fit.visited, 40);
      let far = 0;
      for (const s of allSubsets(3, minInputs)) {
        const prob = exact.get(s.join(",")) as number;
        const f = freq.get(s.join(",")) ?? { mean: 0, se: 0 };
        expect(f.se).toBeLessThan(0.03);
        far = Math.max(far, Math.abs(prob - Math.exp(logSubsetPrior(s.length, 3, o.c, minInputs))));
        expect(Math.abs(f.mean - prob)).toBeLessThan(4 * Math.max(f.se, 2e-3));
      }
      // the check has power: the posterior differs from the prior by far more than the tolerance
      expect(far).toBeGreaterThan(0.1);
    },
  );

  it("visits subsets with the exact posterior probabilities (per-input structure, two kernels)", () => {
    // x1 separates the classes, x2 is bimodal but class-independent, x3 is noise: the posterior
    // over the 7 subsets is far from the prior, so a wrong move-choice or prior term shows.
    const x1 = [-2.1, -1.9, -2.0, -1.7, 1.8, 2.2, 1.9, 2.05];
    const x2 = [0.1, 3.3, -0.2, 3.0, 0.5, 3.6, -0.4, 3.2];
    const x3 = [1.2, -0.7, 0.3, 0.9, -1.1, 0.4, -0.2, 0.6];
    const labels = [0, 0, 0, 0, 1, 1, 1, 1];
    const o = { D: 2, a: 2, g: 0.2, h: 0.25, kappa0: 0.05, deltaW: 1, c: 1.5 };
    const exact = exactPosteriorPerInput([x1, x2, x3], labels, o);
    const fit = fitMixtureClassifier(table([x1, x2, x3], labels), {
      kernels: o.D,
      kappa0: o.kappa0,
      h: o.h,
      poissonMean: o.c,
      structure: "per-input",
      resolution: 0,
      jumpsPerSweep: 1,
      draws: 41000,
      burnIn: 1000,
      seed: 7,
    });
    const freq = frequencies(fit.subsetTrace, fit.visited, 40);
    let far = 0;
    for (const s of allSubsets(3)) {
      const prob = exact.get(s.join(",")) as number;
      const f = freq.get(s.join(",")) ?? { mean: 0, se: 0 };
      expect(f.se).toBeLessThan(0.03);
      far = Math.max(far, Math.abs(prob - Math.exp(logSubsetPrior(s.length, 3, o.c))));
      expect(Math.abs(f.mean - prob)).toBeLessThan(4 * Math.max(f.se, 2e-3));
    }
    // the check has power: the posterior differs from the prior by far more than the tolerance
    expect(far).toBeGreaterThan(0.1);
  });

  it.each(["per-input"] as const)(
    "visits subsets with the prior probabilities when one kernel makes every input uninformative (%s structure)",
    (structure) => {
      // With one kernel every row is in the same kernel in and out of S, so every input has the same
      // evidence in S as outside it and p(S | D) = p(S) exactly.
      const x1 = [-2.1, -1.9, -2.0, -1.7, 1.8, 2.2, 1.9, 2.05];
      const x2 = [0.1, 0.3, -0.2, 0.0, 0.5, 1.6, -0.4, 0.2];
      const x3 = [1.2, -0.7, 0.3, 0.9, -1.1, 0.4, -0.2, 0.6];
      const labels = [0, 1, 0, 1, 0, 1, 0, 1];
      const c = 1.5;
      const fit = fitMixtureClassifier(table([x1, x2, x3], labels), {
        kernels: 1,
        structure,
        poissonMean: c,
        jumpsPerSweep: 1,
        draws: 21000,
        burnIn: 1000,
        seed: 11,
      });
      const freq = frequencies(fit.subsetTrace, fit.visited, 40);
      for (const s of allSubsets(3)) {
        const prob = Math.exp(logSubsetPrior(s.length, 3, c));
        const f = freq.get(s.join(",")) ?? { mean: 0, se: 0 };
        expect(f.se).toBeLessThan(0.03);
        expect(Math.abs(f.mean - prob)).toBeLessThan(4 * Math.max(f.se, 2e-3));
      }
    },
  );

  it("pools chains and reports their spread", () => {
    const x1 = [-2.1, -1.9, -2.0, -1.7, 1.8, 2.2, 1.9, 2.05];
    const x2 = [0.1, 0.3, -0.2, 0.0, 0.5, 1.6, -0.4, 0.2];
    const fit = fitMixtureClassifier(table([x1, x2], [0, 0, 0, 0, 1, 1, 1, 1]), {
      kernels: 2,
      chains: 3,
      draws: 300,
      burnIn: 100,
    });
    expect(fit.draws).toBe(600);
    expect(fit.chainInputProbabilities).toHaveLength(6);
    // the spread is the largest between-chain standard deviation of an input probability
    let largest = 0;
    for (let i = 0; i < 2; i++) {
      const probs = [0, 1, 2].map((c) => fit.chainInputProbabilities[c * 2 + i]);
      const mean = probs.reduce((acc, v) => acc + v, 0) / 3;
      largest = Math.max(largest, Math.sqrt(probs.reduce((acc, v) => acc + (v - mean) ** 2, 0) / 2));
      expect(fit.inputProbabilities[i]).toBeCloseTo(mean, 12);
    }
    expect(fit.inputProbabilitySpread).toBeCloseTo(largest, 12);
    expect(fit.inputProbabilities[0]).toBeGreaterThan(0.9);
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
