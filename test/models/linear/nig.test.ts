import gammaln from "@stdlib/math-base-special-gammaln";
import { describe, expect, it } from "vitest";
import { linearRegressionData } from "../../../src/data/generators/linear.js";
import { multivariateStudentT } from "../../../src/distributions/multivariate-student-t.js";
import { OccamError } from "../../../src/errors.js";
import { cholesky, invertFromCholesky, logDetFromCholesky } from "../../../src/math/linalg.js";
import { nigRegression } from "../../../src/models/linear/index.js";
import { createRng } from "../../../src/random/rng.js";
import { centralDifference } from "../../support/assertions.js";

/** A random symmetric positive-definite p × p matrix B Bᵀ + p·0.1 I. */
function randomSpd(p: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const B = Float64Array.from({ length: p * p }, () => rng.normal());
  const V = new Float64Array(p * p);
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < p; j++) {
      let s = 0;
      for (let k = 0; k < p; k++) s += B[i * p + k] * B[j * p + k];
      V[i * p + j] = s + (i === j ? 0.1 * p : 0);
    }
  }
  return V;
}

/** log p(y) as the multivariate Student-t marginal y ~ t_{2a}(Xm, (b/a)(I + XVXᵀ)). */
function studentTMarginal(
  X: Float64Array,
  y: Float64Array,
  n: number,
  p: number,
  m: Float64Array,
  V: Float64Array,
  a: number,
  b: number,
): number {
  const S = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < p; k++) for (let l = 0; l < p; l++) s += X[i * p + k] * V[k * p + l] * X[j * p + l];
      S[i * n + j] = (b / a) * ((i === j ? 1 : 0) + s);
    }
  }
  const location = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let k = 0; k < p; k++) location[i] += X[i * p + k] * m[k];
  return multivariateStudentT({ dof: 2 * a, location, choleskyL: cholesky(S, n) }).logPdf(y);
}

/**
 * Everson et al.'s eqs. 13–17 as printed, with explicit inverses (a test-side transcription):
 * m* = V*(V⁻¹m + Xᵀy) and β* = b + [yᵀy − m*ᵀ(V*)⁻¹m*]/2 (eq. 16, which drops mᵀV⁻¹m).
 */
function eversonAsPrinted(
  X: Float64Array,
  y: Float64Array,
  n: number,
  p: number,
  m: Float64Array,
  V: Float64Array,
  a: number,
  b: number,
): number {
  const Vinv = invertFromCholesky(cholesky(V, p), p);
  const P = Float64Array.from(Vinv); // (V*)⁻¹ = V⁻¹ + XᵀX
  const rhs = new Float64Array(p);
  for (let k = 0; k < p; k++) for (let l = 0; l < p; l++) rhs[k] += Vinv[k * p + l] * m[l];
  let yty = 0;
  for (let i = 0; i < n; i++) {
    yty += y[i] * y[i];
    for (let k = 0; k < p; k++) {
      rhs[k] += X[i * p + k] * y[i];
      for (let l = 0; l < p; l++) P[k * p + l] += X[i * p + k] * X[i * p + l];
    }
  }
  const Lp = cholesky(P, p);
  const Vstar = invertFromCholesky(Lp, p);
  const mStar = new Float64Array(p);
  for (let k = 0; k < p; k++) for (let l = 0; l < p; l++) mStar[k] += Vstar[k * p + l] * rhs[l];
  let quad = 0;
  for (let k = 0; k < p; k++) for (let l = 0; l < p; l++) quad += mStar[k] * P[k * p + l] * mStar[l];
  const aStar = a + n / 2;
  const bStar = b + (yty - quad) / 2;
  return (
    -(n / 2) * Math.log(2 * Math.PI) -
    0.5 * logDetFromCholesky(Lp, p) -
    0.5 * logDetFromCholesky(cholesky(V, p), p) +
    a * Math.log(b) -
    aStar * Math.log(bStar) +
    gammaln(aStar) -
    gammaln(a)
  );
}

/** Composite Simpson weights on an odd number of equally spaced points. */
function simpson(k: number, h: number): Float64Array {
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = ((i === 0 || i === k - 1 ? 1 : i % 2 === 1 ? 4 : 2) * h) / 3;
  return w;
}

const data = linearRegressionData({ n: 30, p: 3, weights: [0.5, -1, 2], noiseSd: 0.7, seed: 11 });

