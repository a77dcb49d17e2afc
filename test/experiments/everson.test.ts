import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { EVERSON_SUBSETS, runEversonExperiment, spearmanCorrelation } from "../../src/experiments/everson.js";

// A two-sided bound of Z standard errors for each of the 15 models: with calibrated errors the chance
// that any of 15 independent estimates falls outside is 15 · P(|N(0,1)| > 3.5) ≈ 0.7 %.
const Z = 3.5;

describe("runEversonExperiment (Everson et al. sec. 3, Tables 1–2), n = 2000, 3000 draws", () => {
  // The quick data size (the orderings need n ≈ 2000) with fewer draws, to keep the file fast.
  const result = runEversonExperiment({ n: 2000, samples: 3000, seed: 1 });
  const { rows, summary } = result;

  it("gives one row per input subset, in the JSON shape of the CLI", () => {
    expect(result.experiment).toBe("everson");
    expect(rows).toHaveLength(15);
    expect(rows.map((r) => r.inputs.join(","))).toEqual(EVERSON_SUBSETS.map((s) => s.join(",")));
    expect(new Set(rows.map((r) => r.inputs.join(","))).size).toBe(15);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual([
        "chainRule",
        "crossValidated",
        "crossValidatedStdErr",
        "exact",
        "exactHeldOut",
        "heldOut",
        "inputs",
      ]);
      for (const value of Object.values(row).filter((v) => typeof v === "number")) {
        expect(Number.isFinite(value)).toBe(true);
      }
      expect(row.crossValidatedStdErr).toBeGreaterThan(0);
    }
    expect(Object.keys(result).sort()).toEqual(["experiment", "rows", "summary"]);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    expect(summary).toMatchObject({ n: 2000, samples: 3000, folds: 5, seed: 1, quick: false });
    expect(summary.warnings).toEqual([]);
  });

  it("ranks the models as the exact evidence does (Spearman ≥ 0.95), the x_3 models on top", () => {
    const exact = rows.map((r) => r.exact);
    const kFold = spearmanCorrelation(
      rows.map((r) => r.crossValidated),
      exact,
    );
    const heldOut = spearmanCorrelation(
      rows.map((r) => r.heldOut),
      exact,
    );
    expect(kFold).toBeGreaterThanOrEqual(0.95);
    expect(heldOut).toBeGreaterThanOrEqual(0.95);
    expect(summary.spearman).toEqual({ crossValidated: kFold, heldOut });
    // The paper's two groups: every model with x_3 above every model without it.
    const withX3 = rows.filter((r) => r.inputs.includes(3)).map((r) => r.exact);
    const without = rows.filter((r) => !r.inputs.includes(3)).map((r) => r.exact);
    expect(Math.min(...withX3)).toBeGreaterThan(Math.max(...without));
  });

  it("estimates log p(D) by the chain rule within its standard error", () => {
    summary.models.forEach((d, i) => {
      const row = rows[i];
      expect(d.inputs).toEqual(row.inputs);
      expect(d.chainRuleStdErr).toBeGreaterThan(0);
      expect(Math.abs(row.chainRule - row.exact), `model (${row.inputs})`).toBeLessThan(
        Z * d.chainRuleStdErr,
      );
    });
  });

  it("puts the 5-fold product above log p(D), by a gap that is in the estimand, not Monte Carlo error", () => {
    summary.models.forEach((d, i) => {
      const row = rows[i];
      const label = `model (${row.inputs})`;
      expect(row.crossValidated - row.exact, label).toBeGreaterThan(Z * row.crossValidatedStdErr);
      expect(d.exactCrossValidated - row.exact, label).toBeGreaterThan(0);
      // The estimate agrees with the exact 5-fold value, and the held-out estimate with its exact value.
      expect(Math.abs(row.crossValidated - d.exactCrossValidated), label).toBeLessThan(
        Z * row.crossValidatedStdErr,
      );
      expect(Math.abs(row.heldOut - row.exactHeldOut), label).toBeLessThan(Z * d.heldOutStdErr);
    });
    expect(summary.meanBias.crossValidated).toBeGreaterThan(0);
    expect(summary.meanBias.exactCrossValidated).toBeGreaterThan(0);
    // The gap grows with the number of weights (the omitted Occam factor is paid per weight).
    const gap = (size: number) => {
      const g = rows.filter((r) => r.inputs.length === size).map((r) => r.crossValidated - r.exact);
      return g.reduce((s, v) => s + v, 0) / g.length;
    };
    for (let size = 2; size <= 4; size++) expect(gap(size)).toBeGreaterThan(gap(size - 1));
    expect(summary.biasExplanation).toMatch(/chain rule/);
  });

  it("gives the same result for the same seed", () => {
    const a = runEversonExperiment({ n: 100, samples: 100, seed: 7 });
    const b = runEversonExperiment({ n: 100, samples: 100, seed: 7 });
    expect(b.rows).toEqual(a.rows);
    const c = runEversonExperiment({ n: 100, samples: 100, seed: 8 });
    expect(c.rows[0].exact).not.toBe(a.rows[0].exact);
  });

  it("rejects bad options with an OccamError", () => {
    for (const bad of [
      { n: 5 },
      { n: 2000.5 },
      { samples: 10 },
      { folds: 1 },
      { seed: -1 },
      { n: 12, folds: 7 },
    ]) {
      expect(() => runEversonExperiment({ samples: 100, n: 100, ...bad }), JSON.stringify(bad)).toThrow(
        OccamError,
      );
    }
  });
});

