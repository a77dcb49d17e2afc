import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { numericTable } from "../../../src/data/csv.js";
import { readCsv } from "../../../src/data/csv-file.js";
import { nigRegression } from "../../../src/models/linear/nig.js";
import { nigFamilyOf } from "../../support/nig.js";

interface Reference {
  target: string;
  models: { v: number; a: number; b: number; inputs: string[]; logEvidence: string }[];
}

// Made by fixtures/nig-reference.py: the Student-t marginal in 50-digit arithmetic (mpmath), through
// q × q matrices and Woodbury rather than occam's whitened Cholesky route.
const reference = JSON.parse(
  readFileSync(new URL("./fixtures/nig-wine-reference.json", import.meta.url), "utf8"),
) as Reference;
const data = numericTable(readCsv(new URL("../../../examples/wine-alcohol.csv", import.meta.url).pathname), {
  target: reference.target,
});
const column = (name: string) => data.inputNames.indexOf(name);

describe("exact NIG evidence on the raw wine data against a 50-digit reference", () => {
  it("covers small, large and full subsets under two priors", () => {
    expect(reference.models.length).toBeGreaterThanOrEqual(200);
    expect(new Set(reference.models.map((m) => m.v)).size).toBe(2);
  });

  it("nigFamily (the enumerator's factor of the centred statistics) agrees to 1e-9 relative on every subset", () => {
    let worst = 0;
    for (const m of reference.models) {
      const nig = nigFamilyOf(data.X, data.y, data.n, data.p, { intercept: true, v: m.v, a: m.a, b: m.b });
      const exact = Number(m.logEvidence);
      const mine = nig.score(m.inputs.map(column));
      worst = Math.max(worst, Math.abs(mine - exact) / Math.abs(exact));
    }
    expect(worst).toBeLessThan(1e-9);
  });

  it("nigRegression on the subset's design [1, X_S] agrees to 1e-9 relative", () => {
    let worst = 0;
    for (const m of reference.models) {
      const columns = m.inputs.map(column);
      const q = columns.length + 1;
      const X = new Float64Array(data.n * q);
      for (let i = 0; i < data.n; i++) {
        X[i * q] = 1;
        columns.forEach((j, c) => {
          X[i * q + c + 1] = data.X[i * data.p + j];
        });
      }
      const model = nigRegression({ X, y: data.y, n: data.n, p: q, v: m.v, a: m.a, b: m.b });
      const exact = Number(m.logEvidence);
      worst = Math.max(worst, Math.abs(model.exactLogEvidence() - exact) / Math.abs(exact));
    }
    expect(worst).toBeLessThan(1e-9);
  });
});
