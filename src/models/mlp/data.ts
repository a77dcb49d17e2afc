/** A regression data set for a network, and the checks of its shape and values. */
import { OccamError } from "../../errors.js";

/** A regression data set for a network: n cases of I inputs and O targets, row-major. */
export interface MlpData {
  /** Inputs, n × I row-major: X[r·I + i] is input i of case r. */
  readonly X: Float64Array;
  /** Targets, n × O row-major: Y[r·O + o] is target o of case r. */
  readonly Y: Float64Array;
  /** Number of cases. */
  readonly n: number;
  /** Number of inputs I. */
  readonly inputs: number;
  /** Number of targets O. */
  readonly outputs: number;
}

/**
 * Checks a data set's shape and values, naming `where` in the error: n, inputs and outputs positive
 * integers, X of length n·I and Y of length n·O, every value finite. Throws an `OccamError`.
 */
export function checkMlpData(data: MlpData, where: string): void {
  if (data === null || typeof data !== "object") {
    throw new OccamError("invalid-argument", `${where}: give data { X, Y, n, inputs, outputs }.`);
  }
  const { X, Y, n, inputs, outputs } = data;
  for (const [value, name] of [
    [n, "n"],
    [inputs, "inputs"],
    [outputs, "outputs"],
  ] as const) {
    if (!(Number.isInteger(value) && value >= 1)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: data.${name} must be an integer ≥ 1, got ${value}.`,
      );
    }
  }
  if (!(X instanceof Float64Array) || X.length !== n * inputs) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: data.X must be a Float64Array of length n·inputs = ${n * inputs}, got ${X instanceof Float64Array ? `length ${X.length}` : String(X)}.`,
    );
  }
  if (!(Y instanceof Float64Array) || Y.length !== n * outputs) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: data.Y must be a Float64Array of length n·outputs = ${n * outputs}, got ${Y instanceof Float64Array ? `length ${Y.length}` : String(Y)}.`,
    );
  }
  for (let k = 0; k < X.length; k++) {
    if (!Number.isFinite(X[k])) {
      throw new OccamError(
        "invalid-data",
        `${where}: input ${k % inputs} of case ${Math.floor(k / inputs)} is ${X[k]}; inputs must be finite.`,
      );
    }
  }
  for (let k = 0; k < Y.length; k++) {
    if (!Number.isFinite(Y[k])) {
      throw new OccamError(
        "invalid-data",
        `${where}: target ${k % outputs} of case ${Math.floor(k / outputs)} is ${Y[k]}; targets must be finite.`,
      );
    }
  }
}
