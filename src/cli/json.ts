import { OccamError } from "../errors.js";

/**
 * Serialises a result as indented JSON after checking that every number in it is finite:
 * JSON.stringify would print NaN and ±Infinity as null, silently, and occam never prints a number it
 * does not trust. Intentional absences are `null` in the result itself.
 */
export function checkedJson(value: unknown): string {
  return JSON.stringify(
    value,
    (key, v) => {
      if (typeof v === "number" && !Number.isFinite(v)) {
        throw new OccamError(
          "internal",
          `the result field "${key}" is ${v}; refusing to print an untrustworthy number.`,
        );
      }
      return v;
    },
    2,
  );
}
