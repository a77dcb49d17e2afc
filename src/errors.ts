/**
 * Error codes of occam. Every code but `internal` means the caller gave something wrong (the CLI exits
 * 2): bad arguments or data, or, with `model-error`, a user's model whose own code threw; `internal` is
 * occam's own fault (the CLI exits 1).
 */
export type OccamErrorCode =
  | "invalid-argument"
  | "dimension-mismatch"
  | "non-finite"
  | "not-positive-definite"
  | "invalid-data"
  | "aborted"
  | "model-error"
  | "internal";

/**
 * The one error type occam throws. The message says what was wrong, where, and what to do.
 */
export class OccamError extends Error {
  /** A machine-readable classification of the failure. */
  readonly code: OccamErrorCode;

  constructor(code: OccamErrorCode, message: string) {
    super(message);
    this.name = "OccamError";
    this.code = code;
  }

  /** True when the caller, not occam, is at fault: bad arguments, bad data, a bad model. */
  get isUserError(): boolean {
    return this.code !== "internal";
  }
}

/**
 * An `invalid-argument` OccamError whose message starts with `where` (the function or option at
 * fault), unless `where` is empty.
 */
export function invalidArgument(where: string, message: string): OccamError {
  return new OccamError("invalid-argument", where === "" ? message : `${where}: ${message}`);
}

/** An `invalid-data` OccamError: the data, not an argument, is wrong. */
export function invalidData(message: string): OccamError {
  return new OccamError("invalid-data", message);
}

/** Throws an `invalid-argument` OccamError unless `condition` holds. */
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new OccamError("invalid-argument", message);
}

/** Checks that `value` is a finite number, naming it in the error otherwise. */
export function checkFinite(value: number, name: string): void {
  if (!Number.isFinite(value)) {
    throw new OccamError("invalid-argument", `${name} must be a finite number, got ${value}.`);
  }
}

/** Checks that `value` is a finite number greater than zero. */
export function checkPositive(value: number, name: string): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new OccamError("invalid-argument", `${name} must be a finite number greater than 0, got ${value}.`);
  }
}

/** Checks that `value` is an integer of at least `min`. */
export function checkInteger(value: number, name: string, min = 0): void {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new OccamError("invalid-argument", `${name} must be an integer of at least ${min}, got ${value}.`);
  }
}

/** Names as a message lists them: "a", "a and b", "a, b and c" (or "a, b or c"). */
export function wordList(names: readonly string[], conjunction: "and" | "or" = "and"): string {
  return names.length < 2
    ? names.join("")
    : `${names.slice(0, -1).join(", ")} ${conjunction} ${names[names.length - 1]}`;
}