describe("spearmanCorrelation", () => {
  it("matches hand-computed values, ties taking their mean rank", () => {
    expect(spearmanCorrelation([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 14);
    expect(spearmanCorrelation([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 14);
    // Ranks (1, 2, 3, 4, 5) and (1, 3, 2, 4, 5): 1 − 6 Σd²/(n(n² − 1)) = 1 − 6·2/120 = 0.9.
    expect(spearmanCorrelation([1, 2, 3, 4, 5], [1, 3, 2, 4, 5])).toBeCloseTo(0.9, 14);
    // Ranks (1, 2.5, 2.5, 4) and (1, 2, 3, 4): Pearson of the ranks = 4.5 / √(4.5 · 5).
    expect(spearmanCorrelation([1, 2, 2, 3], [1, 2, 3, 4])).toBeCloseTo(4.5 / Math.sqrt(4.5 * 5), 14);
  });

  it("is symmetric, unchanged by increasing and negated by decreasing transformations", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: -1e3, max: 1e3, noNaN: true }),
            fc.double({ min: -1e3, max: 1e3, noNaN: true }),
          ),
          {
            minLength: 3,
            maxLength: 30,
          },
        ),
        (pairs) => {
          const a = pairs.map((p) => p[0]);
          const b = pairs.map((p) => p[1]);
          const r = spearmanCorrelation(a, b);
          if (Number.isNaN(r)) return; // a constant sample
          expect(spearmanCorrelation(b, a)).toBeCloseTo(r, 12);
          // Scaling by a power of two and negating are exact, so no two values merge or swap.
          expect(
            spearmanCorrelation(
              a.map((x) => 8 * x),
              b,
            ),
          ).toBeCloseTo(r, 12);
          expect(
            spearmanCorrelation(
              a.map((x) => -x),
              b,
            ),
          ).toBeCloseTo(-r, 12);
          expect(r).toBeGreaterThanOrEqual(-1 - 1e-12);
          expect(r).toBeLessThanOrEqual(1 + 1e-12);
        },
      ),
    );
  });

  it("rejects samples of different lengths and non-finite values", () => {
    expect(() => spearmanCorrelation([1, 2], [1])).toThrow(OccamError);
    expect(() => spearmanCorrelation([1], [1])).toThrow(/same length ≥ 2/);
    expect(() => spearmanCorrelation([1, Number.NaN], [1, 2])).toThrow(/value 1 is NaN/);
  });
});
