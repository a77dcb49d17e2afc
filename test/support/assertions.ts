import { expect } from "vitest";
import { OccamError } from "../../src/errors.js";

/** Runs `fn` and returns the OccamError it throws; fails the test if it throws nothing or something else. */
export function thrown(fn: () => unknown): OccamError {
  try {
    fn();
  } catch (error) {
    if (error instanceof OccamError) return error;
    throw error;
  }
  throw new Error("expected an OccamError");
}

/** An evidence estimate within max(0.05, 3 stdErr) of the exact value, and within 4 of its standard errors. */
export function expectAccurate(logZ: number, stdErr: number, exact: number): void {
  expect(Number.isFinite(stdErr) && stdErr > 0).toBe(true);
  expect(Math.abs(logZ - exact)).toBeLessThan(Math.max(0.05, 3 * stdErr));
  expect(Math.abs(logZ - exact) / stdErr).toBeLessThan(4);
}

/** (f(θ + h eⱼ) − f(θ − h eⱼ)) / 2h: the central difference of f along coordinate j, to check a gradient. */
export function centralDifference(
  f: (theta: Float64Array) => number,
  theta: Float64Array,
  j: number,
  h: number,
): number {
  const up = Float64Array.from(theta);
  const down = Float64Array.from(theta);
  up[j] += h;
  down[j] -= h;
  // Divided by the step as it was rounded, not by 2h.
  return (f(up) - f(down)) / (up[j] - down[j]);
}
