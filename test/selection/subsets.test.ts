import gammaln from "@stdlib/math-base-special-gammaln";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { nigRegression } from "../../src/models/linear/nig.js";
import { enumerateSubsets, type SubsetSystem, subsetView } from "../../src/models/linear/subsets.js";
import { createRng } from "../../src/random/rng.js";
import { compareSubsets } from "../../src/selection/compare.js";
import { sampleSubsets } from "../../src/selection/subset-sampling.js";
import {
  finishSubsetSums,
  mergeSubsetSums,
  searchSubsetBlock,
  searchSubsets,
  subsetBlocks,
} from "../../src/selection/subsets.js";
import { nigFamilyOf, scoresByMask } from "../support/nig.js";

/** n × p standard-normal inputs and y = Xw + 0.5 ε with the given weights. */
function simulate(n: number, p: number, weights: number[], seed: number) {
  const rng = createRng(seed);
  const X = new Float64Array(n * p);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 1.5; // a non-zero mean, so the intercept matters
    for (let j = 0; j < p; j++) {
      const x = rng.normal();
      X[i * p + j] = x;
      s += (weights[j] ?? 0) * x;
    }
    y[i] = s + 0.5 * rng.normal();
  }
  return { X, y };
}

function membersOf(mask: number, p: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < p; j++) if (mask & (1 << j)) out.push(j);
  return out;
}

/** The design [1, X_S] (or X_S) as a row-major matrix. */
function design(X: Float64Array, n: number, p: number, members: number[], intercept: boolean): Float64Array {
  const k = members.length + (intercept ? 1 : 0);
  const Z = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    let c = 0;
    if (intercept) Z[i * k + c++] = 1;
    for (const j of members) Z[i * k + c++] = X[i * p + j];
  }
  return Z;
}

function popcount(m: number): number {
  let c = 0;
  for (; m; m &= m - 1) c++;
  return c;
}

/** C(n, k). */
function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return Math.round(c);
}

