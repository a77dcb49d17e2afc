/**
 * The rules of a model space over a family's terms: terms held in every model (`--always`), the size
 * limit that must leave room for them, and heredity (an interaction only with its lower-order terms), as
 * bit masks for enumeration and as a filter for sampling.
 */
import { OccamError } from "../errors.js";
import type { FamilyTerm, SubsetFamily } from "../models/family.js";

/** The indices of the terms named in `always`; an unknown name is an `invalid-argument` OccamError. */
export function alwaysTerms(terms: readonly FamilyTerm[], names: readonly string[]): number[] {
  return [...new Set(names)]
    .map((name) => {
      // "(1|g)" names the term "(1 | g)": spaces do not count.
      const j = terms.findIndex((t) => t.name.replace(/\s/g, "") === name.replace(/\s/g, ""));
      if (j < 0) {
        throw new OccamError(
          "invalid-argument",
          `--always: no term "${name}"; the terms are ${terms.map((t) => `"${t.name}"`).join(", ")}.`,
        );
      }
      return j;
    })
    .sort((a, b) => a - b);
}

/** Throws an `invalid-argument` OccamError when a size limit leaves no model holding `always` terms. */
export function checkSizeLimit(always: number, which: "all" | "none" | { max: number }): void {
  if (which !== "all" && which !== "none" && which.max < always) {
    throw new OccamError(
      "invalid-argument",
      `--subsets max=${which.max} leaves no model that holds the ${always} terms of --always.`,
    );
  }
}

/** The bit mask of a list of term indices. */
export function maskOf(terms: readonly number[]): number {
  return terms.reduce((m, j) => (m | (1 << j)) >>> 0, 0);
}

/** The parent masks of a family's terms, or null when no term has parents (or heredity is off). */
export function parentMasks(family: SubsetFamily, heredity: boolean): Uint32Array | null {
  if (!heredity || family.terms.every((t) => t.parents.length === 0)) return null;
  return Uint32Array.from(family.terms, (t) => maskOf(t.parents));
}

/** True when every member's parents are members too. */
export function hereditary(mask: number, parents: Uint32Array): boolean {
  for (let m = mask; m !== 0; m &= m - 1) {
    if ((parents[31 - Math.clz32(m & -m)] & ~mask) !== 0) return false;
  }
  return true;
}

/** A model-space filter for {@link sampleSubsets} from a family's heredity, or undefined when there is none. */
export function hereditaryFilter(
  family: SubsetFamily,
  heredity: boolean,
): ((inModel: Uint8Array) => boolean) | undefined {
  if (!heredity || family.terms.every((t) => t.parents.length === 0)) return undefined;
  return (inModel) => family.terms.every((t, j) => !inModel[j] || t.parents.every((q) => inModel[q] === 1));
}
