import { InvalidArgumentError } from "commander";
import { OccamError } from "../errors.js";

/** A commander parser for a finite number > 0; `name` is the option, for the message. */
export function positiveNumber(name: string): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!(Number.isFinite(value) && value > 0)) {
      throw new InvalidArgumentError(`${name} must be a number > 0, got "${text}".`);
    }
    return value;
  };
}

/** A commander parser for a whole number ≥ `min`. */
export function wholeNumber(name: string, min = 1): (text: string) => number {
  return (text) => {
    if (!/^\d+$/.test(text) || Number(text) < min) {
      throw new InvalidArgumentError(`${name} must be a whole number ≥ ${min}, got "${text}".`);
    }
    return Number(text);
  };
}

/** A commander parser for a number strictly between 0 and 1. */
export function openUnitInterval(name: string): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!(value > 0 && value < 1))
      throw new InvalidArgumentError(`${name} must lie in (0, 1), got "${text}".`);
    return value;
  };
}

/** Parses a seed given on the command line: an integer in [0, 2^32 − 1]. */
export function parseSeed(text: string): number {
  const seed = Number(text);
  if (!(/^\d+$/.test(text) && seed <= 0xffffffff)) {
    throw new InvalidArgumentError(`the seed must be an integer from 0 to 4294967295, got "${text}".`);
  }
  return seed;
}

/** Splits a comma-separated list of column names (`--inputs a,b,c`), refusing an empty name. */
export function columnList(text: string, flag: string): string[] {
  const names = text.split(",").map((s) => s.trim());
  if (names.some((s) => s === "")) {
    throw new OccamError("invalid-argument", `${flag} takes comma-separated column names, got "${text}".`);
  }
  return names;
}