describe("nigFamily: exact log evidence of every subset", () => {
  const n = 40;
  const p = 5;
  const { X, y } = simulate(n, p, [1, -0.5, 0, 0.3, 0], 11);
  for (const intercept of [true, false]) {
    it(`agrees with nigRegression on all 2^5 subsets (intercept: ${intercept}) to 1e-9`, () => {
      const scores = scoresByMask(nigFamilyOf(X, y, n, p, { intercept, v: 10, a: 2, b: 1.5 }));
      expect(scores).toHaveLength(32);
      for (let mask = 0; mask < 32; mask++) {
        const members = membersOf(mask, p);
        const k = members.length + (intercept ? 1 : 0);
        let exact: number;
        if (k === 0) {
          // No weights at all: y ~ t_{2a}(0, (b/a) I), log p = −(n/2) log 2π + a log b − a* log(b + yᵀy/2) + log Γ(a*)/Γ(a).
          let yy = 0;
          for (let i = 0; i < n; i++) yy += y[i] * y[i];
          const aStar = 2 + n / 2;
          exact =
            -0.5 * n * Math.log(2 * Math.PI) +
            2 * Math.log(1.5) -
            aStar * Math.log(1.5 + yy / 2) +
            gammaln(aStar) -
            gammaln(2);
        } else {
          exact = nigRegression({
            X: design(X, n, p, members, intercept),
            y,
            n,
            p: k,
            v: 10,
            a: 2,
            b: 1.5,
          }).exactLogEvidence();
        }
        expect(Math.abs(scores[mask] - exact)).toBeLessThan(1e-9 * Math.abs(exact));
      }
    });
  }

  it("gives the same values enumerated, depth-first (maxSize) and one at a time, bit for bit", () => {
    const nig = nigFamilyOf(X, y, n, p, { v: 1e4, a: 1, b: 1 });
    const all = scoresByMask(nig);
    let upTo2 = 0;
    nig.enumerate(2, (view) => {
      upTo2++;
      expect(view.score).toBe(all[view.mask]);
    });
    expect(upTo2).toBe(1 + 5 + 10);
    // One subset at a time is factored in the enumerator's (canonical) order, whatever order it is given in.
    for (let mask = 0; mask < 32; mask++) {
      expect(nig.score(membersOf(mask, p))).toBe(all[mask]);
      expect(nig.score(membersOf(mask, p).reverse())).toBe(all[mask]);
    }
  });

  it("finds the relevant inputs (Everson's ordering: the true subset is the most probable)", () => {
    const data = simulate(500, 6, [1, -0.7, 0.5, 0, 0, 0], 5);
    const summary = searchSubsets(nigFamilyOf(data.X, data.y, 500, 6, { v: 1e4, a: 1, b: 1 }));
    expect(Array.from(summary.top[0].members)).toEqual([0, 1, 2]);
  });

  it("summarises in blocks of Gray-code steps, merged, as in one pass", () => {
    const data = simulate(300, 8, [1, -0.7, 0.5, 0.3, 0, 0, 0, 0.1], 9);
    const family = nigFamilyOf(data.X, data.y, 300, 8, { v: 1e2, a: 1, b: 1 });
    const whole = searchSubsets(family, { top: 5 });
    const cuts = [0, 1, 7, 64, 65, 200, 256];
    const parts = cuts.slice(1).map((to, b) => searchSubsetBlock(family, { top: 5 }, { from: cuts[b], to }));
    const merged = finishSubsetSums(mergeSubsetSums(parts, 5));
    expect(merged.count).toBe(256);
    expect(merged.logNormaliser).toBeCloseTo(whole.logNormaliser, 10);
    expect(merged.top.map((m) => Array.from(m.members))).toEqual(whole.top.map((m) => Array.from(m.members)));
    for (const [a, b] of [
      [merged.inclusion, whole.inclusion],
      [merged.sizeProbability, whole.sizeProbability],
      [merged.coefficientMean, whole.coefficientMean],
      [merged.coefficientSd, whole.coefficientSd],
    ]) {
      for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-12);
    }
  });

  it("splits only beyond 2^18 subsets, into contiguous blocks that depend on p alone", () => {
    expect(subsetBlocks(18)).toEqual([{ from: 0, to: 2 ** 18 }]);
    const blocks = subsetBlocks(21);
    expect(blocks).toHaveLength(8);
    blocks.forEach((b, i) => {
      expect(b.from).toBe(i * 2 ** 18);
      expect(b.to).toBe((i + 1) * 2 ** 18);
    });
  });

  it("matches nigRegression's posterior in its predictive location", () => {
    const nig = nigFamilyOf(X, y, n, p, { v: 3, a: 2, b: 1 });
    const members = [0, 3];
    const post = nigRegression({
      X: design(X, n, p, members, true),
      y,
      n,
      p: 3,
      v: 3,
      a: 2,
      b: 1,
    }).posterior();
    const xNew = [0.3, -1, 2, 0.5, 7];
    const pred = nig.predictive?.(members, xNew, 1)[0].predictive;
    const loc = post.mean[0] + post.mean[1] * 0.3 + post.mean[2] * 0.5;
    expect(pred?.location[0]).toBeCloseTo(loc, 12);
    expect(pred?.dof).toBe(2 * post.shape);
  });

  it("rejects bad input with OccamError", () => {
    expect(() => nigFamilyOf(X, y, n, p, { a: -1, b: 1 })).toThrow(/a must be a finite number > 0/);
    expect(() => nigFamilyOf(X, y, n, p, { a: 1, b: 1 }).score([0, 0])).toThrow(/twice/);
    expect(() => nigFamilyOf(X, y, n, p, { a: 1, b: 1 }).predictive?.([0], [1, 2], 1)).toThrow(OccamError);
  });
});

