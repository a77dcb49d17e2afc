import digamma from "@stdlib/math-base-special-digamma";
import gammaln from "@stdlib/math-base-special-gammaln";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { linearRegressionData } from "../../../src/data/generators/linear.js";
import { monteCarloStandardError } from "../../../src/diagnostics/ess.js";
import { gamma } from "../../../src/distributions/gamma.js";
import { normal } from "../../../src/distributions/normal.js";
import { OccamError } from "../../../src/errors.js";
import { pathSampling } from "../../../src/evidence/path-sampling.js";
import { steppingStone } from "../../../src/evidence/stepping-stone.js";
import { symmetricEigen } from "../../../src/math/linalg.js";
import { tempered } from "../../../src/model/model.js";
import { independentPrecisionRegression } from "../../../src/models/linear/index.js";
import { createRng } from "../../../src/random/rng.js";
import { runChain } from "../../../src/samplers/run.js";
import { centralDifference, thrown } from "../../support/assertions.js";

interface Hyper {
  alpha: number;
  beta: number;
  alphaW: number;
  betaW: number;
}

/** The thesis's Figure 6.6 numbers read as Gamma scales: an informative prior on the precisions. */
const INFORMATIVE: Hyper = { alpha: 1 / 2, beta: 1 / 200, alphaW: 1 / 4, betaW: 1 / 1600 };
/** The defaults: the same numbers read as rates (scales 200 and 1600), vague priors. */
const DEFAULTS: Hyper = { alpha: 1 / 2, beta: 200, alphaW: 1 / 4, betaW: 1600 };

const n = 20;
const p = 2;
const data = linearRegressionData({ n, p, weights: [1, 0.5], noiseSd: 0.5, seed: 3 });
const build = (hyper: Hyper) => independentPrecisionRegression({ X: data.X, y: data.y, n, p, ...hyper });

interface Reference {
  logZ: number;
  /** |log Z(h) − log Z(2h)|, the quadrature's own error. */
  quadError: number;
  meanLogTau: number;
  meanLogTau2: number;
  meanLogTauW: number;
  meanTau: number;
  meanW: Float64Array;
}

/**
 * The normalising constant and moments of p(θ) L(θ)^t (t > 0) by trapezoid quadrature over
 * (s, s_w) = (log τ, log τ_w), the weights integrated out in closed form: L^t is
 * (2π/τ)^(−tn/2) / (2π/(tτ))^(−n/2) times N(y | Xw, (tτ)⁻¹I), and ∫ N(w | 0, τ_w⁻¹I) N(y | Xw, (tτ)⁻¹I) dw
 * = N(y | 0, (tτ)⁻¹I + τ_w⁻¹XXᵀ), evaluated through the eigen-decomposition XᵀX = QΛQᵀ:
 *   log|I + (tτ/τ_w) XXᵀ| = Σ log(1 + λ_k/r),  yᵀΣ⁻¹y = tτ (yᵀy − Σ u_k²/(λ_k + r)),  r = τ_w/(tτ), u = QᵀXᵀy;
 * and E[w | τ, τ_w] = (XᵀX + rI)⁻¹Xᵀy. The integrand is smooth and decays on every side of the grid
 * (checked), so the trapezoid rule converges geometrically; the error is estimated by halving the step.
 * The prior on (s, s_w) is the Gamma(scale) density times the Jacobian, written out here
 * independently of the model's code.
 */
