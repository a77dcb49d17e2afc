import { describe, expect, it } from "vitest";
import { formatEversonFamiliesReport } from "../../src/cli/reports/everson-families.js";
import {
  eversonFamilyData,
  pairedAccuracyGap,
  pairedLogLossGap,
  runEversonFamiliesExperiment,
  withinTestNoise,
} from "../../src/experiments/everson-families.js";

describe("everson-families", () => {
  it("reads the five data sets with their splits: Ripley's Pima, Ionosphere's first 175 rows, stratified halves", () => {
    const sizes = {
      pima: [200, 332, 7, 2],
      ionosphere: [175, 176, 33, 2],
      wine: [90, 88, 13, 3],
      iris: [75, 75, 4, 3],
      crabs: [100, 100, 6, 2],
    } as const;
    for (const [name, [train, test, p, K]] of Object.entries(sizes)) {
      const d = eversonFamilyData(name as keyof typeof sizes, 1);
      expect([d.train.n, d.test.n, d.train.p, d.train.classNames.length]).toEqual([train, test, p, K]);
    }
    // crabs's sex is a factor: one indicator.
    expect(eversonFamilyData("crabs", 1).train.inputNames[0]).toBe("sex=M");
    // A different seed, a different split of the sets without a fixed one.
    expect(Array.from(eversonFamilyData("iris", 2).train.X)).not.toEqual(
      Array.from(eversonFamilyData("iris", 1).train.X),
    );
  });

  it("runs the families on a data set and checks the average against the best family", () => {
    const result = runEversonFamiliesExperiment({
      data: ["iris"],
      families: ["logistic", "pknn"],
      seeds: 1,
      draws: 600,
      everson: false,
    });
    expect(result.runs).toHaveLength(1);
    const [run] = result.runs;
    expect(run.families.map((f) => f.family)).toEqual(["logistic", "pknn"]);
    expect(run.bestAccuracy).toBeGreaterThan(0.85);
    expect(
      run.average === null ||
        run.logLossWithinBest === run.average.logLoss <= run.bestLogLoss + run.average.logLossMcse,
    ).toBe(true);
    // The gaps are the paired differences with the best family on the same rows.
    expect(run.gaps?.logLoss.difference).toBeCloseTo(
      (run.average?.logLoss ?? Number.NaN) - run.bestLogLoss,
      12,
    );
    expect(run.gaps?.accuracy.difference).toBeCloseTo(
      (run.average?.accuracy ?? Number.NaN) - run.bestAccuracy,
      12,
    );
    expect(run.gaps?.logLoss.testStdErr).toBeGreaterThan(0);
    expect(run.withinTestNoise).toBe(
      run.gaps !== null && withinTestNoise(run.gaps, run.average?.logLossMcse ?? Number.NaN),
    );
    const report = formatEversonFamiliesReport(result);
    expect(report).toMatch(/iris, seed 1: 75 training and 75 test rows/);
    expect(report).toMatch(/evidence-weighted average's test log loss was within its Monte Carlo error/);
    expect(report).toMatch(/Within two standard errors of the test rows' paired differences/);

    // The gaps in the verdict, and the count of runs within the test rows' noise.
    const gapped = (logLoss: number, accuracy: number, withinTestNoise: boolean) => ({
      ...run,
      gaps: {
        logLoss: { difference: logLoss, testStdErr: 0.01 },
        accuracy: { difference: accuracy, testStdErr: 0.01 },
      },
      withinTestNoise,
    });
    const two = formatEversonFamiliesReport({
      ...result,
      runs: [gapped(0.001, 0, true), gapped(0.05, -0.02, false)],
    });
    expect(two).toMatch(/gap 0\.0500 ± 0\.0100 over the test rows, z = 5\.0\)/);
    expect(two).toMatch(/gap -2\.0 ± 1\.0 over the test rows, z = -2\.0\)/);
    expect(two).toMatch(
      /in both log loss and accuracy \(what a test set of this size can tell apart\): 1 of 2\./,
    );
  });

  it("calls an average within the test rows' noise when both gaps are within two standard errors", () => {
    const gap = (difference: number, testStdErr: number) => ({ difference, testStdErr });
    expect(withinTestNoise({ logLoss: gap(0.019, 0.01), accuracy: gap(-0.019, 0.01) })).toBe(true);
    expect(withinTestNoise({ logLoss: gap(0.021, 0.01), accuracy: gap(0, 0.01) })).toBe(false);
    expect(withinTestNoise({ logLoss: gap(0, 0.01), accuracy: gap(-0.021, 0.01) })).toBe(false);
    // Better than the best family is within, however far.
    expect(withinTestNoise({ logLoss: gap(-0.5, 0.01), accuracy: gap(0.3, 0.01) })).toBe(true);
    // The best family itself, but for rounding.
    expect(withinTestNoise({ logLoss: gap(3e-10, 1e-10), accuracy: gap(0, 0) })).toBe(true);
    // An average all but equal to the best family (crabs: 1 − 2e-4 of the weight on it): a gap of 1e-5
    // whose paired spread is smaller still, within the average's Monte Carlo error.
    expect(withinTestNoise({ logLoss: gap(1e-5, 3e-6), accuracy: gap(0, 0) })).toBe(false);
    expect(withinTestNoise({ logLoss: gap(1e-5, 3e-6), accuracy: gap(0, 0) }, 6e-4)).toBe(true);
  });

  it("compares two predictives row by row: the mean difference of their scores and its standard error", () => {
    // Two rows, two classes; row 0 is class 0, row 1 class 1. Log losses: a 0.602, b 0.458.
    const labels = Int32Array.from([0, 1]);
    const a = Float64Array.from([0.5, 0.5, 0.4, 0.6]);
    const b = Float64Array.from([0.8, 0.2, 0.5, 0.5]);
    // Per row −log a + log b: log(0.8/0.5) and log(0.5/0.6); their mean, positive since a predicts
    // worse, and, for two rows, the standard error half their distance.
    const gap = pairedLogLossGap(a, b, labels, 2);
    expect(gap.difference).toBeCloseTo((Math.log(1.6) + Math.log(5 / 6)) / 2, 12);
    expect(gap.testStdErr).toBeCloseTo((Math.log(1.6) - Math.log(5 / 6)) / 2, 12);
    expect(pairedLogLossGap(b, a, labels, 2).difference).toBeCloseTo(-gap.difference, 12);
    expect(pairedLogLossGap(a, a, labels, 2)).toEqual({ difference: 0, testStdErr: 0 });
    // Ties go to the first class, as in the scores: a is right on both rows, b on row 0 only (its row 1
    // ties). Differences 0 and 1: mean ½, sd √½, standard error ½.
    const accuracy = pairedAccuracyGap(a, b, labels, 2);
    expect(accuracy.difference).toBe(0.5);
    expect(accuracy.testStdErr).toBeCloseTo(0.5, 12);
  });
});