describe("nigRegression: exact evidence", () => {
  it("equals the multivariate Student-t marginal to 1e-10 (full V, m ≠ 0)", () => {
    const V = randomSpd(3, 5);
    const m = new Float64Array([0.3, -0.2, 1]);
    for (const [a, b] of [
      [2, 1.5],
      [0.7, 0.2],
      [40, 30],
    ]) {
      const model = nigRegression({ ...data, m, V, a, b });
      const reference = studentTMarginal(data.X, data.y, data.n, data.p, m, V, a, b);
      expect(Math.abs(model.exactLogEvidence() - reference)).toBeLessThan(1e-10 * Math.abs(reference));
    }
  });

  it("equals eq. 17 with eq. 16 as printed when m = 0, and differs from it when m ≠ 0 (the seed's error)", () => {
    const V = randomSpd(3, 6);
    const zero = new Float64Array(3);
    const model0 = nigRegression({ ...data, V, a: 2, b: 1 });
    const printed0 = eversonAsPrinted(data.X, data.y, data.n, data.p, zero, V, 2, 1);
    expect(Math.abs(model0.exactLogEvidence() - printed0)).toBeLessThan(1e-9 * Math.abs(printed0));
    const m = new Float64Array([1, 1, 1]);
    const model = nigRegression({ ...data, m, V, a: 2, b: 1 });
    const printed = eversonAsPrinted(data.X, data.y, data.n, data.p, m, V, 2, 1);
    expect(Math.abs(model.exactLogEvidence() - printed)).toBeGreaterThan(0.1);
  });

  it("matches brute-force quadrature of p(θ) L(θ) over (w, log σ²) for p = 1, and the prior integrates to 1", () => {
    const d1 = linearRegressionData({ n: 8, p: 1, weights: [0.8], noiseSd: 0.5, seed: 12 });
    const model = nigRegression({ ...d1, m: [0.2], v: 2, a: 3, b: 2 });
    const post = model.posterior();
    let sxx = 0;
    for (let i = 0; i < d1.n; i++) sxx += d1.X[i] ** 2;
    const vStar = 1 / (1 / 2 + sxx);
    // Log σ² on a wide grid around the posterior mode; w, for each σ², over ±12 conditional sds.
    const ks = 801;
    const kw = 401;
    const sCentre = Math.log(post.scale / post.shape);
    const sHalf = 6;
    const ws = simpson(ks, (2 * sHalf) / (ks - 1));
    let z = 0;
    const theta = new Float64Array(2);
    for (let i = 0; i < ks; i++) {
      const s = sCentre - sHalf + (2 * sHalf * i) / (ks - 1);
      const sdW = Math.sqrt(vStar * Math.exp(s));
      const ww = simpson(kw, (24 * sdW) / (kw - 1));
      let inner = 0;
      for (let j = 0; j < kw; j++) {
        theta[0] = post.mean[0] - 12 * sdW + (24 * sdW * j) / (kw - 1);
        theta[1] = s;
        inner +=
          ww[j] * Math.exp(model.logPrior(theta) + model.logLikelihood(theta) - model.exactLogEvidence());
      }
      z += ws[i] * inner;
    }
    expect(Math.abs(z - 1)).toBeLessThan(1e-7);

    // The prior (with the Jacobian of σ² = e^s) integrates to 1: its mass in s lies in [−8, 6] for a = 3, b = 2.
    let mass = 0;
    const ks2 = 1401;
    const ws2 = simpson(ks2, 20 / (ks2 - 1));
    for (let i = 0; i < ks2; i++) {
      const s = -12 + (20 * i) / (ks2 - 1);
      const sdW = Math.sqrt(2 * Math.exp(s));
      const ww = simpson(kw, (24 * sdW) / (kw - 1));
      let inner = 0;
      for (let j = 0; j < kw; j++) {
        theta[0] = 0.2 - 12 * sdW + (24 * sdW * j) / (kw - 1);
        theta[1] = s;
        inner += ww[j] * Math.exp(model.logPrior(theta));
      }
      mass += ws2[i] * inner;
    }
    expect(Math.abs(mass - 1)).toBeLessThan(1e-7);
  });

  it("scores the seed's setting (v = 10⁴) without overflow and agrees with the Student-t there", () => {
    const d = linearRegressionData({ n: 40, p: 4, noiseSd: 0.3, seed: 13, intercept: true });
    const model = nigRegression({ ...d, v: 1e4, a: 1, b: 1 });
    const V = new Float64Array(16);
    for (let j = 0; j < 4; j++) V[j * 4 + j] = 1e4;
    const reference = studentTMarginal(d.X, d.y, d.n, d.p, new Float64Array(4), V, 1, 1);
    expect(Math.abs(model.exactLogEvidence() - reference)).toBeLessThan(1e-10 * Math.abs(reference));
  });
});

