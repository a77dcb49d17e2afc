import { describe, expect, it } from "vitest";
import { parseCsv } from "../../../src/data/csv.js";
import {
  classifierTable,
  encodeClassifierTable,
  standardizeClassifierInputs,
  stratifiedFolds,
} from "../../../src/models/classifiers/data.js";
import { createRng } from "../../../src/random/rng.js";

const train = parseCsv("x,colour,y\n1,red,a\n2,blue,b\n3,green,a\n4,red,b\n5,blue,a\n");

describe("classifier tables", () => {
  it("expands a declared factor into indicators of every level but the first", () => {
    const { data, encoding } = classifierTable(train, { target: "y", factors: ["colour"] });
    expect(data.inputNames).toEqual(["x", "colour=green", "colour=red"]);
    expect(data.classNames).toEqual(["a", "b"]);
    expect(Array.from(data.X.subarray(0, 3))).toEqual([1, 0, 1]);
    expect(Array.from(data.X.subarray(3, 6))).toEqual([2, 0, 0]);
    const test = encodeClassifierTable(parseCsv("x,colour,y\n9,green,b\n"), encoding, "test.csv");
    expect(Array.from(test.X)).toEqual([9, 1, 0]);
    expect(Array.from(test.labels)).toEqual([1]);
  });

  it("refuses a single class, an unseen class or level, and a non-numeric input that is not a factor", () => {
    expect(() => classifierTable(parseCsv("x,y\n1,a\n2,a\n"), { target: "y", source: "t.csv" })).toThrow(
      /single class "a"/,
    );
    const { encoding } = classifierTable(train, { target: "y", factors: ["colour"] });
    expect(() => encodeClassifierTable(parseCsv("x,colour,y\n1,red,c\n"), encoding, "test.csv")).toThrow(
      /class "c" is absent from the training data/,
    );
    expect(() => encodeClassifierTable(parseCsv("x,colour,y\n1,pink,a\n"), encoding, "test.csv")).toThrow(
      /level "pink" is absent/,
    );
    expect(() => classifierTable(train, { target: "y" })).toThrow(
      /"red" is not a number\. Declare the column a factor \(--factors colour\)/,
    );
    expect(() => classifierTable(train, { target: "y", factors: ["nope"] })).toThrow(/Unknown column "nope"/);
  });

  it("standardises test rows by the training rows' scale", () => {
    const { data, encoding } = classifierTable(train, { target: "y", factors: ["colour"] });
    const test = encodeClassifierTable(parseCsv("x,colour,y\n3,red,a\n"), encoding);
    const s = standardizeClassifierInputs(data, test);
    expect(s.means[0]).toBe(3);
    expect(s.test?.X[0]).toBe(0);
    expect(s.train.X[0]).toBeCloseTo(-2 / Math.sqrt(2.5), 12);
  });
});

describe("stratifiedFolds", () => {
  it("partitions the rows and puts every class in every fold when it has as many rows as folds", () => {
    const labels = Int32Array.from({ length: 53 }, (_, i) => (i < 40 ? 0 : i < 48 ? 1 : 2));
    const folds = stratifiedFolds(labels, 3, 5, createRng(4));
    const all = folds.flatMap((f) => Array.from(f)).sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 53 }, (_, i) => i));
    const sizes = folds.map((f) => f.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    for (const fold of folds) {
      const classes = new Set(Array.from(fold, (r) => labels[r]));
      expect(classes.has(0) && classes.has(1) && classes.has(2)).toBe(true);
    }
  });
});
