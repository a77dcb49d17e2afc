/**
 * The argument checks the conjugate regressions share: the design's size, and arrays of finite numbers.
 */
import { invalidArgument, OccamError } from "../../errors.js";

/** Throws unless n and p are positive integers (`where`: the function's name, for the message). */
export function checkRegressionSize(where: string, n: number, p: number): void {
  if (!(Number.isInteger(n) && n >= 1))
    throw invalidArgument(where, `n must be a positive integer, got ${n}.`);
  if (!(Number.isInteger(p) && p >= 1))
    throw invalidArgument(where, `p must be a positive integer, got ${p}.`);
}

/**
 * A copy of `values` as a Float64Array of `length` finite numbers; a missing array is an
 * `invalid-argument`, a wrong length a `dimension-mismatch`, a non-finite entry `code`.
 */
export function finiteArray(
  where: string,
  values: ArrayLike<number> | undefined,
  length: number,
  name: string,
  code: "invalid-data" | "invalid-argument" = "invalid-data",
): Float64Array {
  if (values === undefined || values === null || typeof values !== "object") {
    throw invalidArgument(where, `${name} must be an array of ${length} numbers.`);
  }
  if (values.length !== length) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: ${name} has length ${values.length}, expected ${length}.`,
    );
  }
  const out = Float64Array.from(values);
  for (let i = 0; i < length; i++) {
    if (!Number.isFinite(out[i])) {
      throw new OccamError(code, `${where}: ${name}[${i}] is ${out[i]}; every value must be finite.`);
    }
  }
  return out;
}
