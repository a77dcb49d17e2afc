import { describe, expect, it } from "vitest";
import { multivariateNormal } from "../../../src/distributions/multivariate-normal.js";
import { cholesky, choleskySolve, invertFromCholesky, logDetFromCholesky } from "../../../src/math/linalg.js";
import {
  ar1Covariance,
  correlatedOutsideBound,
} from "../../../src/models/hard-problems/correlated-gaussian.js";
import { eggboxReference } from "../../../src/models/hard-problems/eggbox.js";
import { temperedShares } from "../../../src/models/hard-problems/gaussian-mixture.js";
import {
  correlatedGaussianProblem,
  correlatedMean,
  eggboxProblem,
  gaussianMixtureProblem,
  gaussianShellsProblem,
  hardProblem,
  rosenbrockProblem,
} from "../../../src/models/hard-problems/index.js";
import {
  compositeGaussLegendre,
  gaussLegendre,
  logNormalInterval,
} from "../../../src/models/hard-problems/numerics.js";
import { rosenbrockReference } from "../../../src/models/hard-problems/rosenbrock.js";
import { createRng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";

/** Composite Simpson weights on an odd number k of points spaced h apart. */
function simpson(k: number, h: number): Float64Array {
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = ((i === 0 || i === k - 1 ? 1 : i % 2 === 1 ? 4 : 2) * h) / 3;
  return w;
}

/** log ∫∫ p(θ) L(θ) over a 2-D box by Simpson's rule on k × k points, with the model's own densities. */
function simpsonLogZ2d(
  model: { logPrior(t: Float64Array): number; logLikelihood(t: Float64Array): number },
  lo: number,
  hi: number,
  k: number,
): number {
  const w = simpson(k, (hi - lo) / (k - 1));
  const theta = new Float64Array(2);
  // Nodes on the faces are nudged inwards by 1e-12 so the closed-box prior is evaluated inside.
  const node = (i: number) => Math.min(hi - 1e-12, Math.max(lo + 1e-12, lo + ((hi - lo) * i) / (k - 1)));
  let z = 0;
  for (let i = 0; i < k; i++) {
    theta[0] = node(i);
    for (let j = 0; j < k; j++) {
      theta[1] = node(j);
      z += w[i] * w[j] * Math.exp(model.logPrior(theta) + model.logLikelihood(theta));
    }
  }
  return Math.log(z);
}

describe("quadrature rules", () => {
  it("Gauss–Legendre of order n integrates polynomials of degree 2n − 1 exactly, and no higher", () => {
    for (const n of [1, 2, 5, 20, 40]) {
      const { nodes, weights } = gaussLegendre(n);
      // (Degree 2n is checked for small n only: for n = 20 its error is already below 1e-11.)
      for (const degree of n <= 5 ? [0, 2 * n - 2, 2 * n - 1, 2 * n] : [0, 2 * n - 2, 2 * n - 1]) {
        let s = 0;
        for (let i = 0; i < n; i++) s += weights[i] * nodes[i] ** degree;
        const exact = degree % 2 === 1 ? 0 : 2 / (degree + 1);
        if (degree < 2 * n) expect(Math.abs(s - exact)).toBeLessThan(1e-13);
        else expect(Math.abs(s - exact)).toBeGreaterThan(1e-6);
      }
    }
  });

  it("the composite rule integrates e^x over broken segments to rounding", () => {
    const rule = compositeGaussLegendre([-1, 0.3, 2], 3, 10);
    let s = 0;
    for (let i = 0; i < rule.nodes.length; i++) s += Math.exp(rule.logWeights[i] + rule.nodes[i]);
    expect(s).toBeCloseTo(Math.exp(2) - Math.exp(-1), 13);
  });

  it("logNormalInterval keeps full precision in both tails and across 0", () => {
    // Φ(−30) − Φ(−40) = Φ(−30) to 1e-100; log Φ(−30) ≈ −454.321 (erfc's asymptotic series).
    const tail = -0.5 * 900 - Math.log(30) - 0.5 * Math.log(2 * Math.PI) + Math.log1p(-1 / 900 + 3 / 810000);
    expect(logNormalInterval(-40, -30)).toBeCloseTo(tail, 6);
    expect(logNormalInterval(30, 40)).toBeCloseTo(tail, 6);
    expect(logNormalInterval(-1, 1)).toBeCloseTo(Math.log(0.6826894921370859), 14);
  });
});

describe("eggbox reference", () => {
  it("is converged: 128 and 512 trapezoid intervals agree with the default to 1e-12", () => {
    const base = eggboxProblem().logZ;
    expect(Math.abs(eggboxReference(128).logZ - base)).toBeLessThan(1e-12);
    expect(Math.abs(eggboxReference(512).logZ - base)).toBeLessThan(1e-12);
    // ... while 48 intervals is visibly not: the test can see an unconverged rule.
    expect(Math.abs(eggboxReference(48).logZ - base)).toBeGreaterThan(1e-9);
  });

  it("agrees with brute-force Simpson over the whole prior box to Simpson's own error", () => {
    const { model, logZ } = eggboxProblem();
    const coarse = simpsonLogZ2d(model, 0, 10 * Math.PI, 401);
    const fine = simpsonLogZ2d(model, 0, 10 * Math.PI, 801);
    // Richardson: Simpson's error is about (coarse − fine)/15 on the fine grid.
    const error = Math.abs(coarse - fine) / 15;
    expect(Math.abs(fine - logZ)).toBeLessThan(Math.max(5 * error, 1e-10));
    expect(Math.abs(fine - logZ)).toBeLessThan(1e-6);
  });
});

describe("Gaussian shells reference", () => {
  it("the radial closed form equals a numerical radial integral (Simpson), dimension by dimension", () => {
    for (const d of [2, 3, 5, 10]) {
      const { logZ } = gaussianShellsProblem({ dim: d });
      const k = 4001;
      const lo = 2 - 3;
      const h = 6 / (k - 1);
      const w = simpson(k, h);
      let radial = 0;
      for (let i = 0; i < k; i++) {
        const rho = lo + i * h;
        if (rho > 0)
          radial +=
            (w[i] * rho ** (d - 1) * Math.exp(-((rho - 2) ** 2) / 0.02)) / Math.sqrt(2 * Math.PI * 0.01);
      }
      // S_{d−1} = 2π^{d/2}/Γ(d/2) by Γ's recurrence from Γ(1) or Γ(½).
      let gammaHalfD = d % 2 === 0 ? 1 : Math.sqrt(Math.PI);
      for (let a = d % 2 === 0 ? 1 : 0.5; a < d / 2; a++) gammaHalfD *= a;
      const sphere = (2 * Math.PI ** (d / 2)) / gammaHalfD;
      const full = Math.log(2 * sphere * radial) - d * Math.log(12);
      // The box cuts < 1e-6 (the references test shows 1.2e-8 at d = 2): the two agree to that.
      expect(Math.abs(full - logZ)).toBeLessThan(2e-8);
    }
  });

  it("a Monte Carlo estimate over the box agrees within 4 of its standard errors (d = 2)", () => {
    const { model, logZ } = gaussianShellsProblem({ dim: 2 });
    const rng = createRng(21);
    const n = 200_000;
    let s = 0;
    let s2 = 0;
    for (let t = 0; t < n; t++) {
      const l = Math.exp(model.logLikelihood(model.samplePrior(rng)));
      s += l;
      s2 += l * l;
    }
    const mean = s / n;
    const se = Math.sqrt((s2 / n - mean * mean) / n) / mean;
    expect(se).toBeLessThan(0.02);
    expect(Math.abs(Math.log(mean) - logZ)).toBeLessThan(4 * se);
  });

  it("refuses a box that cuts the shells, instead of giving a wrong reference", () => {
    expect(thrown(() => gaussianShellsProblem({ dim: 2, halfWidth: 5.6 })).code).toBe("invalid-argument");
  });
});

describe("correlated Gaussian closed forms", () => {
  it("the O(d) tridiagonal log likelihood equals the dense N(θ; μ, Σ), and log det Σ = (d − 1) log(1 − ρ²)", () => {
    for (const d of [2, 20, 50]) {
      const { model } = correlatedGaussianProblem({ dim: d });
      const dense = multivariateNormal({
        mean: correlatedMean(d),
        choleskyL: cholesky(ar1Covariance(d, 0.9), d),
      });
      expect(dense.logDetCovariance).toBeCloseTo((d - 1) * Math.log(0.19), 10);
      const rng = createRng(31 + d);
      for (let t = 0; t < 5; t++) {
        const theta = model.samplePrior(rng);
        for (let j = 0; j < d; j++) theta[j] *= 0.1; // near the likelihood's bulk as well as far
        expect(model.logLikelihood(theta)).toBeCloseTo(dense.logPdf(theta), 9);
      }
    }
  });

  it("normal prior: log Z equals Chib's identity log p + log L − log posterior with a dense posterior", () => {
    for (const d of [20, 50]) {
      const { model, logZ, information } = correlatedGaussianProblem({ dim: d, prior: "normal" });
      const mu = correlatedMean(d);
      // Posterior precision P = Σ⁻¹ + I/9 from the dense inverse, mean m = P⁻¹ Σ⁻¹ μ.
      const precision = invertFromCholesky(cholesky(ar1Covariance(d, 0.9), d), d);
      const b = new Float64Array(d);
      for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) b[i] += precision[i * d + j] * mu[j];
      for (let i = 0; i < d; i++) precision[i * d + i] += 1 / 9;
      const LP = cholesky(precision, d);
      const m = choleskySolve(LP, d, b);
      const S = invertFromCholesky(LP, d);
      const posterior = multivariateNormal({ mean: m, choleskyL: cholesky(S, d) });
      for (const theta of [new Float64Array(d), m, Float64Array.from(mu)]) {
        const chib = model.logPrior(theta) + model.logLikelihood(theta) - posterior.logPdf(theta);
        expect(chib).toBeCloseTo(logZ, 9);
      }
      // KL(N(m, S) ‖ N(0, 9 I)) = ½ [tr S/9 + mᵀm/9 − d + d log 9 − log det S].
      let traceS = 0;
      let mm = 0;
      for (let j = 0; j < d; j++) {
        traceS += S[j * d + j];
        mm += m[j] * m[j];
      }
      const kl = 0.5 * (traceS / 9 + mm / 9 - d + d * Math.log(9) + logDetFromCholesky(LP, d));
      expect(information).toBeCloseTo(kl, 9);
    }
  });

  it("box prior: the likelihood mass outside [−10, 10]^d is below 1e-15 (union tail bound)", () => {
    for (const d of [20, 50]) {
      const mu = correlatedMean(d);
      expect(Math.max(...mu.map(Math.abs))).toBeLessThan(0.5);
      const bound = correlatedOutsideBound(mu, 10);
      // Each marginal is N(μ_j, 1): 2d Φ(−9.5) ≥ bound, and Φ(−9.5) = 1.05e-21.
      expect(bound).toBeLessThan(2 * d * 1.1e-21);
      expect(bound).toBeLessThan(1e-15);
      const { logZ, logZError } = hardProblem(`correlated-box-d${d}` as "correlated-box-d20");
      expect(logZ).toBe(-d * Math.log(20));
      expect(logZError).toBeLessThan(1e-11);
    }
    // A box that cuts the likelihood is refused.
    expect(thrown(() => correlatedGaussianProblem({ dim: 20, halfWidth: 4 })).code).toBe("invalid-argument");
  });
});

