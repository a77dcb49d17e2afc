import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { resolveRng } from "../../src/evidence/checks.js";
import { posteriorDraws } from "../../src/evidence/draws-input.js";
import { paretoKHat } from "../../src/evidence/importance-sampling.js";
import { evidenceResult } from "../../src/evidence/result.js";
import { logWeightSummary } from "../../src/evidence/weights.js";
import { logMeanExp } from "../../src/math/logspace.js";
import { Draws } from "../../src/model/draws.js";
import { createRng } from "../../src/random/rng.js";
import { thrown } from "./support.js";

const base = {
  method: "test",
  logZ: -3.2,
  stdErr: 0.1,
  nLikelihoodEvals: 10,
  seconds: 0.01,
  diagnostics: {},
};

describe("evidenceResult", () => {
  it("returns a frozen result with frozen diagnostics", () => {
    const r = evidenceResult({ ...base, diagnostics: { ess: 5 } });
    expect(Object.isFrozen(r)).toBe(true);
    expect(Object.isFrozen(r.diagnostics)).toBe(true);
    expect(Object.isFrozen(r.warnings)).toBe(true);
    expect(r.diagnostics.ess).toBe(5);
  });

  it("is reliable unless a reason is given against it, and lists those reasons first among the warnings", () => {
    const plain = evidenceResult({ ...base, warnings: ["note"] });
    expect(plain.reliable).toBe(true);
    expect(plain.warnings).toEqual(["note"]);
    const bad = evidenceResult({ ...base, unreliable: ["too few draws"], warnings: ["note"] });
    expect(bad.reliable).toBe(false);
    expect(bad.warnings).toEqual(["too few draws", "note"]);
    // An estimator that cannot bound its error is never reliable.
    const unknown = evidenceResult({ ...base, stdErr: Number.POSITIVE_INFINITY });
    expect(unknown.reliable).toBe(false);
    expect(unknown.warnings[0]).toMatch(/could not estimate its own standard error/);
  });

  it("rejects a non-finite log Z, a negative or NaN stdErr, and bad counts", () => {
    for (const logZ of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect((thrown(() => evidenceResult({ ...base, logZ })) as OccamError).code).toBe("non-finite");
    }
    expect(() => evidenceResult({ ...base, stdErr: -1 })).toThrow(/standard error/);
    expect(() => evidenceResult({ ...base, stdErr: Number.NaN })).toThrow(/standard error/);
    expect(evidenceResult({ ...base, stdErr: Number.POSITIVE_INFINITY }).stdErr).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(() => evidenceResult({ ...base, nLikelihoodEvals: 1.5 })).toThrow(/nLikelihoodEvals/);
    expect(() => evidenceResult({ ...base, seconds: -1 })).toThrow(/seconds/);
    expect(() => evidenceResult({ ...base, method: "" })).toThrow(/method/);
  });
});

describe("posteriorDraws", () => {
  it("says draws are required when they are missing", () => {
    const e = thrown(() => posteriorDraws(undefined, 2, "est", 5)) as OccamError;
    expect(e).toBeInstanceOf(OccamError);
    expect(e.message).toMatch(/needs posterior draws/);
  });

  it("names a draw of the wrong length or with a non-finite value", () => {
    const good = Array.from({ length: 10 }, () => new Float64Array(2));
    const wrong = [...good];
    wrong[6] = new Float64Array(3);
    const e = thrown(() => posteriorDraws(wrong, 2, "est", 5)) as OccamError;
    expect(e.code).toBe("dimension-mismatch");
    expect(e.message).toMatch(/draw 6/);
    const nan = [...good];
    nan[4] = new Float64Array([0, Number.NaN]);
    expect((thrown(() => posteriorDraws(nan, 2, "est", 5)) as OccamError).message).toMatch(/draw 4/);
    const store = new Draws({ dim: 3, nChains: 1, nDraws: 10 });
    expect((thrown(() => posteriorDraws(store, 2, "est", 5)) as OccamError).code).toBe("dimension-mismatch");
  });

  it("rejects too few draws", () => {
    const few = Array.from({ length: 4 }, () => new Float64Array(2));
    expect(() => posteriorDraws(few, 2, "est", 5)).toThrow(/at least 5 posterior draws/);
  });

  it("keeps a Draws store and wraps an array as one chain", () => {
    const arr = Array.from({ length: 6 }, (_, i) => new Float64Array([i, -i]));
    const d = posteriorDraws(arr, 2, "est", 5);
    expect(d.nChains).toBe(1);
    expect(Array.from(d.draw(0, 5))).toEqual([5, -5]);
    expect(posteriorDraws(d, 2, "est", 5)).toBe(d);
  });
});

describe("resolveRng", () => {
  it("uses seed 0 by default and refuses both seed and rng", () => {
    expect(resolveRng({}, "x").uniform()).toBe(createRng(0).uniform());
    expect(() => resolveRng({ seed: 1, rng: createRng(1) }, "x")).toThrow(/either seed or rng/);
  });
});

describe("logWeightSummary", () => {
  it("agrees with logMeanExp and the direct delta-method formula", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { minLength: 2, maxLength: 40 }),
        (lw) => {
          const x = Float64Array.from(lw);
          const s = logWeightSummary(x, "t");
          expect(s.logZ).toBeCloseTo(logMeanExp(x), 9);
          const max = Math.max(...lw);
          const w = lw.map((v) => Math.exp(v - max));
          const m = w.reduce((a, b) => a + b, 0) / w.length;
          const v = w.reduce((a, b) => a + (b - m) ** 2, 0) / (w.length - 1);
          expect(s.stdErr).toBeCloseTo(Math.sqrt(v / w.length) / m, 9);
          expect(s.ess).toBeGreaterThanOrEqual(1 - 1e-9);
          expect(s.ess).toBeLessThanOrEqual(lw.length + 1e-9);
        },
      ),
    );
  });

  it("gives zero error and full ESS for equal weights, and throws when every weight is zero", () => {
    const s = logWeightSummary(new Float64Array(8).fill(-2), "t");
    expect(s.logZ).toBe(-2);
    expect(s.stdErr).toBe(0);
    expect(s.ess).toBeCloseTo(8, 12);
    expect(() => logWeightSummary(new Float64Array(3).fill(Number.NEGATIVE_INFINITY), "t")).toThrow(
      /every one/,
    );
  });
});

describe("paretoKHat", () => {
  it("recovers the tail shape of Pareto weights within 4 standard errors", () => {
    // Weights u^(−ξ), u ~ U(0, 1), have a generalised-Pareto tail of shape ξ. With M = 3√S tail
    // points the estimate's sd is about (1 + ξ)/√M (Zhang & Stephens 2009).
    const S = 10_000;
    const M = Math.ceil(3 * Math.sqrt(S));
    for (const xi of [0.2, 0.5, 0.9]) {
      const rng = createRng(11);
      const lw = new Float64Array(S);
      for (let i = 0; i < S; i++) lw[i] = -xi * Math.log(1 - rng.uniform());
      const k = paretoKHat(lw);
      expect(Math.abs(k - xi)).toBeLessThan((4 * (1 + xi)) / Math.sqrt(M));
    }
  });

  it("is NaN for too few weights and below 0.5 for light-tailed (normal log) weights", () => {
    expect(Number.isNaN(paretoKHat(new Float64Array(10)))).toBe(true);
    const rng = createRng(2);
    const lw = Float64Array.from({ length: 4000 }, () => 0.3 * rng.normal());
    expect(paretoKHat(lw)).toBeLessThan(0.5);
  });
});
