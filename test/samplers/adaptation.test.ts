import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import {
  DualAveraging,
  RobbinsMonro,
  WelfordVariance,
  WindowedVarianceAdaptation,
  windowedSchedule,
} from "../../src/samplers/adaptation.js";

describe("windowedSchedule", () => {
  it("reproduces Stan's windows for 1000 warm-up iterations", () => {
    const s = windowedSchedule(1000);
    expect(s.initBuffer).toBe(75);
    expect(s.termBuffer).toBe(50);
    expect(s.windows).toEqual([
      [75, 99],
      [100, 149],
      [150, 249],
      [250, 449],
      [450, 949],
    ]);
  });

  it("shrinks the buffers to 15% / 10% when they do not fit, as Stan does", () => {
    const s = windowedSchedule(100);
    expect([s.initBuffer, s.termBuffer]).toEqual([15, 10]);
    expect(s.windows).toEqual([[15, 89]]);
  });

  it("lets the last slow window absorb a remainder smaller than twice its size", () => {
    // 75 + 25 + 50 = 150 ≤ 160: windows [75, 99] then the rest up to 160 − 50 − 1 = 109.
    expect(windowedSchedule(160).windows).toEqual([
      [75, 99],
      [100, 109],
    ]);
  });

  it("has no slow windows below 20 iterations, and the windows tile the middle of warm-up", () => {
    expect(windowedSchedule(19).windows).toEqual([]);
    for (const warmup of [20, 37, 151, 500, 777, 2000, 5003]) {
      const s = windowedSchedule(warmup);
      expect(s.windows[0][0]).toBe(s.initBuffer);
      expect(s.windows[s.windows.length - 1][1]).toBe(warmup - s.termBuffer - 1);
      for (let k = 1; k < s.windows.length; k++) expect(s.windows[k][0]).toBe(s.windows[k - 1][1] + 1);
    }
  });

  it("rejects bad arguments", () => {
    expect(() => windowedSchedule(-1)).toThrow(OccamError);
    expect(() => windowedSchedule(100, { baseWindow: 0 })).toThrow(OccamError);
  });
});

describe("WelfordVariance", () => {
  it("matches the two-pass mean and variance, also with a large offset", () => {
    const rng = createRng(5);
    const w = new WelfordVariance(2);
    const xs: number[][] = [];
    for (let i = 0; i < 1000; i++) {
      const x = [1e9 + rng.normal(), 3 * rng.normal()];
      xs.push(x);
      w.add(new Float64Array(x));
    }
    for (let j = 0; j < 2; j++) {
      const m = xs.reduce((s, x) => s + x[j], 0) / xs.length;
      const v = xs.reduce((s, x) => s + (x[j] - m) ** 2, 0) / (xs.length - 1);
      // The running mean of values near 1e9 drifts by a few ulps (1.2e−7) per update: allow ~100 ulps.
      expect(Math.abs(w.mean()[j] - m)).toBeLessThan(1e-5);
      // Inputs near 1e9 carry absolute rounding ~1e−7, so 1e−6 relative is the attainable accuracy;
      // the one-pass formula Σx² − n x̄² would be off by O(1) here.
      expect(Math.abs(w.variance()[j] / v - 1)).toBeLessThan(1e-6);
    }
    w.reset();
    expect(w.count).toBe(0);
    expect(() => w.variance()).toThrow(OccamError);
    expect(() => w.add(new Float64Array(3))).toThrow(OccamError);
  });
});

describe("WindowedVarianceAdaptation", () => {
  it("returns Stan's regularised variance of exactly the draws of each window", () => {
    const warmup = 300;
    const a = new WindowedVarianceAdaptation(2, warmup);
    const rng = createRng(6);
    const out = new Float64Array(2);
    const windows = a.schedule.windows;
    let k = 0;
    let inWindow: number[][] = [];
    for (let i = 0; i < warmup; i++) {
      const x = [2 * rng.normal(), 0.5 * rng.normal()];
      if (k < windows.length && i >= windows[k][0]) inWindow.push(x);
      const done = a.update(i, new Float64Array(x), out);
      expect(done).toBe(k < windows.length && i === windows[k][1]);
      if (done) {
        const n = inWindow.length;
        for (let j = 0; j < 2; j++) {
          const m = inWindow.reduce((s, x) => s + x[j], 0) / n;
          const v = inWindow.reduce((s, x) => s + (x[j] - m) ** 2, 0) / (n - 1);
          expect(out[j]).toBeCloseTo((n / (n + 5)) * v + 1e-3 * (5 / (n + 5)), 12);
        }
        inWindow = [];
        k++;
      }
    }
    expect(k).toBe(windows.length);
  });
});