describe("enumerateSubsets", () => {
  /** A random SPD system (fixed + p columns). */
  function randomSystem(p: number, fixed: number, seed: number): SubsetSystem {
    const rng = createRng(seed);
    const q = p + fixed;
    const rows = q + 3;
    const B = Float64Array.from({ length: rows * q }, () => rng.normal());
    const gram = new Float64Array(q * q);
    for (let i = 0; i < q; i++) {
      for (let j = 0; j < q; j++) {
        let s = 0;
        for (let r = 0; r < rows; r++) s += B[r * q + i] * B[r * q + j];
        gram[i * q + j] = s;
      }
    }
    return { p, fixed, gram, rhs: Float64Array.from({ length: q }, () => rng.normal()) };
  }

  it("visits every subset exactly once, in Gray-code order, with a consistent view", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 2 }), (p, fixed) => {
        const system = randomSystem(p, fixed, 100 + p);
        const seen = new Uint8Array(2 ** p);
        let previous = -1;
        const count = enumerateSubsets(system, {}, (view) => {
          seen[view.mask]++;
          expect(view.size).toBe(popcount(view.mask));
          expect(view.dim).toBe(view.size + fixed);
          if (previous >= 0) expect(popcount(previous ^ view.mask)).toBe(1);
          previous = view.mask;
        });
        expect(count).toBe(2 ** p);
        expect(seen.every((c) => c === 1)).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it("splits into blocks of Gray-code steps that visit the same subsets with the same values", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
        (p, fixed, cuts) => {
          const system = randomSystem(p, fixed, 200 + p);
          const whole = new Map<number, [number, number, number]>();
          enumerateSubsets(system, {}, (view) => {
            // Step t of the walk visits mask t ⊕ (t >> 1).
            const t = whole.size;
            expect(view.mask).toBe(t ^ (t >> 1));
            whole.set(view.mask, [view.size, view.logDet, view.quad]);
          });
          const total = 2 ** p;
          expect(whole.size).toBe(total);
          const bounds = [...new Set([0, ...cuts.map((c) => Math.floor(c * total)), total])].sort(
            (a, b) => a - b,
          );
          const seen = new Uint8Array(total);
          for (let b = 0; b + 1 < bounds.length; b++) {
            const count = enumerateSubsets(
              system,
              { steps: { from: bounds[b], to: bounds[b + 1] } },
              (view) => {
                seen[view.mask]++;
                const [size, logDet, quad] = whole.get(view.mask) as [number, number, number];
                expect(view.size).toBe(size);
                expect(view.dim).toBe(size + fixed);
                expect(Math.abs(view.logDet - logDet)).toBeLessThan(1e-10 * (1 + Math.abs(logDet)));
                expect(Math.abs(view.quad - quad)).toBeLessThan(1e-10 * (1 + Math.abs(quad)));
              },
            );
            expect(count).toBe(bounds[b + 1] - bounds[b]);
          }
          expect(seen.every((c) => c === 1)).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("visits each subset of at most maxSize inputs exactly once", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 10 }), (p, maxSize) => {
        const system = randomSystem(p, 1, 7);
        const seen = new Uint8Array(2 ** p);
        const count = enumerateSubsets(system, { maxSize }, (view) => {
          seen[view.mask]++;
        });
        let expected = 0;
        for (let k = 0; k <= Math.min(p, maxSize); k++) expected += binomial(p, k);
        expect(count).toBe(expected);
        for (let mask = 0; mask < 2 ** p; mask++) expect(seen[mask]).toBe(popcount(mask) <= maxSize ? 1 : 0);
      }),
      { numRuns: 30 },
    );
  });

  it("gives log|G_SS| and c_Sᵀ G_SS⁻¹ c_S equal to a factorisation from scratch", () => {
    const p = 7;
    const system = randomSystem(p, 1, 3);
    const q = p + 1;
    enumerateSubsets(system, {}, (view) => {
      const cols = [0, ...membersOf(view.mask, p).map((j) => j + 1)];
      const k = cols.length;
      // Plain Gaussian elimination on the k × k block: determinant and the solve.
      const A = cols.flatMap((i) => cols.map((j) => system.gram[i * q + j]));
      const rhs = cols.map((i) => system.rhs[i]);
      const x = [...rhs];
      let logDet = 0;
      for (let c = 0; c < k; c++) {
        const piv = A[c * k + c];
        logDet += Math.log(piv);
        for (let r = c + 1; r < k; r++) {
          const f = A[r * k + c] / piv;
          for (let j = c; j < k; j++) A[r * k + j] -= f * A[c * k + j];
          x[r] -= f * x[c];
        }
      }
      for (let r = k - 1; r >= 0; r--) {
        for (let j = r + 1; j < k; j++) x[r] -= A[r * k + j] * x[j];
        x[r] /= A[r * k + r];
      }
      const quad = rhs.reduce((s, v, i) => s + v * x[i], 0);
      expect(view.logDet).toBeCloseTo(logDet, 10);
      expect(Math.abs(view.quad - quad)).toBeLessThan(1e-10 * (1 + Math.abs(quad)));
    });
  });

  it("gives diag(G_SS⁻¹) bit for bit as a factor from scratch, when asked on any subsets of either order", () => {
    const p = 7;
    const system = randomSystem(p, 1, 5);
    const q = p + 1;
    const out = new Float64Array(q);
    const fresh = new Float64Array(q);
    for (const options of [{}, { maxSize: 4 }]) {
      let step = 0;
      enumerateSubsets(system, options, (view) => {
        // Ask on a pseudo-random third of the subsets, so cached rows of L⁻¹ go stale in between.
        if ((step++ * 7919) % 3 !== 0) return;
        view.inverseDiagonal(out);
        // The same rows in the same order: the fixed column, then the terms by decreasing index.
        const members = membersOf(view.mask, p).reverse();
        subsetView(system, members, "test").inverseDiagonal(fresh);
        expect(Array.from(out.subarray(0, view.dim))).toEqual(Array.from(fresh.subarray(0, view.dim)));
        // And the diagonal of the inverse by Gauss–Jordan elimination.
        const cols = Array.from(view.columns.subarray(0, view.dim));
        const k = cols.length;
        const A = cols.map((i) => [
          ...cols.map((j) => system.gram[i * q + j]),
          ...cols.map((j) => (i === j ? 1 : 0)),
        ]);
        for (let c = 0; c < k; c++) {
          const piv = A[c][c];
          for (let j = 0; j < 2 * k; j++) A[c][j] /= piv;
          for (let r = 0; r < k; r++) {
            if (r === c) continue;
            const f = A[r][c];
            for (let j = 0; j < 2 * k; j++) A[r][j] -= f * A[c][j];
          }
        }
        for (let i = 0; i < k; i++) expect(Math.abs(out[i] - A[i][k + i])).toBeLessThan(1e-10 * A[i][k + i]);
      });
    }
  });

  it("serves a Zellner–Siow style scorer: R² from the centred Gram matrix", () => {
    const n = 60;
    const p = 4;
    const { X, y } = simulate(n, p, [1, 0, -1, 0.2], 9);
    const xBar = new Float64Array(p);
    let yBar = 0;
    for (let i = 0; i < n; i++) {
      yBar += y[i] / n;
      for (let j = 0; j < p; j++) xBar[j] += X[i * p + j] / n;
    }
    const gram = new Float64Array(p * p);
    const rhs = new Float64Array(p);
    let yy = 0;
    for (let i = 0; i < n; i++) {
      const yc = y[i] - yBar;
      yy += yc * yc;
      for (let j = 0; j < p; j++) {
        rhs[j] += (X[i * p + j] - xBar[j]) * yc;
        for (let k = 0; k < p; k++) gram[j * p + k] += (X[i * p + j] - xBar[j]) * (X[i * p + k] - xBar[k]);
      }
    }
    const r2 = new Float64Array(2 ** p);
    enumerateSubsets({ p, fixed: 0, gram, rhs }, {}, (view) => {
      r2[view.mask] = view.quad / yy;
    });
    // R² of {0, 2} by least squares on [1, x0, x2] and the residual sum of squares.
    const fit = nigRegression({ X: design(X, n, p, [0, 2], true), y, n, p: 3, v: 1e12, a: 1, b: 1e-12 });
    const w = fit.posterior().mean;
    let rss = 0;
    for (let i = 0; i < n; i++) {
      const r = y[i] - w[0] - w[1] * X[i * p] - w[2] * X[i * p + 2];
      rss += r * r;
    }
    expect(r2[0b0101]).toBeCloseTo(1 - rss / yy, 8);
    expect(r2[0]).toBe(0);
  });

  it("detects a numerically singular subset: throws, or confines NaN to the subsets concerned", () => {
    // Column 2 duplicates column 0 and there is no ridge: G_SS is singular iff S ⊇ {0, 2}.
    const n = 30;
    const p = 3;
    const { X } = simulate(n, p, [], 2);
    for (let i = 0; i < n; i++) X[i * p + 2] = X[i * p];
    const gram = new Float64Array(p * p);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < p; j++) for (let k = 0; k < p; k++) gram[j * p + k] += X[i * p + j] * X[i * p + k];
    }
    const system = { p, fixed: 0, gram, rhs: new Float64Array([1, 2, 3]) };
    expect(() => enumerateSubsets(system, {}, () => {})).toThrow(/linear combination/);
    enumerateSubsets(system, { singular: "nan" }, (view) => {
      const both = (view.mask & 0b101) === 0b101;
      expect(Number.isNaN(view.logDet)).toBe(both);
      expect(Number.isNaN(view.quad)).toBe(both);
    });
  });

  it("rejects bad systems and options", () => {
    expect(() =>
      enumerateSubsets({ p: 2, fixed: 0, gram: new Float64Array(3), rhs: new Float64Array(2) }, {}, () => {}),
    ).toThrow(OccamError);
    const system = randomSystem(3, 0, 1);
    expect(() => enumerateSubsets(system, { maxSize: -1 }, () => {})).toThrow(/maxSize/);
    expect(() => enumerateSubsets(system, { steps: { from: 3, to: 3 } }, () => {})).toThrow(/steps/);
    expect(() => enumerateSubsets(system, { steps: { from: 0, to: 9 } }, () => {})).toThrow(/steps/);
    expect(() => enumerateSubsets(system, { maxSize: 2, steps: { from: 0, to: 4 } }, () => {})).toThrow(
      /steps/,
    );
  });
});

