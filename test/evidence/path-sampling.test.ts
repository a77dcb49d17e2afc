import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  PRIOR_TAIL_K,
  pathSampling,
  quadratureWeights,
  slopeWeights,
} from "../../src/evidence/path-sampling.js";
import { powerLadder } from "../../src/evidence/schedule.js";
import type { BayesModel } from "../../src/model/model.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { expectAccurate, thrown } from "../support/assertions.js";
import {
  exactPowerPosteriorKernel,
  expectedLogLikelihood,
  failingModel,
  testModel,
  truncatedModel,
} from "./tempered-models.js";

// Sorted nodes from a random start and random gaps (no near-duplicates, any spacing).
const nodes = fc
  .tuple(
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.array(fc.double({ min: 0.001, max: 1, noNaN: true }), { minLength: 2, maxLength: 11 }),
  )
  .map(([start, gaps]) => {
    const xs = [start];
    for (const g of gaps) xs.push(xs[xs.length - 1] + g);
    return xs;
  });

describe("quadratureWeights", () => {
  it("Simpson integrates any quadratic exactly on any spacing, odd or even number of intervals", () => {
    fc.assert(
      fc.property(
        nodes,
        fc.double({ min: -5, max: 5, noNaN: true }),
        fc.double({ min: -5, max: 5, noNaN: true }),
        (x, a, b) => {
          const f = (t: number) => 1 + a * t + b * t * t;
          const F = (t: number) => t + (a * t * t) / 2 + (b * t * t * t) / 3;
          const w = quadratureWeights(x, "simpson");
          let s = 0;
          for (let i = 0; i < x.length; i++) s += w[i] * f(x[i]);
          expect(s).toBeCloseTo(F(x[x.length - 1]) - F(x[0]), 8);
        },
      ),
    );
  });

  it("the trapezoid rule integrates linear functions exactly and its weights sum to the range", () => {
    fc.assert(
      fc.property(nodes, fc.double({ min: -5, max: 5, noNaN: true }), (x, a) => {
        const w = quadratureWeights(x, "trapezoid");
        let s = 0;
        let total = 0;
        for (let i = 0; i < x.length; i++) {
          s += w[i] * (2 + a * x[i]);
          total += w[i];
        }
        const range = x[x.length - 1] - x[0];
        expect(total).toBeCloseTo(range, 12);
        expect(s).toBeCloseTo(2 * range + (a / 2) * (x[x.length - 1] ** 2 - x[0] ** 2), 10);
      }),
    );
  });

  it("on the default ladder, Simpson removes the trapezoid's discretisation bias (exact E_β[log L], d = 10)", () => {
    const model = testModel(10);
    const ladder = powerLadder(32, 4);
    const f = Array.from(ladder, (b) => expectedLogLikelihood(model, b));
    const rule = (name: "trapezoid" | "simpson") => {
      const w = quadratureWeights(ladder, name);
      return f.reduce((s, v, i) => s + w[i] * v, 0) - model.exactLogEvidence();
    };
    expect(Math.abs(rule("simpson"))).toBeLessThan(0.01);
    expect(Math.abs(rule("trapezoid"))).toBeGreaterThan(0.03);
  });
});

