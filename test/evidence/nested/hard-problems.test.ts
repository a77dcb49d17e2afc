/**
 * Nested sampling on the problems dynesty (Speagle 2020, §8) published runs of: the eggbox and the
 * Gaussian shells, each within its own error of the reference and with fewer likelihood evaluations
 * than dynesty's run.
 */
import { describe, expect, it } from "vitest";
import { nestedSampling } from "../../../src/evidence/nested/nested-sampling.js";
import { EGGBOX_PUBLISHED_LOG_Z, hardProblem } from "../../../src/models/hard-problems/index.js";

describe("nestedSampling on dynesty's test problems", () => {
  it("finds the eggbox's log Z within 0.1 nats, covered by its error bar, in fewer evaluations than dynesty", () => {
    const { model, logZ } = hardProblem("eggbox");
    expect(logZ).toBeCloseTo(EGGBOX_PUBLISHED_LOG_Z, 3);
    const r = nestedSampling(model, { livePoints: 2000, seed: 1 });
    expect(r.reliable).toBe(true);
    expect(r.diagnostics.sampler).toBe("ellipsoid");
    // 18 modes need many ellipsoids.
    expect(r.diagnostics.ellipsoids?.maxEllipsoids).toBeGreaterThan(10);
    expect(Math.abs(r.logZ - logZ)).toBeLessThan(0.1);
    expect(Math.abs(r.logZ - logZ)).toBeLessThan(2 * r.stdErr);
    // dynesty: 235.800 ± 0.064 at 74 289 calls (and 236.060 ± 0.112 at 57 080).
    expect(r.stdErr).toBeLessThan(0.064);
    expect(r.nLikelihoodEvals).toBeLessThan(57_080);
  });

  it.each([
    ["shells-d2", 19_342],
    ["shells-d5", 38_950],
    ["shells-d10", 99_463],
  ] as const)(
    "finds %s's log Z within 2 standard errors in fewer evaluations than dynesty's %i",
    (name, calls) => {
      const { model, logZ } = hardProblem(name);
      const r = nestedSampling(model, { seed: 1 });
      expect(r.reliable).toBe(true);
      expect(Math.abs(r.logZ - logZ)).toBeLessThan(2 * r.stdErr);
      expect(r.nLikelihoodEvals).toBeLessThan(calls);
    },
  );
});
