import digamma from "@stdlib/math-base-special-digamma";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { cholesky } from "../../src/math/linalg.js";
import { createRng } from "../../src/random/rng.js";
import {
  categorical,
  categoricalLog,
  dirichlet,
  logDirichlet,
  logGammaVariate,
  multivariateNormal,
  permutation,
  shuffle,
  studentT,
  uniformRange,
} from "../../src/random/variates.js";
import { moments } from "../distributions/support.js";

describe("Rng.gamma with tiny shapes", () => {
  it.each([0.05, 1e-3])("has mean = shape = variance for shape %s", (shape) => {
    const rng = createRng(21);
    const n = 100_000;
    const xs = new Float64Array(n);
    for (let i = 0; i < n; i++) xs[i] = rng.gamma(shape);
    const m = moments(xs);
    // The exact variance (= shape) gives the mean's standard error.
    expect(Math.abs(m.mean - shape)).toBeLessThan(4 * Math.sqrt(shape / n));
  });
});

describe("logGammaVariate", () => {
  it.each([1e-3, 0.3, 4])("has E[log G] = ψ(shape) for shape %s", (shape) => {
    const rng = createRng(22);
    const n = 50_000;
    const xs = new Float64Array(n);
    for (let i = 0; i < n; i++) xs[i] = logGammaVariate(rng, shape);
    const m = moments(xs);
    expect(Number.isFinite(m.mean)).toBe(true);
    expect(Math.abs(m.mean - digamma(shape))).toBeLessThan(4 * m.seMean);
  });
});

describe("dirichlet", () => {
  it("has mean α/α₀, variance α_i(α₀ − α_i)/(α₀²(α₀ + 1)) and covariance −α_iα_j/(α₀²(α₀ + 1))", () => {
    const alpha = [0.5, 2, 3.5, 1];
    const a0 = 7;
    const k = alpha.length;
    const n = 40_000;
    const rng = createRng(23);
    const draws = Array.from({ length: k }, () => new Float64Array(n));
    const cross = new Float64Array(n);
    const out = new Float64Array(k);
    let worstSum = 0;
    for (let s = 0; s < n; s++) {
      dirichlet(rng, alpha, out);
      let sum = 0;
      for (let i = 0; i < k; i++) {
        draws[i][s] = out[i];
        sum += out[i];
      }
      worstSum = Math.max(worstSum, Math.abs(sum - 1));
    }
    expect(worstSum).toBeLessThan(1e-14);
    for (let i = 0; i < k; i++) {
      const m = moments(draws[i]);
      const exactVar = (alpha[i] * (a0 - alpha[i])) / (a0 * a0 * (a0 + 1));
      expect(Math.abs(m.mean - alpha[i] / a0)).toBeLessThan(4 * Math.sqrt(exactVar / n));
      expect(Math.abs(m.variance - exactVar)).toBeLessThan(4 * m.seVariance);
    }
    // Covariance of components 1 and 2 via the products of centred draws.
    const mu1 = alpha[1] / a0;
    const mu2 = alpha[2] / a0;
    for (let s = 0; s < n; s++) cross[s] = (draws[1][s] - mu1) * (draws[2][s] - mu2);
    const c = moments(cross);
    expect(Math.abs(c.mean - -(alpha[1] * alpha[2]) / (a0 * a0 * (a0 + 1)))).toBeLessThan(4 * c.seMean);
  });

  it("gives points of the simplex (never all zeros) and the right mean for α = 1e-3", () => {
    const k = 10;
    const alpha = new Float64Array(k).fill(1e-3);
    const rng = createRng(24);
    const n = 20_000;
    const first = new Float64Array(n);
    const p = new Float64Array(k);
    let bad = 0;
    for (let s = 0; s < n; s++) {
      dirichlet(rng, alpha, p);
      let sum = 0;
      for (let i = 0; i < k; i++) {
        if (!(p[i] >= 0 && p[i] <= 1)) bad++;
        sum += p[i];
      }
      if (!(Math.abs(sum - 1) < 1e-14)) bad++;
      first[s] = p[0];
    }
    expect(bad).toBe(0);
    // Var p_i = (1/k)(1 − 1/k)/(α₀ + 1).
    const exactVar = (0.1 * 0.9) / (0.01 + 1);
    expect(Math.abs(moments(first).mean - 0.1)).toBeLessThan(4 * Math.sqrt(exactVar / n));
  });

  it("logDirichlet keeps components that underflow in linear scale and logsumexp-normalises", () => {
    const rng = createRng(25);
    const lp = logDirichlet(rng, [1e-4, 1e-4, 1e-4]);
    let max = Number.NEGATIVE_INFINITY;
    for (const v of lp) {
      expect(Number.isFinite(v)).toBe(true);
      max = Math.max(max, v);
    }
    const total = lp.reduce((s, v) => s + Math.exp(v - max), 0);
    expect(Math.abs(max + Math.log(total))).toBeLessThan(1e-15);
    // With α = 1e-4 the smaller components are typically below e^{−700} and would be 0 in linear scale.
    expect(Math.min(...lp)).toBeLessThan(-700);
  });

  it("rejects bad α and mismatched out", () => {
    const rng = createRng(1);
    expect(() => dirichlet(rng, [1, 0])).toThrow(OccamError);
    expect(() => dirichlet(rng, [1, Number.NaN])).toThrow(OccamError);
    expect(() => dirichlet(rng, [1, 2], new Float64Array(3))).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
  });
});

