import { describe, expect, it } from "vitest";
import { robotArm, robotArmData } from "../../../src/data/generators/robot-arm.js";
import { thrown } from "../../support/assertions.js";

describe("robotArmData", () => {
  it("draws the angles from the thesis's ranges and adds N(0, σ²) noise to the arm's position", () => {
    const n = 4000;
    const d = robotArmData({ n, noiseSd: 0.05, seed: 3 });
    let negative = 0;
    let ss = 0;
    for (let r = 0; r < n; r++) {
      const x1 = d.X[2 * r];
      const x2 = d.X[2 * r + 1];
      expect(Math.abs(x1)).toBeGreaterThanOrEqual(0.453);
      expect(Math.abs(x1)).toBeLessThanOrEqual(1.932);
      expect(x2).toBeGreaterThanOrEqual(0.534);
      // biome-ignore lint/suspicious/noApproximativeNumericConstant: the thesis's bound (≈ π).
      expect(x2).toBeLessThanOrEqual(3.142);
      if (x1 < 0) negative++;
      const [f1, f2] = robotArm(x1, x2);
      expect(d.F[2 * r]).toBe(f1);
      expect(d.F[2 * r + 1]).toBe(f2);
      ss += (d.Y[2 * r] - f1) ** 2 + (d.Y[2 * r + 1] - f2) ** 2;
    }
    // Both intervals of x1 equally likely: a binomial proportion within 4 standard errors of ½.
    expect(Math.abs(negative / n - 0.5)).toBeLessThan(4 * Math.sqrt(0.25 / n));
    // The noise variance: the mean of 2n squared N(0, σ²) values has relative sd √(2 / 2n).
    expect(Math.abs(ss / (2 * n) / 0.0025 - 1)).toBeLessThan(4 * Math.sqrt(2 / (2 * n)));
  });

  it("defaults to 200 cases at σ = 0.05 and is reproducible by seed", () => {
    const a = robotArmData({ seed: 1 });
    expect(a.n).toBe(200);
    expect(a.noiseSd).toBe(0.05);
    expect(Array.from(robotArmData({ seed: 1 }).Y)).toEqual(Array.from(a.Y));
    expect(Array.from(robotArmData({ seed: 2 }).Y)).not.toEqual(Array.from(a.Y));
    expect(Array.from(robotArmData({ seed: 1, noiseSd: 0 }).Y)).toEqual(
      Array.from(robotArmData({ seed: 1, noiseSd: 0 }).F),
    );
  });

  it("rejects bad sizes and noise levels", () => {
    expect(thrown(() => robotArmData({ n: 0 })).code).toBe("invalid-argument");
    expect(thrown(() => robotArmData({ noiseSd: -0.1 })).code).toBe("invalid-argument");
  });
});