function reference(h: Hyper, t = 1, step = 0.1): Reference {
  const key = JSON.stringify([h, t, step]);
  const cached = referenceCache.get(key);
  if (cached !== undefined) return cached;
  const { X, y } = data;
  const XtX = new Float64Array(p * p);
  const Xty = new Float64Array(p);
  let yty = 0;
  for (let i = 0; i < n; i++) {
    yty += y[i] * y[i];
    for (let j = 0; j < p; j++) {
      Xty[j] += X[i * p + j] * y[i];
      for (let k = 0; k < p; k++) XtX[j * p + k] += X[i * p + j] * X[i * p + k];
    }
  }
  const { values: lam, vectors: Q } = symmetricEigen(XtX, p);
  const u = new Float64Array(p);
  for (let k = 0; k < p; k++) for (let j = 0; j < p; j++) u[k] += Q[j * p + k] * Xty[j];
  const logPriorConst =
    -h.alpha * Math.log(h.beta) - gammaln(h.alpha) - h.alphaW * Math.log(h.betaW) - gammaln(h.alphaW);
  const LOG_2PI = Math.log(2 * Math.PI);
  const run = (hs: number) => {
    const sLo = -30;
    const sHi = 20;
    const wLo = -100;
    const wHi = 20;
    const ns = Math.round((sHi - sLo) / hs);
    const nw = Math.round((wHi - wLo) / hs);
    const f = new Float64Array((ns + 1) * (nw + 1));
    let max = Number.NEGATIVE_INFINITY;
    let edge = Number.NEGATIVE_INFINITY;
    for (let a = 0; a <= ns; a++) {
      const s = sLo + a * hs;
      const tau = Math.exp(s);
      const tauE = t * tau;
      for (let b = 0; b <= nw; b++) {
        const sw = wLo + b * hs;
        const tauW = Math.exp(sw);
        const r = tauW / tauE;
        let logDet = 0;
        let q = 0;
        for (let k = 0; k < p; k++) {
          logDet += Math.log1p(lam[k] / r);
          q += (u[k] * u[k]) / (lam[k] + r);
        }
        const logGauss =
          -0.5 * n * LOG_2PI + 0.5 * n * Math.log(tauE) - 0.5 * logDet - 0.5 * tauE * (yty - q);
        const correction = 0.5 * t * n * (s - LOG_2PI) - 0.5 * n * (Math.log(tauE) - LOG_2PI);
        const logPrior = logPriorConst + h.alpha * s - tau / h.beta + h.alphaW * sw - tauW / h.betaW;
        const v = logGauss + correction + logPrior;
        f[a * (nw + 1) + b] = v;
        if (v > max) max = v;
        if (a === 0 || b === 0 || a === ns || b === nw) edge = Math.max(edge, v);
      }
    }
    expect(edge - max).toBeLessThan(-40); // the grid holds all the mass
    let Z = 0;
    let ms = 0;
    let ms2 = 0;
    let mw = 0;
    let mt = 0;
    const meanW = new Float64Array(p);
    const c = new Float64Array(p);
    for (let a = 0; a <= ns; a++) {
      const s = sLo + a * hs;
      for (let b = 0; b <= nw; b++) {
        const sw = wLo + b * hs;
        const wt = Math.exp(f[a * (nw + 1) + b] - max);
        if (wt < 1e-300) continue;
        Z += wt;
        ms += wt * s;
        ms2 += wt * s * s;
        mw += wt * sw;
        mt += wt * Math.exp(s);
        const r = Math.exp(sw - s) / t;
        for (let k = 0; k < p; k++) c[k] = u[k] / (lam[k] + r);
        for (let j = 0; j < p; j++) {
          let acc = 0;
          for (let k = 0; k < p; k++) acc += Q[j * p + k] * c[k];
          meanW[j] += wt * acc;
        }
      }
    }
    for (let j = 0; j < p; j++) meanW[j] /= Z;
    return {
      logZ: max + Math.log(Z * hs * hs),
      meanLogTau: ms / Z,
      meanLogTau2: ms2 / Z,
      meanLogTauW: mw / Z,
      meanTau: mt / Z,
      meanW,
    };
  };
  const fine = run(step);
  const coarse = run(2 * step);
  const result = { ...fine, quadError: Math.abs(fine.logZ - coarse.logZ) };
  referenceCache.set(key, result);
  return result;
}
const referenceCache = new Map<string, Reference>();

/** Draws of the model's Gibbs kernel at inverse temperature t, one trace per coordinate. */
function gibbsTraces(hyper: Hyper, t: number, draws: number, seed: number): Float64Array[] {
  const model = build(hyper);
  const result = runChain(model.powerPosteriorKernel(t), {
    draws,
    warmup: 500,
    seed,
    initial: (rng) => model.samplePrior(rng),
  });
  const d = model.dim;
  return Array.from({ length: d }, (_, j) =>
    Float64Array.from({ length: draws }, (_, i) => result.values[i * d + j]),
  );
}

