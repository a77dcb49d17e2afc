/**
 * The contract of a classifier family and the conditional model most families share.
 *
 * Every family answers one question: the probability of the labels given the inputs, p(y | X, M), so
 * that discriminative families (logistic, RBF, network) and generative ones used as classifiers (the
 * mixture) are compared on the same data. A family whose labels are independent given its parameters
 * writes its likelihood as ∏_i p(y_i | x_i, θ) and is a `SubsettableModel`, so that occam's
 * cross-validated evidence estimates log p(y | X, M) by the chain rule over folds. Such a family only
 * says how its logits depend on θ (a {@link LogitFunction}); {@link conditionalClassifier} turns that
 * into the model: the softmax likelihood, its gradient by backpropagation, the pointwise terms, the
 * subsets and the predictive. (The probabilistic k-NN family, whose labels are not independent given
 * its parameters, implements {@link ClassifierModel} itself; see pknn.ts.)
 */
import { OccamError } from "../../errors.js";
import type { EvidenceEstimate } from "../../evidence/result.js";
import { type BayesModel, defineModel, type ParameterBounds } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "../mixture-classifier/data.js";

/**
 * The part of a conditional classifier that differs between families: its parameters, their prior,
 * and the K logits η(x; θ) with p(y = k | x, θ) = e^{η_k} / Σ_c e^{η_c}. Evaluation is stateful and
 * sequential: `prepare(θ)` unpacks θ, then for each row `logits` and (for gradients) `accumulate`,
 * then `writeGradient`. One object serves a model and all its subsets, never two evaluations at once.
 */
export interface LogitFunction {
  /** The family's name, e.g. "logistic". */
  readonly family: string;
  readonly dim: number;
  readonly names: readonly string[];
  /** Number of classes K. */
  readonly classes: number;
  /** Number of inputs p (the row length of X). */
  readonly inputs: number;
  readonly bounds?: ParameterBounds;
  /** HMC's target acceptance for this family's posteriors (see `BayesModel.hmcTargetAccept`). */
  readonly hmcTargetAccept?: number;
  /** HMC's trajectory length for this family's posteriors (see `BayesModel.hmcTrajectoryLength`). */
  readonly hmcTrajectoryLength?: number;
  /** HMC's most steps a trajectory of this family's posteriors (see `BayesModel.hmcMaxSteps`). */
  readonly hmcMaxSteps?: number;
  /** log p(θ), normalised. */
  logPrior(theta: Float64Array): number;
  /** Writes ∇ log p(θ) into `grad` and returns log p(θ). */
  gradLogPrior(theta: Float64Array, grad: Float64Array): number;
  samplePrior(rng: Rng): Float64Array;
  /** Unpacks θ for the rows that follow and zeroes the gradient accumulator. */
  prepare(theta: Float64Array): void;
  /** Writes the K logits at the input row X[offset … offset + p) into `eta`. */
  logits(X: Float64Array, offset: number, eta: Float64Array): void;
  /**
   * Optional, for a family whose class probabilities cost less than its logits (the mixture's are
   * ratios of mixture densities, without a logarithm per class): what `logits` followed by
   * {@link logSoftmax} does, the same numbers up to rounding. Returns log p(y = label | x, θ), writes the
   * K probabilities into `prob` when it is given, and leaves what `accumulate` needs, as `logits` does.
   */
  logProbability?(X: Float64Array, offset: number, label: number, prob: Float64Array | null): number;
  /** After `logits` on the same row: accumulates Σ_k dEta[k] ∂η_k/∂θ. */
  accumulate(X: Float64Array, offset: number, dEta: Float64Array): void;
  /** Writes the accumulated gradient, with respect to θ itself, into `grad`. */
  writeGradient(theta: Float64Array, grad: Float64Array): void;
}

/** What the chain-rule evidence of a family that estimates it itself takes (see pknn.ts). */
export interface ChainRuleSettings {
  /** The folds: index arrays partitioning the training rows; the first is predicted from the prior. */
  readonly partition: readonly Int32Array[];
  /** Posterior draws per conditioning set, over all chains. */
  readonly draws: number;
  readonly chains: number;
  readonly warmup: number;
  readonly rng: Rng;
}

