import { describe, expect, it } from "vitest";
import { multivariateNormal } from "../../src/distributions/multivariate-normal.js";
import type { OccamError } from "../../src/errors.js";
import { type ImportanceProposal, importanceSampling } from "../../src/evidence/importance-sampling.js";
import { identity } from "../../src/math/linalg.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { exactDraws, thrown, withNaNLikelihood } from "./support.js";

describe("importanceSampling", () => {
  for (const dim of [1, 10]) {
    for (const proposalFamily of ["student-t", "normal"] as const) {
      it(`with a ${proposalFamily} proposal fitted to draws is within 4 standard errors in d = ${dim}`, () => {
        const model = gaussianMeanModel({ dim, n: 20, seed: 31 });
        const draws = exactDraws(model, 1, 1000);
        const r = importanceSampling(model, { draws, proposalFamily, samples: 4000, seed: 2 });
        expect(r.method).toBe("importance");
        expect(r.reliable).toBe(true);
        expect(Math.abs(r.logZ - model.exactLogEvidence())).toBeLessThan(4 * r.stdErr);
        expect(r.diagnostics.paretoK as number).toBeLessThan(0.7);
        expect(r.nLikelihoodEvals).toBe(4000);
      });
    }
  }

  it("is exact, with zero error, when the proposal is the posterior itself", () => {
    const model = gaussianMeanModel({ dim: 3, n: 8, seed: 5 });
    const { mean, sd } = model.posterior();
    const L = identity(3).map((v) => v * sd);
    const proposal = multivariateNormal({ mean, choleskyL: L });
    const r = importanceSampling(model, { proposal, samples: 200, seed: 1 });
    expect(Math.abs(r.logZ - model.exactLogEvidence())).toBeLessThan(1e-10);
    expect(r.stdErr).toBeLessThan(1e-10);
    expect(r.diagnostics.ess as number).toBeCloseTo(200, 6);
  });

  it("has calibrated standard errors: |z| < 2 in at least 80 % of 20 seeds (d = 10)", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const model = gaussianMeanModel({ dim: 10, n: 20, seed: 400 + s });
      const r = importanceSampling(model, { draws: exactDraws(model, 500 + s, 500), samples: 2000, seed: s });
      if (Math.abs(r.logZ - model.exactLogEvidence()) < 2 * r.stdErr) inside++;
    }
    // A calibrated stdErr puts 95 % inside; P(at most 15 of 20 | p = 0.95) ≈ 0.003.
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("marks heavy-tailed weights unreliable: a normal proposal much narrower than the posterior (d = 5)", () => {
    const model = gaussianMeanModel({ dim: 5, n: 20, seed: 6 });
    const { mean, sd } = model.posterior();
    const L = identity(5).map((v) => v * 0.4 * sd);
    const narrow = multivariateNormal({ mean, choleskyL: L });
    const r = importanceSampling(model, { proposal: narrow, samples: 4000, seed: 3 });
    expect(r.method).toBe("importance");
    expect(r.reliable).toBe(false);
    expect(r.warnings[0]).toMatch(/Pareto k̂|effective sample size/);
    const fitted = importanceSampling(model, { draws: exactDraws(model, 2, 2000), seed: 3 });
    expect(fitted.reliable).toBe(true);
  });
  it("rejects non-finite and wrong-length proposal values, naming the draw", () => {
    const model = gaussianMeanModel({ dim: 2, seed: 0 });
    let count = 0;
    const nanSample: ImportanceProposal = {
      sample: (_rng, out) => {
        out[0] = count++ === 3 ? Number.NaN : 0;
        out[1] = 0;
        return out;
      },
      logPdf: () => -1,
    };
    const e = thrown(() => importanceSampling(model, { proposal: nanSample, samples: 10 })) as OccamError;
    expect(e.code).toBe("non-finite");
    expect(e.message).toMatch(/proposal draw 3/);
    const badPdf: ImportanceProposal = { sample: (_rng, out) => out.fill(0), logPdf: () => Number.NaN };
    expect(() => importanceSampling(model, { proposal: badPdf, samples: 10 })).toThrow(/logPdf is NaN/);
    const infPdf: ImportanceProposal = {
      sample: (_rng, out) => out.fill(0),
      logPdf: () => Number.NEGATIVE_INFINITY,
    };
    expect(() => importanceSampling(model, { proposal: infPdf, samples: 10 })).toThrow(/logPdf is -Infinity/);
    const wrong: ImportanceProposal = { sample: () => new Float64Array(3), logPdf: () => 0 };
    expect(
      (thrown(() => importanceSampling(model, { proposal: wrong, samples: 10 })) as OccamError).code,
    ).toBe("dimension-mismatch");
  });

  it("names the draw with a NaN log likelihood and checks its options", () => {
    const model = gaussianMeanModel({ dim: 1, seed: 0 });
    const draws = exactDraws(model, 1, 100);
    const bad = withNaNLikelihood(model, (t) => t[0] > model.posterior().mean[0]);
    expect(() => importanceSampling(bad, { draws, samples: 100 })).toThrow(
      /logLikelihood is NaN at proposal draw \d+/,
    );
    expect(() => importanceSampling(model, { samples: 100 })).toThrow(/needs a proposal/);
    const proposal = multivariateNormal({ mean: [0], choleskyL: [1] });
    expect(() => importanceSampling(model, { draws, proposal })).toThrow(/not both/);
    expect(() => importanceSampling(model, { draws: draws.slice(0, 5) })).toThrow(/at least 10/);
    expect(() => importanceSampling(model, { draws, scale: 0 })).toThrow(/scale/);
    expect(() => importanceSampling(model, { draws, proposalFamily: "cauchy" as "normal" })).toThrow(
      /proposalFamily/,
    );
    const flat = Array.from({ length: 20 }, () => new Float64Array(1));
    expect((thrown(() => importanceSampling(model, { draws: flat })) as OccamError).code).toBe(
      "not-positive-definite",
    );
  });
});
