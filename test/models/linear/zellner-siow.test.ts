import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import gammaln from "@stdlib/math-base-special-gammaln";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numericTable } from "../../../src/data/csv.js";
import { readCsv } from "../../../src/data/csv-file.js";
import { OccamError } from "../../../src/errors.js";
import {
  GMixtureIntegrand,
  gMixtureLogIntegral,
  zellnerSiowDensity,
} from "../../../src/models/linear/g-mixture.js";
import { gPriorLogBayesFactor } from "../../../src/models/linear/g-prior.js";
import { type GTableStats, gMixtureScorer } from "../../../src/models/linear/g-table.js";
import {
  rSquared,
  ZELLNER_SIOW_MEDIUM_SCALE,
  zellnerSiowAllSubsets,
  zellnerSiowBayesFactor,
  zellnerSiowLogBayesFactor,
} from "../../../src/models/linear/zellner-siow.js";
import { createRng } from "../../../src/random/rng.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

interface ReferenceModel {
  inputs: string[];
  r2: number;
  logBF: number;
  properror: number;
}
interface Reference {
  BayesFactor: string;
  data: string;
  target: string;
  regressionBF: { rscale: number; models: ReferenceModel[] }[];
  linearRegR2stat: { n: number; k: number; r2: number; rscale: number; logBF: number }[];
}

const reference = JSON.parse(
  readFileSync(join(fixtures, "zellner-siow-reference.json"), "utf8"),
) as Reference;

/** The JSON holds 15 significant digits; use the exact double for √2/4. */
function scale(rscale: number): number {
  return Math.abs(rscale - Math.SQRT2 / 4) < 1e-12 ? Math.SQRT2 / 4 : rscale;
}

/**
 * Brute force: composite Simpson on u = log g over [−40, 160] with h = 1/500, of
 * exp(g-prior log BF + log InverseGamma(g; ½, r²n/2) + u), written independently of the module.
 */
function bruteForceLogBF(r2: number, n: number, k: number, r: number): number {
  const s = (r * r * n) / 2;
  const logIg = (u: number): number => 0.5 * Math.log(s) - gammaln(0.5) - 1.5 * u - s * Math.exp(-u);
  const logF = (u: number): number => gPriorLogBayesFactor(r2, n, k, Math.exp(u)) + logIg(u) + u;
  const a = -40;
  const b = 160;
  const m = 100000; // even number of intervals, h = 0.002
  const h = (b - a) / m;
  const values = new Float64Array(m + 1);
  let peak = Number.NEGATIVE_INFINITY;
  for (let i = 0; i <= m; i++) {
    values[i] = logF(a + i * h);
    if (values[i] > peak) peak = values[i];
  }
  let sum = 0;
  for (let i = 0; i <= m; i++) {
    const w = i === 0 || i === m ? 1 : i % 2 === 1 ? 4 : 2;
    sum += w * Math.exp(values[i] - peak);
  }
  return peak + Math.log((sum * h) / 3);
}

describe("zellnerSiowBayesFactor against R's BayesFactor", () => {
  const table = numericTable(readCsv(join(fixtures, reference.data)), { target: reference.target });

  it("fixture data: 60 rows, 4 inputs, 15 subsets per prior scale", () => {
    expect(table.n).toBe(60);
    expect(table.p).toBe(4);
    for (const set of reference.regressionBF) expect(set.models).toHaveLength(15);
  });

  for (const set of reference.regressionBF) {
    it(`matches regressionBF(whichModels = "all", rscaleCont = ${set.rscale}) to 1e-6 in log BF for every subset`, () => {
      let worst = 0;
      for (const model of set.models) {
        const columns = model.inputs.map((name) => table.inputNames.indexOf(name));
        expect(columns.every((c) => c >= 0)).toBe(true);
        const r2 = rSquared(table.X, table.y, table.n, table.p, columns);
        expect(Math.abs(r2 - model.r2)).toBeLessThan(1e-12); // R's lm (QR) vs our Cholesky
        const logBF = zellnerSiowLogBayesFactor(r2, table.n, columns.length, { rScale: scale(set.rscale) });
        worst = Math.max(worst, Math.abs(logBF - model.logBF));
      }
      expect(worst).toBeLessThan(1e-6);
    });
  }

  it("zellnerSiowAllSubsets reproduces the regressionBF table (default scale = √2/4)", () => {
    const medium = reference.regressionBF.find((s) => Math.abs(s.rscale - ZELLNER_SIOW_MEDIUM_SCALE) < 1e-12);
    expect(medium).toBeDefined();
    const all = zellnerSiowAllSubsets(table.X, table.y, table.n, table.p);
    expect(all).toHaveLength(15);
    for (const model of medium?.models ?? []) {
      const columns = model.inputs.map((name) => table.inputNames.indexOf(name)).sort((x, y) => x - y);
      const mine = all.find((m) => m.columns.join(",") === columns.join(","));
      expect(mine).toBeDefined();
      expect(Math.abs((mine?.logBF ?? Number.NaN) - model.logBF)).toBeLessThan(1e-6);
    }
  });

  it("matches linearReg.R2stat on summary statistics, including extreme n, k and R²", () => {
    expect(reference.linearRegR2stat.length).toBeGreaterThanOrEqual(18);
    for (const c of reference.linearRegR2stat) {
      const logBF = zellnerSiowLogBayesFactor(c.r2, c.n, c.k, { rScale: scale(c.rscale) });
      expect(Math.abs(logBF - c.logBF), `n=${c.n} k=${c.k} R²=${c.r2} r=${c.rscale}`).toBeLessThan(1e-6);
    }
  });
});

