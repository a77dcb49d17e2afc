import { describe, expect, it } from "vitest";
import { formatRobotArmReport } from "../../src/cli/reports/robot-arm.js";
import { checkHiddenList, runRobotArmExperiment } from "../../src/experiments/robot-arm.js";
import { thrown } from "../support/assertions.js";
import { TINY_ROBOT_ARM } from "../support/robot-arm.js";

describe("runRobotArmExperiment", () => {
  it("returns the documented JSON shape at a tiny setting", () => {
    const result = runRobotArmExperiment({
      seed: 1,
      quick: true,
      hidden: [1],
      settings: TINY_ROBOT_ARM,
    });
    const doc = JSON.parse(JSON.stringify(result));
    expect(doc.experiment).toBe("robot-arm");
    expect(doc.noise).toBe(0.05);
    expect(doc.rows).toHaveLength(1);
    const row = doc.rows[0];
    expect(row.hidden).toBe(1);
    for (const key of ["mlTestError", "mlTrainError", "fpe", "bayesTestError", "bayesTestErrorFromPrior"]) {
      expect(row[key]).toBeGreaterThan(0);
    }
    for (const method of ["path", "chaining", "laplace", "ensemble"]) {
      expect(Number.isFinite(row.logEvidence[method].logZ)).toBe(true);
      expect(row.logEvidence[method].stdErr).toBeGreaterThanOrEqual(0);
    }
    for (const method of ["path", "chaining"]) {
      const e = row.logEvidence[method];
      expect(Number.isFinite(e.fromPrior.logZ) && Number.isFinite(e.fromPosterior.logZ)).toBe(true);
      expect(e.hysteresis).toBeCloseTo(e.fromPosterior.logZ - e.fromPrior.logZ, 10);
      expect(e.logZ).toBeCloseTo((e.fromPosterior.logZ + e.fromPrior.logZ) / 2, 10);
    }
    const text = formatRobotArmReport(result);
    expect(text).toMatch(/Hysteresis/);
    expect(text).toMatch(/evidence framework/);
  });

  it("generates its data with the noise asked for (the thesis's 0.5 as well as 0.05)", () => {
    const result = runRobotArmExperiment({
      seed: 1,
      quick: true,
      hidden: [1],
      noise: 0.5,
      settings: TINY_ROBOT_ARM,
    });
    expect(result.noise).toBe(0.5);
    expect(formatRobotArmReport(result)).toMatch(/noise σ = 0\.5,.*\n\nErrors: .*gives 0\.25\)/);
    expect(thrown(() => runRobotArmExperiment({ seed: 1, quick: true, noise: 0 })).code).toBe(
      "invalid-argument",
    );
  });

  it("checks the list of hidden units", () => {
    expect(checkHiddenList([1, 4], "t")).toEqual([1, 4]);
    expect(thrown(() => checkHiddenList([], "t")).code).toBe("invalid-argument");
    expect(thrown(() => checkHiddenList([0], "t")).code).toBe("invalid-argument");
    expect(thrown(() => checkHiddenList([2, 2], "t")).code).toBe("invalid-argument");
  });
});
