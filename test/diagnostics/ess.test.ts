import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  effectiveSampleSize,
  essPerParameter,
  monteCarloStandardError,
  weightTraceEss,
} from "../../src/diagnostics/ess.js";
import { OccamError } from "../../src/errors.js";
import { Draws } from "../../src/model/draws.js";
import type { Rng } from "../../src/random/rng.js";
import { createRng } from "../../src/random/rng.js";
import { referenceAntitheticChain, referenceChains } from "./reference-chains.js";

/** A stationary AR(1) chain x' = φx + √(1−φ²) ε with N(0, 1) marginals: ρ_k = φ^k, τ = (1+φ)/(1−φ). */
function ar1(rng: Rng, n: number, phi: number): Float64Array {
  const x = new Float64Array(n);
  const s = Math.sqrt(1 - phi * phi);
  let v = rng.normal();
  for (let i = 0; i < n; i++) {
    v = phi * v + s * rng.normal();
    x[i] = v;
  }
  return x;
}

function chainsOf(seed: number, m: number, n: number, phi: number): Float64Array[] {
  return createRng(seed)
    .split(m)
    .map((rng) => ar1(rng, n, phi));
}

describe("effectiveSampleSize", () => {
  it("reproduces posterior::ess_basic on a fixed data set", () => {
    // Three AR(1) (φ = 0.6) chains of 101 draws with offsets 0, 0.1, 0.2, and one antithetic (φ = −0.7)
    // chain of 64. Reference values: a line-by-line Python port of posterior's R `.ess` (convergence.R)
    // with the autocovariances summed directly (no FFT), test/diagnostics/posterior-port.py, run on
    // exactly these numbers.
    const chains = referenceChains();
    const anti = referenceAntitheticChain();
    const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-10 * b);
    close(effectiveSampleSize(chains), 80.28798261514673);
    close(effectiveSampleSize(chains, { split: false }), 80.38273709552618);
    close(effectiveSampleSize([chains[0]]), 41.81997945550231);
    // Antithetic draws: ESS above the number of draws.
    close(effectiveSampleSize([anti]), 115.59551833496877);
  });

  it("gives ESS ≈ N for independent draws", () => {
    const m = 4;
    const n = 10_000;
    const ess = effectiveSampleSize(chainsOf(11, m, n, 0));
    const total = m * n;
    // τ̂ sums autocorrelation estimates up to Geyer's truncation lag M (≈ 2–4 for iid draws), each with
    // sd 1/√N; the relative sd of a truncated sum is ≈ √(4M/N) (Priestley 1981, §6.2.4, rectangular lag
    // window) = 0.020 for M = 4. Band: 4 sd. (200 replications at N = 4000 measured sd 0.043 and mean
    // 0.986, i.e. 0.0136 at this N.)
    expect(Math.abs(ess / total - 1)).toBeLessThan(4 * Math.sqrt((4 * 4) / total));
  });

  it("gives ESS within 15 % of N(1−φ)/(1+φ) for a long AR(1) chain with φ = 0.9", () => {
    const phi = 0.9;
    const m = 4;
    const n = 50_000;
    const total = m * n;
    const truth = (total * (1 - phi)) / (1 + phi); // 10 526
    const ess = effectiveSampleSize(chainsOf(12, m, n, phi));
    // Relative sd ≈ √(4M/N) with M the lag where Geyer's sequence stops: ρ̂_k is lost in its noise
    // (sd ≈ √(τ/N) ≈ 0.01) near φ^M = 0.01, M ≈ 44–50; √(4·50/2·10⁵) = 3.2 %, so 15 % is > 4.5 sd
    // (200 replications measured sd 3.3 %, mean ratio 0.995). The truncated tail 2φ^M/(1−φ) ≈ 0.1
    // of τ = 19 is a bias of ≈ 0.5 %.
    expect(Math.abs(ess / truth - 1)).toBeLessThan(0.15);
    // And it is nothing like the iid answer.
    expect(ess).toBeLessThan(total / 10);
  });

  it("counts the halves of a trending chain as disagreeing chains (split-ESS)", () => {
    const [x] = chainsOf(13, 1, 2000, 0);
    const trend = x.map((v, i) => v + (4 * i) / x.length);
    const split = effectiveSampleSize([trend]);
    const unsplit = effectiveSampleSize([trend], { split: false });
    expect(split).toBeLessThan(unsplit);
    expect(split).toBeLessThan(0.2 * x.length);
  });

  it("is invariant under affine maps of the draws and reordering of chains (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 8, max: 200 }),
        fc.double({ min: 0.1, max: 100, noNaN: true }),
        fc.double({ min: -100, max: 100, noNaN: true }),
        (seed, m, n, scale, shift) => {
          const chains = chainsOf(seed, m, n, 0.5);
          const ess = effectiveSampleSize(chains);
          const mapped = chains.map((c) => c.map((v) => scale * v + shift)).reverse();
          const essMapped = effectiveSampleSize(mapped);
          // The cap m·n·log10(m·n) bounds every ESS.
          return Math.abs(essMapped - ess) < 1e-8 * ess && ess <= m * n * Math.log10(m * n) * (1 + 1e-12);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("returns NaN when undefined and throws on bad input", () => {
    expect(effectiveSampleSize([new Float64Array(20).fill(2), new Float64Array(20).fill(2)])).toBeNaN();
    expect(effectiveSampleSize([Float64Array.of(1, 2, 3, 4, 5, 6, 7)])).toBeNaN(); // 3 draws per half
    expect(() => effectiveSampleSize([])).toThrow(OccamError);
    expect(() => effectiveSampleSize([new Float64Array(10), new Float64Array(11)])).toThrow(/equal length/);
    expect(() =>
      effectiveSampleSize([Float64Array.of(1, 2, Number.POSITIVE_INFINITY, 4, 5, 6, 7, 8)]),
    ).toThrow(/finite/);
  });
});

describe("essPerParameter", () => {
  it("computes one ESS per coordinate over the chains of a Draws", () => {
    const [a, b] = chainsOf(21, 2, 500, 0);
    const [c, d] = chainsOf(22, 2, 500, 0.8);
    const samples = [0, 1].map((chain) =>
      Array.from({ length: 500 }, (_, t) => Float64Array.of([a, b][chain][t], [c, d][chain][t])),
    );
    const ess = essPerParameter(Draws.fromArrays(samples));
    expect(ess[0]).toBe(effectiveSampleSize([a, b]));
    expect(ess[1]).toBe(effectiveSampleSize([c, d]));
  });
});

describe("monteCarloStandardError", () => {
  it("is calibrated: (mean − truth) / mcse has unit variance over replications", () => {
    // 300 replications of 4 AR(1) chains (φ = 0.5) of 500 draws, true mean 0. If the mcse is right, the
    // z-scores are ≈ N(0, 1), whose sample variance has sd √(2/299) = 0.082; band: 4 sd.
    const root = createRng(31);
    const reps = 300;
    let sumZ2 = 0;
    for (let r = 0; r < reps; r++) {
      const chains = root.split(4).map((rng) => ar1(rng, 500, 0.5));
      let sum = 0;
      for (const chain of chains) for (const v of chain) sum += v;
      const z = sum / 2000 / monteCarloStandardError(chains);
      sumZ2 += z * z;
    }
    expect(Math.abs(sumZ2 / reps - 1)).toBeLessThan(4 * Math.sqrt(2 / (reps - 1)));
  });

  it("is sd/√n for independent draws, up to the ESS estimate", () => {
    const chains = chainsOf(41, 4, 5000, 0);
    const mcse = monteCarloStandardError(chains);
    // At N = 20 000 the ESS is within 4·√(16/N) = ±11 % of N (the bound of the iid ESS test), so
    // mcse·√N = sd·√(N/ESS) is within ±5.7 % of the sd, itself within 4/√(2N) = ±2 % of 1.
    expect(Math.abs(mcse * Math.sqrt(20_000) - 1)).toBeLessThan(0.08);
  });
});

describe("weightTraceEss", () => {
  it("is the ESS of the weights e^{logW} along each chain, capped at the draws, and the draws for constant weights", () => {
    const rng = createRng(12);
    const nChains = 4;
    const nDraws = 500;
    // Independent log weights: the ESS of the weights is near the number of draws.
    const independent = Float64Array.from({ length: nChains * nDraws }, () => 0.5 * rng.normal());
    const essIndependent = weightTraceEss(independent, nChains, nDraws);
    expect(essIndependent).toBeGreaterThan(0.7 * nChains * nDraws);
    expect(essIndependent).toBeLessThanOrEqual(nChains * nDraws);
    // An AR(1) trace with ρ = 0.9 in the log weights: far fewer effective draws.
    const sticky = new Float64Array(nChains * nDraws);
    for (let c = 0; c < nChains; c++) {
      let x = 0;
      for (let t = 0; t < nDraws; t++) {
        x = 0.9 * x + Math.sqrt(1 - 0.81) * 0.5 * rng.normal();
        sticky[c * nDraws + t] = x;
      }
    }
    expect(weightTraceEss(sticky, nChains, nDraws)).toBeLessThan(0.2 * nChains * nDraws);
    expect(weightTraceEss(new Float64Array(nChains * nDraws), nChains, nDraws)).toBe(nChains * nDraws);
  });
});
