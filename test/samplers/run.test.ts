import { describe, expect, it } from "vitest";
import { effectiveSampleSize } from "../../src/diagnostics/ess.js";
import { OccamError } from "../../src/errors.js";
import type { Rng } from "../../src/random/rng.js";
import { createRng } from "../../src/random/rng.js";
import type { Adaptation, Kernel, PositionState, StepInfo } from "../../src/samplers/kernel.js";
import { type Progress, runChain } from "../../src/samplers/run.js";

interface Info extends StepInfo {
  readonly accepted: boolean;
  readonly acceptProbability: number;
  readonly evaluations: number;
  readonly divergent?: boolean;
}

const logStdNormal = (x: Float64Array): number => {
  let s = 0;
  for (const v of x) s += v * v;
  return -0.5 * s - 0.5 * x.length * Math.log(2 * Math.PI);
};

/** Exact independent N(0, I) draws: every step is a fresh draw. */
function iidNormalKernel(dim: number): Kernel<PositionState, Info> {
  return {
    init: (position) => ({ position: position.slice(), logDensity: logStdNormal(position) }),
    step: (rng) => {
      const position = Float64Array.from({ length: dim }, () => rng.normal());
      return {
        state: { position, logDensity: logStdNormal(position) },
        info: { accepted: true, acceptProbability: 1, evaluations: 1 },
      };
    },
  };
}

/** AR(1) x' = φx + √(1−φ²) ε, which leaves N(0, 1) invariant: ρ_k = φ^k, ESS = n(1−φ)/(1+φ). */
function ar1Kernel(phi: number): Kernel<PositionState, Info> {
  const s = Math.sqrt(1 - phi * phi);
  return {
    init: (position) => ({ position: position.slice(), logDensity: logStdNormal(position) }),
    step: (rng, state) => {
      const position = Float64Array.of(phi * state.position[0] + s * rng.normal());
      return {
        state: { position, logDensity: logStdNormal(position) },
        info: { accepted: true, acceptProbability: 1, evaluations: 1 },
      };
    },
  };
}

/** Deterministic counter: each step adds 1; reports fixed acceptance and a divergence every 3rd step. */
function counterKernel(): Kernel<PositionState, Info> {
  let steps = 0;
  return {
    init: (position) => ({ position: position.slice(), logDensity: 0 }),
    step: (_rng, state) => {
      steps++;
      return {
        state: { position: Float64Array.of(state.position[0] + 1), logDensity: -state.position[0] },
        info: { accepted: true, acceptProbability: 0.25, evaluations: 2, divergent: steps % 3 === 0 },
      };
    },
  };
}

/** A warm-up that records the order of calls, to check how runChain drives an adaptation. */
function recordingWarmup(log: string[]): Adaptation<PositionState, Info> {
  const base = iidNormalKernel(1);
  return {
    init: base.init,
    start: (iterations) => {
      log.push(`start ${iterations}`);
      let step = 0;
      return {
        step: (rng, state) => {
          log.push(`warm ${step++}`);
          return base.step(rng, state);
        },
        finish: () => {
          log.push("finish");
          return {
            init: base.init,
            step: (rng, state) => {
              log.push("sample");
              return base.step(rng, state);
            },
          };
        },
      };
    },
  };
}

