/**
 * Part 2 of the Fabricius linear experiment, exact Bayes with the Normal–Gamma prior τ_w = ρτ (thesis
 * §6.2.2, Figures 6.4–6.5): the evidence of every subset, the winners and the model average.
 */
import { numericDesign } from "../../data/design.js";
import { studentTLogNormaliser } from "../../distributions/student-t.js";
import { logSumExp } from "../../math/logspace.js";
import { centredStatistics } from "../../models/linear/design.js";
import { maskMembers } from "../../models/linear/maximum-likelihood.js";
import { nigFamily } from "../../models/linear/nig-subsets.js";
import type { DataSet, Settings } from "./data.js";

/** A Gamma prior on the noise precision τ of the exact-Bayes part (β a scale, as the thesis's §6.2). */
export interface NoisePrior {
  readonly name: string;
  readonly alpha: number;
  readonly beta: number;
}

/**
 * The two priors of Figures 6.4–6.5. The thesis shows them only in the figures' panels c and d; the
 * text says one is "very vague approaching the non informative Jeffrey prior" and the other "more
 * constrained … we do not expect that large or low noise levels". These values are occam's choice:
 * α = 10⁻³, β = 10³ (mean precision 1, nearly 1/τ), and α = 5, β = 20 (mean precision 100 = 1/σ_true²,
 * coefficient of variation 45 %).
 */
export const NOISE_PRIORS: readonly NoisePrior[] = Object.freeze([
  { name: "vague", alpha: 1e-3, beta: 1e3 },
  { name: "constrained", alpha: 5, beta: 20 },
]);

/** The exact-Bayes results at one (prior, ρ). */
export interface NigResult {
  readonly prior: string;
  readonly rho: number;
  /** Mean log evidence of the nested models k = 1 … p (Figure 6.4). */
  readonly meanLogEvidence: readonly number[];
  /** Mean test log predictive density of the nested models (Figure 6.5). */
  readonly meanLogPredictive: readonly number[];
  /** Fraction of data sets whose highest-evidence nested model is the true one. */
  readonly rightNested: number;
  /** Fraction whose highest-evidence subset of all 2^p is the true one. */
  readonly rightAllSubsets: number;
  /** Mean posterior probability (uniform prior over all 2^p subsets) of the winner and of the truth. */
  readonly meanWinnerProbability: number;
  readonly meanTrueProbability: number;
  /** Mean number of inputs of the winning subset. */
  readonly meanWinnerInputs: number;
  /** Mean test log predictive density of the model average over all subsets. */
  readonly averageLogPredictive: number;
  /** Mean test log predictive density of the winning subset. */
  readonly winnerLogPredictive: number;
}

/**
 * Part 2, exact Bayes with the NIG prior τ_w = ρτ (Figures 6.4–6.5): for each noise prior and ρ, the
 * evidence of every subset on every data set, the winners and the model average's test log predictive.
 */