describe("zellnerSiowBayesFactor against a brute-force integral", () => {
  const cases: [number, number, number, number][] = [
    [0, 10, 1, ZELLNER_SIOW_MEDIUM_SCALE],
    [0.6813, 30, 1, 1],
    [0.2, 60, 4, ZELLNER_SIOW_MEDIUM_SCALE],
    [0.999999, 1000, 1, ZELLNER_SIOW_MEDIUM_SCALE],
    [0.5, 3, 1, 0.1],
    [0.05, 500, 30, 2],
    [0.9, 40, 38, ZELLNER_SIOW_MEDIUM_SCALE],
    // Small r with a good fit: the integrand over log g has two peaks (three stationary points).
    [0.9, 5, 1, 0.05],
    [0.5, 10, 1, 0.05],
    [0.99, 5, 2, 0.01],
  ];
  for (const [r2, n, k, r] of cases) {
    it(`R² = ${r2}, n = ${n}, k = ${k}, r = ${r.toFixed(4)}: agrees with Simpson on a fine grid to 1e-9`, () => {
      const result = zellnerSiowBayesFactor(r2, n, k, { rScale: r });
      expect(Math.abs(result.logBF - bruteForceLogBF(r2, n, k, r))).toBeLessThan(1e-9);
      expect(result.error).toBeLessThan(1e-10);
    });
  }

  it("k = 0 integrates the prior alone: log BF = 0", () => {
    for (const n of [2, 5, 100, 1e6]) {
      expect(Math.abs(zellnerSiowLogBayesFactor(0, n, 0))).toBeLessThan(1e-11);
    }
  });
});

describe("zellnerSiowBayesFactor with millions of rows", () => {
  it("writes the integrand without cancelling a sp(u) against b sp(u + log c): same values at moderate n", () => {
    for (const [r2, n, k, m, q] of [
      [0.3, 100, 2, 0, 0],
      [0.9, 40, 5, 1, 0],
      [0.999, 1000, 3, 2, 7],
    ]) {
      const f = new GMixtureIntegrand(zellnerSiowDensity(n, 0.5), r2, n, k, m, q);
      for (const u of [-8, -1, 0, 0.5, 3, 9, 30]) {
        const sp = (x: number) => Math.log1p(Math.exp(-Math.abs(x))) + Math.max(x, 0);
        const s0 = sp(u);
        const s1 = sp(u + Math.log1p(-r2));
        const direct = f.a * s0 - f.b * s1 + f.mix.logDensity(u) + m * (u - s0) + q * (u - s1) + f.constant;
        expect(Math.abs(f.value(u) - direct)).toBeLessThan(1e-11 * (1 + Math.abs(direct)));
      }
    }
  });

  it("n = 2·10⁶: reaches its rounding floor instead of failing, and agrees with Simpson on a fine grid", () => {
    const n = 2e6;
    for (const [r2, k] of [
      [0.238, 4],
      [1e-6, 1],
      [0.9, 3],
    ]) {
      const result = zellnerSiowBayesFactor(r2, n, k);
      // The reported error is the integrand's rounding floor, a few ulps of log BF ≈ 10⁶.
      expect(result.error).toBeLessThan(2e-8);
      // The brute force's own rounding at this n is about 1e-9.
      const simpson = bruteForceLogBF(r2, n, k, ZELLNER_SIOW_MEDIUM_SCALE);
      expect(Math.abs(result.logBF - simpson), `R² = ${r2}, k = ${k}`).toBeLessThan(1e-7);
    }
  });
});