describe("categorical and categoricalLog", () => {
  it("draw each index with its probability (within 4 binomial standard errors)", () => {
    const weights = [0.1, 0, 0.6, 0.3];
    const n = 50_000;
    for (const [name, draw] of [
      ["categorical", (r: ReturnType<typeof createRng>) => categorical(r, [2, 0, 12, 6])],
      // Log weights offset by 1e5: exponentiating them directly would overflow.
      [
        "categoricalLog",
        (r: ReturnType<typeof createRng>) =>
          categoricalLog(
            r,
            weights.map((w) => Math.log(w) + 1e5),
          ),
      ],
    ] as const) {
      const rng = createRng(26);
      const counts = new Float64Array(4);
      for (let s = 0; s < n; s++) counts[draw(rng)]++;
      expect(counts[1], name).toBe(0);
      for (let i = 0; i < 4; i++) {
        const p = weights[i];
        expect(Math.abs(counts[i] / n - p), `${name} index ${i}`).toBeLessThanOrEqual(
          4 * Math.sqrt((p * (1 - p)) / n),
        );
      }
    }
  });

  it("reject invalid weights", () => {
    const rng = createRng(1);
    expect(() => categorical(rng, [0, 0])).toThrow(OccamError);
    expect(() => categorical(rng, [1, -1])).toThrow(OccamError);
    expect(() => categorical(rng, [1, Number.POSITIVE_INFINITY])).toThrow(OccamError);
    expect(() => categoricalLog(rng, [Number.NEGATIVE_INFINITY])).toThrow(OccamError);
    expect(() => categoricalLog(rng, [0, Number.NaN])).toThrow(OccamError);
    expect(categoricalLog(rng, [Number.NEGATIVE_INFINITY, -1e300])).toBe(1);
  });
});

