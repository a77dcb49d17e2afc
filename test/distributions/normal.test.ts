import { describe, expect, it } from "vitest";
import { normal } from "../../src/distributions/normal.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { expectMoments, QUADRATURE_TOL, totalProbability } from "./support.js";

describe("normal", () => {
  const d = normal({ mean: 1.5, sd: 2 });

  it("matches a reference value (scipy.stats.norm(1.5, 2).logpdf(-0.7))", () => {
    expect(d.logPdf(-0.7)).toBeCloseTo(-2.217085713764618, 13);
    expect(d.logPdf(1.5)).toBeCloseTo(-Math.log(2) - 0.5 * Math.log(2 * Math.PI), 14);
  });

  it("integrates to 1", () => {
    const total = totalProbability(d.logPdf, { kind: "real", centre: 1.5, scale: 2 }, 6);
    expect(Math.abs(total - 1)).toBeLessThan(QUADRATURE_TOL);
  });

  it("has sample mean and variance within 4 SE of μ and σ²", () => {
    expect(d.variance).toBe(4);
    expectMoments(d.sample, createRng(41), 50_000, d, true);
  });

  it("has derivative −(x − μ)/σ² (checked by central differences)", () => {
    const h = 1e-5;
    for (const x of [-3, 0.2, 4]) {
      const fd = (d.logPdf(x + h) - d.logPdf(x - h)) / (2 * h);
      expect(Math.abs(d.dLogPdf(x) - fd)).toBeLessThan(1e-8);
    }
  });

  it("rejects bad parameters", () => {
    expect(() => normal({ mean: 0, sd: 0 })).toThrow(OccamError);
    expect(() => normal({ mean: 0, sd: -1 })).toThrow(/sd/);
    expect(() => normal({ mean: Number.NaN, sd: 1 })).toThrow(/mean/);
    expect(() => normal(undefined as never)).toThrow(OccamError);
  });
});
