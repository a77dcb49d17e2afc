import { describe, expect, it } from "vitest";
import { parseFormula } from "../../src/data/formula.js";

describe("parseFormula", () => {
  it("reads main effects, products with their margins, interactions and removals", () => {
    const f = parseFormula("y ~ a*b + c - a:b + `odd name`");
    expect(f.target).toBe("y");
    expect(f.terms).toEqual([["a"], ["b"], ["c"], ["odd name"]]);
  });

  it("quotes the formula as the user wrote it in its errors", () => {
    expect(() => parseFormula("alcohol ~ ~ proline")).toThrow(
      'expected a column name at "~ proline" in "alcohol ~ ~ proline"',
    );
    expect(() => parseFormula("y ~ (a + b")).toThrow('expected ")" at "" in "y ~ (a + b"');
    expect(() => parseFormula("y ~ a b")).toThrow('unexpected "b" in "y ~ a b"');
    expect(() => parseFormula("y ~ a +")).toThrow('expected a column name at "the end"');
    expect(() => parseFormula("y ~ `a")).toThrow("has no closing backquote");
  });
});
