import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";

describe("createRng", () => {
  it("gives the same stream for the same seed and different streams for different seeds", () => {
    const a = createRng(7);
    const b = createRng(7);
    const c = createRng(0);
    const xs = Array.from({ length: 5 }, () => a.uniform());
    expect(Array.from({ length: 5 }, () => b.uniform())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.uniform())).not.toEqual(xs);
  });

  it("rejects seeds that are not 32-bit unsigned integers", () => {
    for (const seed of [-1, 1.5, 2 ** 32, Number.NaN]) {
      expect(() => createRng(seed)).toThrow(OccamError);
    }
  });

  it("splits into reproducible streams that are uncorrelated with each other", () => {
    const n = 20_000;
    const [s1, s2] = createRng(3).split(2);
    const [t1] = createRng(3).split(2);
    const x = new Float64Array(n);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      x[i] = s1.normal();
      y[i] = s2.normal();
    }
    expect(t1.normal()).toBe(x[0]);
    let sxy = 0;
    for (let i = 0; i < n; i++) sxy += x[i] * y[i];
    // The sample correlation of independent normals has standard error 1/√n.
    expect(Math.abs(sxy / n)).toBeLessThan(4 / Math.sqrt(n));
  });

  it("draws uniforms in [0, 1) with mean 1/2 and variance 1/12", () => {
    const rng = createRng(11);
    const n = 100_000;
    let sum = 0;
    let sumSq = 0;
    let outside = 0;
    for (let i = 0; i < n; i++) {
      const u = rng.uniform();
      if (!(u >= 0 && u < 1)) outside++;
      sum += u;
      sumSq += u * u;
    }
    expect(outside).toBe(0);
    const mean = sum / n;
    expect(Math.abs(mean - 0.5)).toBeLessThan(4 * Math.sqrt(1 / 12 / n));
    // Var(U²) = 1/5 − 1/9 = 4/45.
    expect(Math.abs(sumSq / n - 1 / 3)).toBeLessThan(4 * Math.sqrt(4 / 45 / n));
  });

  it("draws Gamma variates with the right mean and variance, small shapes included", () => {
    const n = 100_000;
    for (const shape of [0.01, 0.3, 1, 7.5]) {
      const rng = createRng(5);
      let sum = 0;
      let sumSq = 0;
      for (let i = 0; i < n; i++) {
        const g = rng.gamma(shape);
        sum += g;
        sumSq += g * g;
      }
      const mean = sum / n;
      const variance = sumSq / n - mean * mean;
      // Var(G) = shape, so the mean's standard error is √(shape / n).
      expect(Math.abs(mean - shape)).toBeLessThan(4 * Math.sqrt(shape / n));
      // The sample variance's relative standard error is √((κ − 1)/n), with kurtosis κ = 3 + 6/shape.
      expect(Math.abs(variance / shape - 1)).toBeLessThan(4 * Math.sqrt((2 + 6 / shape) / n));
    }
  });

  it("rejects invalid variate parameters", () => {
    const rng = createRng(1);
    expect(() => rng.gamma(0)).toThrow(OccamError);
    expect(() => rng.beta(1, -1)).toThrow(OccamError);
    expect(() => rng.integer(0)).toThrow(OccamError);
  });
});