describe("pathSampling, ladder scheme", () => {
  for (const d of [1, 10]) {
    it(`matches the exact log evidence in d = ${d} (corrected trapezoid on the adaptive ladder, HMC)`, () => {
      const model = testModel(d);
      const r = pathSampling(model, { seed: 1 });
      expect(r.method).toBe("path-sampling (hermite)");
      expect((r.diagnostics.adaptiveLadder as { refine: number }).refine).toBe(4);
      expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
      expect(r.stdErr).toBeLessThan(0.15);
      // The estimated discretisation error is small next to the statistical one.
      expect(r.diagnostics.discretisationError as number).toBeLessThan(r.stdErr);
    });
  }

  it("matches with the trapezoid rule in d = 1 and reports the Simpson estimate beside it", () => {
    const model = testModel(1);
    const r = pathSampling(model, { rule: "trapezoid", seed: 2 });
    expect(r.method).toBe("path-sampling (trapezoid)");
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    expect(typeof r.diagnostics.otherRuleEstimate).toBe("number");
  });

  it("has calibrated standard errors with exact draws: |z| < 2 in ≥ 80 % of 20 seeds (d = 10)", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 10, n: 20, seed: 300 + s });
      const r = pathSampling(
        { ...model, powerPosteriorKernel: (b: number) => exactPowerPosteriorKernel(model, b) },
        { seed: s, drawsPerTemperature: 300, warmupPerTemperature: 0 },
      );
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("starts at β_1 with a warning when some prior draws have log L = −∞, and names the temperature of a NaN", () => {
    const model = truncatedModel();
    const r = pathSampling(model, { seed: 1 });
    expect(r.diagnostics.priorTailK).toBe(Number.POSITIVE_INFINITY);
    expect(typeof r.diagnostics.firstRungLogRatio).toBe("number");
    expect((r.diagnostics.warnings as string[])[0]).toMatch(/−Infinity.*starts at β_1/);
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
    const ladder = powerLadder(32, 4);
    const e = thrown(() =>
      pathSampling(failingModel(1, 3000), { ladder, drawsPerTemperature: 100, seed: 1 }),
    );
    expect(e.message).toMatch(/^pathSampling at β = [0-9.e-]+ \(temperature \d+\)/);
  });

  it("detects an infinite E_prior[log L] from the prior draws' tail and starts at β_1 (θ ~ U(0, 1), log L = −1/θ)", () => {
    // E_prior[1/θ] = ∞, while Z = ∫₀¹ e^{−1/θ} dθ is finite; computed here by the midpoint rule.
    const model: BayesModel = {
      dim: 1,
      logPrior: (t) => (t[0] > 0 && t[0] < 1 ? 0 : Number.NEGATIVE_INFINITY),
      samplePrior: (rng) => Float64Array.of(rng.uniform()),
      logLikelihood: (t) => -1 / t[0],
    };
    let z = 0;
    const m = 200_000;
    for (let i = 0; i < m; i++) z += Math.exp(-m / (i + 0.5)) / m;
    const r = pathSampling(model, { seed: 2 });
    expect(r.diagnostics.priorTailK as number).toBeGreaterThan(PRIOR_TAIL_K);
    expect((r.diagnostics.warnings as string[])[0]).toMatch(/heavy lower tail/);
    expectAccurate(r.logZ, r.stdErr, Math.log(z));
  });

  it("the corrected trapezoid rule integrates cubics exactly from values and slopes, on any spacing", () => {
    fc.assert(
      fc.property(
        nodes,
        fc.double({ min: -5, max: 5, noNaN: true }),
        fc.double({ min: -5, max: 5, noNaN: true }),
        (x, a, b) => {
          const f = (t: number) => 1 + a * t * t + b * t * t * t;
          const df = (t: number) => 2 * a * t + 3 * b * t * t;
          const F = (t: number) => t + (a * t ** 3) / 3 + (b * t ** 4) / 4;
          const w = quadratureWeights(x, "hermite");
          const c = slopeWeights(x);
          let s = 0;
          for (let i = 0; i < x.length; i++) s += w[i] * f(x[i]) + c[i] * df(x[i]);
          expect(s).toBeCloseTo(F(x[x.length - 1]) - F(x[0]), 7);
        },
      ),
    );
  });

  it("rejects bad options", () => {
    const model = testModel(1);
    expect(thrown(() => pathSampling(model, { rule: "midpoint" as "simpson" })).message).toMatch(
      /rule must be/,
    );
    expect(thrown(() => pathSampling(model, { scheme: "fixed" as "ladder" })).message).toMatch(
      /scheme must be/,
    );
    expect(thrown(() => pathSampling(model, { ladder: [0, 1.2] })).code).toBe("invalid-argument");
  });
});

describe("pathSampling, the thesis's random-temperature scheme (eq. 5.23)", () => {
  it("is unbiased within its (large) standard error in d = 1", () => {
    const model = testModel(1);
    const r = pathSampling(model, { scheme: "random", temperatures: 2000, seed: 3 });
    expect(r.method).toBe("path-sampling (random temperatures)");
    expect(r.diagnostics.k).toBe(0.9);
    expectAccurate(r.logZ, r.stdErr, model.exactLogEvidence());
  });

  it("with exact draws has a calibrated error: |z| < 2 in ≥ 80 % of 20 seeds (d = 3)", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 3, n: 20, seed: 500 + s });
      const r = pathSampling(
        { ...model, powerPosteriorKernel: (b: number) => exactPowerPosteriorKernel(model, b) },
        { scheme: "random", temperatures: 300, warmupPerTemperature: 0, seed: s },
      );
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("rejects k ≥ 1 and fewer than 2 temperatures", () => {
    const model = testModel(1);
    expect(thrown(() => pathSampling(model, { scheme: "random", k: 1 })).message).toMatch(/k must be/);
    expect(thrown(() => pathSampling(model, { scheme: "random", temperatures: 1 })).message).toMatch(
      /temperatures must be/,
    );
  });
});