/**
 * A classifier family on its training data: a {@link BayesModel} whose likelihood is a probability of
 * the labels given the inputs, with the predictive p(y | x, θ) at new inputs.
 */
export interface ClassifierModel extends BayesModel {
  /** The family's name. */
  readonly family: string;
  /** Number of classes K. */
  readonly classes: number;
  /** The training data (inputs standardised), all rows, whatever the subset. */
  readonly data: ClassificationData;
  /** Number of training rows n. */
  readonly nObservations: number;
  /**
   * Writes log p(y_i | x_i, θ) for each training row i into `out` (length n): the likelihood's
   * terms, or for a pseudo-likelihood (pknn) its conditionals, each given all other rows.
   */
  logLikelihoodPointwise(theta: Float64Array, out: Float64Array): void;
  /** Writes log p(y = c | x_r, θ) for the m rows of X (m × p, standardised like the training rows) into out (m × K). */
  logPredictive(theta: Float64Array, X: Float64Array, m: number, out: Float64Array): void;
  /**
   * log p(y | X, M) by the chain rule over `settings.partition` (or, with `form` "k-fold", Everson's
   * G-fold product), for a family whose likelihood is not a product over rows, which then cannot be a
   * `SubsettableModel`. Absent for the conditional families.
   */
  chainRuleEvidence?(settings: ChainRuleSettings, form?: "chain-rule" | "k-fold"): EvidenceEstimate;
  /** The same quantity computed without sampling, where the family allows (pknn: quadrature). */
  exactChainRule?(partition: readonly Int32Array[], form?: "chain-rule" | "k-fold"): EvidenceEstimate;
  /** A short description of the model (its size), for reports. */
  readonly summary: string;
}

/** A {@link ClassifierModel} whose labels are independent given θ: a `SubsettableModel` too. */
export interface ConditionalClassifier extends ClassifierModel {
  /** The training rows this model's likelihood covers. */
  readonly rows: Int32Array;
  /** The same prior with the likelihood of only the listed training rows. */
  subset(observations: Int32Array): ConditionalClassifier;
}

/**
 * log p(y = label | η) for the logits η[0 … K) and, when `prob` is given, writes the K probabilities
 * into it. Shifted by the largest logit, so that no exponential overflows.
 */
export function logSoftmax(eta: Float64Array, K: number, label: number, prob: Float64Array | null): number {
  let max = eta[0];
  for (let k = 1; k < K; k++) if (eta[k] > max) max = eta[k];
  let sum = 0;
  for (let k = 0; k < K; k++) {
    const e = Math.exp(eta[k] - max);
    if (prob !== null) prob[k] = e;
    sum += e;
  }
  if (prob !== null) for (let k = 0; k < K; k++) prob[k] /= sum;
  return eta[label] - max - Math.log(sum);
}

/**
 * A log density that could not be evaluated (NaN: an exponential that overflowed far out in a tail,
 * where an HMC trajectory may wander) is a point of zero density: HMC ends the trajectory there
 * instead of failing, as it does at −Infinity.
 */
function orZero(value: number): number {
  return Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value;
}

/** The value, or −Infinity (with a zero gradient) where the value or a gradient entry is not finite. */
function checkedGradient(value: number, grad: Float64Array): number {
  let bad = !(value > Number.NEGATIVE_INFINITY && value < Number.POSITIVE_INFINITY);
  for (let j = 0; j < grad.length && !bad; j++) bad = !Number.isFinite(grad[j]);
  if (!bad) return value;
  grad.fill(0);
  return Number.NEGATIVE_INFINITY;
}

/**
 * The most leapfrog steps of a trajectory in the posterior chains of the families whose posteriors
 * have separated modes (rbf, mixture, mlp). On many inputs these posteriors are stiff as well (an
 * adapted step size of 0.007–0.009 in the adapted metric: rbf and mixture on the 30 inputs of the
 * breast-cancer data), so that trajectories of π/2 took 200–290 steps, and one family's chains given
 * all rows 174–212 s, to end in different modes (R-hat 1.2–4). Capped at 32 steps, each family's run
 * there took 13.7–21.6 s (two runs) and failed the same checks; where these chains pass (the simulated
 * data of the tests), their trajectories take 6–15 steps, below the cap.
 */
