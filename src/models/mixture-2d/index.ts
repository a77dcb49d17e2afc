/** Barber & Bishop's check: an unnormalised mixture of two non-isotropic 2-D Gaussians with known mass. */
export * from "./model.js";
