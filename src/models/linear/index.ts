/** Bayesian linear regression: the conjugate Normal–Inverse-Gamma model (Everson et al. eqs. 10–17), g-priors, and the thesis's model with independent noise and weight precisions (Fabricius §6.2.3). */

export * from "./g-prior.js";
export * from "./independent.js";
export * from "./maximum-likelihood.js";
export * from "./nig.js";
export * from "./zellner-siow.js";
