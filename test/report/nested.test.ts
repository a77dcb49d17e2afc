import { describe, expect, it } from "vitest";
import type { EstimatorComparison } from "../../src/evidence/compare.js";
import { nestedSampling } from "../../src/evidence/nested/nested-sampling.js";
import { evidenceReportDocument } from "../../src/report/evidence.js";
import { runPlotPoints } from "../../src/report/nested.js";
import { meanModel, withTransform } from "../evidence/nested/models.js";

describe("the evidence report's nested-sampling run plot", () => {
  const result = nestedSampling(withTransform(meanModel(2)), { livePoints: 50, seed: 1 });

  it("draws live points, log L and the weights against −log X from the run's record", async () => {
    const comparison: EstimatorComparison = {
      results: [result],
      failures: [],
      pairs: [],
      agree: false,
      consensus: { logZ: result.logZ, stdErr: result.stdErr },
    };
    const doc = await evidenceReportDocument(comparison, { model: "m", seed: 1 });
    const section = doc.sections.find((s) => s.heading === "Nested sampling runs");
    expect(section).toBeDefined();
    const plot = section?.plots?.[0];
    if (plot === undefined) throw new Error("expected the run plot");
    expect(plot.svg.startsWith("<svg")).toBe(true);
    // Three panels, each with its axis title.
    for (const title of ["live points", "log L", "posterior weight / max"]) expect(plot.svg).toContain(title);
    const values = (plot.spec as { data: { values: { minusLogX: number; logL: number }[] } }).data.values;
    const record = result.diagnostics.record;
    expect(values).toHaveLength(record.logX.length);
    expect(values[10].minusLogX).toBe(-record.logX[10]);
    expect(values[10].logL).toBe(record.logL[10]);
    expect(section?.tables?.[0].rows[0]).toEqual(
      expect.arrayContaining(["nested", "50", String(result.diagnostics.iterations), "ellipsoid", "dlogz"]),
    );
  });

  it("has no section without a nested run", async () => {
    const doc = await evidenceReportDocument(
      {
        results: [{ ...result, method: "smc" } as never],
        failures: [],
        pairs: [],
        agree: false,
        consensus: { logZ: 0, stdErr: 1 },
      },
      { model: "m", seed: 1 },
    );
    expect(doc.sections.map((s) => s.heading)).not.toContain("Nested sampling runs");
  });

  it("thins a long run evenly, keeping its first and last death, with weights scaled to a maximum of 1", () => {
    const record = result.diagnostics.record;
    const n = record.logX.length;
    const long = {
      logX: Array.from({ length: 40 }, () => record.logX).flat(),
      logL: Array.from({ length: 40 }, () => record.logL).flat(),
      logWeight: Array.from({ length: 40 }, () => record.logWeight).flat(),
      nLive: Array.from({ length: 40 }, () => record.nLive).flat(),
      evaluations: Array.from({ length: 40 }, () => record.evaluations).flat(),
    };
    const points = runPlotPoints("nested", long);
    expect(points.length).toBeLessThanOrEqual(1501);
    expect(points[0].logL).toBe(record.logL[0]);
    expect(points[points.length - 1].logL).toBe(record.logL[n - 1]);
    expect(Math.max(...points.map((p) => p.weight))).toBeLessThanOrEqual(1);
    expect(Math.max(...runPlotPoints("nested", record).map((p) => p.weight))).toBe(1);
  });
});
