import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { LAPLACE_NOTE, laplace } from "../../src/evidence/laplace.js";
import type { BayesModel } from "../../src/model/model.js";
import { gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { thrown } from "./support.js";

/** The model without its gradients, so laplace must use finite differences. */
function withoutGradients(model: BayesModel): BayesModel {
  return {
    dim: model.dim,
    logPrior: (t) => model.logPrior(t),
    logLikelihood: (t) => model.logLikelihood(t),
    samplePrior: (rng) => model.samplePrior(rng),
  };
}

describe("laplace", () => {
  for (const dim of [1, 10]) {
    it(`is exact (to 1e-6) for the Gaussian posterior in d = ${dim}`, () => {
      const model = gaussianMeanModel({ dim, n: 20, seed: 51 });
      const r = laplace(model, { seed: 1 });
      expect(r.method).toBe("laplace");
      expect(Math.abs(r.logZ - model.exactLogEvidence())).toBeLessThan(1e-6);
      expect(r.stdErr).toBe(0);
      // Exact here, but with no error bar it never counts as reliable.
      expect(r.reliable).toBe(false);
      expect(r.warnings[0]).toBe(LAPLACE_NOTE);
      expect(r.diagnostics.converged).toBe(true);
      expect(r.diagnostics.hessian).toBe("numerical (gradients)");
      expect(r.nLikelihoodEvals).toBeGreaterThan(0);
      const mode = r.diagnostics.mode as number[];
      const { mean } = model.posterior();
      for (let j = 0; j < dim; j++) expect(mode[j]).toBeCloseTo(mean[j], 6);
    });
  }

  it("finds the mode and curvature by finite differences when the model has no gradients", () => {
    // Second differences with step ε^(1/4) have rounding error ≈ ε|f|/h² ≈ 1e-7 relative per
    // Hessian entry here (|f| ≈ 300, h ≈ 1.2e-4); log det sums d such errors, so 1e-5 bounds d = 10.
    const model = gaussianMeanModel({ dim: 10, n: 20, seed: 52 });
    const r = laplace(withoutGradients(model), { seed: 2 });
    expect(r.diagnostics.hessian).toBe("numerical (values)");
    expect(Math.abs(r.logZ - model.exactLogEvidence())).toBeLessThan(1e-5);
  });

  it("uses a given mode and a user Hessian", () => {
    const model = gaussianMeanModel({ dim: 3, n: 5, sigma: 2, seed: 53 });
    const { mean, sd } = model.posterior();
    const hessian = (): Float64Array => {
      const h = new Float64Array(9);
      for (let j = 0; j < 3; j++) h[j * 4] = -1 / (sd * sd);
      return h;
    };
    const r = laplace(model, { mode: mean, hessian });
    expect(r.diagnostics.modeGiven).toBe(true);
    expect(r.diagnostics.hessian).toBe("user");
    expect(Math.abs(r.logZ - model.exactLogEvidence())).toBeLessThan(1e-10);
  });

  it("throws not-positive-definite with an explanation at a saddle point", () => {
    // log p + log L = −x² + y² + const has a saddle at 0: −H = diag(2, −2).
    const saddle: BayesModel = {
      dim: 2,
      logPrior: (t) => -t[0] * t[0],
      logLikelihood: (t) => t[1] * t[1],
      samplePrior: () => new Float64Array(2),
    };
    const e = thrown(() => laplace(saddle, { mode: new Float64Array(2) })) as OccamError;
    expect(e).toBeInstanceOf(OccamError);
    expect(e.code).toBe("not-positive-definite");
    expect(e.message).toMatch(/not a maximum/);
    const positive = () => new Float64Array([1, 0, 0, 1]);
    const model = gaussianMeanModel({ dim: 2, seed: 0 });
    expect((thrown(() => laplace(model, { hessian: positive })) as OccamError).code).toBe(
      "not-positive-definite",
    );
  });

  it("rejects NaN log likelihoods, bad modes and bad options", () => {
    const model = gaussianMeanModel({ dim: 2, seed: 0 });
    const nan: BayesModel = { ...withoutGradients(model), logLikelihood: () => Number.NaN };
    expect(() => laplace(nan, { seed: 1 })).toThrow(/logLikelihood is NaN/);
    expect(() => laplace(model, { mode: new Float64Array(3) })).toThrow(/length 2/);
    expect(() => laplace(model, { mode: new Float64Array([0, Number.NaN]) })).toThrow(/mode\[1\]/);
    expect(() => laplace(model, { starts: 0 })).toThrow(/starts/);
    expect(() => laplace(model, { hessian: () => new Float64Array(3) })).toThrow(/2 × 2/);
    const nowhere: BayesModel = { ...withoutGradients(model), logLikelihood: () => Number.NEGATIVE_INFINITY };
    expect(() => laplace(nowhere, { seed: 1 })).toThrow(/none of/);
  });
});
