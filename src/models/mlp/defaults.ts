/**
 * The defaults of fitting a Bayesian network (`sampleBayesianMlp`, `predictBayesianMlp`,
 * `fitBayesianMlp`), in a module of their own so that `occam fit-mlp`'s help can show them without
 * loading the sampler.
 */
export const MLP_FIT_DEFAULTS = Object.freeze({
  /** Draws kept after warm-up. */
  draws: 200,
  /** Warm-up sweeps (the step size's adaptation). */
  warmup: 500,
  /** Probability of the predictive intervals. */
  level: 0.9,
});
