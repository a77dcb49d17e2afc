/** The conjugate gaussian-mean model: known-variance Gaussian observations with a Gaussian prior on the mean. */
export * from "./model.js";
