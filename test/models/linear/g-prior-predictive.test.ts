import { describe, expect, it } from "vitest";
import { numericDesign } from "../../../src/data/design.js";
import { centredStatistics } from "../../../src/models/linear/design.js";
import { gPriorsFamily, unitInformationScorer } from "../../../src/models/linear/g-prior.js";
import { zellnerSiowFamily } from "../../../src/models/linear/zellner-siow.js";
import { createRng } from "../../../src/random/rng.js";
import { averageSubsetPredictions, studentTCdf } from "../../../src/selection/average.js";
import { searchSubsets } from "../../../src/selection/subsets.js";

const R = Math.SQRT2 / 4; // Zellner–Siow's default scale

function designOf(X: Float64Array, y: Float64Array, n: number, p: number) {
  const inputNames = Array.from({ length: p }, (_, j) => `x${j}`);
  const { design } = numericDesign({ X, y, n, p, inputNames, targetName: "y" });
  return { design, stats: centredStatistics(design) };
}

/** Least squares on the centred columns of X (n × p): coefficients, R², column means, (XcᵀXc)⁻¹. */
function leastSquares(X: Float64Array, y: Float64Array, n: number, p: number) {
  const means = Array.from({ length: p }, (_, j) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += X[i * p + j];
    return s / n;
  });
  const yMean = y.reduce((a, b) => a + b, 0) / n;
  const A = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const b = new Array<number>(p).fill(0);
  let tss = 0;
  for (let i = 0; i < n; i++) {
    tss += (y[i] - yMean) ** 2;
    for (let j = 0; j < p; j++) {
      b[j] += (X[i * p + j] - means[j]) * (y[i] - yMean);
      for (let k = 0; k < p; k++) A[j][k] += (X[i * p + j] - means[j]) * (X[i * p + k] - means[k]);
    }
  }
  // Gauss–Jordan inverse of A (p ≤ 3 here).
  const inv = A.map((row, j) => [...row, ...Array.from({ length: p }, (_, k) => (j === k ? 1 : 0))]);
  for (let c = 0; c < p; c++) {
    const pivot = inv[c][c];
    for (let k = 0; k < 2 * p; k++) inv[c][k] /= pivot;
    for (let r = 0; r < p; r++) {
      if (r === c) continue;
      const f = inv[r][c];
      for (let k = 0; k < 2 * p; k++) inv[r][k] -= f * inv[c][k];
    }
  }
  const Ainv = inv.map((row) => row.slice(p));
  const beta = Ainv.map((row) => row.reduce((s, v, k) => s + v * b[k], 0));
  const explained = beta.reduce((s, v, j) => s + v * b[j], 0);
  return { beta, r2: explained / tss, means, yMean, tss, Ainv };
}

