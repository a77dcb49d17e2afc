/** One-hidden-layer tanh networks: the network, the Bayesian model and sampler, ML fits and evidence. */
export * from "./bayesian.js";
export * from "./data.js";
export * from "./ensemble/evidence.js";
export * from "./ensemble/fit.js";
export type { EnsembleMlpOptions } from "./ensemble/options.js";
export * from "./ensemble/prediction.js";
export * from "./evidence-framework.js";
export * from "./fit.js";
export * from "./kernel.js";
export * from "./maximum-likelihood.js";
export * from "./network.js";
export * from "./prediction.js";
export * from "./sampling.js";
export * from "./sum-of-squares.js";
export * from "./tanh.js";
export * from "./temperature-sweep.js";
