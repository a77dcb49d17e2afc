import { describe, expect, it } from "vitest";
import { SMC_DEFAULTS } from "../../../src/evidence/tempered-smc.js";
import { PooledPosterior } from "../../../src/evidence/tempering/cloud.js";
import type { TemperingRun } from "../../../src/evidence/tempering/engine.js";
import {
  combineIslands,
  type IslandKind,
  resolveTemperingOptions,
  studentFactor,
} from "../../../src/evidence/tempering/estimates.js";
import {
  birgeRatioOf,
  poolRuns,
  spreadRatio,
  welchDisagreement,
} from "../../../src/evidence/tempering/pooling.js";
import { resolvePrecision, temperingToPrecision } from "../../../src/evidence/tempering/precision.js";
import { pilot } from "../../../src/evidence/tempering/reference.js";
import { logMeanExp } from "../../../src/math/logspace.js";
import { createRng } from "../../../src/random/rng.js";
import { testModel } from "../tempered-models.js";

/** The engine's settings for hand-made runs: `particles` in 32 islands. */
const settingsOf = (particles: number) =>
  resolveTemperingOptions(testModel(1), { particles, islands: 32 }, SMC_DEFAULTS, "test");

/**
 * `temperingToPrecision` on hand-made runs of 32 islands whose log Z are `islandsOf(particles, call)`,
 * from a first run of 64 particles, towards a target of `target` nats within `maxParticles`, pooled
 * by `kind` and `countRunSpread`; each run shares an error of `shared` nats when it is given.
 */
function runsOf(
  maxParticles: number,
  islandsOf: (particles: number, call: number) => Float64Array,
  {
    kind = "product",
    countRunSpread = false,
    target = 0.001,
    shared,
  }: { kind?: IslandKind; countRunSpread?: boolean; target?: number; shared?: number } = {},
) {
  const settings = settingsOf(64);
  let call = 0;
  return temperingToPrecision(
    "smc",
    { kind, countRunSpread },
    performance.now(),
    settings,
    { target, maxParticles },
    (s) => {
      const islandLogZ = islandsOf(s.particles, call++);
      const run = {
        stages: [],
        islandLogZ,
        logW: new Float64Array(0),
        evaluations: s.particles,
        outOfSupport: 0,
        nonFinite: 0,
      };
      return {
        run: run as unknown as TemperingRun,
        estimate: combineIslands(islandLogZ, kind),
        reasons: [],
        shared:
          shared === undefined ? undefined : { stdErr: shared, what: "made-up error", remedy: "nothing" },
        extra: {},
      };
    },
  );
}

/** A run of `particles` whose islands' log Z are `islandLogZ`, as `poolRuns` takes it. */
const run = (particles: number, islandLogZ: number[]) => ({
  particles,
  islands: islandLogZ.length,
  ...combineIslands(islandLogZ, "product"),
});

/** 32 islands' log Z around `centre`, spread by about 1.4 · `scale` (sd). */
const islands = (scale: number, centre = 0) =>
  Float64Array.from({ length: 32 }, (_, g) => centre + scale * ((g % 5) - 2));

