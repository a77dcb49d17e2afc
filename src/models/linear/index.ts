/** Bayesian linear regression: the conjugate Normal–Inverse-Gamma model (Everson et al. eqs. 10–17). */

export * from "./g-prior.js";
export * from "./nig.js";
export * from "./zellner-siow.js";