describe("predictives of the g-priors", () => {
  const n = 12;
  const p = 2;
  const rng = createRng(5);
  const X = Float64Array.from({ length: n * p }, () => rng.normal());
  const y = Float64Array.from(
    { length: n },
    (_, i) => 1 + 0.8 * X[i * p] - 0.3 * X[i * p + 1] + rng.normal(),
  );
  const xNew = Float64Array.from([1.5, -2]);
  const ls = leastSquares(X, y, n, p);
  const xc = [xNew[0] - ls.means[0], xNew[1] - ls.means[1]];
  const fit = ls.beta[0] * xc[0] + ls.beta[1] * xc[1];
  let leverage = 0;
  for (let j = 0; j < p; j++) for (let k = 0; k < p; k++) leverage += xc[j] * ls.Ainv[j][k] * xc[k];

  it("unit-information g-prior: one Student-t with n − 1 degrees of freedom, shrunk by n/(n + 1)", () => {
    const { design, stats } = designOf(X, y, n, p);
    const family = gPriorsFamily(design, stats, unitInformationScorer(n));
    const s = n / (n + 1);
    const [observation, ...more] = family.predictive?.([0, 1], xNew, 1) ?? [];
    expect(more).toHaveLength(0);
    const variance = (ls.tss * (1 - s * ls.r2)) / (n - 1);
    expect(observation.weight).toBe(1);
    expect(observation.predictive.dof).toBe(n - 1);
    expect(observation.predictive.location[0]).toBeCloseTo(ls.yMean + s * fit, 12);
    expect(observation.predictive.scale[0]).toBeCloseTo(Math.sqrt(variance * (1 + 1 / n + s * leverage)), 12);
    const [mean] = family.predictive?.([0, 1], xNew, 1, "mean") ?? [];
    expect(mean.predictive.scale[0]).toBeCloseTo(Math.sqrt(variance * (1 / n + s * leverage)), 12);
  });

  it("Zellner–Siow: the 5 % and 95 % points of the mixture over g match quadrature over g", () => {
    const { design, stats } = designOf(X, y, n, p);
    const family = zellnerSiowFamily(design, stats, { r: R });
    // The posterior of u = log g on a fine grid: BF(g) π(g) g, π the inverse gamma (½, r²n/2).
    const scale = (R * R * n) / 2;
    const grid: { s: number; w: number }[] = [];
    for (let u = -25; u <= 40; u += 0.01) {
      const g = Math.exp(u);
      const logW =
        0.5 * (n - 1 - p) * Math.log1p(g) -
        0.5 * (n - 1) * Math.log1p(g * (1 - ls.r2)) -
        1.5 * u -
        scale / g +
        u;
      grid.push({ s: g / (1 + g), w: logW });
    }
    const top = Math.max(...grid.map((q) => q.w));
    let total = 0;
    for (const q of grid) {
      q.w = Math.exp(q.w - top);
      total += q.w;
    }
    for (const response of ["observation", "mean"] as const) {
      const noise = response === "observation" ? 1 : 0;
      const cdf = (v: number) => {
        let F = 0;
        for (const q of grid) {
          const sd = Math.sqrt(((ls.tss * (1 - q.s * ls.r2)) / (n - 1)) * (noise + 1 / n + q.s * leverage));
          F += q.w * studentTCdf((v - ls.yMean - q.s * fit) / sd, n - 1);
        }
        return F / total;
      };
      const quantile = (prob: number) => {
        let lo = -100;
        let hi = 100;
        for (let i = 0; i < 45; i++) {
          const mid = 0.5 * (lo + hi);
          if (cdf(mid) < prob) lo = mid;
          else hi = mid;
        }
        return 0.5 * (lo + hi);
      };
      const lower = quantile(0.05);
      const upper = quantile(0.95);
      const avg = averageSubsetPredictions(family, [{ members: [0, 1], logPosterior: 0 }], xNew, 1, {
        levels: [0.9],
        response,
      });
      const width = upper - lower;
      expect(Math.abs(avg.intervals[0].lower[0] - lower)).toBeLessThan(1e-3 * width);
      expect(Math.abs(avg.intervals[0].upper[0] - upper)).toBeLessThan(1e-3 * width);
    }
  });

  it("Zellner–Siow model averages cover new observations and mean responses at their level (binomial tolerance)", () => {
    // With a flat prior on the intercept and 1/σ² on the noise variance (right Haar measure of the
    // location–scale group) and proper priors on everything else (model uniform, g Zellner–Siow, β/σ
    // given g), the predictive intervals are exact frequentist intervals whatever α and σ are: data
    // drawn from the rest of the prior with fixed α, σ are covered at the intervals' level. Dropping the
    // coefficients' uncertainty (s·h) from the scales covers the mean response in 82 % of the 90 %
    // intervals (checked), which fails.
    const reps = 600;
    const m = 8;
    const k = 3;
    const alpha = 3;
    const sigma = 2;
    const levels = [0.5, 0.9];
    const covered = { observation: [0, 0], mean: [0, 0] };
    const draws = createRng(2026);
    for (let rep = 0; rep < reps; rep++) {
      const Xall = Float64Array.from({ length: (m + 1) * k }, () => draws.normal());
      const members = [0, 1, 2].filter(() => draws.uniform() < 0.5);
      const Xtrain = Xall.subarray(0, m * k);
      const means = Array.from({ length: k }, (_, c) => {
        let sum = 0;
        for (let i = 0; i < m; i++) sum += Xtrain[i * k + c];
        return sum / m;
      });
      // η = β/σ ~ N(0, g (Xc_SᵀXc_S)⁻¹) on the members' centred columns, g ~ InverseGamma(½, r²m/2).
      const g = (R * R * m) / 2 / draws.gamma(0.5);
      const sub = members.length;
      const Xs = new Float64Array(m * sub);
      for (let i = 0; i < m; i++) for (let j = 0; j < sub; j++) Xs[i * sub + j] = Xtrain[i * k + members[j]];
      const eta = new Array<number>(k).fill(0);
      if (sub > 0) {
        const { Ainv } = leastSquares(Xs, new Float64Array(m), m, sub);
        // A Cholesky factor of g Ainv, by hand for sub ≤ 3.
        const C = Ainv.map((row) => row.map((v) => g * v));
        const L = C.map(() => new Array<number>(sub).fill(0));
        for (let i = 0; i < sub; i++) {
          for (let j = 0; j <= i; j++) {
            let t = C[i][j];
            for (let q = 0; q < j; q++) t -= L[i][q] * L[j][q];
            L[i][j] = i === j ? Math.sqrt(t) : t / L[j][j];
          }
        }
        const z = Array.from({ length: sub }, () => draws.normal());
        members.forEach((c, i) => {
          for (let j = 0; j <= i; j++) eta[c] += L[i][j] * z[j];
        });
      }
      const yAll = new Float64Array(m + 1);
      let meanNew = alpha;
      for (let i = 0; i <= m; i++) {
        let mu = alpha;
        for (let c = 0; c < k; c++) mu += sigma * eta[c] * (Xall[i * k + c] - means[c]);
        if (i === m) meanNew = mu;
        yAll[i] = mu + sigma * draws.normal();
      }
      const { design, stats } = designOf(Float64Array.from(Xtrain), yAll.slice(0, m), m, k);
      const family = zellnerSiowFamily(design, stats, { r: R });
      const models = searchSubsets(family, { top: 2 ** k }).top;
      for (const response of ["observation", "mean"] as const) {
        const avg = averageSubsetPredictions(family, models, Xall.subarray(m * k), 1, {
          levels,
          threshold: 0,
          response,
        });
        const truth = response === "observation" ? yAll[m] : meanNew;
        levels.forEach((_, l) => {
          if (avg.intervals[l].lower[0] <= truth && truth <= avg.intervals[l].upper[0])
            covered[response][l]++;
        });
      }
    }
    for (const response of ["observation", "mean"] as const) {
      levels.forEach((level, l) => {
        const se = Math.sqrt((level * (1 - level)) / reps);
        expect(Math.abs(covered[response][l] / reps - level)).toBeLessThan(3.5 * se);
      });
    }
  });
});
