import { describe, expect, it } from "vitest";
import {
  cloudShape,
  IslandComplementShapes,
  islandStart,
  LikelihoodCounter,
  measureCloud,
  type ParticleCloud,
} from "../../../src/evidence/tempering/cloud.js";
import {
  hmcSweep,
  independenceLogDensities,
  independenceProposal,
  independenceSweep,
  kernelSweep,
  MoveScratch,
  maxStepSize,
  randomWalkSweep,
  resolveCloudMove,
} from "../../../src/evidence/tempering/moves.js";
import { createRng, type Rng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";
import {
  exactPowerPosteriorKernel,
  expectedLogLikelihood,
  gradientFreeModel,
  modelWithExactKernel,
  powerPosterior,
  testModel,
} from "../tempered-models.js";

const BETA = 0.3;
const N = 4000;

/** `n` exact draws from the test model's power posterior at β, as a cloud. */
function exactCloud(d: number, seed: number | Rng, n = N): ParticleCloud {
  const model = testModel(d);
  const { mean, sd } = powerPosterior(model, BETA);
  const rng = typeof seed === "number" ? createRng(seed) : seed;
  const positions = new Float64Array(n * d);
  const logPrior = new Float64Array(n);
  const logLikelihood = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = positions.subarray(i * d, (i + 1) * d);
    for (let j = 0; j < d; j++) x[j] = mean[j] + sd * rng.normal();
    logPrior[i] = model.logPrior(x);
    logLikelihood[i] = model.logLikelihood(x);
  }
  return { n, dim: d, positions, logPrior, logLikelihood };
}

/** The cloud's mean log L and first coordinate are within 4.5 standard errors of the exact ones. */
function expectStillExact(cloud: ParticleCloud): void {
  const model = testModel(cloud.dim);
  const { mean, sd } = powerPosterior(model, BETA);
  let m0 = 0;
  let ell = 0;
  for (let i = 0; i < N; i++) {
    m0 += cloud.positions[i * cloud.dim] / N;
    ell += cloud.logLikelihood[i] / N;
    // The stored log likelihood is the one at the stored position.
    if (i % 500 === 0) {
      expect(cloud.logLikelihood[i]).toBeCloseTo(
        model.logLikelihood(cloud.positions.subarray(i * cloud.dim, (i + 1) * cloud.dim)),
        9,
      );
    }
  }
  expect(Math.abs(m0 - mean[0])).toBeLessThan((4.5 * sd) / Math.sqrt(N));
  // Var_β[log L] = (n/σ²)² d sd⁴ / 2 for the isotropic Gaussian power posterior.
  const sdEll = (model.n / model.sigma ** 2) * sd * sd * Math.sqrt(cloud.dim / 2);
  expect(Math.abs(ell - expectedLogLikelihood(model, BETA))).toBeLessThan((4.5 * sdEll) / Math.sqrt(N));
}