describe("nigRegression: densities", () => {
  const model = nigRegression({ ...data, m: [0.1, 0, -0.1], V: randomSpd(3, 7), a: 2, b: 1 });

  it("has gradients that match central finite differences", () => {
    const rng = createRng(1);
    const grad = new Float64Array(4);
    for (let k = 0; k < 5; k++) {
      const theta = model.samplePosterior(rng, 1)[0];
      if (k > 2) theta[3] += 1.5; // away from the posterior too
      for (const [value, gradient] of [
        [model.logPrior, model.gradLogPrior],
        [model.logLikelihood, model.gradLogLikelihood],
      ] as const) {
        const v = gradient.call(model, theta, grad);
        expect(v).toBeCloseTo(value.call(model, theta), 10);
        for (let j = 0; j < 4; j++) {
          const fd = centralDifference((t) => value.call(model, t), theta, j, 1e-5);
          expect(Math.abs(grad[j] - fd)).toBeLessThan(1e-5 * (1 + Math.abs(fd)));
        }
      }
    }
  });

  it("has pointwise log likelihoods that sum to the log likelihood", () => {
    const rng = createRng(2);
    const out = new Float64Array(data.n);
    for (let k = 0; k < 5; k++) {
      const theta = model.samplePrior(rng);
      model.logLikelihoodPointwise(theta, out);
      const sum = out.reduce((s, v) => s + v, 0);
      expect(Math.abs(sum - model.logLikelihood(theta))).toBeLessThan(1e-9 * (1 + Math.abs(sum)));
    }
    expect(() => model.logLikelihoodPointwise(new Float64Array(4), new Float64Array(3))).toThrow(
      /expected n = 30/,
    );
  });

  it("stays finite (or −∞), never NaN, far in the tails where e^{−s} under- or overflows", () => {
    for (const theta of [
      [1e212, 1e212, -3e212, 6e213],
      [1e3, 0, 0, -800],
      [0.5, -1, 2, 800],
    ]) {
      const t = Float64Array.from(theta);
      const grad = new Float64Array(4);
      for (const v of [model.logPrior(t), model.logLikelihood(t), model.gradLogPrior(t, grad)]) {
        expect(Number.isNaN(v)).toBe(false);
        expect(v).toBeLessThan(Number.POSITIVE_INFINITY);
      }
    }
  });
});

