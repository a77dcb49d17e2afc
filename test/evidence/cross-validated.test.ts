import { describe, expect, it } from "vitest";
import { linearRegressionData } from "../../src/data/generators/linear.js";
import { multivariateNormalFromCovariance } from "../../src/distributions/multivariate-normal.js";
import { OccamError } from "../../src/errors.js";
import {
  type CrossValidatedResult,
  type CrossValidationTerm,
  crossValidatedEvidence,
  isSubsettable,
  type SubsettableModel,
} from "../../src/evidence/cross-validated.js";
import { evidenceResult } from "../../src/evidence/result.js";
import type { BayesModel } from "../../src/model/model.js";
import { type GaussianMeanModel, gaussianMeanModel } from "../../src/models/gaussian-mean/index.js";
import { nigRegression } from "../../src/models/linear/index.js";
import { thrown } from "./support.js";

/**
 * log p(D_pred | D_cond) for the gaussian-mean model, computed independently of the model's evidence:
 * given D_cond, each coordinate of μ is N(m_c, s_c²), so each coordinate of the predicted observations
 * is jointly N(m_c 1, σ² I + s_c² 1 1ᵀ).
 */
function exactPredictive(model: GaussianMeanModel, cond: Int32Array, pred: Int32Array): number {
  const { dim, sigma, priorSd, priorMean, data } = model;
  const precision = 1 / priorSd ** 2 + cond.length / sigma ** 2;
  const s2 = 1 / precision;
  const k = pred.length;
  const cov = new Float64Array(k * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) cov[i * k + j] = s2 + (i === j ? sigma ** 2 : 0);
  let total = 0;
  for (let j = 0; j < dim; j++) {
    let sum = 0;
    for (const i of cond) sum += data[i * dim + j];
    const mc = s2 * (priorMean / priorSd ** 2 + sum / sigma ** 2);
    const y = Float64Array.from(pred, (i) => data[i * dim + j]);
    total += multivariateNormalFromCovariance({ mean: new Float64Array(k).fill(mc), covariance: cov }).logPdf(
      y,
    );
  }
  return total;
}

function complementOf(block: Int32Array, n: number): Int32Array {
  const inBlock = new Set(block);
  return Int32Array.from({ length: n }, (_, i) => i).filter((i) => !inBlock.has(i));
}

/** The gaussian-mean model without its exact posterior sampler (and so are its subsets): forces MCMC. */
function withoutExactPosterior(model: GaussianMeanModel): SubsettableModel {
  return {
    dim: model.dim,
    nObservations: model.nObservations,
    logPrior: (t) => model.logPrior(t),
    logLikelihood: (t) => model.logLikelihood(t),
    gradLogPrior: (t, g) => model.gradLogPrior(t, g),
    gradLogLikelihood: (t, g) => model.gradLogLikelihood(t, g),
    samplePrior: (r) => model.samplePrior(r),
    logLikelihoodPointwise: (t, out) => model.logLikelihoodPointwise(t, out),
    exactLogEvidence: () => model.exactLogEvidence(),
    subset: (obs) => withoutExactPosterior(model.subset(obs)),
  };
}

const terms = (r: CrossValidatedResult): readonly CrossValidationTerm[] => r.diagnostics.terms;

describe("crossValidatedEvidence: held-out (eq. 7)", () => {
  it("is within 4 standard errors of the exact Gaussian posterior predictive of the evidence set", () => {
    const model = gaussianMeanModel({ dim: 2, n: 60, seed: 1 });
    const r = crossValidatedEvidence(model, { form: "held-out", trainFraction: 0.6, seed: 2 });
    const [train, test] = r.diagnostics.partition.map((b) => Int32Array.from(b));
    expect(train).toHaveLength(36);
    expect(test).toHaveLength(24);
    const exact = exactPredictive(model, train, test);
    expect(Math.abs((r.diagnostics.exactValue ?? Number.NaN) - exact)).toBeLessThan(1e-9 * Math.abs(exact));
    expect(r.method).toBe("cv");
    expect(r.diagnostics.form).toBe("held-out");
    expect(r.stdErr).toBeGreaterThan(0);
    expect(Math.abs(r.logZ - exact)).toBeLessThan(4 * r.stdErr);
    expect(terms(r)[0].sampler).toBe("exact");
    expect(r.nLikelihoodEvals).toBe(4000);
  });

  it("takes an explicit [training, evidence] partition", () => {
    const model = gaussianMeanModel({ n: 20, seed: 3 });
    const train = Int32Array.from({ length: 15 }, (_, i) => i);
    const test = Int32Array.from({ length: 5 }, (_, i) => 15 + i);
    const r = crossValidatedEvidence(model, { form: "held-out", partition: [train, test], seed: 4 });
    expect(Math.abs(r.logZ - exactPredictive(model, train, test))).toBeLessThan(4 * r.stdErr);
  });
});