describe("pooling independent runs", () => {
  const first = [-1.2, -1, -0.9, -1.1, -0.95, -1.05];
  const second = [-1.0, -1.15, -0.92, -1.08, -0.97, -1.02];

  it("returns one run as it is, and weights each run's Z by its particles", () => {
    const a = run(600, first);
    expect(poolRuns([a], "product")).toEqual({ logZ: a.logZ, stdErr: a.stdErr, degrees: a.islands - 1 });
    // Equal runs: the mean of all twelve islands' Z.
    expect(poolRuns([a, run(600, second)], "product").logZ).toBeCloseTo(
      logMeanExp([...first, ...second]),
      14,
    );
    const b = run(1800, second);
    const unequal = poolRuns([a, b], "product");
    expect(unequal.logZ).toBeCloseTo(Math.log(0.25 * Math.exp(a.logZ) + 0.75 * Math.exp(b.logZ)), 14);
    expect(unequal.stdErr).toBeLessThan(b.stdErr);
  });

  it("gives intervals that cover Z (lognormal islands of unequal runs, 2000 replications)", () => {
    // Each island's Ẑ_g = e^{σ x − σ²/2} is unbiased for Z = 1, with σ² ∝ 1/particles: 32 islands of a
    // 2048-particle run at σ = 0.8 and of a 10 240-particle run at σ = 0.8/√5.
    const rng = createRng(11);
    const islands = (sigma: number) =>
      Array.from({ length: 32 }, () => sigma * rng.normal() - sigma ** 2 / 2);
    let covered = 0;
    let meanZ = 0;
    const replications = 2000;
    for (let i = 0; i < replications; i++) {
      const pooled = poolRuns([run(2048, islands(0.8)), run(10_240, islands(0.8 / Math.sqrt(5)))], "product");
      if (Math.abs(pooled.logZ) < 1.96 * pooled.stdErr) covered++;
      meanZ += Math.exp(pooled.logZ) / replications;
    }
    expect(covered / replications).toBeGreaterThan(0.92);
    expect(covered / replications).toBeLessThan(0.98);
    // The sd of one pooled Ẑ is about 0.062, of the mean of 2000 about 0.0014: 0.005 is 3.6 of them.
    expect(Math.abs(meanZ - 1)).toBeLessThan(0.005);
  });

  it("pools islands that each estimate log Z on the log scale", () => {
    const sum = (particles: number, islandLogZ: number[]) => ({
      particles,
      islands: islandLogZ.length,
      ...combineIslands(islandLogZ, "sum"),
    });
    const a = sum(600, first);
    const b = sum(1800, second);
    const pooled = poolRuns([a, b], "sum");
    expect(pooled.logZ).toBeCloseTo(0.25 * a.logZ + 0.75 * b.logZ, 14);
    // Each run's error without its Student factor (5 degrees of freedom), weighted, then the
    // Welch–Satterthwaite degrees of freedom's factor.
    const parts = [(0.25 * a.stdErr) / studentFactor(5), (0.75 * b.stdErr) / studentFactor(5)].map(
      (x) => x * x,
    );
    const variance = parts[0] + parts[1];
    const degrees = variance ** 2 / ((parts[0] ** 2 + parts[1] ** 2) / 5);
    expect(pooled.stdErr).toBeCloseTo(Math.sqrt(variance) * studentFactor(degrees), 14);
    expect(pooled.stdErr).toBeLessThan(b.stdErr);
  });

  it("passes over a run whose every island died, and is +∞ when a run's error is", () => {
    const live = run(1024, first);
    const dead = { particles: 1024, islands: 6, logZ: Number.NEGATIVE_INFINITY, stdErr: Number.NaN };
    const withDead = poolRuns([live, dead], "product");
    expect(withDead.logZ).toBeCloseTo(live.logZ + Math.log(0.5), 14);
    expect(Number.isFinite(withDead.stdErr)).toBe(true);
    const unknown = { ...run(1024, second), stdErr: Number.POSITIVE_INFINITY };
    expect(poolRuns([live, unknown], "product").stdErr).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("pooling runs towards a precision target", () => {
  it("scales the error by the Birge ratio only when runs disagree beyond their errors", () => {
    const f = studentFactor(31);
    const at = (logZ: number) => ({ islands: 32, logZ, stdErr: 0.1 * f });
    // log Ẑ = log((1 + e)/2) = 0.6201 for equal runs at 0 and 1; χ² = (0.6201² + 0.3799²)/0.1² = 52.89
    // (above χ²₁'s 0.999 quantile, 10.83), so the ratio is √52.89 = 7.272.
    const pooledLogZ = Math.log((1 + Math.E) / 2);
    expect(birgeRatioOf([at(0), at(1)], pooledLogZ)).toBeCloseTo(7.2722, 3);
    // 0.3 apart: χ² = 2 · 0.15²/0.1² = 4.5 < 10.83.
    expect(birgeRatioOf([at(0), at(0.3)], 0.15)).toBeUndefined();
    expect(birgeRatioOf([at(0)], 0)).toBeUndefined();
    expect(birgeRatioOf([at(0), { ...at(5), stdErr: Number.POSITIVE_INFINITY }], 0)).toBeUndefined();
  });

  it("calls two starts disagreeing by Welch's t, at the degrees of freedom their islands leave", () => {
    const of = (logZ: number, sigma: number, islands: number) => ({
      logZ,
      stdErr: sigma * studentFactor(islands - 1),
      degrees: islands - 1,
    });
    // Two runs of 32 islands, σ = 0.1 each: t = Δ/0.1414 against t's 0.9995 quantile at 62 degrees, 3.45.
    expect(welchDisagreement(of(0, 0.1, 32), of(0.47, 0.1, 32))).toBeUndefined();
    expect(welchDisagreement(of(0, 0.1, 32), of(0.5, 0.1, 32))).toBeCloseTo(0.5 / Math.hypot(0.1, 0.1), 12);
    // A pilot of 8 islands (σ = 0.127) against a run of 32 (σ = 0.03): t = 3.8 is within the bar of
    // about 5 at the 8 degrees of freedom the pilot leaves, which a normal's 3.3 would not be.
    expect(welchDisagreement(of(0, 0.127, 8), of(0.5, 0.03, 32))).toBeUndefined();
    expect(welchDisagreement(of(0, 0.127, 8), of(1, 0.03, 32))).toBeCloseTo(1 / Math.hypot(0.127, 0.03), 12);
    expect(
      welchDisagreement(of(0, 0.1, 32), { ...of(5, 0.1, 32), stdErr: Number.POSITIVE_INFINITY }),
    ).toBeUndefined();
  });

  it("rarely calls runs with calibrated errors disagreeing (lognormal islands, 4000 replications)", () => {
    // Runs as in the coverage test above. The delta method's errors from 32 lognormal islands have
    // heavier tails than a Gaussian's, so the rate is about 0.9 % rather than the nominal 0.1 % (0.99's
    // quantile would fire 2.8 % of the time); 2 % is 7 binomial sd above 0.9 %.
    const rng = createRng(13);
    const islands = (sigma: number) =>
      Array.from({ length: 32 }, () => sigma * rng.normal() - sigma ** 2 / 2);
    const replications = 4000;
    const rate = (runsOf: () => ReturnType<typeof run>[]) => {
      let fired = 0;
      for (let i = 0; i < replications; i++) {
        const runs = runsOf();
        if (birgeRatioOf(runs, poolRuns(runs, "product").logZ) !== undefined) fired++;
      }
      return fired / replications;
    };
    expect(rate(() => [run(2048, islands(0.8)), run(10_240, islands(0.8 / Math.sqrt(5)))])).toBeLessThan(
      0.02,
    );
    // Four runs of one size, as the further runs are: about 1.7 %; 3 % is 6 binomial sd above it.
    expect(rate(() => Array.from({ length: 4 }, () => run(2048, islands(0.8))))).toBeLessThan(0.03);
  });

  it("pools every run from the first whose islands agree; while none agree, each next run is twice as large", () => {
    // Islands spread by about 2 nats (sd) in runs of 64 and 128 particles, by 0.07 from 256 on.
    const r = runsOf(1024, (particles) => islands(particles < 256 ? 1.5 : 0.05));
    // 64 + 128 + 3 · 256 = 960; a fourth 256 would pass 1024.
    expect(r.diagnostics.runs.map((run) => [run.particles, run.pooled])).toEqual([
      [64, false],
      [128, false],
      [256, true],
      [256, true],
      [256, true],
    ]);
    expect(r.reliable).toBe(true);
    expect(r.warnings).toContainEqual(expect.stringMatching(/^2 of the 5 runs left out/));
    // When no run's islands agree, all are pooled, and the result is unreliable.
    const none = runsOf(512, () => islands(1.5));
    expect(none.diagnostics.runs.map((run) => run.particles)).toEqual([64, 128, 256]);
    expect(none.reliable).toBe(false);
    expect(none.warnings[0]).toMatch(/^the 96 islands' estimates of log Z spread by 2\.\d\d nats/);
  });

  it("adds the runs' shared error in quadrature, and runs no more once it alone is at the target", () => {
    // Islands spread by 0.07 nats: one run's Monte Carlo error is about 0.013, two runs' 0.0092, three
    // runs' 0.0075. With a shared 0.005 the target of 0.01 takes three runs (two would do without it).
    const small = runsOf(1024, () => islands(0.05), { kind: "sum", target: 0.01, shared: 0.005 });
    const mc = small.diagnostics.monteCarloStdErr;
    expect(small.stdErr).toBeCloseTo(Math.hypot(mc, 0.005), 14);
    expect(small.diagnostics.runs).toHaveLength(3);
    // Every run's islands are the same: their mean, 0.05 · (−3/32), is the pooled log Z.
    expect(small.logZ).toBeCloseTo(0.05 * (-3 / 32), 12);
    const large = runsOf(1024, () => islands(0.05), { kind: "sum", target: 0.01, shared: 0.02 });
    expect(large.diagnostics.runs).toHaveLength(1);
    expect(large.stdErr).toBeCloseTo(Math.hypot(large.diagnostics.monteCarloStdErr, 0.02), 14);
    expect(large.warnings).toEqual([
      "the standard error, 0.024 nats after 64 particles in 1 runs, is above targetStdErr 0.01: most of it is the " +
        "made-up error (0.020 nats), which more particles would not shrink: nothing.",
    ]);
    // When the runs' spread counts, a second run is made all the same.
    const counted = runsOf(1024, () => islands(0.05), {
      kind: "sum",
      countRunSpread: true,
      target: 0.01,
      shared: 0.02,
    });
    expect(counted.diagnostics.runs).toHaveLength(2);
  });

  it("says so when the runs' spread counts but the budget left room for one run only", () => {
    const r = runsOf(100, () => islands(0.05), { kind: "sum", countRunSpread: true, target: 0.1 });
    expect(r.diagnostics.runs).toHaveLength(1);
    expect(r.warnings).toEqual([
      "only 1 run pooled where 2 were due: the spread between runs, which one run's islands understate, is not " +
        "in the standard error; raise maxParticles.",
    ]);
    // A first run left out (its islands spread by more than a nat) does not count towards the two.
    const wide = runsOf(1024, (particles) => islands(particles < 128 ? 1.5 : 0.05), {
      kind: "sum",
      countRunSpread: true,
      target: 0.1,
    });
    expect(wide.diagnostics.runs.map((run) => [run.particles, run.pooled])).toEqual([
      [64, false],
      [128, true],
      [128, true],
    ]);
  });

  it('with targetStdErr "none" and two runs due, makes exactly two, or one that is flagged', () => {
    expect(resolvePrecision({ particles: 64 }, 64, "test")).toBeUndefined();
    const precision = resolvePrecision({ particles: 64 }, 64, "test", 2);
    expect(precision).toEqual({ target: Number.POSITIVE_INFINITY, maxParticles: 128 });
    const { target, maxParticles } = precision as NonNullable<typeof precision>;
    const options = { countRunSpread: true, target };
    const two = runsOf(maxParticles, () => islands(0.05), options);
    expect(two.diagnostics.runs.map((run) => [run.particles, run.pooled])).toEqual([
      [64, true],
      [64, true],
    ]);
    expect(two.warnings).toEqual([]);
    // A first run whose islands spread by more than a nat would be followed by one twice as large,
    // beyond the budget: it stands alone, flagged, and no one is told to raise maxParticles.
    const wide = runsOf(maxParticles, () => islands(1.5), options);
    expect(wide.diagnostics.runs).toHaveLength(1);
    expect(wide.reliable).toBe(false);
    expect(wide.warnings.join(" ")).not.toMatch(/maxParticles/);
  });

  it("when the runs' spread counts, makes two runs at least and scales the error by their spread ratio above 1", () => {
    // Runs of islands spread by 0.07 nats (a run's error about 0.013, below the target of 0.1), their
    // centres 0.03 apart: χ² ≈ 2.8, a ratio of about 1.7, far below disagreement (χ²₁'s 0.999
    // quantile, 10.83).
    const apart = (_: number, call: number) => islands(0.05, call === 0 ? 0 : 0.03);
    expect(runsOf(1024, apart, { kind: "sum", target: 0.1 }).diagnostics.runs).toHaveLength(1);
    const r = runsOf(1024, apart, { kind: "sum", countRunSpread: true, target: 0.1 });
    expect(r.diagnostics.runs).toHaveLength(2);
    const runs = r.diagnostics.runs.map((run) => ({ ...run, islands: 32 }));
    const pooled = poolRuns(runs, "sum");
    const ratio = spreadRatio(runs, pooled.logZ) as number;
    expect(ratio).toBeGreaterThan(1.5);
    expect(birgeRatioOf(runs, pooled.logZ)).toBeUndefined();
    expect(r.stdErr).toBeCloseTo(pooled.stdErr * ratio, 12);
    expect(r.warnings).toEqual([]);
    // Runs that agree better than their errors say keep their pooled error.
    const same = runsOf(1024, () => islands(0.05), { kind: "sum", countRunSpread: true, target: 0.1 });
    expect(same.diagnostics.runs).toHaveLength(2);
    expect(same.stdErr).toBeCloseTo(
      poolRuns(
        same.diagnostics.runs.map((run) => ({ ...run, islands: 32 })),
        "sum",
      ).stdErr,
      12,
    );
  });

  it("scales the pooled error of runs that disagree, says so, and runs no more", () => {
    // Two runs of 32 islands each 0.07 nats apart around 0, then around 1: χ² ≈ 300.
    const r = runsOf(1024, (_, call) => islands(0.05, call === 0 ? 0 : 1));
    expect(r.diagnostics.runs).toHaveLength(2);
    const runs = r.diagnostics.runs.map((run) => ({ ...run, islands: 32 }));
    const pooled = poolRuns(runs, "product");
    const ratio = birgeRatioOf(runs, pooled.logZ) as number;
    expect(ratio).toBeGreaterThan(10);
    expect(r.logZ).toBeCloseTo(pooled.logZ, 12);
    expect(r.stdErr).toBeCloseTo(pooled.stdErr * ratio, 12);
    expect(r.warnings).toContainEqual(
      expect.stringMatching(/^the pooled runs disagree beyond their standard errors \(Birge ratio/),
    );
    expect(r.warnings.join(" ")).not.toMatch(/raise maxParticles/);
  });
});

/**
 * `temperingToPrecision` with reference runs, on hand-made runs of 32 islands from a first run of 1024
 * particles: `islandsOf(reference, call)` gives each run's islands' log Z and `costOf(reference, call)` its
 * evaluations per particle; `reasonsOf(reference, call)` the estimator's own reasons to call a run
 * unreliable, and `maxEvaluations` the budget. The target is 0.02 nats. Each run carries a small cloud
 * for the reference to be fitted to.
 */
function startsOf(
  islandsOf: (reference: boolean, call: number) => Float64Array,
  costOf: (reference: boolean, call: number) => number,
  {
    reasonsOf = () => [],
    maxEvaluations = Number.POSITIVE_INFINITY,
  }: { reasonsOf?: (reference: boolean, call: number) => string[]; maxEvaluations?: number } = {},
) {
  const settings = { ...settingsOf(1024), maxEvaluations };
  const n = 64;
  const cloud = {
    n,
    dim: 1,
    positions: Float64Array.from({ length: n }, (_, i) => i / n),
    logPrior: new Float64Array(n),
    logLikelihood: new Float64Array(n),
  };
  let call = 0;
  const references: boolean[] = [];
  const result = temperingToPrecision(
    "smc",
    { kind: "product", countRunSpread: false, sizedRuns: true, referenceRuns: true },
    performance.now(),
    settings,
    { target: 0.02, maxParticles: 16 * 1024 },
    (s, reference) => {
      references.push(reference !== undefined);
      const thisCall = call++;
      // A pilot has the first 8 of the 32 islands.
      const islandLogZ = islandsOf(reference !== undefined, thisCall).subarray(0, s.islands);
      const cost = costOf(reference !== undefined, thisCall);
      const run = {
        stages: [],
        islandLogZ,
        cloud,
        logW: new Float64Array(n),
        posterior: new PooledPosterior(n, 1),
        evaluations: Math.min(s.particles * cost, s.maxEvaluations ?? Infinity),
        outOfSupport: 0,
        nonFinite: 0,
        // A run that would pass its budget stops there (as the engine does, at some β).
        ...(s.particles * cost > (s.maxEvaluations ?? Infinity) ? { budgetSpentAt: 0.5 } : {}),
      };
      return {
        run: run as unknown as TemperingRun,
        estimate: combineIslands(islandLogZ, "product"),
        reasons: reasonsOf(reference !== undefined, thisCall),
        extra: {},
      };
    },
  );
  return { result, references };
}

describe("pooling runs from the prior and from a reference fitted to the first", () => {
  it("pools the runs from the reference where they cost less per unit of variance", () => {
    // The prior's run: islands spread by 0.4 nats (standard error ≈ 0.07) at 100 evaluations a
    // particle; the reference's: by 0.04 at 1.
    const { result, references } = startsOf(
      (reference) => islands(reference ? 0.03 : 0.3),
      (reference) => (reference ? 1 : 100),
    );
    const runs = result.diagnostics.runs;
    expect(references).toEqual([false, true]);
    // The first run is a pilot of a quarter of the particles; the reference's runs are full-sized.
    expect(runs.map((run) => [run.start, run.particles, run.pooled])).toEqual([
      ["prior", 256, false],
      ["reference", 1024, true],
    ]);
    expect(result.logZ).toBe(runs[1].logZ);
    expect(result.stdErr).toBe(runs[1].stdErr);
    expect(result.warnings).toEqual([]);
  });

  it("goes on from the prior where the reference's runs cost more, and pools the prior's", () => {
    const { result, references } = startsOf(
      (reference) => islands(reference ? 0.3 : 0.08),
      (reference) => (reference ? 2 : 10),
    );
    const runs = result.diagnostics.runs;
    expect(references[0]).toBe(false);
    expect(references[1]).toBe(true);
    expect(references.slice(2).every((reference) => !reference)).toBe(true);
    expect(runs.length).toBeGreaterThan(2);
    expect(runs.filter((run) => run.pooled).every((run) => run.start === "prior")).toBe(true);
    const pooled = poolRuns(
      runs.filter((run) => run.pooled).map((run) => ({ ...run, islands: 32 })),
      "product",
    );
    expect(result.logZ).toBeCloseTo(pooled.logZ, 12);
    expect(result.stdErr).toBeLessThanOrEqual(0.02);
  });

  it("leaves out the runs from the reference when they disagree with the prior's, and goes on from the prior", () => {
    // The reference's islands agree about log Z = 1, a nat above the prior's: 30 of its standard errors.
    const { result, references } = startsOf(
      (reference) => islands(reference ? 0.03 : 0.3, reference ? 1 : 0),
      (reference) => (reference ? 1 : 100),
    );
    const runs = result.diagnostics.runs;
    expect(references.slice(0, 2)).toEqual([false, true]);
    expect(references.slice(2).every((reference) => !reference)).toBe(true);
    expect(runs[1].pooled).toBe(false);
    expect(runs.filter((run) => run.pooled).every((run) => run.start === "prior")).toBe(true);
    expect(runs.length).toBeGreaterThan(2);
    const prior = runs.filter((run) => run.pooled).map((run) => ({ ...run, islands: 32 }));
    expect(result.logZ).toBeCloseTo(poolRuns(prior, "product").logZ, 12);
    expect(result.warnings).toContainEqual(
      expect.stringMatching(
        /^the runs from a Student-t fitted to a run from the prior disagree with the runs from the prior beyond their standard errors \(Welch's t [\d.]+\): they are left out/,
      ),
    );
  });

  it("settles a disagreement with the pilot alone by a full run from the prior before leaving anything out", () => {
    // The pilot's islands agree about log Z = 0.8 (an understated error); the reference's and the
    // full run from the prior's are about 0, and are compared without the pilot.
    const { result, references } = startsOf(
      (reference, call) => islands(reference ? 0.03 : 0.3 - (call === 0 ? 0.29 : 0), call === 0 ? 0.8 : 0),
      (reference) => (reference ? 1 : 100),
    );
    const runs = result.diagnostics.runs;
    expect(references).toEqual([false, true, false]);
    expect(runs.map((run) => [run.start, run.particles, run.pooled])).toEqual([
      ["prior", 256, false],
      ["reference", 1024, true],
      ["prior", 1024, false],
    ]);
    expect(result.logZ).toBe(runs[1].logZ);
    expect(result.warnings.join(" ")).not.toMatch(/left out/);
  });

  it("says so when the budget leaves no full run from the prior to settle a disagreement with the pilot", () => {
    // The pilot (256 particles at 100 evaluations each) and the reference's run (1024 at 1) spend it all.
    const { result, references } = startsOf(
      (reference, call) => islands(reference ? 0.03 : 0.01, call === 0 ? 0.8 : 0),
      (reference) => (reference ? 1 : 100),
      { maxEvaluations: 256 * 100 + 1024 },
    );
    expect(references).toEqual([false, true]);
    expect(result.diagnostics.runs.map((run) => run.pooled)).toEqual([true, false]);
    expect(result.reliable).toBe(false);
    expect(result.warnings[0]).toMatch(
      /^the runs from the reference disagree with the pilot, and no full run/,
    );
  });

  it("leaves out a pilot that fails the estimator's own checks and fits the reference to the full run after it", () => {
    const { result, references } = startsOf(
      (reference) => islands(reference ? 0.03 : 0.3),
      (reference) => (reference ? 1 : 100),
      { reasonsOf: (_, call) => (call === 0 ? ["made-up heavy rung"] : []) },
    );
    const runs = result.diagnostics.runs;
    expect(references).toEqual([false, false, true]);
    expect(runs.map((run) => [run.start, run.particles, run.pooled])).toEqual([
      ["prior", 256, false],
      ["prior", 1024, false],
      ["reference", 1024, true],
    ]);
    expect(result.reliable).toBe(true);
    expect(result.warnings).toContainEqual(
      "the pilot run of 256 particles is left out (made-up heavy rung); a full run from the prior followed.",
    );
  });

  it("keeps the estimator's own checks of the full run after a pilot that failed them", () => {
    const { result } = startsOf(
      (reference) => islands(reference ? 0.03 : 0.3),
      (reference) => (reference ? 1 : 100),
      { reasonsOf: (reference) => (reference ? [] : ["made-up heavy rung"]) },
    );
    expect(result.diagnostics.runs.map((run) => run.particles)).toEqual([256, 1024]);
    expect(result.reliable).toBe(false);
    expect(result.warnings).toContain("made-up heavy rung");
  });

  it("leaves out a run from the reference that fails its checks, says why, and goes on from the prior", () => {
    const { result, references } = startsOf(
      (reference) => islands(reference ? 0.03 : 0.08),
      (reference) => (reference ? 1 : 10),
      { reasonsOf: (reference) => (reference ? ["made-up divergences"] : []) },
    );
    expect(references.slice(0, 2)).toEqual([false, true]);
    expect(references.slice(2).every((reference) => !reference)).toBe(true);
    const runs = result.diagnostics.runs;
    expect(runs[1].pooled).toBe(false);
    expect(runs.filter((run) => run.pooled).every((run) => run.start === "prior")).toBe(true);
    expect(result.reliable).toBe(true);
    expect(result.stdErr).toBeLessThanOrEqual(0.02);
    expect(result.warnings).toContainEqual(
      "the run from a Student-t fitted to a run from the prior is left out (it failed its checks: made-up divergences); the runs from the prior went on.",
    );
  });

  it("cuts short a run from the reference that would cost more than a quarter of a full first run, and leaves it out", () => {
    const { result, references } = startsOf(
      (reference) => islands(reference ? 0.01 : 0.08),
      (reference) => (reference ? 30 : 10),
    );
    const runs = result.diagnostics.runs;
    expect(references.slice(0, 2)).toEqual([false, true]);
    // The pilot has a quarter of a full run's particles: a quarter of a full run is the pilot's cost.
    expect(runs[1].evaluations).toBe(runs[0].evaluations);
    expect(runs[1].pooled).toBe(false);
    expect(runs.filter((run) => run.pooled).every((run) => run.start === "prior")).toBe(true);
    expect(result.reliable).toBe(true);
    expect(result.warnings).toContainEqual(
      "the run from a Student-t fitted to a run from the prior is left out (it was stopped at β = 0.500, having spent a quarter of what a first run of 1024 particles costs); the runs from the prior went on.",
    );
  });

  it("fits no reference to a pilot whose islands disagree, and none after a full run that meets the target", () => {
    const { result, references } = startsOf(
      (_, call) => islands(call === 0 ? 2 : 0.01),
      () => 1,
    );
    expect(references).toEqual([false, false]);
    expect(result.diagnostics.runs.map((run) => run.particles)).toEqual([256, 1024]);
  });

  it("makes a pilot of a quarter of the islands only where it has 4 islands and room for two full runs after it", () => {
    const settings = settingsOf(1024);
    const room = { target: 0.05, maxParticles: 16 * 1024 };
    expect(pilot(settings, room)).toEqual({ particles: 256, islands: 8 });
    // 8 islands would leave the pilot 2; the full run is the first.
    const eight = { ...settings, islands: 8 };
    expect(pilot(eight, room)).toBe(eight);
    expect(pilot(settings, { target: 0.05, maxParticles: 2 * 1024 })).toBe(settings);
  });

  it("fits the reference to the full run that follows a pilot whose islands disagree", () => {
    const { result, references } = startsOf(
      (reference, call) => (call === 0 ? islands(2) : islands(reference ? 0.03 : 0.3)),
      (reference) => (reference ? 1 : 100),
    );
    expect(references.slice(0, 3)).toEqual([false, false, true]);
    const runs = result.diagnostics.runs;
    expect(runs.slice(0, 3).map((run) => [run.start, run.particles])).toEqual([
      ["prior", 256],
      ["prior", 1024],
      ["reference", 1024],
    ]);
    expect(runs.filter((run) => run.pooled).every((run) => run.start === "reference")).toBe(true);
  });

  it("caps a run from the reference at a quarter of the full run it was fitted to, not of the pilot", () => {
    // The pilot costs 100 an evaluation a particle, the full run after it 200, the reference's run 60:
    // its cap is a quarter of the full run's 204 800, where the pilot's, scaled up, would give 25 600.
    const { result } = startsOf(
      (reference, call) => (call === 0 ? islands(2) : islands(reference ? 0.03 : 0.3)),
      (reference, call) => (reference ? 60 : call === 0 ? 100 : 200),
    );
    const runs = result.diagnostics.runs;
    expect(runs.slice(0, 3).map((run) => run.evaluations)).toEqual([25_600, 204_800, 51_200]);
    expect(runs[2].pooled).toBe(false);
  });

  it("weighs each start by what its pooled runs cost, not by a pilot whose islands disagreed", () => {
    // The pilot (islands spread by 2, 100 evaluations a particle) is spent: the full run from the prior
    // after it (spread 0.15, 3 a particle) costs less per unit of variance than the reference's (spread
    // 0.4, 0.5 a particle), which the pilot's 25 600 evaluations would have reversed.
    const { result, references } = startsOf(
      (reference, call) => (call === 0 ? islands(2) : islands(reference ? 0.4 : 0.15)),
      (reference, call) => (reference ? 0.5 : call === 0 ? 100 : 3),
    );
    expect(references.slice(0, 4)).toEqual([false, false, true, false]);
    expect(result.diagnostics.runs[2].pooled).toBe(false);
  });

  it("never ends on a pilot alone, even one whose islands meet the target", () => {
    // The pilot's 8 islands can understate its error; the reference's run is made all the same, and
    // where it fails its checks, a full run from the prior follows.
    const { result, references } = startsOf(
      () => islands(0.01),
      () => 1,
      { reasonsOf: (reference) => (reference ? ["the moves stalled"] : []) },
    );
    const runs = result.diagnostics.runs;
    expect(references).toEqual([false, true, false]);
    expect(runs.map((run) => [run.start, run.particles, run.pooled])).toEqual([
      ["prior", 256, true],
      ["reference", 1024, false],
      ["prior", 1024, true],
    ]);
    expect(result.reliable).toBe(true);
  });
});