describe("DualAveraging", () => {
  it("drives a deterministic acceptance curve to its target, more closely the longer it runs", () => {
    // α(ε) = exp(−ε²): the step size with α = δ is ε* = √(−log δ).
    const delta = 0.8;
    const target = Math.sqrt(-Math.log(delta));
    const error = (iterations: number) => {
      const da = new DualAveraging(1, { targetAccept: delta });
      let eps = da.stepSize;
      for (let i = 0; i < iterations; i++) eps = da.update(Math.exp(-eps * eps));
      return Math.abs(Math.log(da.finalStepSize / target));
    };
    expect(error(4000)).toBeLessThan(error(200));
    expect(error(4000)).toBeLessThan(0.01);
  });

  it("converges under noisy 0/1 feedback: the bias of log ε̄ shrinks as warm-up grows", () => {
    // Feedback: a 0/1 acceptance with probability α(ε) = exp(−ε²), whose root of E[α] = δ is ε*.
    // With noisy feedback ε̄ is biased at finite length (Jensen), but the bias must vanish.
    const rng = createRng(7);
    const delta = 0.65;
    const logTarget = Math.log(Math.sqrt(-Math.log(delta)));
    const bias = (iterations: number) => {
      const finals: number[] = [];
      for (let r = 0; r < 30; r++) {
        const da = new DualAveraging(0.1, { targetAccept: delta });
        let eps = da.stepSize;
        for (let i = 0; i < iterations; i++) eps = da.update(rng.uniform() < Math.exp(-eps * eps) ? 1 : 0);
        finals.push(Math.log(da.finalStepSize) - logTarget);
      }
      const m = finals.reduce((s, v) => s + v, 0) / finals.length;
      const sd = Math.sqrt(finals.reduce((s, v) => s + (v - m) ** 2, 0) / (finals.length - 1));
      return { m, se: sd / Math.sqrt(finals.length) };
    };
    const short = bias(1000);
    const long = bias(16000);
    expect(Math.abs(long.m) + 4 * Math.hypot(short.se, long.se)).toBeLessThan(Math.abs(short.m));
  });

  it("restarts with μ = log(10 ε) and validates its options", () => {
    const da = new DualAveraging(0.5);
    // The first update with α = δ leaves H̄ = 0, so log ε₁ = μ = log(10 · 0.5).
    expect(da.update(0.8)).toBeCloseTo(5, 12);
    da.restart(0.2);
    expect(da.iterations).toBe(0);
    expect(da.update(0.8)).toBeCloseTo(2, 12);
    expect(() => new DualAveraging(0)).toThrow(OccamError);
    expect(() => new DualAveraging(1, { targetAccept: 1 })).toThrow(OccamError);
    expect(() => new DualAveraging(1, { kappa: 0.5 })).toThrow(OccamError);
    expect(() => da.update(Number.NaN)).toThrow(OccamError);
  });
});

describe("RobbinsMonro", () => {
  it("finds the scale whose mean acceptance is the target under noisy feedback", () => {
    const rng = createRng(8);
    const delta = 0.234;
    // α(s) = 1 / (1 + s²) crosses δ at s* = √(1/δ − 1).
    const target = Math.sqrt(1 / delta - 1);
    const finals: number[] = [];
    for (let r = 0; r < 30; r++) {
      const rm = new RobbinsMonro(0.1, { targetAccept: delta });
      let s = rm.scale;
      for (let i = 0; i < 3000; i++) s = rm.update(rng.uniform() < 1 / (1 + s * s) ? 1 : 0);
      finals.push(Math.log(s));
    }
    const m = finals.reduce((a, v) => a + v, 0) / finals.length;
    const sd = Math.sqrt(finals.reduce((a, v) => a + (v - m) ** 2, 0) / (finals.length - 1));
    expect(Math.abs(m - Math.log(target))).toBeLessThan(4 * (sd / Math.sqrt(finals.length)));
    expect(() => new RobbinsMonro(1, { decay: 0.4 })).toThrow(OccamError);
  });
});
