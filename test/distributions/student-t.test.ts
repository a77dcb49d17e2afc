import { describe, expect, it } from "vitest";
import { studentT } from "../../src/distributions/student-t.js";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { expectMoments, QUADRATURE_TOL, totalProbability } from "./support.js";

describe("studentT (dof, location, scale)", () => {
  it("matches reference values (scipy.stats.t(ν, loc, scale).logpdf)", () => {
    expect(studentT({ dof: 2.5, location: -1, scale: 0.8 }).logPdf(1.7)).toBeCloseTo(-3.7946120276363766, 12);
    expect(studentT({ dof: 0.7, scale: 3 }).logPdf(-40)).toBeCloseTo(-7.030594056982857, 12);
    // ν = 1 is the Cauchy: 1/(πs(1 + z²)).
    expect(studentT({ dof: 1, location: 2, scale: 0.5 }).logPdf(3)).toBeCloseTo(
      -Math.log(Math.PI * 0.5 * 5),
      13,
    );
  });

  it.each([
    [2.5, -1, 0.8],
    [30, 0, 1],
  ])("integrates to 1 for ν = %s", (dof, location, scale) => {
    const d = studentT({ dof, location, scale });
    // With x = μ + s sinh(u) the integrand decays like e^{−ν u}; range 20 leaves < e^{−40} for ν ≥ 2.
    const total = totalProbability(d.logPdf, { kind: "real", centre: location, scale }, 20);
    expect(Math.abs(total - 1)).toBeLessThan(QUADRATURE_TOL);
  });

  it("integrates to 1 for the very heavy-tailed ν = 0.7", () => {
    const d = studentT({ dof: 0.7, scale: 3 });
    // Tail beyond sinh(u): ∝ e^{−0.7 u}; u = 40 leaves ~e^{−28} ≈ 7e-13.
    const total = totalProbability(d.logPdf, { kind: "real", centre: 0, scale: 3 }, 40, 40_000);
    expect(Math.abs(total - 1)).toBeLessThan(QUADRATURE_TOL);
  });

  it("has sample moments within 4 SE (ν = 9, so the fourth moment exists)", () => {
    const d = studentT({ dof: 9, location: 3, scale: 2 });
    expect(d.variance).toBeCloseTo((4 * 9) / 7, 14);
    expectMoments(d.sample, createRng(45), 50_000, d, true);
  });

  it("reports undefined and infinite moments", () => {
    expect(Number.isNaN(studentT({ dof: 1 }).mean)).toBe(true);
    expect(studentT({ dof: 1.5 }).variance).toBe(Number.POSITIVE_INFINITY);
  });

  it("has the right derivative (central differences)", () => {
    const d = studentT({ dof: 3, location: 1, scale: 2 });
    const h = 1e-5;
    for (const x of [-4, 0.5, 7]) {
      expect(Math.abs(d.dLogPdf(x) - (d.logPdf(x + h) - d.logPdf(x - h)) / (2 * h))).toBeLessThan(1e-8);
    }
  });

  it("rejects bad parameters", () => {
    expect(() => studentT({ dof: 0 })).toThrow(OccamError);
    expect(() => studentT({ dof: 3, scale: -1 })).toThrow(/scale/);
    expect(() => studentT({ dof: 3, location: Number.POSITIVE_INFINITY })).toThrow(/location/);
  });
});
