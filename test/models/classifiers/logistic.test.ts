import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readCsv } from "../../../src/data/csv-file.js";
import { crossValidatedEvidence } from "../../../src/evidence/cross-validated.js";
import { estimateEvidence } from "../../../src/evidence/estimate.js";
import { samplePosterior } from "../../../src/evidence/posterior-sampling.js";
import {
  classifierTable,
  standardizeClassifierInputs,
  stratifiedFolds,
} from "../../../src/models/classifiers/data.js";
import { logisticClassifier } from "../../../src/models/classifiers/logistic.js";
import { PIMA_REFERENCE } from "../../../src/models/hard-problems/logistic-regression.js";
import { createRng } from "../../../src/random/rng.js";

const PIMA = fileURLToPath(new URL("../../../data/sykacek/pima-train.csv", import.meta.url));
const train = standardizeClassifierInputs(classifierTable(readCsv(PIMA), { target: "type" }).data).train;

describe("the logistic family on Pima (Ripley's training set)", () => {
  it("with the slope precision fixed at 1/2.5², bridge sampling gives the published reference evidence", () => {
    // Two classes, intercept and slopes N(0, 2.5²) on inputs standardised as R's scale(): the
    // hard-problem suite's logistic regression, whose log evidence long importance-sampling runs fixed.
    const model = logisticClassifier(train, { precision: 1 / 6.25, interceptSd: 2.5 });
    const sample = samplePosterior(model, { seed: 1, chains: 4, warmup: 500, draws: 500, starts: "prior" });
    const bridge = estimateEvidence(model, { method: "bridge", sample, seed: 2 });
    expect(bridge.reliable).toBe(true);
    expect(Math.abs(bridge.logZ - PIMA_REFERENCE.logZ)).toBeLessThan(
      4 * Math.hypot(bridge.stdErr, PIMA_REFERENCE.stdErr),
    );
  });

  it("the chain-rule evidence lies within its error of bridge sampling on the same data", () => {
    const model = logisticClassifier(train);
    const sample = samplePosterior(model, { seed: 3, chains: 4, warmup: 500, draws: 500, starts: "prior" });
    const bridge = estimateEvidence(model, { method: "bridge", sample, seed: 4 });
    const chain = crossValidatedEvidence(model, {
      form: "chain-rule",
      partition: stratifiedFolds(train.labels, 2, 5, createRng(5)),
      draws: 2000,
      warmup: 500,
      starts: "prior",
      seed: 6,
    });
    expect(bridge.reliable && chain.reliable).toBe(true);
    expect(Math.abs(chain.logZ - bridge.logZ)).toBeLessThan(3 * Math.hypot(chain.stdErr, bridge.stdErr));
    // Everson's G-fold product on the same folds sits above: each fold is predicted from more data.
    const kFold = crossValidatedEvidence(model, {
      form: "k-fold",
      partition: stratifiedFolds(train.labels, 2, 5, createRng(5)),
      draws: 2000,
      warmup: 500,
      starts: "prior",
      seed: 7,
    });
    expect(kFold.logZ - chain.logZ).toBeGreaterThan(3 * Math.hypot(kFold.stdErr, chain.stdErr));
  });
});