describe("crossValidatedEvidence: k-fold (eq. 8) and the chain rule", () => {
  const model = gaussianMeanModel({ dim: 1, n: 100, seed: 5 });
  const exactLogZ = model.exactLogEvidence();

  it("k-fold is within 4 standard errors of the exact ∏ p(D_g | D_−g), whose exact value it reports", () => {
    const r = crossValidatedEvidence(model, { form: "k-fold", folds: 5, seed: 6 });
    const folds = r.diagnostics.partition.map((b) => Int32Array.from(b));
    expect(folds.map((f) => f.length)).toEqual([20, 20, 20, 20, 20]);
    let exact = 0;
    for (const [g, fold] of folds.entries()) {
      const term = exactPredictive(model, complementOf(fold, 100), fold);
      expect(terms(r)[g].exact).toBeCloseTo(term, 8);
      exact += term;
    }
    expect(r.diagnostics.exactValue ?? Number.NaN).toBeCloseTo(exact, 8);
    expect(Math.abs(r.logZ - exact)).toBeLessThan(4 * r.stdErr);
    // The error of the sum is the quadrature sum of the folds' errors.
    const quadrature = Math.sqrt(terms(r).reduce((s, t) => s + t.stdErr ** 2, 0));
    expect(r.stdErr).toBeCloseTo(quadrature, 14);
  });

  it("chain rule estimates log Z (within 4 stdErr) while k-fold sits above it by more than its error bar (n = 100)", () => {
    const chain = crossValidatedEvidence(model, { form: "chain-rule", folds: 5, seed: 7 });
    const kfold = crossValidatedEvidence(model, { form: "k-fold", folds: 5, seed: 7 });
    expect(chain.diagnostics.exactValue ?? Number.NaN).toBeCloseTo(exactLogZ, 8);
    expect(chain.diagnostics.firstFold?.estimator).toBe("exact");
    expect(terms(chain)).toHaveLength(4);
    expect(Math.abs(chain.logZ - exactLogZ)).toBeLessThan(4 * chain.stdErr);
    // The bias of the pseudo-likelihood on this data set, exactly and as estimated.
    const bias = kfold.diagnostics.exactBias;
    expect(bias).toBeGreaterThan(4 * kfold.stdErr);
    expect(kfold.logZ - exactLogZ).toBeGreaterThan(4 * kfold.stdErr);
    expect(kfold.logZ - chain.logZ).toBeGreaterThan(4 * Math.hypot(kfold.stdErr, chain.stdErr));
  });

  it("k-fold's exact gap above log Z has the expectation the doc comment gives, over data from the prior predictive", () => {
    // For y_i ~ N(μ, 1), μ ~ N(0, 1) and data drawn from the prior predictive, E log p(D_A | D_B) =
    // −(k/2)(log 2π + 1) − ½ log(1 + k s_B²) with k = |A| and s_B² = 1/(1 + |B|): the gap is
    // ½[log(1 + n) − G log(1 + (n/G) s_{−g}²)], the Occam factor of the prior's width that k-fold omits.
    const n = 100;
    const G = 5;
    const expected = 0.5 * (Math.log(1 + n) - G * Math.log(1 + n / G / (1 + n - n / G)));
    const folds = Array.from({ length: G }, (_, g) =>
      Int32Array.from({ length: n / G }, (_, i) => g * (n / G) + i),
    );
    const gaps: number[] = [];
    for (let s = 0; s < 400; s++) {
      const m = gaussianMeanModel({ n, seed: 1000 + s });
      const z = m.exactLogEvidence();
      let kfold = 0;
      for (const fold of folds) kfold += z - m.subset(complementOf(fold, n)).exactLogEvidence();
      gaps.push(kfold - z);
    }
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / (gaps.length - 1));
    expect(expected).toBeCloseTo(1.7559, 4);
    expect(Math.abs(mean - expected)).toBeLessThan((4 * sd) / Math.sqrt(gaps.length));
  });

  it("chain rule with bridge sampling for the first fold is within 4 stdErr of log Z, and says so", () => {
    const r = crossValidatedEvidence(model, {
      form: "chain-rule",
      firstFoldEstimator: "bridge-sampling",
      seed: 8,
    });
    const first = r.diagnostics.firstFold as {
      estimator: string;
      stdErr: number;
      exact: number;
      logZ: number;
    };
    expect(first.estimator).toBe("bridge");
    expect(first.stdErr).toBeGreaterThan(0);
    expect(Math.abs(first.logZ - first.exact)).toBeLessThan(4 * first.stdErr);
    expect(Math.abs(r.logZ - exactLogZ)).toBeLessThan(4 * r.stdErr);
  });

  it("chain rule accepts a user's first-fold estimator", () => {
    let called = 0;
    const r = crossValidatedEvidence(model, {
      form: "chain-rule",
      seed: 9,
      firstFoldEstimator: (sub, { draws }) => {
        called++;
        expect(draws.size).toBe(4000);
        return evidenceResult({
          method: "mine",
          logZ: (sub.exactLogEvidence as () => number)(),
          stdErr: 0,
          nLikelihoodEvals: 0,
          seconds: 0,
          diagnostics: {},
        });
      },
    });
    expect(called).toBe(1);
    expect((r.diagnostics.firstFold as { estimator: string }).estimator).toBe("user (mine)");
    expect(Math.abs(r.logZ - exactLogZ)).toBeLessThan(4 * r.stdErr);
  });

  it("has calibrated k-fold standard errors: |z| < 2 in at least 16 of 20 seeds", () => {
    let inside = 0;
    for (let s = 0; s < 20; s++) {
      const m = gaussianMeanModel({ dim: 2, n: 50, seed: 100 + s });
      const r = crossValidatedEvidence(m, { form: "k-fold", draws: 1000, seed: s });
      if (Math.abs(r.logZ - (r.diagnostics.exactValue ?? Number.NaN)) < 2 * r.stdErr) inside++;
    }
    // A calibrated stdErr puts 95 % inside; P(at most 15 of 20 | p = 0.95) ≈ 0.003.
    expect(inside).toBeGreaterThanOrEqual(16);
  });

  it("samples each posterior by NUTS when the model has no exact sampler, with the error from the weights' ESS", () => {
    const mcmc = withoutExactPosterior(gaussianMeanModel({ dim: 2, n: 40, seed: 10 }));
    const r = crossValidatedEvidence(mcmc, { form: "k-fold", folds: 4, draws: 2000, warmup: 300, seed: 11 });
    for (const t of terms(r)) {
      expect(t.sampler).toBe("nuts");
      expect(t.ess).toBeGreaterThan(100);
      expect(t.ess).toBeLessThanOrEqual(2000);
    }
    expect(Math.abs(r.logZ - (r.diagnostics.exactValue ?? Number.NaN))).toBeLessThan(4 * r.stdErr);
    expect(r.nLikelihoodEvals).toBeGreaterThan(4 * 2000);
    const chain = crossValidatedEvidence(mcmc, {
      form: "chain-rule",
      folds: 4,
      draws: 2000,
      warmup: 300,
      firstFoldEstimator: "bridge-sampling",
      seed: 12,
    });
    expect(Math.abs(chain.logZ - mcmc.exactLogEvidence!())).toBeLessThan(4 * chain.stdErr);
    const rw = crossValidatedEvidence(mcmc, {
      form: "k-fold",
      folds: 4,
      sampler: "random-walk",
      warmup: 500,
      seed: 3,
    });
    expect(terms(rw).every((t) => t.sampler === "random-walk")).toBe(true);
    expect(Math.abs(rw.logZ - (rw.diagnostics.exactValue ?? Number.NaN))).toBeLessThan(4 * rw.stdErr);
  });

  it('bridges successive posteriors with terms: "bridge", within its error of the exact log Z', () => {
    const mcmc = withoutExactPosterior(gaussianMeanModel({ dim: 2, n: 40, seed: 10 }));
    const exact = mcmc.exactLogEvidence?.() ?? Number.NaN;
    let inside = 0;
    for (let s = 0; s < 5; s++) {
      const r = crossValidatedEvidence(mcmc, {
        form: "chain-rule",
        folds: 4,
        draws: 1000,
        warmup: 300,
        terms: "bridge",
        seed: 20 + s,
      });
      expect(r.reliable).toBe(true);
      expect(terms(r).every((t) => t.sampler === "bridge (nuts)")).toBe(true);
      expect(r.stdErr).toBeGreaterThan(0);
      if (Math.abs(r.logZ - exact) < 2 * r.stdErr) inside++;
      expect(Math.abs(r.logZ - exact)).toBeLessThan(4 * r.stdErr);
    }
    // A calibrated standard error puts about 95 % within 2 of them; P(at most 2 of 5 | 0.95) < 0.2 %.
    expect(inside).toBeGreaterThanOrEqual(3);
  });

  it("bridges in smaller steps, through posteriors given part of a fold, where successive posteriors barely overlap", () => {
    // Fold 1 is one observation and fold 2 the other 399: a single bridge between the posteriors given
    // 1 and 400 observations rests on 16–25 draws (Kish) and is marked unreliable.
    const n = 400;
    const model = gaussianMeanModel({ dim: 2, n, seed: 10 });
    const exact = model.exactLogEvidence();
    const partition = [[0], Array.from({ length: n - 1 }, (_, i) => i + 1)];
    let inside = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const r = crossValidatedEvidence(model, {
        form: "chain-rule",
        partition,
        draws: 1000,
        terms: "bridge",
        seed,
      });
      expect(r.reliable).toBe(true);
      expect(r.warnings.join(" ")).toMatch(/fold 2 given folds 1–1: bridged in [34] steps/);
      expect(terms(r)[0].ess).toBeGreaterThanOrEqual(50);
      if (Math.abs(r.logZ - exact) < 2 * r.stdErr) inside++;
      expect(Math.abs(r.logZ - exact)).toBeLessThan(4 * r.stdErr);
    }
    expect(inside).toBeGreaterThanOrEqual(3);
  });

  it("gives the same result for the same seed, and contiguous folds without shuffling", () => {
    const a = crossValidatedEvidence(model, { form: "k-fold", draws: 200, seed: 13 });
    const b = crossValidatedEvidence(model, { form: "k-fold", draws: 200, seed: 13 });
    expect(a.logZ).toBe(b.logZ);
    const c = crossValidatedEvidence(model, { form: "k-fold", draws: 200, shuffle: false, seed: 13 });
    // The diagnostics serialise as JSON (plain arrays, no typed arrays).
    expect(JSON.parse(JSON.stringify(c.diagnostics)).partition[0]).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });
});