describe("nigRegression: posterior sampling", () => {
  const model = nigRegression({ ...data, m: [0.1, 0, -0.1], V: randomSpd(3, 8), a: 2, b: 1 });

  /** Mean of f over draws, with its standard error. */
  function meanSe(values: number[]): { mean: number; se: number } {
    const n = values.length;
    const mean = values.reduce((s, v) => s + v, 0) / n;
    const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
    return { mean, se: sd / Math.sqrt(n) };
  }

  it("draws w with mean m* and precision 1/σ² with mean a*/β*", () => {
    const post = model.posterior();
    expect(post.shape).toBe(2 + 15);
    const draws = model.samplePosterior(createRng(3), 20000);
    for (let j = 0; j < 3; j++) {
      const { mean, se } = meanSe(draws.map((t) => t[j]));
      expect(Math.abs(mean - post.mean[j])).toBeLessThan(4 * se);
    }
    const { mean, se } = meanSe(draws.map((t) => Math.exp(-t[3])));
    expect(Math.abs(mean - post.shape / post.scale)).toBeLessThan(4 * se);
  });

  it("has an exact power-posterior kernel: NIG with the data scaled by √β and a* = a + βn/2", () => {
    const beta = 0.3;
    const scaled = nigRegression({
      X: data.X.map((x) => x * Math.sqrt(beta)),
      y: data.y.map((x) => x * Math.sqrt(beta)),
      n: data.n,
      p: 3,
      m: model.m,
      V: randomSpd(3, 8),
      a: 2,
      b: 1,
    }).posterior();
    const kernel = model.powerPosteriorKernel(beta);
    let state = kernel.init(model.samplePrior(createRng(4)));
    const rng = createRng(5);
    const w0: number[] = [];
    const precision: number[] = [];
    for (let t = 0; t < 20000; t++) {
      const step = kernel.step(rng, state);
      state = step.state;
      expect(step.info.acceptProbability).toBe(1);
      w0.push(state.position[0]);
      precision.push(Math.exp(-state.position[3]));
    }
    const x = state.position;
    expect(state.logDensity).toBeCloseTo(model.logPrior(x) + beta * model.logLikelihood(x), 10);
    const a = meanSe(w0);
    expect(Math.abs(a.mean - scaled.mean[0])).toBeLessThan(4 * a.se);
    const b = meanSe(precision);
    expect(Math.abs(b.mean - (2 + (beta * data.n) / 2) / scaled.scale)).toBeLessThan(4 * b.se);
    expect(() => model.powerPosteriorKernel(1.5)).toThrow(/beta must lie in \[0, 1\]/);
  });

  it("prior draws have the IG(a, b) precision mean a/b", () => {
    const rng = createRng(6);
    const precision: number[] = [];
    for (let t = 0; t < 20000; t++) precision.push(Math.exp(-model.samplePrior(rng)[3]));
    const { mean, se } = meanSe(precision);
    expect(Math.abs(mean - 2 / 1)).toBeLessThan(4 * se);
  });
});

describe("nigRegression: subsets and inputs", () => {
  it("subset is the model of the selected rows; the full subset has the full evidence", () => {
    const model = nigRegression({ ...data, v: 3, a: 2, b: 1 });
    expect(model.nObservations).toBe(30);
    const rows = new Int32Array([7, 2, 19, 3]);
    const sub = model.subset(rows);
    const sorted = [2, 3, 7, 19];
    const direct = nigRegression({
      X: sorted.flatMap((i) => Array.from(data.X.subarray(i * 3, i * 3 + 3))),
      y: sorted.map((i) => data.y[i]),
      n: 4,
      p: 3,
      v: 3,
      a: 2,
      b: 1,
    });
    expect(sub.n).toBe(4);
    expect(sub.exactLogEvidence()).toBeCloseTo(direct.exactLogEvidence(), 12);
    const all = model.subset(Int32Array.from({ length: 30 }, (_, i) => 29 - i));
    expect(all.exactLogEvidence()).toBeCloseTo(model.exactLogEvidence(), 10);
    expect(() => model.subset(new Int32Array([30]))).toThrow(/nigRegression.subset: observation index 30/);
  });

  it("rejects bad inputs with an OccamError naming them", () => {
    const base = { ...data, a: 2, b: 1 };
    expect(() => nigRegression({ ...base, y: data.y.subarray(1) })).toThrow(/y has length 29, expected 30/);
    expect(() => nigRegression({ ...base, X: data.X.subarray(1) })).toThrow(/X .*expected 90/);
    expect(() => nigRegression({ ...base, a: 0 })).toThrow(/shape a must be finite and > 0/);
    expect(() => nigRegression({ ...base, b: Number.NaN })).toThrow(/scale b/);
    expect(() => nigRegression({ ...base, v: 1, V: randomSpd(3, 1) })).toThrow(/give V or v, not both/);
    expect(() => nigRegression({ ...base, v: -1 })).toThrow(/v must be finite and > 0/);
    expect(() => nigRegression({ ...base, V: [1, 0, 0, 0, -1, 0, 0, 0, 1] })).toThrow(
      /V: .*not positive definite/,
    );
    expect(() => nigRegression({ ...base, V: [1, 0.5, 0, 0, 1, 0, 0, 0, 1] })).toThrow(/not symmetric/);
    expect(() => nigRegression({ ...base, m: [0, 0] })).toThrow(/m has length 2/);
    const y = Float64Array.from(data.y);
    y[4] = Number.NaN;
    const error = (() => {
      try {
        nigRegression({ ...base, y });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OccamError);
    expect((error as OccamError).code).toBe("invalid-data");
    expect((error as OccamError).message).toMatch(/y\[4\] is NaN/);
  });
});
