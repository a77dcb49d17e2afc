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
import { type GTableStats, gMixtureScorer } from "./g-table.js";

/** BAS's and Liang et al.'s default a of the hyper-g priors. */
export const HYPER_G_DEFAULT_A = 3;

/** The hyper-g (or, with `perN`, hyper-g/n) family over subsets of a design's terms. */
export function hyperGFamily(
  design: LinearDesign,
  stats: CentredStatistics,
  options: { a?: number; perN: boolean; tables: GTableStats },
): SubsetFamily {
  const a = options.a ?? HYPER_G_DEFAULT_A;
  if (!(Number.isFinite(a) && a > 2)) {
    throw new OccamError(
      "invalid-argument",
      `the hyper-g prior's a must be a number greater than 2 (a proper prior), got ${a}; 3 is the usual choice.`,
    );
  }
  const mix = hyperGDensity(a, design.n, options.perN);
  return gPriorsFamily(design, stats, gMixtureScorer(mix, design.n, options.tables));
}