describe("multivariateNormal", () => {
  it("has mean μ and covariance L Lᵀ (entries within 4 SE, SE² = (Σ_iiΣ_jj + Σ_ij²)/n)", () => {
    const mean = [1, -2, 0.5];
    const cov = [2, 0.3, -0.4, 0.3, 1, 0.2, -0.4, 0.2, 0.5];
    const d = 3;
    const L = cholesky(Float64Array.from(cov), d);
    const rng = createRng(27);
    const n = 40_000;
    const sums = new Float64Array(d);
    const cross = new Float64Array(d * d);
    const x = new Float64Array(d);
    for (let s = 0; s < n; s++) {
      multivariateNormal(rng, mean, L, d, x);
      for (let i = 0; i < d; i++) {
        sums[i] += x[i];
        for (let j = 0; j < d; j++) cross[i * d + j] += (x[i] - mean[i]) * (x[j] - mean[j]);
      }
    }
    for (let i = 0; i < d; i++) {
      expect(Math.abs(sums[i] / n - mean[i])).toBeLessThan(4 * Math.sqrt(cov[i * d + i] / n));
      for (let j = 0; j < d; j++) {
        const se = Math.sqrt((cov[i * d + i] * cov[j * d + j] + cov[i * d + j] ** 2) / n);
        expect(Math.abs(cross[i * d + j] / n - cov[i * d + j])).toBeLessThan(4 * se);
      }
    }
  });

  it("rejects mismatched sizes", () => {
    const rng = createRng(1);
    expect(() => multivariateNormal(rng, [0, 0], new Float64Array(3), 2)).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
  });
});

describe("studentT", () => {
  it("has mean 0 and variance ν/(ν − 2) for ν = 10", () => {
    const nu = 10;
    const rng = createRng(28);
    const n = 100_000;
    const xs = new Float64Array(n);
    for (let i = 0; i < n; i++) xs[i] = studentT(rng, nu);
    const m = moments(xs);
    expect(Math.abs(m.mean)).toBeLessThan(4 * Math.sqrt(nu / (nu - 2) / n));
    expect(Math.abs(m.variance - nu / (nu - 2))).toBeLessThan(4 * m.seVariance);
  });

  it("has median 0 and quartiles ±1 for ν = 1 (Cauchy), within binomial standard errors", () => {
    const rng = createRng(29);
    const n = 40_000;
    let below = 0;
    let inner = 0;
    for (let i = 0; i < n; i++) {
      const t = studentT(rng, 1);
      if (t < 0) below++;
      if (Math.abs(t) < 1) inner++;
    }
    const se = Math.sqrt(0.25 / n);
    expect(Math.abs(below / n - 0.5)).toBeLessThan(4 * se);
    expect(Math.abs(inner / n - 0.5)).toBeLessThan(4 * se);
  });

  it("is a standard normal for ν = ∞ and rejects ν ≤ 0", () => {
    expect(studentT(createRng(3), Number.POSITIVE_INFINITY)).toBe(createRng(3).normal());
    expect(() => studentT(createRng(3), 0)).toThrow(OccamError);
  });
});

describe("uniformRange, shuffle and permutation", () => {
  it("uniformRange has mean (a + b)/2 and stays in [a, b)", () => {
    const rng = createRng(30);
    const n = 50_000;
    const xs = new Float64Array(n);
    let outside = 0;
    for (let i = 0; i < n; i++) {
      xs[i] = uniformRange(rng, -3, 5);
      if (!(xs[i] >= -3 && xs[i] < 5)) outside++;
    }
    expect(outside).toBe(0);
    expect(Math.abs(moments(xs).mean - 1)).toBeLessThan(4 * Math.sqrt(64 / 12 / n));
    expect(() => uniformRange(rng, 2, 2)).toThrow(OccamError);
  });

  it("permutation covers all 6 orders of 3 items with probability 1/6 each", () => {
    const rng = createRng(31);
    const n = 30_000;
    const counts = new Map<string, number>();
    for (let s = 0; s < n; s++) {
      const key = Array.from(permutation(rng, 3)).join("");
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(6);
    const se = Math.sqrt(((1 / 6) * (5 / 6)) / n);
    for (const c of counts.values()) expect(Math.abs(c / n - 1 / 6)).toBeLessThan(4 * se);
  });

  it("shuffle permutes in place and keeps the elements", () => {
    const a = ["a", "b", "c", "d", "e"];
    shuffle(createRng(32), a);
    expect([...a].sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(Array.from(permutation(createRng(1), 0))).toEqual([]);
    expect(() => permutation(createRng(1), -1)).toThrow(OccamError);
  });
});