describe("crossValidatedEvidence: Normal–Inverse-Gamma regression (Everson's setting, scaled down)", () => {
  it("k-fold sits tens of nats above log Z with v = 10⁴ (Tables 1–2), the chain rule does not", () => {
    const data = linearRegressionData({ n: 400, p: 4, noiseSd: 0.5, seed: 3, intercept: true });
    const model = nigRegression({ ...data, v: 1e4, a: 1, b: 1 });
    const exactLogZ = model.exactLogEvidence();
    const kfold = crossValidatedEvidence(model, { form: "k-fold", seed: 14 });
    const bias = kfold.diagnostics.exactBias;
    // The four weights with c = v/σ² = 4·10⁴ give (4/2)[log(1 + nc) − G log(G/(G−1))] ≈ 31 nats.
    expect(bias).toBeGreaterThan(20);
    expect(bias).toBeLessThan(40);
    expect(Math.abs(kfold.logZ - (kfold.diagnostics.exactValue ?? Number.NaN))).toBeLessThan(
      4 * kfold.stdErr,
    );
    const chain = crossValidatedEvidence(model, { form: "chain-rule", seed: 15 });
    expect(Math.abs(chain.logZ - exactLogZ)).toBeLessThan(4 * chain.stdErr);
  });
});

describe("crossValidatedEvidence: the contract and bad input", () => {
  it("the gaussian-mean model is subsettable, and its subsets are the models of those rows", () => {
    const model = gaussianMeanModel({ dim: 2, n: 10, seed: 16 });
    expect(isSubsettable(model)).toBe(true);
    expect(model.nObservations).toBe(10);
    const rows = new Int32Array([8, 1, 4]);
    const direct = gaussianMeanModel({
      dim: 2,
      data: [1, 4, 8].flatMap((i) => [model.data[2 * i], model.data[2 * i + 1]]),
    });
    expect(model.subset(rows).exactLogEvidence()).toBeCloseTo(direct.exactLogEvidence(), 12);
    expect(() => model.subset(new Int32Array([1, 1]))).toThrow(/gaussianMeanModel.subset: .*twice/);
  });

  it("says what to add when the model has no subset or pointwise likelihood", () => {
    const model = gaussianMeanModel({ n: 10, seed: 17 });
    const plain: BayesModel = {
      dim: 1,
      logPrior: (t) => model.logPrior(t),
      logLikelihood: (t) => model.logLikelihood(t),
      samplePrior: (r) => model.samplePrior(r),
    };
    const error = thrown(() => crossValidatedEvidence(plain, { form: "k-fold" })) as OccamError;
    expect(error).toBeInstanceOf(OccamError);
    expect(error.message).toMatch(
      /does not support cross-validation; add subset\(observations: Int32Array\)/,
    );
    expect(error.message).toMatch(/nObservations: number/);
    expect(error.message).toMatch(/logLikelihoodPointwise/);
    const noPointwise = { ...plain, subset: () => plain, nObservations: 10 };
    expect(() => crossValidatedEvidence(noPointwise, { form: "k-fold" })).toThrow(
      /add logLikelihoodPointwise\(theta, out\)/,
    );
  });

  it("rejects G > n, a missing form, bad partitions and bad options with an OccamError", () => {
    const model = gaussianMeanModel({ n: 4, seed: 18 });
    expect(() => crossValidatedEvidence(model, { form: "k-fold", folds: 5 })).toThrow(
      /folds = 5 exceeds the 4 observations/,
    );
    expect(() => crossValidatedEvidence(model, {} as { form: "k-fold" })).toThrow(
      /form must be "held-out", "k-fold" or "chain-rule"/,
    );
    expect(() => crossValidatedEvidence(model, { form: "k-fold", folds: 1 })).toThrow(
      /folds must be an integer ≥ 2/,
    );
    expect(() => crossValidatedEvidence(model, { form: "held-out", partition: [[0], [1], [2, 3]] })).toThrow(
      /two blocks/,
    );
    expect(() =>
      crossValidatedEvidence(model, {
        form: "k-fold",
        partition: [
          [0, 1],
          [1, 2, 3],
        ],
      }),
    ).toThrow(/observation 1 is in block 0 and again in block 1/);
    expect(() => crossValidatedEvidence(model, { form: "held-out", trainFraction: 1 })).toThrow(
      /trainFraction/,
    );
    expect(() =>
      crossValidatedEvidence(model, { form: "k-fold", folds: 2, sampler: "exact", draws: 5 }),
    ).toThrow(/draws must be an integer ≥ 20/);
    expect(() =>
      crossValidatedEvidence(model, {
        form: "chain-rule",
        folds: 2,
        firstFoldEstimator: "laplace" as "auto",
      }),
    ).toThrow(/firstFoldEstimator/);
  });

  it("detects a subset whose likelihood disagrees with the pointwise terms", () => {
    const model = gaussianMeanModel({ n: 20, seed: 19 });
    const broken: SubsettableModel = {
      dim: 1,
      nObservations: 20,
      logPrior: (t) => model.logPrior(t),
      logLikelihood: (t) => model.logLikelihood(t),
      samplePrior: (r) => model.samplePrior(r),
      logLikelihoodPointwise: (t, out) => model.logLikelihoodPointwise(t, out),
      // Ignores the observations: every "subset" is the whole data set.
      subset: () => model,
    };
    expect(() => crossValidatedEvidence(broken, { form: "k-fold", seed: 1 })).toThrow(
      /subset\(observations\)\.logLikelihood\(θ\) is .* but the sum of model\.logLikelihoodPointwise/,
    );
  });

  it("requires an exact sampler or exact evidence when asked for one", () => {
    const mcmc = withoutExactPosterior(gaussianMeanModel({ n: 20, seed: 20 }));
    expect(() => crossValidatedEvidence(mcmc, { form: "k-fold", sampler: "exact" })).toThrow(
      /sampler "exact" needs model.subset\(…\).samplePosterior/,
    );
    const { exactLogEvidence: _, ...rest } = mcmc;
    const noExact: SubsettableModel = {
      ...rest,
      subset: (o) => ({ ...mcmc.subset(o), exactLogEvidence: undefined }),
    };
    expect(() =>
      crossValidatedEvidence(noExact, {
        form: "chain-rule",
        folds: 2,
        firstFoldEstimator: "exact",
        draws: 100,
      }),
    ).toThrow(/firstFoldEstimator "exact" needs/);
  });
});
