/**
 * How cross-validated evidence splits the data: the blocks (training and evidence sets, or G folds)
 * and the conditional terms log p(D_predicted | D_conditioning) each form estimates.
 */
import { checkPartition, complement, holdOut, kFolds, union } from "../data/folds.js";
import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";

const WHERE = "crossValidatedEvidence";

/** One conditional term: the observations conditioned on, those predicted, and its label. */
export interface ConditionalPair {
  readonly conditioning: Int32Array;
  readonly predicted: Int32Array;
  readonly label: string;
}

/**
 * The blocks of the n observations: [train, evidence] for `"held-out"`, the G folds otherwise; the
 * user's partition when given (checked), else a split shuffled by `partitionRng` when `shuffle`.
 * Throws an `OccamError` for a partition that does not fit the form or more folds than observations.
 */
export function partitionBlocks(
  o: {
    readonly form: "held-out" | "k-fold" | "chain-rule";
    readonly partition: readonly ArrayLike<number>[] | undefined;
    readonly trainFraction: number;
    readonly folds: number;
    readonly shuffle: boolean;
  },
  n: number,
  partitionRng: Rng,
): Int32Array[] {
  let blocks: Int32Array[];
  if (o.partition !== undefined) {
    blocks = checkPartition(o.partition, n, WHERE);
    if (o.form === "held-out" && blocks.length !== 2) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: a held-out partition has two blocks (training, evidence), got ${blocks.length}.`,
      );
    }
    if (o.form !== "held-out" && blocks.length < 2) {
      throw new OccamError("invalid-argument", `${WHERE}: the partition needs at least 2 folds.`);
    }
  } else if (o.form === "held-out") {
    const split = holdOut(n, o.trainFraction, o.shuffle ? partitionRng : undefined);
    blocks = [split.train, split.test];
  } else {
    if (o.folds > n) {
      throw new OccamError(
        "invalid-argument",
        `${WHERE}: folds = ${o.folds} exceeds the ${n} observations; use at most ${n} folds.`,
      );
    }
    blocks = kFolds(n, o.folds, o.shuffle ? partitionRng : undefined);
  }
  return blocks;
}

/**
 * The conditional terms of each form: the evidence set given the training set (held-out), each fold
 * given all the others (k-fold), each fold given the folds before it (chain rule, from fold 2).
 */
export function conditionalPairs(
  form: "held-out" | "k-fold" | "chain-rule",
  blocks: readonly Int32Array[],
  n: number,
): ConditionalPair[] {
  const pairs: ConditionalPair[] = [];
  if (form === "held-out") {
    pairs.push({ conditioning: blocks[0], predicted: blocks[1], label: "evidence set given training set" });
  } else if (form === "k-fold") {
    for (let g = 0; g < blocks.length; g++) {
      pairs.push({ conditioning: complement(blocks[g], n), predicted: blocks[g], label: `fold ${g + 1}` });
    }
  } else {
    for (let g = 1; g < blocks.length; g++) {
      pairs.push({
        conditioning: union(blocks.slice(0, g)),
        predicted: blocks[g],
        label: `fold ${g + 1} given folds 1–${g}`,
      });
    }
  }
  return pairs;
}
