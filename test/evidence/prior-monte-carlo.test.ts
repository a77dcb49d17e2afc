import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { priorMonteCarlo } from "../../src/evidence/prior-monte-carlo.js";
import type { BayesModel } from "../../src/model/model.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { thrown, withNaNLikelihood } from "./support.js";

describe("priorMonteCarlo", () => {
  // Prior Monte Carlo only works where the likelihood is not much narrower than the prior: in d = 10
  // that means little data (one observation with σ = 2 leaves a weight ESS of thousands).
  const cases = [
    { dim: 1, n: 20, sigma: 1 },
    { dim: 10, n: 1, sigma: 2 },
  ];
  for (const { dim, n, sigma } of cases) {
    it(`is within 4 standard errors of the exact log Z in d = ${dim}`, () => {
      const model = gaussianMeanModel({ dim, n, sigma, seed: 21 });
      const r = priorMonteCarlo(model, { samples: 10_000, seed: 3 });
      expect(r.method).toBe("prior");
      expect(r.reliable).toBe(true);
      expect(r.stdErr).toBeGreaterThan(0);
      expect(Math.abs(r.logZ - model.exactLogEvidence())).toBeLessThan(4 * r.stdErr);
      expect(r.nLikelihoodEvals).toBe(10_000);
      expect(r.diagnostics.paretoK).toBeLessThan(0.7);
    });
  }

  it("flags its own failure when the likelihood is narrow: Pareto k̂ > 0.7 and a tiny ESS", () => {
    // d = 10 with 20 observations: the prior almost never hits the likelihood. The estimate is many
    // nats off and its stdErr far too small; the diagnostics are what tell the user.
    const model = gaussianMeanModel({ dim: 10, n: 20, seed: 1 });
    const r = priorMonteCarlo(model, { samples: 5000, seed: 1 });
    expect(r.diagnostics.paretoK).toBeGreaterThan(0.7);
    expect(r.diagnostics.ess).toBeLessThan(10);
    expect(Math.abs(model.exactLogEvidence() - r.logZ)).toBeGreaterThan(4 * r.stdErr);
    // ... and says its error bar cannot be trusted.
    expect(r.reliable).toBe(false);
    expect(r.warnings.join(" ")).toMatch(/effective sample size .* of 5000/);
  });

  it("gives the same result for the same seed", () => {
    const model = gaussianMeanModel({ dim: 2, seed: 3 });
    expect(priorMonteCarlo(model, { samples: 500, seed: 4 }).logZ).toBe(
      priorMonteCarlo(model, { samples: 500, seed: 4 }).logZ,
    );
  });

  it("names the prior draw with a NaN log likelihood and rejects bad prior draws and options", () => {
    const model = gaussianMeanModel({ dim: 1, seed: 0 });
    const e = thrown(() =>
      priorMonteCarlo(
        withNaNLikelihood(model, (t) => t[0] > 1.5),
        { samples: 1000 },
      ),
    ) as OccamError;
    expect(e).toBeInstanceOf(OccamError);
    expect(e.code).toBe("non-finite");
    expect(e.message).toMatch(/logLikelihood is NaN at prior draw \d+/);
    const shortDraws: BayesModel = {
      ...withNaNLikelihood(model, () => false),
      samplePrior: () => new Float64Array(2),
    };
    expect(() => priorMonteCarlo(shortDraws, { samples: 10 })).toThrow(/length 1/);
    expect(() => priorMonteCarlo(model, { samples: 1 })).toThrow(/samples/);
  });
});