/** Expects the sample mean of `trace` (mapped by f) within 4 Monte Carlo standard errors of `exact`. */
function expectMean(trace: Float64Array, exact: number, f?: (x: number) => number): void {
  const x = f === undefined ? trace : trace.map(f);
  let s = 0;
  for (const v of x) s += v;
  const mean = s / x.length;
  const mcse = monteCarloStandardError([x]);
  expect(Number.isFinite(mcse) && mcse > 0).toBe(true);
  expect(Math.abs(mean - exact) / mcse).toBeLessThan(4);
}

describe("independentPrecisionRegression", () => {
  it("has the documented layout θ = (w, log τ, log τ_w) and the thesis's defaults", () => {
    const model = independentPrecisionRegression({ X: data.X, y: data.y, n, p });
    expect(model.dim).toBe(p + 2);
    expect(model.names).toEqual(["w[0]", "w[1]", "log_tau", "log_tau_w"]);
    expect([model.alpha, model.beta, model.alphaW, model.betaW]).toEqual([1 / 2, 200, 1 / 4, 1600]);
    expect(model.nObservations).toBe(n);
  });

  it("log prior = Normal(w | 0, 1/τ_w) + Gamma(scale) densities of τ and τ_w + log Jacobians; log L = Σ Normal", () => {
    const hyper: Hyper = { alpha: 1.5, beta: 0.7, alphaW: 2.5, betaW: 3 };
    const model = build(hyper);
    const rng = createRng(11);
    const pointwise = new Float64Array(n);
    for (let k = 0; k < 5; k++) {
      const theta = Float64Array.from([rng.normal(), rng.normal(), rng.normal(), rng.normal()]);
      const [w0, w1, s, sw] = theta;
      const gTau = gamma({ shape: hyper.alpha, rate: 1 / hyper.beta });
      const gTauW = gamma({ shape: hyper.alphaW, rate: 1 / hyper.betaW });
      const wPrior = normal({ mean: 0, sd: Math.exp(-0.5 * sw) });
      const expectedPrior =
        wPrior.logPdf(w0) +
        wPrior.logPdf(w1) +
        gTau.logPdf(Math.exp(s)) +
        s +
        gTauW.logPdf(Math.exp(sw)) +
        sw;
      expect(model.logPrior(theta)).toBeCloseTo(expectedPrior, 10);
      let expectedLik = 0;
      for (let i = 0; i < n; i++) {
        const mean = data.X[i * p] * w0 + data.X[i * p + 1] * w1;
        expectedLik += normal({ mean, sd: Math.exp(-0.5 * s) }).logPdf(data.y[i]);
      }
      expect(model.logLikelihood(theta)).toBeCloseTo(expectedLik, 9);
      model.logLikelihoodPointwise(theta, pointwise);
      expect(pointwise.reduce((a, b) => a + b, 0)).toBeCloseTo(expectedLik, 9);
    }
  });

  it("log likelihood from XᵀX about the reference point equals the direct residual sum (property)", () => {
    const model = build(INFORMATIVE);
    const pointwise = new Float64Array(n);
    fc.assert(
      fc.property(
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        (w0, w1, s) => {
          const theta = Float64Array.from([w0, w1, s, 0]);
          model.logLikelihoodPointwise(theta, pointwise);
          const direct = pointwise.reduce((a, b) => a + b, 0);
          const value = model.logLikelihood(theta);
          return Math.abs(value - direct) <= 1e-9 * (1 + Math.abs(direct));
        },
      ),
      { seed: 5, numRuns: 200 },
    );
  });

  it("has gradients that match central finite differences", () => {
    const model = build(INFORMATIVE);
    const rng = createRng(2);
    const grad = new Float64Array(model.dim);
    const h = 1e-6;
    for (let k = 0; k < 5; k++) {
      const theta = Float64Array.from([
        1 + 0.3 * rng.normal(),
        0.5 + 0.3 * rng.normal(),
        -3 + rng.normal(),
        -5 + 2 * rng.normal(),
      ]);
      for (const [fn, gradFn] of [
        [model.logPrior, model.gradLogPrior],
        [model.logLikelihood, model.gradLogLikelihood],
      ] as const) {
        const value = gradFn.call(model, theta, grad);
        expect(value).toBeCloseTo(fn.call(model, theta), 10);
        for (let j = 0; j < model.dim; j++) {
          const fd = centralDifference((t) => fn.call(model, t), theta, j, h);
          expect(Math.abs(grad[j] - fd)).toBeLessThan(1e-5 * (1 + Math.abs(fd)));
        }
      }
    }
  });

  it("stays finite (or −∞), never NaN, far in the tails where e^s under- or overflows", () => {
    const model = build(INFORMATIVE);
    const grad = new Float64Array(model.dim);
    for (const theta of [
      [0, 0, 800, -800],
      [0, 0, -800, 800],
      [1e200, 0, 800, 800],
      [1e-300, 0, -800, -800],
    ]) {
      const x = Float64Array.from(theta);
      for (const v of [
        model.logPrior(x),
        model.logLikelihood(x),
        model.gradLogPrior(x, grad),
        model.gradLogLikelihood(x, grad),
      ]) {
        expect(Number.isNaN(v) || v === Number.POSITIVE_INFINITY).toBe(false);
      }
    }
  });

  it("subset keeps the prior and the selected rows' likelihood", () => {
    const model = build(INFORMATIVE);
    const rows = Int32Array.from([0, 3, 7, 19]);
    const sub = model.subset(rows);
    expect(sub.n).toBe(4);
    const theta = Float64Array.from([0.9, 0.4, 1.2, -2]);
    const pointwise = new Float64Array(n);
    model.logLikelihoodPointwise(theta, pointwise);
    expect(sub.logLikelihood(theta)).toBeCloseTo(
      rows.reduce((a, i) => a + pointwise[i], 0),
      10,
    );
    expect(sub.logPrior(theta)).toBe(model.logPrior(theta));
    expect(model.subset(Int32Array.from({ length: n }, (_, i) => i)).logLikelihood(theta)).toBeCloseTo(
      model.logLikelihood(theta),
      10,
    );
  });

  it("Gibbs at β = 1 reproduces the posterior moments of the quadrature reference", () => {
    for (const [hyper, seed] of [
      [INFORMATIVE, 21],
      [DEFAULTS, 22],
    ] as const) {
      const ref = reference(hyper, 1);
      const [w0, w1, s, sw] = gibbsTraces(hyper, 1, 20_000, seed);
      expectMean(w0, ref.meanW[0]);
      expectMean(w1, ref.meanW[1]);
      expectMean(s, ref.meanLogTau);
      expectMean(s, ref.meanLogTau2, (x) => x * x);
      expectMean(s, ref.meanTau, Math.exp);
      expectMean(sw, ref.meanLogTauW);
    }
  });

  it("Gibbs at β = 0.3 reproduces the tempered posterior's moments (conditionals tempered as App. B)", () => {
    const ref = reference(DEFAULTS, 0.3);
    const [w0, w1, s, sw] = gibbsTraces(DEFAULTS, 0.3, 20_000, 23);
    expectMean(w0, ref.meanW[0]);
    expectMean(w1, ref.meanW[1]);
    expectMean(s, ref.meanLogTau);
    expectMean(sw, ref.meanLogTauW);
  });

  it("Gibbs at β = 0 samples the prior: Gamma(α, scale β) moments of τ and τ_w, w√τ_w ~ N(0, 1)", () => {
    const [w0, w1, s, sw] = gibbsTraces(INFORMATIVE, 0, 20_000, 24);
    expectMean(s, digamma(INFORMATIVE.alpha) + Math.log(INFORMATIVE.beta));
    expectMean(s, INFORMATIVE.alpha * INFORMATIVE.beta, Math.exp);
    expectMean(sw, digamma(INFORMATIVE.alphaW) + Math.log(INFORMATIVE.betaW));
    const z2 = w0.map((w, i) => w * w * Math.exp(sw[i]));
    expectMean(z2, 1);
    const z = w1.map((w, i) => w * Math.exp(0.5 * sw[i]));
    expectMean(z, 0);
  });

  it("samplePrior draws the Gamma(scale) priors", () => {
    const model = build(INFORMATIVE);
    const rng = createRng(8);
    const m = 20_000;
    const s = new Float64Array(m);
    const sw = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const x = model.samplePrior(rng);
      s[i] = x[2];
      sw[i] = x[3];
    }
    expectMean(s, digamma(INFORMATIVE.alpha) + Math.log(INFORMATIVE.beta));
    expectMean(sw, digamma(INFORMATIVE.alphaW) + Math.log(INFORMATIVE.betaW));
  });

  it("path sampling (thesis's random scheme, k = 0.9) and stepping-stone with the Gibbs kernel agree with the quadrature evidence", () => {
    for (const [hyper, seed] of [
      [INFORMATIVE, 31],
      [DEFAULTS, 32],
    ] as const) {
      const ref = reference(hyper, 1);
      expect(ref.quadError).toBeLessThan(1e-8);
      const model = build(hyper);
      const kernel = (b: number) => model.powerPosteriorKernel(b);
      const ps = pathSampling(model, { scheme: "random", k: 0.9, temperatures: 1000, kernel, seed });
      if (ps.diagnostics.scheme !== "random") throw new Error("expected the random scheme");
      expect(ps.diagnostics.kernel).toBe("user");
      const ss = steppingStone(model, { move: "model", seed: seed + 100 });
      expect(ss.diagnostics.move).toBe("model");
      for (const r of [ps, ss]) {
        expect(Number.isFinite(r.stdErr) && r.stdErr > 0).toBe(true);
        expect(Math.abs(r.logZ - ref.logZ)).toBeLessThan(4 * Math.hypot(r.stdErr, ref.quadError));
      }
    }
  });

  it("rejects bad inputs with an OccamError", () => {
    const base = { X: data.X, y: data.y, n, p };
    const bad: (() => unknown)[] = [
      () => independentPrecisionRegression({ ...base, X: data.X.subarray(1) }),
      () => independentPrecisionRegression({ ...base, y: data.y.subarray(1) }),
      () =>
        independentPrecisionRegression({
          ...base,
          y: Float64Array.from(data.y, (v, i) => (i === 3 ? Number.NaN : v)),
        }),
      () =>
        independentPrecisionRegression({
          ...base,
          X: Float64Array.from(data.X, (v, i) => (i === 0 ? Number.POSITIVE_INFINITY : v)),
        }),
      () => independentPrecisionRegression({ ...base, n: 0 }),
      () => independentPrecisionRegression({ ...base, p: 1.5 }),
      () => independentPrecisionRegression({ ...base, alpha: 0 }),
      () => independentPrecisionRegression({ ...base, beta: -1 }),
      () => independentPrecisionRegression({ ...base, alphaW: Number.NaN }),
      () => independentPrecisionRegression({ ...base, betaW: Number.POSITIVE_INFINITY }),
      () => independentPrecisionRegression({ ...base, names: ["a"] }),
      () => build(INFORMATIVE).powerPosteriorKernel(-0.1),
      () => build(INFORMATIVE).powerPosteriorKernel(1.5),
      () => build(INFORMATIVE).powerPosteriorKernel(Number.NaN),
      () => build(INFORMATIVE).logPrior(new Float64Array(3)),
      () => build(INFORMATIVE).logLikelihoodPointwise(new Float64Array(4), new Float64Array(n - 1)),
      () => build(INFORMATIVE).subset(Int32Array.from([0, 20])),
    ];
    for (const f of bad) expect(thrown(f)).toBeInstanceOf(OccamError);
  });

  it("its Gibbs kernel states carry the tempered log density", () => {
    const model = build(INFORMATIVE);
    const kernel = model.powerPosteriorKernel(0.4);
    const rng = createRng(3);
    let state = kernel.init(model.samplePrior(rng));
    const target = tempered(model, 0.4);
    for (let i = 0; i < 5; i++) {
      state = kernel.step(rng, state).state;
      expect(state.logDensity).toBeCloseTo(target.logDensity(state.position), 10);
    }
  });
});
