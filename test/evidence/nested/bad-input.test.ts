import { describe, expect, it } from "vitest";
import { nestedSampling } from "../../../src/evidence/nested/nested-sampling.js";
import { thrown } from "../../support/assertions.js";
import { boxModel, identity, meanModel, withTransform } from "./models.js";

describe("nestedSampling on bad input", () => {
  it("rejects a prior transform that maps the cube outside the prior's support", () => {
    // The prior is uniform on [0, 1]², the transform maps the cube onto [0, 2]².
    const model = boxModel(2, (u, out) => {
      for (let j = 0; j < 2; j++) out[j] = 2 * u[j];
      return out;
    });
    const e = thrown(() => nestedSampling(model, { livePoints: 20, seed: 1 }));
    expect(e.code).toBe("invalid-argument");
    expect(e.message).toMatch(
      /^nestedSampling: model.priorTransform maps u = .* where model.logPrior is -Infinity/,
    );
    expect(e.message).toMatch(/F⁻¹\(u\)/);
    const short = boxModel(2, () => new Float64Array(1));
    expect(thrown(() => nestedSampling(short, { seed: 1 })).code).toBe("dimension-mismatch");
  });

  it("takes a log likelihood that is +Infinity or NaN as zero, and says so: unreliable when it covers part of the prior", () => {
    for (const bad of [Number.POSITIVE_INFINITY, Number.NaN]) {
      const model = boxModel(2, identity, (theta) => (theta[0] > 0.7 ? bad : -theta[1]));
      const r = nestedSampling(model, { livePoints: 20, seed: 1 });
      expect(r.reliable).toBe(false);
      expect(r.warnings.join(" ")).toMatch(
        /model.logLikelihood was NaN or \+Infinity at \d+ of 20 prior draws/,
      );
    }
  });

  it("rejects fewer than dim + 1 live points, a dlogz ≤ 0 and other bad options", () => {
    const model = withTransform(meanModel(3));
    expect(thrown(() => nestedSampling(model, { livePoints: 3 })).message).toMatch(
      /livePoints must be an integer ≥ dim \+ 1 = 4/,
    );
    for (const dlogz of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(thrown(() => nestedSampling(model, { dlogz })).message).toMatch(
        /dlogz must be a finite number > 0/,
      );
    }
    expect(thrown(() => nestedSampling(model, { sampler: "magic" as "slice" })).message).toMatch(
      /sampler must be/,
    );
    expect(thrown(() => nestedSampling(meanModel(2), { sampler: "ellipsoid" })).message).toMatch(
      /needs model.priorTransform/,
    );
    expect(thrown(() => nestedSampling(model, { dynamic: { posteriorFraction: 2 } })).message).toMatch(
      /posteriorFraction/,
    );
    expect(thrown(() => nestedSampling(model, { maxIterations: 0 })).message).toMatch(/maxIterations/);
  });

  it("rejects a likelihood that is zero at every live point drawn from the prior", () => {
    const model = boxModel(2, identity, () => Number.NEGATIVE_INFINITY);
    expect(thrown(() => nestedSampling(model, { livePoints: 20, seed: 1 })).message).toMatch(
      /all 20 live points drawn from the prior have a zero likelihood/,
    );
  });
});

describe("a nested run that stalls", () => {
  it("stops with an error saying what to change when the ellipsoids find no new point within maxTries", () => {
    // A narrow peak: few draws inside the cube-filling first bound are above the rising L*.
    const model = boxModel(2, identity);
    const e = thrown(() =>
      nestedSampling(model, { livePoints: 20, sampler: "ellipsoid", maxTries: 2, seed: 1 }),
    );
    expect(e.message).toMatch(
      /^nestedSampling: no new point found within 2 tries inside the bounding ellipsoids/,
    );
    expect(e.message).toMatch(/Use sampler "slice" \(or "auto"\), raise livePoints, or raise maxTries/);
  });

  it('under "auto" draws the points the ellipsoids cannot find by slice moves instead, and still finds log Z', () => {
    const model = boxModel(2, identity);
    const r = nestedSampling(model, { livePoints: 100, maxTries: 2, seed: 1 });
    expect(r.diagnostics.ellipsoids?.fallbacks).toBeGreaterThan(10);
    expect(r.diagnostics.slices?.points).toBe(r.diagnostics.ellipsoids?.fallbacks);
    // ∫ N-shaped peak of width 0.1 on the unit square: log(2π · 0.01), the box's edges 5 sd away.
    const exact = Math.log(2 * Math.PI * 0.01);
    expect(Math.abs(r.logZ - exact)).toBeLessThan(3 * r.stdErr);
  });

  it("stops a flat likelihood at once as a plateau instead of searching for a higher point", () => {
    const model = boxModel(2, identity, () => -1);
    const r = nestedSampling(model, { livePoints: 100, seed: 1 });
    expect(r.diagnostics.stop).toBe("plateau");
    expect(r.diagnostics.iterations).toBe(0);
    expect(r.nLikelihoodEvals).toBe(100);
    // Z = e^{−1}, less the trapezoid's first half slab and the last point's share of the volume (1.5/101).
    expect(r.logZ).toBeCloseTo(-1 + Math.log1p(-1.5 / 101), 10);
    expect(Math.abs(r.logZ + 1)).toBeLessThan(2 * r.stdErr);
    expect(r.warnings.join(" ")).toMatch(/plateau/);
  });
});