describe("zellnerSiowBayesFactor: Occam penalty and monotonicity", () => {
  it("R² = 0 gives BF < 1, and the penalty grows with k (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 2000 }), fc.integer({ min: 1, max: 10 }), (n, k0) => {
        const k = Math.min(k0, n - 2);
        const logBF = zellnerSiowLogBayesFactor(0, n, k);
        expect(logBF).toBeLessThan(0);
        if (k + 1 <= n - 2) expect(zellnerSiowLogBayesFactor(0, n, k + 1)).toBeLessThan(logBF);
      }),
      { numRuns: 40, seed: 11 },
    );
  });

  it("BF grows with R² at fixed n and k (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 1000 }),
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        fc.double({ min: 1e-4, max: 0.5, noNaN: true }),
        (n, k0, r2, delta) => {
          const k = Math.min(k0, n - 2);
          const higher = Math.min(r2 + delta, 0.999);
          fc.pre(higher > r2 + 1e-5);
          expect(zellnerSiowLogBayesFactor(higher, n, k)).toBeGreaterThan(
            zellnerSiowLogBayesFactor(r2, n, k),
          );
        },
      ),
      { numRuns: 40, seed: 13 },
    );
  });

  it("reports the mode of log g where the log integrand is stationary, and a small error", () => {
    const result = zellnerSiowBayesFactor(0.3, 100, 2);
    expect(result.error).toBeLessThan(1e-10);
    expect(result.evaluations).toBeGreaterThan(0);
    // The mode maximises the integrand: nearby points give smaller g-prior × prior values.
    const s = (ZELLNER_SIOW_MEDIUM_SCALE ** 2 * 100) / 2;
    const logF = (u: number) => gPriorLogBayesFactor(0.3, 100, 2, Math.exp(u)) - 0.5 * u - s * Math.exp(-u);
    expect(logF(result.logGMode)).toBeGreaterThan(logF(result.logGMode + 1e-3));
    expect(logF(result.logGMode)).toBeGreaterThan(logF(result.logGMode - 1e-3));
  });
});

describe("zellnerSiowBayesFactor input checks", () => {
  it("rejects R² outside [0, 1), k > n − 2 and bad options", () => {
    const expectInvalid = (f: () => unknown, fragment: string) => {
      expect(f).toThrow(OccamError);
      expect(f).toThrow(fragment);
    };
    expectInvalid(() => zellnerSiowBayesFactor(1, 10, 1), "R² must be in [0, 1), got 1");
    expectInvalid(() => zellnerSiowBayesFactor(-0.1, 10, 1), "R² must be in [0, 1)");
    expectInvalid(() => zellnerSiowBayesFactor(Number.NaN, 10, 1), "R² must be in [0, 1)");
    expectInvalid(
      () => zellnerSiowBayesFactor(0.5, 10, 9),
      "k must be an integer in [0, n − 2] = [0, 8], got 9",
    );
    expectInvalid(() => zellnerSiowBayesFactor(0.5, 10.5, 1), "n must be an integer");
    expectInvalid(
      () => zellnerSiowBayesFactor(0.5, 10, 1, { rScale: 0 }),
      "rScale must be a finite number greater than 0",
    );
    expectInvalid(() => zellnerSiowBayesFactor(0.5, 10, 1, { relTol: 0 }), "relTol must be in [1e-14, 1)");
  });
});

