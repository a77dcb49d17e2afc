/**
 * The contract between a family of models over subsets of candidate terms and `selection/`, which
 * enumerates or samples subsets, turns scores into probabilities and averages: selection knows nothing
 * of priors or designs, and a family nothing of probabilities.
 *
 * A subset is a set of candidate terms (an input, a factor with its dummy columns, an interaction), given
 * as ascending term indices or, for enumeration, as a bit mask. A family's score of a subset is its log
 * evidence, or its log Bayes factor against the subset without terms when the prior gives only ratios:
 * either way differences of scores are log Bayes factors.
 */
import type { DesignTerm } from "../data/design.js";
import type { BayesModel } from "../model/model.js";

/** A candidate term of a family: what enters or leaves a model as a whole (see {@link DesignTerm}). */
export type FamilyTerm = DesignTerm;

/**
 * What a family shows of the current subset during an enumeration. One object is reused for every
 * subset: read it inside the callback and do not keep it.
 */
export interface FamilyView {
  /** Bit j set when term j is in the subset. */
  readonly mask: number;
  /** The number of terms. */
  readonly size: number;
  /** The subset's score (log evidence or log Bayes factor against the empty subset). */
  readonly score: number;
  /**
   * Writes the posterior mean and variance of each of the subset's design columns into `mean[c]` and
   * `variance[c]` (c: the family's column index), leaving the other entries alone. Costs O(k³): call it
   * only for subsets whose weight matters.
   */
  moments(mean: Float64Array, variance: Float64Array): void;
}

/** The Student-t predictive distributions of one model at m new rows. */
export interface StudentTPredictive {
  /** Degrees of freedom. */
  readonly dof: number;
  /** The predictive location at each new row. */
  readonly location: Float64Array;
  /** The predictive scale at each new row. */
  readonly scale: Float64Array;
}

/** One component of a model's predictive mixture: a Student-t and its weight (a model's weights sum to 1). */
export interface PredictiveComponent {
  readonly weight: number;
  readonly predictive: StudentTPredictive;
}

/** What a predictive is of: a new observation y, or the mean response E[y | x] (the regression line). */
export type PredictiveResponse = "observation" | "mean";

/** A family of models over subsets of candidate terms (see the module comment). */
export interface SubsetFamily {
  /** The candidate terms. */
  readonly terms: readonly FamilyTerm[];
  /** The names of the design columns (a factor's dummies are `column=level`). */
  readonly columnNames: readonly string[];
  /** True when scores are log evidences; false when they are log Bayes factors against the empty subset. */
  readonly givesEvidence: boolean;
  /** False when scores have no closed form (only `model` serves, for sampled estimators). */
  readonly exact: boolean;
  /** The score of one subset (ascending term indices). */
  score(members: ArrayLike<number>): number;
  /**
   * Calls `visit` once for every subset of at most `maxSize` terms (all of them by default; the terms
   * are at most 30), in an order of the family's choosing. Returns the number of subsets visited.
   * With every subset (`maxSize` = p), `steps` visits only the Gray-code steps `from` … `to − 1` (step t
   * is the subset of mask t ⊕ (t >> 1)): one block of an enumeration split into blocks.
   */
  enumerate(
    maxSize: number,
    visit: (view: FamilyView) => void,
    steps?: { readonly from: number; readonly to: number },
  ): number;
  /** {@link FamilyView.moments} for one subset (ascending term indices). */
  moments(members: ArrayLike<number>, mean: Float64Array, variance: Float64Array): void;
  /** R² of the least-squares fit of the subset (with an intercept when the family has one). */
  rSquared(members: ArrayLike<number>): number;
  /** The model of a subset for sampled evidence estimators; null when it has no parameters to sample. */
  model?(members: ArrayLike<number>): BayesModel | null;
  /**
   * The posterior predictive of a subset at the m rows of `Xnew` (m × columns, row-major), of a new
   * observation (the default) or of the mean response: a Student-t, or a mixture of them (a mixture of
   * g-priors: one per node of the posterior of g).
   */
  predictive?(
    members: ArrayLike<number>,
    Xnew: ArrayLike<number>,
    m: number,
    response?: PredictiveResponse,
  ): readonly PredictiveComponent[];
}