describe("Gaussian mixture closed form", () => {
  it("matches brute-force Simpson in d = 2 with a box that cuts the wide mode at 1 sd", () => {
    const problem = gaussianMixtureProblem({ dim: 2, halfWidth: 5 });
    const coarse = simpsonLogZ2d(problem.model, -5, 5, 401);
    const fine = simpsonLogZ2d(problem.model, -5, 5, 801);
    const error = Math.abs(coarse - fine) / 15;
    expect(Math.abs(fine - problem.logZ)).toBeLessThan(Math.max(5 * error, 1e-10));
    // The cut matters: the untruncated value log(1) − 2 log 10 is far off.
    expect(Math.abs(problem.logZ + 2 * Math.log(10))).toBeGreaterThan(0.1);
  });

  it("puts the modes beyond any MCMC move at β = 1: a barrier of over 35 nats between them", () => {
    for (const d of [5, 10]) {
      const { model } = hardProblem(`mixture-d${d}` as "mixture-d5");
      const theta = new Float64Array(d);
      let lowest = Number.POSITIVE_INFINITY;
      for (let t = 0; t <= 1000; t++) {
        theta.fill(-4 + (8 * t) / 1000);
        lowest = Math.min(lowest, model.logLikelihood(theta));
      }
      theta.fill(-4);
      const top1 = model.logLikelihood(theta);
      theta.fill(4);
      const top2 = model.logLikelihood(theta);
      // Crossing means passing points e^{−35} less likely than either mode (39 nats at d = 5, 79 at d = 10).
      expect(Math.min(top1, top2) - lowest).toBeGreaterThan(35 * (d / 5));
    }
  });

  it("a method that finds one mode only is off by at least 0.35 nats; tempering keeps both modes (w^β shares)", () => {
    for (const d of [5, 10]) {
      const { logZ } = hardProblem(`mixture-d${d}` as "mixture-d5");
      // Mode 1 alone: 0.7 × its box mass; its box mass is 1 to 1e-8.
      const oneMode = Math.log(0.7) - d * Math.log(20);
      expect(logZ - oneMode).toBeGreaterThan(0.35);
      const components = [
        { weight: 0.7, location: -4, sd: 1 },
        { weight: 0.3, location: 4, sd: 1 },
      ];
      // Equal widths: the second mode's share falls from ½ at β = 0 to 0.3 at β = 1, never lower.
      expect(temperedShares(components, d, 0.5)[1]).toBeCloseTo(
        Math.sqrt(0.3) / (Math.sqrt(0.3) + Math.sqrt(0.7)),
        12,
      );
      // A narrow second mode (sd ½) is a phase transition: 0.3 % of the tempered mass at β = 0.2 in ten dimensions.
      const narrow = [components[0], { ...components[1], sd: 0.5 }];
      if (d === 10) expect(temperedShares(narrow, d, 0.2)[1]).toBeLessThan(0.005);
    }
  });

  it("the information from the truncated moments matches a Monte Carlo E_post[log L] − log Z", () => {
    const { model, logZ, information } = hardProblem("mixture-d5");
    const rng = createRng(41);
    const n = 20_000;
    let s = 0;
    let s2 = 0;
    const theta = new Float64Array(5);
    for (let t = 0; t < n; t++) {
      // Exact posterior draws: pick a mode by its posterior share (box masses are 1 to 1e-8).
      const wide = rng.uniform() < 0.7;
      for (let j = 0; j < 5; j++) theta[j] = wide ? -4 + rng.normal() : 4 + rng.normal();
      const l = model.logLikelihood(theta);
      s += l;
      s2 += l * l;
    }
    const mean = s / n;
    const se = Math.sqrt((s2 / n - mean * mean) / n);
    expect(Math.abs(mean - logZ - (information ?? Number.NaN))).toBeLessThan(4 * se);
  });
});

describe("Rosenbrock reference", () => {
  it("is converged in the number of panels, and differs from the unbounded π/1000 because of the box", () => {
    const { logZ } = rosenbrockProblem();
    expect(Math.abs(rosenbrockReference(5, 100, 8).logZ - logZ)).toBeLessThan(1e-12);
    expect(Math.abs(rosenbrockReference(5, 100, 48).logZ - logZ)).toBeLessThan(1e-12);
    const unbounded = Math.log(Math.PI / 1000);
    // Close (the box removes the ridge beyond θ1² = 5) but not equal: 0.041 nats.
    expect(unbounded - logZ).toBeGreaterThan(0.03);
    expect(unbounded - logZ).toBeLessThan(0.05);
    // A much wider box leaves almost nothing outside: then π/1000 (rescaled to the box) is right.
    const wide = rosenbrockProblem({ halfWidth: 40 }).logZ + 2 * Math.log(80);
    expect(wide).toBeCloseTo(Math.log(Math.PI / 10), 8);
  });
});
