/**
 * The units of `occam reproduce robot-arm`: for each network size, the maximum-likelihood fits, the
 * evidence framework with the ensemble, and each of the two temperature sweeps (the bulk of the work)
 * run apart. Each unit regenerates the data from the seed and seeds its own computations exactly as a
 * serial run does, so the assembled rows are the same bit for bit however the units are spread.
 */
import { z } from "zod";
import { robotArmData } from "../data/generators/robot-arm.js";
import { powerLadder, refineLadder } from "../evidence/tempering/schedule.js";
import { bayesianMlp } from "../models/mlp/bayesian.js";
import type { MlpData } from "../models/mlp/data.js";
import { ensembleEvidence } from "../models/mlp/ensemble/evidence.js";
import { ensembleMlp } from "../models/mlp/ensemble/fit.js";
import { evidenceFramework } from "../models/mlp/evidence-framework.js";
import { fitMaximumLikelihoodMlp } from "../models/mlp/maximum-likelihood.js";
import { predictBayesianMlp } from "../models/mlp/prediction.js";
import {
  type SweepEvidence,
  sweepChaining,
  sweepPathSampling,
  sweepTemperatures,
} from "../models/mlp/temperature-sweep.js";
import { defineUnitCommand, unitCommands } from "../parallel/units.js";

/** The parts of one network size's row, each a unit. */
export const ROBOT_ARM_PARTS = ["sweep-down", "sweep-up", "framework", "ml"] as const;

/** One part of a network size's row. */
export type RobotArmPart = (typeof ROBOT_ARM_PARTS)[number];

const count = z.number().int().min(0).max(1_000_000);

/** What a robot-arm unit needs: the part, the network size and the run's data and settings. */
export const robotArmUnitSchema = z
  .object({
    part: z.enum(ROBOT_ARM_PARTS),
    hidden: z.number().int().min(1).max(64),
    seed: z.number().int().min(0).max(0xffffffff),
    noise: z.number().finite().positive(),
    settings: z
      .object({
        nTrain: z.number().int().min(2).max(100_000),
        nTest: z.number().int().min(1).max(100_000),
        mlStarts: z.number().int().min(1).max(1000),
        warmupPerTemperature: count,
        drawsPerTemperature: count,
        burnIn: count,
        posteriorDraws: count,
        ensembleSamples: count,
      })
      .strip(),
  })
  .strict();

/** The payload of a robot-arm unit. */
export type RobotArmUnit = z.infer<typeof robotArmUnitSchema>;

/** The maximum-likelihood part of a row. */
export interface RobotArmMlPart {
  readonly part: "ml";
  readonly mlTrainError: number;
  readonly mlTestError: number;
  readonly fpe: number | null;
}

/** The evidence framework's and the ensemble's part of a row. */
export interface RobotArmFrameworkPart {
  readonly part: "framework";
  /** The network's number of weights. */
  readonly weights: number;
  readonly laplace: { logZ: number; stdErr: number; eq11: number; converged: boolean };
  readonly ensemble: {
    logZ: number;
    stdErr: number;
    elbo: number;
    elboStdErr: number;
    paretoK: number | null;
  };
}

/** One sweep's part of a row: its two evidences and what its posterior draws predict. */
export interface RobotArmSweepPart {
  readonly part: "sweep-up" | "sweep-down";
  readonly path: SweepEvidence;
  readonly chaining: SweepEvidence;
  /** Test error of the posterior predictive mean from the sweep's θ = 1 draws. */
  readonly testError: number;
  readonly noiseSd: number;
  readonly acceptance: number;
}

/** The result of a robot-arm unit, with its time. */
export type RobotArmPartResult = (RobotArmMlPart | RobotArmFrameworkPart | RobotArmSweepPart) & {
  readonly seconds: number;
};

/** The chaining sub-ladder: Barber & Bishop's 20 values of λ, λ_i = (i/19)⁴. */
export function robotArmChain(): Float64Array {
  return powerLadder(19, 4);
}