describe("rSquared", () => {
  const rng = createRng(2024);
  const n = 40;
  const p = 3;
  const X = new Float64Array(n * p);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) X[i * p + j] = rng.normal() + (j === 2 ? 1e4 : 0); // column 2 has a large mean
    y[i] = 0.7 * X[i * p] - 0.4 * X[i * p + 1] + rng.normal();
  }

  it("equals the squared correlation for one column", () => {
    for (let j = 0; j < p; j++) {
      let mx = 0;
      let my = 0;
      for (let i = 0; i < n; i++) {
        mx += X[i * p + j] / n;
        my += y[i] / n;
      }
      let sxy = 0;
      let sxx = 0;
      let syy = 0;
      for (let i = 0; i < n; i++) {
        sxy += (X[i * p + j] - mx) * (y[i] - my);
        sxx += (X[i * p + j] - mx) ** 2;
        syy += (y[i] - my) ** 2;
      }
      expect(rSquared(X, y, n, p, [j])).toBeCloseTo((sxy * sxy) / (sxx * syy), 12);
    }
  });

  it("is invariant to affine changes of the inputs and y, and to column order; 0 for no columns", () => {
    const X2 = X.map((v, idx) => (idx % p === 1 ? 3 * v - 7 : v));
    const y2 = y.map((v) => -2 * v + 5);
    const base = rSquared(X, y, n, p, [0, 1, 2]);
    expect(rSquared(X2, y2, n, p, [0, 1, 2])).toBeCloseTo(base, 12);
    expect(rSquared(X, y, n, p, [2, 0, 1])).toBeCloseTo(base, 12);
    expect(rSquared(X, y, n, p, [])).toBe(0);
    // Adding a column never lowers R².
    expect(base).toBeGreaterThanOrEqual(rSquared(X, y, n, p, [0, 1]));
  });

  it("rejects collinear columns, bad indices and a constant y", () => {
    const Xc = new Float64Array(n * 2);
    for (let i = 0; i < n; i++) {
      Xc[i * 2] = X[i * p];
      Xc[i * 2 + 1] = 2 * X[i * p] + 1;
    }
    expect(() => rSquared(Xc, y, n, 2, [0, 1])).toThrow("are collinear");
    expect(() => rSquared(X, y, n, p, [3])).toThrow("column index 3 is not an integer in [0, 2]");
    expect(() => rSquared(X, y, n, p, [1, 1])).toThrow("listed twice");
    expect(() => rSquared(X, new Float64Array(n).fill(2), n, p, [0])).toThrow("y is constant");
  });
});

describe("gPriorLogBayesFactor", () => {
  it("is the closed form (n − 1 − k)/2 log(1 + g) − (n − 1)/2 log(1 + g(1 − R²))", () => {
    expect(gPriorLogBayesFactor(0.5, 30, 2, 30)).toBeCloseTo(13.5 * Math.log(31) - 14.5 * Math.log(16), 12);
    expect(gPriorLogBayesFactor(0, 30, 2, 1e-12)).toBeCloseTo(-1e-12, 20);
  });

  it("penalises at R² = 0 and grows with R² (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 500 }),
        fc.double({ min: 1e-3, max: 1e4, noNaN: true }),
        fc.double({ min: 0, max: 0.98, noNaN: true }),
        (n, g, r2) => {
          expect(gPriorLogBayesFactor(0, n, 1, g)).toBeLessThan(0);
          expect(gPriorLogBayesFactor(r2 + 0.01, n, 1, g)).toBeGreaterThan(gPriorLogBayesFactor(r2, n, 1, g));
        },
      ),
      { numRuns: 50, seed: 17 },
    );
  });

  it("rejects a non-positive g", () => {
    expect(() => gPriorLogBayesFactor(0.5, 30, 2, 0)).toThrow("g must be a finite number greater than 0");
  });
});

describe("shrinkage moments of the mixtures of g-priors from tables of the Bayes factor", () => {
  it("E[s | y] and E[s² | y] from J₀(k + 2)/J₀(k) and J₀(k + 4)/J₀(k) equal the direct integrals J₁/J₀ and J₂/J₀", () => {
    const stats: GTableStats = { panels: 0, directEvaluations: 0, maxError: 0 };
    const out = new Float64Array(2);
    for (const [n, r2, k] of [
      [60, 0.2, 3],
      [442, 0.05, 1],
      [442, 0.35, 6],
      [1000, 0.9, 10],
      [8, 0.5, 2], // k + 4 > n − 1: integrated directly
    ]) {
      const mix = zellnerSiowDensity(n, ZELLNER_SIOW_MEDIUM_SCALE);
      const scorer = gMixtureScorer(mix, n, stats);
      // Six requests: the fifth builds the panels, so both the direct and the tabulated paths are checked.
      for (let repeat = 0; repeat < 6; repeat++) {
        scorer.shrinkage(r2, k, out);
        const log0 = gMixtureLogIntegral(mix, r2, n, k, 0, 0, 1e-13).logValue;
        const s1 = Math.exp(gMixtureLogIntegral(mix, r2, n, k, 1, 0, 1e-13).logValue - log0);
        const s2 = Math.exp(gMixtureLogIntegral(mix, r2, n, k, 2, 0, 1e-13).logValue - log0);
        expect(Math.abs(out[0] - s1), `n = ${n}, R² = ${r2}, k = ${k}`).toBeLessThan(1e-9);
        expect(Math.abs(out[1] - s2), `n = ${n}, R² = ${r2}, k = ${k}`).toBeLessThan(1e-9);
      }
    }
    expect(stats.panels).toBeGreaterThan(0);
  });
});
