/**
 * The design a comparison of linear models starts from: candidate columns over terms (an input, a
 * factor's dummy columns, an interaction's products), the target, and what the user should be told
 * about the factors. `formula.ts` makes one from a formula; {@link numericDesign} from a numeric table.
 */
import type { NumericTable } from "./csv.js";

/** A candidate term: what enters or leaves a model as a whole. */
export interface DesignTerm {
  /** Its name as the user wrote it: `x`, `colour` (a factor), `x:colour`. */
  readonly name: string;
  /** The design columns it owns (indices into `columnNames`), a contiguous ascending run. */
  readonly columns: readonly number[];
  /** Terms a model must hold to hold this one (heredity: an interaction's main effects); may be empty. */
  readonly parents: readonly number[];
  /** For a random term (`(1 | g)`, `(x | g)`), which owns no columns: its groups and effects. */
  readonly random?: RandomTerm;
}

/** A random term's data: effects that vary by the levels of a grouping column. */
export interface RandomTerm {
  /** The grouping column and its levels (distinct values as text, sorted). */
  readonly group: string;
  readonly levels: readonly string[];
  /** Each row's level, an index into `levels`. */
  readonly codes: Int32Array;
  /** True for a random intercept per group. */
  readonly intercept: boolean;
  /** The inputs with a random slope per group, and their values (n each, as in the CSV). */
  readonly slopes: readonly string[];
  readonly slopeValues: readonly Float64Array[];
}

/**
 * New rows' place in a random term, for predictions: each row's group as an index into the term's
 * training `levels` (−1 for a level the training rows do not have: a new group) and its values of the
 * term's slopes, as in the CSV.
 */
export interface NewRowsGroups {
  readonly codes: Int32Array;
  readonly slopeValues: readonly Float64Array[];
}

/** The design of a comparison: the candidate columns (no intercept), the target and the terms. */
export interface LinearDesign {
  /** n × P row-major candidate columns (a factor's dummies and interactions already expanded). */
  readonly X: Float64Array;
  /** The target, length n. */
  readonly y: Float64Array;
  readonly n: number;
  /** P, the number of candidate columns. */
  readonly columns: number;
  /** Names of the P columns. */
  readonly columnNames: readonly string[];
  /** The candidate terms; each owns a contiguous run of columns, in order (term 0 first). */
  readonly terms: readonly DesignTerm[];
}

/** A factor among the candidate terms: a text column, dummy-coded against its first level. */
export interface FactorSummary {
  /** The column's name. */
  name: string;
  /** Its levels (distinct texts), sorted. */
  levels: string[];
  /** The level the others are compared with (no column of its own). */
  reference: string;
}

/** The data of a comparison: a design over terms, the target's name and the factors among the terms. */
export interface LinearData {
  design: LinearDesign;
  targetName: string;
  factors: FactorSummary[];
}

/** One term per column, named after the columns: the terms of plain numeric inputs. */
export function columnTerms(names: readonly string[]): DesignTerm[] {
  return names.map((name, j) => ({ name, columns: [j], parents: [] }));
}

/** A numeric table as a design of one term per column (no factors). */
export function numericDesign(table: NumericTable): LinearData {
  return {
    design: {
      X: table.X,
      y: table.y,
      n: table.n,
      columns: table.p,
      columnNames: table.inputNames,
      terms: columnTerms(table.inputNames),
    },
    targetName: table.targetName,
    factors: [],
  };
}