function testError(Y: Float64Array, mean: Float64Array): number {
  let s = 0;
  for (let k = 0; k < Y.length; k++) s += (Y[k] - mean[k]) ** 2;
  return s / Y.length;
}

/** Computes one part of a network size's row. */
export function robotArmPart(unit: RobotArmUnit, onStep?: (what: string) => void): RobotArmPartResult {
  const t0 = performance.now();
  const { hidden: H, seed, noise, settings } = unit;
  const train: MlpData = robotArmData({ n: settings.nTrain, noiseSd: noise, seed });
  const test: MlpData = robotArmData({ n: settings.nTest, noiseSd: noise, seed: seed + 7919 });
  const seconds = () => (performance.now() - t0) / 1000;
  if (unit.part === "ml") {
    onStep?.("maximum likelihood");
    const ml = fitMaximumLikelihoodMlp(train, { hidden: H, test, starts: settings.mlStarts, seed });
    return {
      part: "ml",
      mlTrainError: ml.meanTrainError,
      mlTestError: ml.meanTestError as number,
      fpe: ml.meanFpe ?? null,
      seconds: seconds(),
    };
  }
  const model = bayesianMlp(train, { hidden: H });
  if (unit.part === "framework") {
    onStep?.("evidence framework");
    const ef = evidenceFramework(model, { seed });
    onStep?.("ensemble");
    const ens = ensembleMlp(model, {
      seed,
      initialWeights: ef.fit.weights,
      initialHyper: { noisePrecision: ef.fit.noisePrecision, groupPrecisions: ef.fit.groupPrecisions },
    });
    const ensEv = ensembleEvidence(ens, { samples: settings.ensembleSamples, seed });
    return {
      part: "framework",
      weights: model.weightCount,
      laplace: {
        logZ: ef.logZ,
        stdErr: ef.stdErr,
        eq11: ef.fit.logEvidenceEq11,
        converged: ef.fit.converged,
      },
      ensemble: {
        logZ: ensEv.logZ,
        stdErr: ensEv.stdErr,
        elbo: ensEv.diagnostics.elbo as number,
        elboStdErr: ensEv.diagnostics.elboStdErr as number,
        paretoK: typeof ensEv.diagnostics.paretoK === "number" ? ensEv.diagnostics.paretoK : null,
      },
      seconds: seconds(),
    };
  }
  const direction = unit.part === "sweep-up" ? "up" : "down";
  const chain = robotArmChain();
  const sweep = sweepTemperatures(model, {
    ladder: refineLadder(chain, 2),
    direction,
    warmupPerTemperature: settings.warmupPerTemperature,
    drawsPerTemperature: settings.drawsPerTemperature,
    burnIn: settings.burnIn,
    endDraws: settings.posteriorDraws,
    seed: seed + (direction === "up" ? 1 : 2),
    onTemperature: (k, beta) =>
      onStep?.(
        `sweep ${direction === "up" ? "from the prior" : "from the posterior"}, θ = ${beta.toPrecision(3)} (${k})`,
      ),
  });
  const post = sweep.posterior;
  let noiseSd = 0;
  for (let i = 0; i < post.nDraws; i++) noiseSd += 1 / Math.sqrt(post.noisePrecision[i]) / post.nDraws;
  return {
    part: unit.part,
    path: sweepPathSampling(sweep),
    chaining: sweepChaining(sweep, chain),
    testError: testError(test.Y, predictBayesianMlp(model.network, post, test.X, test.n).mean),
    noiseSd,
    acceptance: post.acceptanceRate,
    seconds: seconds(),
  };
}

/** The robot-arm unit command. */
export const robotArmCommand = defineUnitCommand({
  name: "robot-arm-part",
  payload: robotArmUnitSchema,
  run: (payload) => robotArmPart(payload),
});

/** The commands of this module, for the worker threads. */
export const commands = unitCommands([robotArmCommand]);
