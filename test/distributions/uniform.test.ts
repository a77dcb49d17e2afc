import { describe, expect, it } from "vitest";
import { uniform } from "../../src/distributions/uniform.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { expectMoments, simpson } from "./support.js";

describe("uniform (lower, upper)", () => {
  const d = uniform({ lower: -2, upper: 3 });

  it("has density 1/(upper − lower) inside and −Infinity outside (scipy.stats.uniform(−2, 5))", () => {
    expect(d.logPdf(1)).toBeCloseTo(-1.6094379124341003, 15);
    expect(d.logPdf(-2)).toBe(-Math.log(5));
    expect(d.logPdf(3)).toBe(-Math.log(5));
    expect(d.logPdf(3.0001)).toBe(Number.NEGATIVE_INFINITY);
    expect(d.logPdf(-2.0001)).toBe(Number.NEGATIVE_INFINITY);
    expect(Math.abs(simpson((x) => Math.exp(d.logPdf(x)), -2, 3, 100) - 1)).toBeLessThan(1e-14);
  });

  it("has sample mean and variance within 4 SE", () => {
    expect(d.variance).toBeCloseTo(25 / 12, 15);
    expectMoments(d.sample, createRng(47), 50_000, d, true);
  });

  it("rejects bad parameters", () => {
    expect(() => uniform({ lower: 1, upper: 1 })).toThrow(OccamError);
    expect(() => uniform({ lower: 2, upper: 1 })).toThrow(/lower < upper/);
    expect(() => uniform({ lower: -Number.MAX_VALUE, upper: Number.MAX_VALUE })).toThrow(OccamError);
  });
});