describe("the engine's moves leave the power posterior invariant", () => {
  for (const [name, sweep] of [
    ["HMC in the cloud's metric", hmcSweep],
    ["random-walk Metropolis with the cloud's covariance", randomWalkSweep],
  ] as const) {
    it(`${name}: exact draws stay exact after five sweeps (d = 5)`, () => {
      const cloud = exactCloud(5, 1);
      const model = testModel(5);
      const shape = cloudShape(5);
      measureCloud(cloud, new Float64Array(N), shape, new Float64Array(25));
      const counter = new LikelihoodCounter(model, "test");
      const scratch = new MoveScratch(5);
      const rng = createRng(2);
      const step = name.startsWith("HMC") ? maxStepSize("hmc") : 2.38 / Math.sqrt(5);
      const moved = new Uint8Array(N);
      let accept = 0;
      for (let s = 0; s < 5; s++) {
        const out =
          sweep === hmcSweep
            ? hmcSweep(model, cloud, BETA, shape, step, rng, counter, scratch, moved)
            : randomWalkSweep(cloud, BETA, shape, step, rng, counter, scratch, moved);
        expect(out.moved).toBe(N);
        accept += out.acceptSum / N / 5;
      }
      expect(accept).toBeGreaterThan(0.2);
      // The particles that accepted a proposal say so: almost all of them, in five sweeps.
      expect(moved.filter((m) => m === 1).length).toBeGreaterThan(0.7 * N);
      expectStillExact(cloud);
      expect(counter.evaluations).toBeGreaterThanOrEqual(5 * N);
    });
  }

  it("independence proposals from a Student-t fitted to the cloud: exact draws stay exact after five sweeps (d = 5)", () => {
    const cloud = exactCloud(5, 7);
    const model = testModel(5);
    const shape = cloudShape(5);
    measureCloud(cloud, new Float64Array(N), shape, new Float64Array(25));
    const counter = new LikelihoodCounter(model, "test");
    const scratch = new MoveScratch(5);
    const proposal = independenceProposal(shape, 5);
    const logQ = new Float64Array(N);
    independenceLogDensities(cloud, proposal, logQ, scratch, 0, N);
    const moved = new Uint8Array(N);
    const rng = createRng(8);
    let accept = 0;
    for (let s = 0; s < 5; s++) {
      const out = independenceSweep(
        cloud,
        BETA,
        proposal,
        { rng, counter, scratch, logQ, movedFlags: moved },
        0,
        N,
      );
      expect(out.moved).toBe(N);
      accept += out.acceptSum / N / 5;
    }
    // A Student-t with the cloud's covariance proposes close to a Gaussian target: most proposals pass.
    expect(accept).toBeGreaterThan(0.6);
    expect(moved.filter((m) => m === 0).length).toBeLessThan(0.01 * N);
    // One likelihood evaluation per proposal, and the kept log densities are the particles' own.
    expect(counter.evaluations).toBe(5 * N);
    const check = new Float64Array(N);
    independenceLogDensities(cloud, proposal, check, scratch, 0, N);
    for (let i = 0; i < N; i++) expect(logQ[i]).toBeCloseTo(check[i], 9);
    expectStillExact(cloud);
  });

  it("independence proposals fitted to the other islands keep small clouds exact, where a proposal fitted to the particles it moves narrows them (d = 20)", () => {
    // 200 exact draws in 8 islands, three sweeps, 150 replications: the mean log L's deviation from the
    // exact one, in standard errors of its mean over the replications.
    const d = 20;
    const n = 200;
    const G = 8;
    const model = testModel(d);
    const exact = expectedLogLikelihood(model, BETA);
    const deviation = (fit: "own" | "others") => {
      const deviations: number[] = [];
      for (let r = 0; r < 150; r++) {
        const rng = createRng(100 + r);
        const cloud = exactCloud(d, rng, n);
        const shapes = new IslandComplementShapes(G, d);
        shapes.measure(cloud, new Float64Array(n));
        const whole = cloudShape(d);
        measureCloud(cloud, new Float64Array(n), whole, new Float64Array(d * d));
        const proposals = shapes.shapes.map((s) => independenceProposal(fit === "own" ? whole : s, d));
        const buffers = {
          rng,
          counter: new LikelihoodCounter(model, "test"),
          scratch: new MoveScratch(d),
          logQ: new Float64Array(n),
          movedFlags: new Uint8Array(n),
        };
        const from = (g: number) => islandStart(g, G, n);
        for (let g = 0; g < G; g++) {
          independenceLogDensities(cloud, proposals[g], buffers.logQ, buffers.scratch, from(g), from(g + 1));
        }
        for (let sweep = 0; sweep < 3; sweep++) {
          for (let g = 0; g < G; g++)
            independenceSweep(cloud, BETA, proposals[g], buffers, from(g), from(g + 1));
        }
        deviations.push(cloud.logLikelihood.reduce((a, b) => a + b, 0) / n - exact);
      }
      const m = deviations.reduce((a, b) => a + b, 0) / deviations.length;
      const variance = deviations.reduce((a, b) => a + (b - m) ** 2, 0) / (deviations.length - 1);
      return m / Math.sqrt(variance / deviations.length);
    };
    expect(Math.abs(deviation("others"))).toBeLessThan(4);
    expect(deviation("own")).toBeGreaterThan(8);
  });

  it("an HMC sweep with a stride moves one particle in that many", () => {
    const cloud = exactCloud(3, 9);
    const model = testModel(3);
    const shape = cloudShape(3);
    measureCloud(cloud, new Float64Array(N), shape, new Float64Array(9));
    const moved = new Uint8Array(N);
    const out = hmcSweep(
      model,
      cloud,
      BETA,
      shape,
      maxStepSize("hmc"),
      createRng(10),
      new LikelihoodCounter(model, "test"),
      new MoveScratch(3),
      moved,
      8,
    );
    expect(out.moved).toBe(N / 8);
    const touched = moved.reduce((n, m) => n + m, 0);
    expect(touched).toBeGreaterThan(0);
    expect(touched).toBeLessThanOrEqual(N / 8);
  });

  it("a trajectory from where the particle's last accepted one ended takes its gradient from the memo", () => {
    const d = 3;
    const model = testModel(d);
    const cloud = exactCloud(d, 21);
    const shape = cloudShape(d);
    measureCloud(cloud, new Float64Array(N), shape, new Float64Array(d * d));
    // A step of 1.2 makes every trajectory one leapfrog step: two evaluations, or one from the memo.
    const sweep = (c: ParticleCloud, scratch: MoveScratch, seed: number, moved: Uint8Array) => {
      const counter = new LikelihoodCounter(model, "test");
      const out = hmcSweep(model, c, BETA, shape, 1.2, createRng(seed), counter, scratch, moved);
      return { ...out, evaluations: counter.evaluations };
    };
    const scratch = new MoveScratch(d);
    const firstMoved = new Uint8Array(N);
    const first = sweep(cloud, scratch, 22, firstMoved);
    expect(first.evaluations).toBe(2 * first.moved);
    const accepted = firstMoved.reduce((n, m) => n + m, 0);
    expect(accepted).toBeGreaterThan(N / 2);
    // The same second sweep with the memo and without it (a fresh scratch): the memo saves one
    // evaluation per particle accepted before, and the particles end where they would have ended.
    const copy: ParticleCloud = {
      ...cloud,
      positions: Float64Array.from(cloud.positions),
      logPrior: Float64Array.from(cloud.logPrior),
      logLikelihood: Float64Array.from(cloud.logLikelihood),
    };
    const withMemo = sweep(cloud, scratch, 23, new Uint8Array(N));
    const without = sweep(copy, new MoveScratch(d), 23, new Uint8Array(N));
    expect(without.evaluations).toBe(2 * without.moved);
    expect(withMemo.evaluations).toBe(without.evaluations - accepted);
    for (let k = 0; k < N * d; k++) expect(cloud.positions[k]).toBeCloseTo(copy.positions[k], 9);
    expectStillExact(cloud);
    // A particle put where another one is (as resampling does) no longer matches its memo.
    const memo = scratch.memoFor(N);
    const held = (i: number) => memo.holds(cloud.positions, i * d, d);
    const i = Array.from({ length: N - 1 }, (_, k) => k + 1).find(held) as number;
    cloud.positions.copyWithin(0, i * d, (i + 1) * d);
    expect(held(0)).toBe(false);
    expect(held(i)).toBe(true);
  });

  it("the model's own kernel, one draw per particle", () => {
    const cloud = exactCloud(3, 3);
    const model = modelWithExactKernel(3);
    const counter = new LikelihoodCounter(model, "test");
    const out = kernelSweep(
      exactPowerPosteriorKernel(testModel(3), BETA),
      cloud,
      BETA,
      createRng(4),
      counter,
      new Uint8Array(N),
    );
    expect(out.acceptSum).toBe(N);
    expectStillExact(cloud);
  });

  it("does not move a particle of zero likelihood (kept at weight 0 by annealed importance sampling)", () => {
    const cloud = exactCloud(2, 5);
    cloud.logLikelihood[0] = Number.NEGATIVE_INFINITY;
    const before = Array.from(cloud.positions.subarray(0, 2));
    const shape = cloudShape(2);
    measureCloud(cloud, new Float64Array(N), shape, new Float64Array(4));
    const model = testModel(2);
    const out = hmcSweep(
      model,
      cloud,
      BETA,
      shape,
      0.5,
      createRng(6),
      new LikelihoodCounter(model, "t"),
      new MoveScratch(2),
      new Uint8Array(N),
    );
    expect(out.moved).toBe(N - 1);
    expect(Array.from(cloud.positions.subarray(0, 2))).toEqual(before);
  });
});

describe("tuning the moves", () => {
  it("keeps at least three leapfrog steps per HMC trajectory", () => {
    expect(maxStepSize("hmc")).toBeCloseTo(Math.PI / 6, 12);
  });

  it("resolves 'auto' to the model's kernel, else HMC with gradients, else the random walk, and refuses what the model cannot do", () => {
    expect(resolveCloudMove(modelWithExactKernel(1), "auto", "t")).toBe("model");
    expect(resolveCloudMove(testModel(1), "auto", "t")).toBe("hmc");
    expect(resolveCloudMove(gradientFreeModel(1), "auto", "t")).toBe("random-walk");
    expect(thrown(() => resolveCloudMove(gradientFreeModel(1), "hmc", "t")).message).toMatch(/gradLogPrior/);
    expect(thrown(() => resolveCloudMove(testModel(1), "model", "t")).message).toMatch(
      /powerPosteriorKernel/,
    );
    expect(thrown(() => resolveCloudMove(testModel(1), "nuts" as "hmc", "t")).message).toMatch(
      /move must be/,
    );
  });
});