export function exactBayesSelections(
  data: readonly DataSet[],
  s: Settings,
  noisePriors: readonly NoisePrior[],
  nigRhoGrid: Float64Array,
  nested: Uint32Array,
  progress: (step: string) => void,
): NigResult[] {
  const { reps, n, p, q } = s;
  const trueMask = 2 ** q - 1;
  const nigResults: NigResult[] = [];
  const inputNames = Array.from({ length: p }, (_, j) => `x${j + 1}`);
  const logW = new Float64Array(2 ** p);
  const mix = new Float64Array(2 ** p);
  for (const prior of noisePriors) {
    for (const rho of nigRhoGrid) {
      progress(`exact Bayes, ${prior.name} prior, ρ = ${rho}`);
      const acc = {
        ev: new Float64Array(p),
        lp: new Float64Array(p),
        rightNested: 0,
        rightAll: 0,
        winnerProb: 0,
        trueProb: 0,
        winnerInputs: 0,
        avgLp: 0,
        winnerLp: 0,
      };
      for (const d of data) {
        // w | τ ~ N(0, (ρτ)⁻¹I), τ ~ Gamma(α, scale β)  ⇔  w | σ² ~ N(0, σ²/ρ I), σ² ~ IG(α, 1/β).
        const { design } = numericDesign({ X: d.X, y: d.y, n, p, inputNames, targetName: "y" });
        const family = nigFamily(design, centredStatistics(design), {
          intercept: false,
          standardize: false,
          v: 1 / rho,
          a: prior.alpha,
          b: 1 / prior.beta,
        });
        const le = new Float64Array(2 ** p);
        family.enumerate(p, (view) => {
          le[view.mask] = view.score;
        });
        const familyPredictive = family.predictive as NonNullable<typeof family.predictive>;
        // The NIG predictive is one Student-t.
        const predictive = (members: ArrayLike<number>, X: ArrayLike<number>, m: number) =>
          familyPredictive(members, X, m)[0].predictive;
        let bestNested = 0;
        for (let k = 1; k <= p; k++) {
          const mask = nested[k - 1];
          acc.ev[k - 1] += le[mask];
          if (le[mask] > le[nested[bestNested]]) bestNested = k - 1;
          acc.lp[k - 1] += meanLogPredictive(predictive(maskMembers(mask), d.Xt, s.m), d.yt);
        }
        if (nested[bestNested] === trueMask) acc.rightNested++;
        const total = logSumExp(le);
        let winner = 0;
        for (let mask = 1; mask < le.length; mask++) if (le[mask] > le[winner]) winner = mask;
        if (winner === trueMask) acc.rightAll++;
        acc.winnerProb += Math.exp(le[winner] - total);
        acc.trueProb += Math.exp(le[trueMask] - total);
        acc.winnerInputs += maskMembers(winner).length;
        acc.winnerLp += meanLogPredictive(predictive(maskMembers(winner), d.Xt, s.m), d.yt);
        // Model average: Σ_S p(S | D) t_S(y), over the subsets with weight > 10⁻⁸ of the winner's.
        const kept: number[] = [];
        for (let mask = 0; mask < le.length; mask++) {
          if (le[mask] - le[winner] > Math.log(1e-8)) kept.push(mask);
        }
        for (let i = 0; i < kept.length; i++) logW[i] = le[kept[i]];
        const norm = logSumExp(logW, 0, kept.length);
        const preds = kept.map((mask) => predictive(maskMembers(mask), d.Xt, s.m));
        const constant = studentTLogNormaliser(preds[0].dof); // every subset has ν = 2α + N
        let sum = 0;
        for (let t = 0; t < s.m; t++) {
          for (let i = 0; i < kept.length; i++) {
            const z = (d.yt[t] - preds[i].location[t]) / preds[i].scale[t];
            mix[i] =
              logW[i] -
              norm +
              constant -
              Math.log(preds[i].scale[t]) -
              0.5 * (preds[i].dof + 1) * Math.log1p((z * z) / preds[i].dof);
          }
          sum += logSumExp(mix, 0, kept.length);
        }
        acc.avgLp += sum / s.m;
      }
      nigResults.push({
        prior: prior.name,
        rho,
        meanLogEvidence: Array.from(acc.ev, (v) => v / reps),
        meanLogPredictive: Array.from(acc.lp, (v) => v / reps),
        rightNested: acc.rightNested / reps,
        rightAllSubsets: acc.rightAll / reps,
        meanWinnerProbability: acc.winnerProb / reps,
        meanTrueProbability: acc.trueProb / reps,
        meanWinnerInputs: acc.winnerInputs / reps,
        averageLogPredictive: acc.avgLp / reps,
        winnerLogPredictive: acc.winnerLp / reps,
      });
    }
  }

  return nigResults;
}

/** The mean log density of y under a Student-t predictive (one location and scale per row). */
function meanLogPredictive(
  pred: { dof: number; location: Float64Array; scale: Float64Array },
  y: Float64Array,
): number {
  const constant = studentTLogNormaliser(pred.dof);
  let s = 0;
  for (let t = 0; t < y.length; t++) {
    const z = (y[t] - pred.location[t]) / pred.scale[t];
    s += constant - Math.log(pred.scale[t]) - 0.5 * (pred.dof + 1) * Math.log1p((z * z) / pred.dof);
  }
  return s / y.length;
}
