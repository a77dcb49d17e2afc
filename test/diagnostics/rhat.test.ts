import { describe, expect, it } from "vitest";
import { rhatPerParameter, splitRhat } from "../../src/diagnostics/rhat.js";
import { OccamError } from "../../src/errors.js";
import { Draws } from "../../src/model/draws.js";
import { createRng } from "../../src/random/rng.js";
import { referenceChains } from "./reference-chains.js";

function normalChains(seed: number, m: number, n: number): Float64Array[] {
  return createRng(seed)
    .split(m)
    .map((rng) => Float64Array.from({ length: n }, () => rng.normal()));
}

describe("splitRhat", () => {
  it("reproduces posterior::rhat_basic on a fixed data set", () => {
    // The data of the ESS reference test; values from a Python port of posterior's R `.rhat`.
    const chains = referenceChains();
    expect(Math.abs(splitRhat(chains) - 1.031369155571481)).toBeLessThan(1e-12);
    expect(Math.abs(splitRhat(chains, { split: false }) - 0.9965670923029472)).toBeLessThan(1e-12);
  });

  it("is ≈ 1 for independent chains from the same distribution", () => {
    const m = 4;
    const n = 1000;
    const rhat = splitRhat(normalChains(1, m, n));
    // With 2m = 8 split chains of h = 500 iid draws, R̂² = (h−1)/h + var(chain means)/W and
    // var(chain means)/W ≈ χ²₇/(7h). P(χ²₇ < 0.35) and P(χ²₇ > 28) are both < 3·10⁻⁴, so R̂² lies in
    // [1 − (1 − 0.05)/h, 1 + (4 − 1)/h].
    const h = n / 2;
    expect(rhat).toBeGreaterThan(Math.sqrt(1 - 0.95 / h));
    expect(rhat).toBeLessThan(Math.sqrt(1 + 3 / h));
  });

  it("is clearly above 1.1 when one chain is shifted", () => {
    const chains = normalChains(2, 4, 1000);
    chains[3] = chains[3].map((v) => v + 2);
    // Two of the 8 split-chain means are ≈ 2, six ≈ 0: their variance is 6/7 and W ≈ 1, so
    // R̂ ≈ √(1 + 6/7) = 1.36; chain-mean noise (sd 1/√500 = 0.045) moves this by a few hundredths.
    const rhat = splitRhat(chains);
    expect(rhat).toBeGreaterThan(1.25);
    expect(rhat).toBeLessThan(1.5);
  });

  it("detects a trend within a single chain only when splitting", () => {
    const [x] = normalChains(3, 1, 2000);
    const trend = x.map((v, i) => v + (3 * i) / x.length);
    expect(splitRhat([trend])).toBeGreaterThan(1.1);
    expect(() => splitRhat([trend], { split: false })).toThrow(/two chains/);
  });

  it("returns NaN or Infinity for constant chains and throws on bad input", () => {
    expect(splitRhat([new Float64Array(10).fill(1), new Float64Array(10).fill(1)])).toBeNaN();
    expect(splitRhat([new Float64Array(10).fill(1), new Float64Array(10).fill(2)])).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(splitRhat([Float64Array.of(1, 2, 3)])).toBeNaN(); // one draw per half
    expect(() => splitRhat([])).toThrow(OccamError);
    expect(() => splitRhat([new Float64Array(10), new Float64Array(12)])).toThrow(OccamError);
    expect(() => splitRhat([Float64Array.of(1, Number.NaN, 3, 4)])).toThrow(/finite/);
  });
});

describe("rhatPerParameter", () => {
  it("computes one R̂ per coordinate", () => {
    const [a, b] = normalChains(4, 2, 300);
    const samples = [a, b].map((chain, c) => Array.from(chain, (v) => Float64Array.of(v, v + 3 * c)));
    const rhat = rhatPerParameter(Draws.fromArrays(samples));
    expect(rhat[0]).toBe(splitRhat([a, b]));
    expect(rhat[1]).toBeGreaterThan(2);
  });
});
