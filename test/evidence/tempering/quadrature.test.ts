import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quadratureWeights, slopeWeights } from "../../../src/evidence/tempering/quadrature.js";
import { powerLadder } from "../../../src/evidence/tempering/schedule.js";
import { expectedLogLikelihood, testModel } from "../tempered-models.js";

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
});
