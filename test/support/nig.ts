import { numericDesign } from "../../src/data/design.js";
import type { SubsetFamily } from "../../src/models/family.js";
import { centredStatistics } from "../../src/models/linear/design.js";
import { type NigFamilyOptions, nigFamily } from "../../src/models/linear/nig-subsets.js";

/** The NIG family over the p columns of X (n × p, row-major), one term each, in their own units. */
export function nigFamilyOf(
  X: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
  prior: Omit<NigFamilyOptions, "standardize">,
): SubsetFamily {
  const inputNames = Array.from({ length: p }, (_, j) => `x${j}`);
  const { design } = numericDesign({
    X: Float64Array.from(X),
    y: Float64Array.from(y),
    n,
    p,
    inputNames,
    targetName: "y",
  });
  return nigFamily(design, centredStatistics(design), { ...prior, standardize: false });
}

/** Every subset's score, indexed by its mask. */
export function scoresByMask(family: SubsetFamily): Float64Array {
  const scores = new Float64Array(2 ** family.terms.length);
  family.enumerate(family.terms.length, (view) => {
    scores[view.mask] = view.score;
  });
  return scores;
}