export const MULTIMODAL_HMC_MAX_STEPS = 32;

/**
 * The conditional classifier of a {@link LogitFunction} on training data: prior from the family,
 * likelihood Σ_{i ∈ rows} log softmax(η(x_i; θ))_{y_i}, its gradient (Σ_i (e_{y_i} − p_i) backpropagated
 * through η), the pointwise terms over all n rows, subsets and the predictive. `rows` defaults to all
 * rows. The result is checked by `defineModel` at a few prior draws and frozen.
 */
export function conditionalClassifier(
  net: LogitFunction,
  data: ClassificationData,
  rows?: Int32Array,
  summary = "",
): ConditionalClassifier {
  const K = net.classes;
  const p = net.inputs;
  if (data.p !== p || data.classNames.length !== K) {
    throw new OccamError(
      "dimension-mismatch",
      `${net.family}: the data have ${data.p} inputs and ${data.classNames.length} classes, the model ${p} and ${K}.`,
    );
  }
  const { X, labels, n } = data;
  const own = rows ?? Int32Array.from({ length: n }, (_, i) => i);
  const eta = new Float64Array(K);
  const prob = new Float64Array(K);
  /** log p(y = label | x, θ) at the row Xs[offset … offset + p), after `net.prepare`; see `logProbability`. */
  const logProbability =
    net.logProbability === undefined
      ? (Xs: Float64Array, offset: number, label: number, out: Float64Array | null): number => {
          net.logits(Xs, offset, eta);
          return logSoftmax(eta, K, label, out);
        }
      : net.logProbability.bind(net);
  const likelihood = (theta: Float64Array): number => {
    net.prepare(theta);
    let value = 0;
    for (let t = 0; t < own.length; t++) {
      const r = own[t];
      value += logProbability(X, r * p, labels[r], null);
    }
    return value;
  };
  const model: ConditionalClassifier = {
    family: net.family,
    classes: K,
    data,
    rows: own,
    nObservations: n,
    dim: net.dim,
    names: net.names,
    summary,
    ...(net.bounds === undefined ? {} : { bounds: net.bounds }),
    ...(net.hmcTargetAccept === undefined ? {} : { hmcTargetAccept: net.hmcTargetAccept }),
    ...(net.hmcTrajectoryLength === undefined ? {} : { hmcTrajectoryLength: net.hmcTrajectoryLength }),
    ...(net.hmcMaxSteps === undefined ? {} : { hmcMaxSteps: net.hmcMaxSteps }),
    logPrior: (theta) => orZero(net.logPrior(theta)),
    gradLogPrior: (theta, grad) => checkedGradient(net.gradLogPrior(theta, grad), grad),
    samplePrior: (rng) => net.samplePrior(rng),
    logLikelihood: (theta) => orZero(likelihood(theta)),
    gradLogLikelihood(theta, grad) {
      net.prepare(theta);
      let value = 0;
      for (let t = 0; t < own.length; t++) {
        const r = own[t];
        const y = labels[r];
        value += logProbability(X, r * p, y, prob);
        // ∂ log p_y / ∂η_k = [k = y] − p_k.
        for (let k = 0; k < K; k++) prob[k] = (k === y ? 1 : 0) - prob[k];
        net.accumulate(X, r * p, prob);
      }
      net.writeGradient(theta, grad);
      return checkedGradient(value, grad);
    },
    logLikelihoodPointwise(theta, out) {
      net.prepare(theta);
      for (let r = 0; r < n; r++) out[r] = logProbability(X, r * p, labels[r], null);
    },
    logPredictive(theta, Xnew, m, out) {
      net.prepare(theta);
      for (let r = 0; r < m; r++) {
        logProbability(Xnew, r * p, 0, prob);
        for (let k = 0; k < K; k++) out[r * K + k] = Math.log(prob[k]);
      }
    },
    subset: (observations) => conditionalClassifier(net, data, Int32Array.from(observations), summary),
  };
  return defineModel(model, { checkDraws: 2 });
}
