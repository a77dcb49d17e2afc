/**
 * The constants of the normal and related densities, in one home so that every density, proposal and
 * exact evidence shares the same doubles.
 */

/** log(2π), the normal density's constant per dimension. */
export const LOG_2PI = Math.log(2 * Math.PI);

/** ½ log(2π) = log √(2π). */
export const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

/** log π. */
export const LOG_PI = Math.log(Math.PI);

/** √(2π). */
export const SQRT_2PI = Math.sqrt(2 * Math.PI);