describe("sampleSubsets (MCMC over subsets)", () => {
  it("inclusion frequencies agree with the exact enumeration within 4.5 between-chain standard errors", () => {
    const n = 50;
    const p = 8;
    const { X, y } = simulate(n, p, [0.4, -0.3, 0.2, 0, 0, 0.1, 0, 0], 21);
    const nig = nigFamilyOf(X, y, n, p, { v: 1, a: 1, b: 1 });
    const exact = searchSubsets(nig, { prior: "uniform-size" }).inclusion;
    const chains = createRng(4).split(20);
    const freq = chains.map(
      (rng) =>
        sampleSubsets({
          p,
          logEvidence: (m) => nig.score(m),
          rng,
          prior: "uniform-size",
          iterations: 3000,
          burnIn: 300,
        }).inclusionFrequency,
    );
    // Independent chains: the SE of the pooled mean is the between-chain sd / √R (t with 19 dof;
    // 4.5 SE leaves a per-input false-alarm rate ~ 2e-4). An input never (or always) visited gives
    // sd = 0, so the SE is floored at that of R·N independent draws, √(π(1 − π)/(RN)), which positively
    // autocorrelated MCMC cannot beat.
    for (let j = 0; j < p; j++) {
      const values = freq.map((f) => f[j]);
      const mean = values.reduce((s, v) => s + v, 0) / values.length;
      const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
      const iid = Math.sqrt((exact[j] * (1 - exact[j])) / (values.length * 3000));
      expect(Math.abs(mean - exact[j])).toBeLessThan(4.5 * Math.max(sd / Math.sqrt(values.length), iid));
    }
  });

  it("returns a compact sample that compareSubsets accepts, for p beyond 31", () => {
    const n = 200;
    const p = 40;
    const { X, y } = simulate(n, p, [1, 0, 0, -1], 8);
    const X31 = new Float64Array(n * 31);
    for (let i = 0; i < n; i++) for (let j = 0; j < 31; j++) X31[i * 31 + j] = X[i * p + j];
    const nig = nigFamilyOf(X31, y, n, 31, { v: 1e2, a: 1, b: 1 });
    expect(nig.terms).toHaveLength(31);
    // p = 40 via a scorer built on a 31-input model for the first 31 inputs and a penalty beyond.
    const sample = sampleSubsets({
      p,
      logEvidence: (m) => (m.some((j) => j >= 31) ? -1e6 : nig.score(m)),
      rng: createRng(1),
      iterations: 2000,
      burnIn: 500,
    });
    expect(sample.masks).toBeUndefined();
    expect(sample.visits.reduce((s, v) => s + v, 0)).toBe(2000);
    const cmp = compareSubsets(sample);
    const best = Array.from(sample.members.subarray(sample.offsets[cmp.best], sample.offsets[cmp.best + 1]));
    expect(best).toEqual([0, 3]);
    expect(Array.from(cmp.medianModel)).toEqual([0, 3]);
    expect(sample.acceptanceRate).toBeGreaterThan(0);
  });
});