describe("runChain", () => {
  it("gives bit-identical draws for the same seed and different draws for another", () => {
    const options = { draws: 50, warmup: 20, chains: 3, initial: Float64Array.of(0, 0) };
    const a = runChain(iidNormalKernel(2), { ...options, seed: 5 });
    const b = runChain(iidNormalKernel(2), { ...options, seed: 5 });
    const c = runChain(iidNormalKernel(2), { ...options, seed: 6 });
    expect(Buffer.from(a.values.buffer).equals(Buffer.from(b.values.buffer))).toBe(true);
    expect(Buffer.from(a.logDensity.buffer).equals(Buffer.from(b.logDensity.buffer))).toBe(true);
    expect(a.values).not.toEqual(c.values);
  });

  it("runs chain c on stream rng.split(chains)[c], independently of the other chains", () => {
    const warmup = 7;
    const nDraws = 11;
    const draws = runChain(ar1Kernel(0.5), {
      draws: nDraws,
      warmup,
      chains: 3,
      seed: 9,
      initial: (rng) => Float64Array.of(rng.normal()),
    });
    const stream = createRng(9).split(3)[2];
    const kernel = ar1Kernel(0.5);
    let state = kernel.init(Float64Array.of(stream.normal()));
    for (let i = 0; i < warmup; i++) state = kernel.step(stream, state).state;
    for (let t = 0; t < nDraws; t++) {
      state = kernel.step(stream, state).state;
      expect(draws.draw(2, t)[0]).toBe(state.position[0]);
      expect(draws.logDensity[2 * nDraws + t]).toBe(state.logDensity);
    }
  });

  it("keeps every thin-th iteration after warm-up and counts evaluations per phase", () => {
    const draws = runChain(counterKernel(), {
      draws: 5,
      warmup: 4,
      thin: 3,
      seed: 1,
      initial: Float64Array.of(0),
    });
    // After warm-up the counter is at 4; kept draw t is at 4 + 3(t + 1).
    expect(Array.from(draws.values)).toEqual([7, 10, 13, 16, 19]);
    expect(Array.from(draws.logDensity)).toEqual([-6, -9, -12, -15, -18]);
    expect(draws.stats[0].warmupEvaluations).toBe(2 * 4);
    expect(draws.stats[0].evaluations).toBe(2 * 5 * 3);
    expect(draws.stats[0].acceptanceRate).toBe(0.25);
    // Divergent at kernel steps 6, 9, …, 18 (steps 5–19 are sampling steps): 5 of them.
    expect(draws.stats[0].divergences).toBe(5);
  });

  it("runs a warm-up's steps, then the kernel it finishes with, for the kept draws", () => {
    const log: string[] = [];
    const draws = runChain(recordingWarmup(log), {
      draws: 3,
      warmup: 4,
      seed: 2,
      initial: Float64Array.of(0),
    });
    expect(log).toEqual([
      "start 4",
      "warm 0",
      "warm 1",
      "warm 2",
      "warm 3",
      "finish",
      "sample",
      "sample",
      "sample",
    ]);
    expect(draws.stats[0].warmupEvaluations).toBe(4);
    expect(draws.stats[0].evaluations).toBe(3);
    const noWarmup: string[] = [];
    runChain(recordingWarmup(noWarmup), { draws: 1, warmup: 0, seed: 2, initial: Float64Array.of(0) });
    expect(noWarmup).toEqual(["start 0", "finish", "sample"]);
  });

  it("gives each chain a warm-up of its own, and each a kernel from a factory", () => {
    const log: string[] = [];
    runChain(recordingWarmup(log), { draws: 2, warmup: 2, chains: 2, seed: 3, initial: Float64Array.of(0) });
    expect(log.filter((e) => e.startsWith("start"))).toEqual(["start 2", "start 2"]);
    expect(log.filter((e) => e === "finish")).toHaveLength(2);
    const built: number[] = [];
    runChain(
      (chain) => {
        built.push(chain);
        return iidNormalKernel(1);
      },
      { draws: 2, warmup: 2, chains: 2, seed: 3, initial: Float64Array.of(0) },
    );
    expect(built).toEqual([0, 1]);
  });

  it("samples N(0, 1) correctly through an exact kernel and an AR(1) kernel", () => {
    const n = 4000;
    const iid = runChain(iidNormalKernel(2), {
      draws: n,
      warmup: 0,
      seed: 4,
      initial: Float64Array.of(0, 0),
    });
    const mean = iid.mean();
    const cov = iid.covariance();
    // Means: sd 1/√n; variances: sd √(2/n); covariance: sd 1/√n. Bands: 4 sd.
    expect(Math.abs(mean[0])).toBeLessThan(4 / Math.sqrt(n));
    expect(Math.abs(cov[0] - 1)).toBeLessThan(4 * Math.sqrt(2 / n));
    expect(Math.abs(cov[1])).toBeLessThan(4 / Math.sqrt(n));
    expect(iid.stats[0].acceptanceRate).toBe(1);

    const phi = 0.9;
    const ar = runChain(ar1Kernel(phi), {
      draws: 20_000,
      warmup: 100,
      chains: 4,
      seed: 5,
      initial: Float64Array.of(0),
    });
    const truth = (80_000 * (1 - phi)) / (1 + phi);
    // Relative sd of the ESS ≈ √(4M/N) with M ≈ 45 (see test/diagnostics/ess.test.ts) = 4.7 %; 4 sd.
    expect(Math.abs(effectiveSampleSize(ar.chains(0)) / truth - 1)).toBeLessThan(
      4 * Math.sqrt((4 * 45) / 80_000),
    );
  });

  it("takes one start per chain or a start function called with the chain's stream", () => {
    const starts = [Float64Array.of(100), Float64Array.of(200)];
    const fromArray = runChain(counterKernel(), { draws: 1, warmup: 0, chains: 2, seed: 1, initial: starts });
    expect(Array.from(fromArray.values)).toEqual([101, 201]);
    const seen: number[] = [];
    const fromFunction = runChain(counterKernel(), {
      draws: 1,
      warmup: 0,
      chains: 2,
      seed: 1,
      names: ["x"],
      initial: (_rng: Rng, chain: number) => {
        seen.push(chain);
        return Float64Array.of(10 * chain);
      },
    });
    expect(seen).toEqual([0, 1]);
    expect(Array.from(fromFunction.values)).toEqual([1, 11]);
    expect(fromFunction.names).toEqual(["x"]);
  });

  it("reports progress at most ~100 times per chain, ending at the last iteration", () => {
    const calls: Progress[] = [];
    runChain(iidNormalKernel(1), {
      draws: 1000,
      warmup: 500,
      thin: 2,
      chains: 2,
      seed: 7,
      initial: Float64Array.of(0),
      onProgress: (p) => calls.push(p),
    });
    for (const chain of [0, 1]) {
      const mine = calls.filter((p) => p.chain === chain);
      expect(mine.length).toBeGreaterThan(10);
      expect(mine.length).toBeLessThanOrEqual(101);
      expect(mine[mine.length - 1]).toEqual({ chain, iteration: 2500, total: 2500, phase: "sampling" });
      for (let i = 1; i < mine.length; i++) expect(mine[i].iteration).toBeGreaterThan(mine[i - 1].iteration);
      for (const p of mine) expect(p.phase).toBe(p.iteration <= 500 ? "warmup" : "sampling");
    }
  });

  it("throws OccamError 'aborted' when the signal is aborted", () => {
    const controller = new AbortController();
    let stepsAfterAbort = 0;
    const kernel = iidNormalKernel(1);
    const counting: Kernel<PositionState, Info> = {
      init: kernel.init,
      step: (rng, state) => {
        if (controller.signal.aborted) stepsAfterAbort++;
        return kernel.step(rng, state);
      },
    };
    let error: unknown;
    try {
      runChain(counting, {
        draws: 10_000,
        warmup: 0,
        seed: 1,
        initial: Float64Array.of(0),
        signal: controller.signal,
        onProgress: (p) => {
          if (p.iteration >= 3000) controller.abort();
        },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OccamError);
    expect((error as OccamError).code).toBe("aborted");
    expect(stepsAfterAbort).toBe(0);

    const pre = new AbortController();
    pre.abort();
    expect(() =>
      runChain(iidNormalKernel(1), { draws: 5, seed: 1, initial: Float64Array.of(0), signal: pre.signal }),
    ).toThrow(expect.objectContaining({ code: "aborted" }));
  });

  it("throws OccamError 'non-finite' for a bad start or a NaN log density", () => {
    const nanTarget: Kernel<PositionState, Info> = {
      init: (position) => ({ position: position.slice(), logDensity: Number.NaN }),
      step: () => {
        throw new Error("unreachable");
      },
    };
    const code = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (e) {
        return e instanceof OccamError ? e.code : "not an OccamError";
      }
      return undefined;
    };
    expect(code(() => runChain(nanTarget, { draws: 1, seed: 1, initial: Float64Array.of(0) }))).toBe(
      "non-finite",
    );
    expect(
      code(() =>
        runChain(iidNormalKernel(1), {
          draws: 1,
          seed: 1,
          initial: Float64Array.of(Number.POSITIVE_INFINITY),
        }),
      ),
    ).toBe("non-finite");
    const outside: Kernel<PositionState, Info> = {
      ...iidNormalKernel(1),
      init: (position) => ({ position: position.slice(), logDensity: Number.NEGATIVE_INFINITY }),
    };
    expect(() => runChain(outside, { draws: 1, seed: 1, initial: Float64Array.of(0) })).toThrow(/support/);

    let steps = 0;
    const breaksLater: Kernel<PositionState, Info> = {
      init: (position) => ({ position: position.slice(), logDensity: 0 }),
      step: (_rng, state) => {
        steps++;
        return {
          state: { position: state.position, logDensity: steps > 5 ? Number.NaN : 0 },
          info: { accepted: true, acceptProbability: 1, evaluations: 1 },
        };
      },
    };
    expect(
      code(() => runChain(breaksLater, { draws: 10, warmup: 2, seed: 1, initial: Float64Array.of(0) })),
    ).toBe("non-finite");
  });

  it("throws OccamError for wrong-length starts and bad options", () => {
    const withDim = { ...iidNormalKernel(2), dim: 2 };
    expect(() => runChain(withDim, { draws: 1, seed: 1, initial: Float64Array.of(0) })).toThrow(/dim is 2/);
    const reshaping: Kernel<PositionState, Info> = {
      ...iidNormalKernel(2),
      init: () => ({ position: new Float64Array(2), logDensity: 0 }),
    };
    expect(() => runChain(reshaping, { draws: 1, seed: 1, initial: Float64Array.of(0) })).toThrow(
      expect.objectContaining({ code: "dimension-mismatch" }),
    );
    expect(() =>
      runChain(iidNormalKernel(1), {
        draws: 1,
        chains: 2,
        seed: 1,
        initial: [Float64Array.of(0), Float64Array.of(0, 1)],
      }),
    ).toThrow(/chain 1/);
    expect(() =>
      runChain(iidNormalKernel(1), { draws: 1, chains: 3, seed: 1, initial: [Float64Array.of(0)] }),
    ).toThrow(/one per chain/);
    expect(() =>
      runChain(iidNormalKernel(1), { draws: 1, seed: 1, names: ["a", "b"], initial: Float64Array.of(0) }),
    ).toThrow(/names/);
    const initial = Float64Array.of(0);
    expect(() => runChain(iidNormalKernel(1), { draws: 0, seed: 1, initial })).toThrow(/draws/);
    expect(() => runChain(iidNormalKernel(1), { draws: 1, thin: 0, seed: 1, initial })).toThrow(/thin/);
    expect(() => runChain(iidNormalKernel(1), { draws: 1, warmup: -1, seed: 1, initial })).toThrow(/warmup/);
    expect(() => runChain(iidNormalKernel(1), { draws: 1, initial })).toThrow(/seed/);
    expect(() => runChain(iidNormalKernel(1), { draws: 1, seed: 1, rng: createRng(1), initial })).toThrow(
      /not both/,
    );
  });

  it("asks an early stop once, after its draws of every chain: stopping returns those draws, the full run's first ones", () => {
    const options = { draws: 40, warmup: 5, chains: 3, seed: 7, initial: Float64Array.of(0) };
    const full = runChain(() => ar1Kernel(0.5), options);
    const seen: number[] = [];
    const kept = runChain(() => ar1Kernel(0.5), {
      ...options,
      earlyStop: {
        afterDraws: 10,
        stop: (d) => {
          seen.push(d.nDraws, d.nChains);
          return false;
        },
      },
    });
    expect(seen).toEqual([10, 3]);
    expect(kept.values).toEqual(full.values);
    expect(kept.stats).toEqual(full.stats);
    const stopped = runChain(() => ar1Kernel(0.5), {
      ...options,
      earlyStop: { afterDraws: 10, stop: () => true },
    });
    expect(stopped.nDraws).toBe(10);
    for (let c = 0; c < 3; c++) {
      for (let t = 0; t < 10; t++) expect(stopped.draw(c, t)).toEqual(full.draw(c, t));
      expect(stopped.stats[c].warmupEvaluations).toBe(5);
      expect(stopped.stats[c].evaluations).toBe(10);
    }
    // A checkpoint at or past the last draw is no stop.
    const late = runChain(() => ar1Kernel(0.5), {
      ...options,
      earlyStop: { afterDraws: 40, stop: () => true },
    });
    expect(late.values).toEqual(full.values);
    expect(() =>
      runChain(() => ar1Kernel(0.5), { ...options, earlyStop: { afterDraws: 0, stop: () => true } }),
    ).toThrow(/earlyStop.afterDraws/);
  });
});
