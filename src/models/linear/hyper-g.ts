/**
 * Liang et al.'s (2008) hyper-g and hyper-g/n priors as families over subsets: mixtures of g-priors
 * with π(g) = (a − 2)/2 (1 + g)^(−a/2) and π(g) = (a − 2)/(2n) (1 + g/n)^(−a/2), scored through the
 * tables of `g-table.ts` (a proven error bound per panel).
 */

import type { LinearDesign } from "../../data/design.js";
import { OccamError } from "../../errors.js";
import type { SubsetFamily } from "../family.js";
import type { CentredStatistics } from "./design.js";
import { hyperGDensity } from "./g-mixture.js";
import { gPriorsFamily } from "./g-prior.js";
import { type GTableStats, gMixtureScorer, newTableStats } from "./g-table.js";

/** BAS's and Liang et al.'s default a of the hyper-g priors. */
export const HYPER_G_DEFAULT_A = 3;

/** Options of {@link hyperGFamily}. */
export interface HyperGFamilyOptions {
  /** The prior's a > 2. @defaultValue 3 */
  a?: number;
  /** The hyper-g/n prior instead of hyper-g. @defaultValue false */
  perN?: boolean;
  /** Counts of the tables' panels and direct integrals and their largest error, updated as subsets are scored. */
  tables?: GTableStats;
}

/** The hyper-g (or, with `perN`, hyper-g/n) family over subsets of a design's terms. */
export function hyperGFamily(
  design: LinearDesign,
  stats: CentredStatistics,
  options: HyperGFamilyOptions = {},
): SubsetFamily {
  const a = options.a ?? HYPER_G_DEFAULT_A;
  if (!(Number.isFinite(a) && a > 2)) {
    throw new OccamError(
      "invalid-argument",
      `the hyper-g prior's a must be a number greater than 2 (a proper prior), got ${a}; 3 is the usual choice.`,
    );
  }
  const mix = hyperGDensity(a, design.n, options.perN ?? false);
  return gPriorsFamily(design, stats, gMixtureScorer(mix, design.n, options.tables ?? newTableStats()));
}
