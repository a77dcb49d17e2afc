import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import type { LogDensity } from "../../src/model/model.js";
import { createRng } from "../../src/random/rng.js";
import { importanceSample, type Proposal } from "../../src/samplers/importance.js";
import { gaussianTarget, inflatedProposal } from "./targets.js";

const covariance = new Float64Array([1, 0.8, 0.8, 1]);
const mean = new Float64Array([1, -2]);

describe("importanceSample", () => {
  it("estimates log ∫π within 4 standard errors, for a normalised and an unnormalised target", () => {
    const target = gaussianTarget(mean, covariance);
    const proposal = inflatedProposal(target, 1.5);
    const r = importanceSample(createRng(1), { logTarget: target, proposal, samples: 5000 });
    expect(Math.abs(r.logNormalizer)).toBeLessThan(4 * r.stdErr);
    // Shift the log density by a known constant: log ∫π moves by exactly that constant.
    const shifted: LogDensity = { dim: 2, logDensity: (x) => target.logDensity(x) + 123.4 };
    const s = importanceSample(createRng(1), { logTarget: shifted, proposal, samples: 5000 });
    expect(Math.abs(s.logNormalizer - 123.4)).toBeLessThan(4 * s.stdErr);
    expect(s.stdErr).toBeCloseTo(r.stdErr, 10);
    expect(s.ess).toBeCloseTo(r.ess, 6);
  });

  it("has a calibrated standard error: z-scores over 200 seeds have sd 1 within 4 SE", () => {
    const target = gaussianTarget(mean, covariance);
    const proposal = inflatedProposal(target, 1.3);
    const reps = 200;
    const z: number[] = [];
    for (let k = 0; k < reps; k++) {
      const r = importanceSample(createRng(1000 + k), { logTarget: target, proposal, samples: 400 });
      z.push(r.logNormalizer / r.stdErr);
    }
    const m = z.reduce((a, b) => a + b, 0) / reps;
    const sd = Math.sqrt(z.reduce((a, b) => a + (b - m) ** 2, 0) / (reps - 1));
    expect(Math.abs(m)).toBeLessThan(4 / Math.sqrt(reps));
    // The sample sd of n normals has standard error ≈ 1/√(2n).
    expect(Math.abs(sd - 1)).toBeLessThan(4 / Math.sqrt(2 * reps));
  });

  it("gives weights summing to 1, Kish's ESS, and a self-normalised mean within 4 MCSE", () => {
    const target = gaussianTarget(mean, covariance);
    const r = importanceSample(createRng(2), {
      logTarget: target,
      proposal: inflatedProposal(target, 1.5),
      samples: 4000,
    });
    const total = r.normalizedWeights.reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 12);
    const sumSq = r.normalizedWeights.reduce((a, b) => a + b * b, 0);
    expect(r.ess).toBeCloseTo(1 / sumSq, 8);
    expect(r.ess).toBeLessThan(4000);
    expect(r.samples.length).toBe(8000);
    for (let j = 0; j < 2; j++) expect(Math.abs(r.mean[j] - mean[j])).toBeLessThan(4 * Math.sqrt(1 / r.ess));
    // A proposal equal to the target gives equal weights and ESS = n.
    const exact = importanceSample(createRng(3), {
      logTarget: target,
      proposal: inflatedProposal(target, 1),
      samples: 100,
    });
    expect(exact.ess).toBeCloseTo(100, 8);
    expect(exact.stdErr).toBeLessThan(1e-12);
  });

  it("accepts a plain log-density function when the proposal states its dim", () => {
    // ∫ exp(−x²/2) dx = √(2π) with a N(0, 2) proposal.
    const proposal: Proposal = {
      dim: 1,
      sample: (rng, out) => {
        out[0] = Math.SQRT2 * rng.normal();
      },
      logPdf: (x) => -0.5 * Math.log(4 * Math.PI) - 0.25 * x[0] * x[0],
    };
    const r = importanceSample(createRng(8), {
      logTarget: (x) => -0.5 * x[0] * x[0],
      proposal,
      samples: 2000,
    });
    expect(Math.abs(r.logNormalizer - 0.5 * Math.log(2 * Math.PI))).toBeLessThan(4 * r.stdErr);
    const { dim: _dim, ...noDim } = proposal;
    expect(() =>
      importanceSample(createRng(8), { logTarget: (x) => -x[0], proposal: noDim, samples: 10 }),
    ).toThrow(/proposal.dim/);
  });

  it("is stable for log weights far from 0 (±1e5)", () => {
    const target = gaussianTarget(mean, covariance);
    for (const shift of [-1e5, 1e5]) {
      const shifted: LogDensity = { dim: 2, logDensity: (x) => target.logDensity(x) + shift };
      const r = importanceSample(createRng(4), {
        logTarget: shifted,
        proposal: inflatedProposal(target, 1.5),
        samples: 1000,
      });
      expect(Number.isFinite(r.logNormalizer) && Number.isFinite(r.stdErr) && Number.isFinite(r.ess)).toBe(
        true,
      );
      expect(Math.abs(r.logNormalizer - shift)).toBeLessThan(4 * r.stdErr);
    }
  });

  it("allows zero weights but throws when all are zero, on NaN, and on a bad proposal", () => {
    const target = gaussianTarget(mean, covariance);
    const proposal = inflatedProposal(target, 1.5);
    const half: LogDensity = {
      dim: 2,
      logDensity: (x) => (x[0] < 1 ? Number.NEGATIVE_INFINITY : target.logDensity(x)),
    };
    const r = importanceSample(createRng(5), { logTarget: half, proposal, samples: 4000 });
    // Half of the (symmetric) target's mass lies at x₀ ≥ 1.
    expect(Math.abs(r.logNormalizer - Math.log(0.5))).toBeLessThan(4 * r.stdErr);
    const none: LogDensity = { dim: 2, logDensity: () => Number.NEGATIVE_INFINITY };
    expect(() => importanceSample(createRng(6), { logTarget: none, proposal, samples: 10 })).toThrow(
      /all 10 importance weights are zero/,
    );
    const nan: LogDensity = { dim: 2, logDensity: () => Number.NaN };
    expect(() => importanceSample(createRng(6), { logTarget: nan, proposal, samples: 10 })).toThrow(
      OccamError,
    );
    const badDraw: Proposal = { dim: 2, sample: (_r, out) => out.fill(Number.NaN), logPdf: () => 0 };
    expect(() =>
      importanceSample(createRng(6), { logTarget: target, proposal: badDraw, samples: 10 }),
    ).toThrow(/non-finite point/);
    const zeroPdf: Proposal = {
      dim: 2,
      sample: (_r, out) => out.fill(0),
      logPdf: () => Number.NEGATIVE_INFINITY,
    };
    expect(() =>
      importanceSample(createRng(6), { logTarget: target, proposal: zeroPdf, samples: 10 }),
    ).toThrow(/logPdf/);
    expect(() => importanceSample(createRng(6), { logTarget: target, proposal, samples: 1 })).toThrow(
      OccamError,
    );
    expect(() =>
      importanceSample(createRng(6), { logTarget: target, proposal: { ...proposal, dim: 3 }, samples: 10 }),
    ).toThrow(/dim/);
  });
});
