/**
 * The options of a comparison of classifier families (`compareClassifierFamilies`, `occam classify`)
 * in one place: what each means, its default, the least value it accepts, and the resolver that checks
 * them and fills the defaults. The command line reads its defaults and limits from here.
 */

import { OccamError } from "../errors.js";
import {
  CLASSIFIER_FAMILIES,
  type ClassifierFamilyName,
  checkFamilyName,
} from "../models/classifiers/families.js";
import type { ClassifierFamilyOptions } from "../models/classifiers/index.js";
import type { ClassificationData } from "../models/mixture-classifier/data.js";

/** Options of `compareClassifierFamilies`. */
export interface CompareClassifierFamiliesOptions {
  /** The families to compare. @defaultValue all five: logistic, rbf, pknn, mixture, mlp */
  families?: readonly ClassifierFamilyName[];
  /** Test rows (same inputs and classes as the training rows), scored by every family and both averages. @defaultValue none */
  test?: ClassificationData | null;
  /** Number of stratified folds G of the chain rule. @defaultValue 5 */
  folds?: number;
  /** Seed of everything random. @defaultValue 1 */
  seed?: number;
  /** Prior probabilities of the families, in the order of `families`. @defaultValue uniform */
  familyPrior?: readonly number[];
  /** Keep families whose evidence is not reliable in the probabilities and the average. @defaultValue false */
  includeUnreliable?: boolean;
  /**
   * Cross-check each chain-rule evidence with a second estimator (bridge sampling on the chains, or the
   * family's exact computation); a tempered run, when made, is the cross-check instead. @defaultValue true
   */
  crossCheck?: boolean;
  /** Also estimate Everson's G-fold product (G more posteriors per family). @defaultValue false */
  everson?: boolean;
  /** Posterior draws per posterior, over all chains. @defaultValue 2000 */
  draws?: number;
  /** Warm-up iterations per chain. @defaultValue 500 */
  warmup?: number;
  /** Chains per posterior. @defaultValue 4 */
  chains?: number;
  /**
   * When a family's chain rule or its HMC chains given all training rows fail their checks (chains
   * that disagree or carry too few effective draws: separated modes, as networks' posteriors have),
   * also run tempered SMC on all rows (two runs, their spread counted). Where it passes its own
   * checks, its evidence of the same labels weighs the family in place of a failed chain rule (which
   * becomes the cross-check), and its particles make the predictions in place of failed chains. Not
   * for `pknn`, whose likelihood is a pseudo-likelihood. @defaultValue false
   */
  tempered?: boolean;
  /**
   * Particles of each of those tempered runs (32 to an island; at least 128, four islands).
   * @defaultValue 256
   */
  temperedParticles?: number;
  /** Each family's own options (sizes, priors). */
  familyOptions?: ClassifierFamilyOptions;
  /** Told what is being computed. */
  onProgress?: (step: string) => void;
}

/** The settings of a comparison of classifier families, checked and with every default filled in. */
export interface ClassifierComparisonSettings {
  families: ClassifierFamilyName[];
  folds: number;
  seed: number;
  draws: number;
  warmup: number;
  chains: number;
  tempered: boolean;
  temperedParticles: number;
}

/** The defaults of `compareClassifierFamilies`' numeric settings, which `occam classify`'s help shows. */
export const CLASSIFY_DEFAULTS = Object.freeze({
  folds: 5,
  seed: 1,
  draws: 2000,
  warmup: 500,
  chains: 4,
  temperedParticles: 256,
});

/** The least value `compareClassifierFamilies` accepts for each of its whole-number settings. */
export const CLASSIFY_MINIMA = Object.freeze({
  folds: 2,
  draws: 100,
  warmup: 0,
  chains: 1,
  temperedParticles: 128,
});

/**
 * Checks `options` and fills in {@link CLASSIFY_DEFAULTS}; throws an `invalid-argument` OccamError
 * for an unknown or repeated family, a setting below {@link CLASSIFY_MINIMA}, or a family prior of
 * the wrong length.
 */
export function resolveClassifierComparison(
  options: CompareClassifierFamiliesOptions,
): ClassifierComparisonSettings {
  const families = (options.families ?? CLASSIFIER_FAMILIES).map((f) => checkFamilyName(f));
  if (families.length === 0) throw new OccamError("invalid-argument", "give at least one classifier family.");
  if (new Set(families).size !== families.length) {
    throw new OccamError("invalid-argument", `a family is listed twice: ${families.join(", ")}.`);
  }
  const r: ClassifierComparisonSettings = {
    families,
    folds: options.folds ?? CLASSIFY_DEFAULTS.folds,
    seed: options.seed ?? CLASSIFY_DEFAULTS.seed,
    draws: options.draws ?? CLASSIFY_DEFAULTS.draws,
    warmup: options.warmup ?? CLASSIFY_DEFAULTS.warmup,
    chains: options.chains ?? CLASSIFY_DEFAULTS.chains,
    tempered: options.tempered ?? false,
    temperedParticles: options.temperedParticles ?? CLASSIFY_DEFAULTS.temperedParticles,
  };
  for (const [name, min] of Object.entries(CLASSIFY_MINIMA) as [keyof typeof CLASSIFY_MINIMA, number][]) {
    if (!(Number.isInteger(r[name]) && r[name] >= min)) {
      throw new OccamError("invalid-argument", `${name} must be an integer ≥ ${min}, got ${r[name]}.`);
    }
  }
  if (options.familyPrior !== undefined && options.familyPrior.length !== families.length) {
    throw new OccamError(
      "invalid-argument",
      `familyPrior has ${options.familyPrior.length} entries for ${families.length} families.`,
    );
  }
  return r;
}
