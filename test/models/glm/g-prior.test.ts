import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../../src/errors.js";
import { glmOutcome } from "../../../src/models/glm/family.js";
import { type GMixtureName, glmGPriorEvidence } from "../../../src/models/glm/g-prior.js";
import { createRng } from "../../../src/random/rng.js";

/** Reference log evidences from numpy, integrated in another order (fixtures/g-prior-references.py). */
const references = JSON.parse(
  readFileSync(new URL("./fixtures/g-prior-references.json", import.meta.url), "utf8"),
) as { models: { prior: string; inputs: string[]; logZ: number; stdErr: number }[] };

const [header, ...lines] = readFileSync(
  new URL("../../../examples/real-models/pima.csv", import.meta.url),
  "utf8",
)
  .trim()
  .split("\n");
const names = header.split(",");
const rows = lines.map((line) => line.split(","));
const n = rows.length;
const y = Float64Array.from(rows, (r) => (r[names.indexOf("type")] === "Yes" ? 1 : 0));
const outcome = glmOutcome("bernoulli", "logit", y);

/** Pima's design on `inputs` (standardised, n − 1), an intercept first; `scale` multiplies one input. */
function design(inputs: readonly string[], scale: { input?: string; by?: number } = {}) {
  const k = inputs.length + 1;
  const X = new Float64Array(n * k);
  inputs.forEach((name, j) => {
    const x = rows.map((r) => Number(r[names.indexOf(name)]));
    const mean = x.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    const by = scale.input === name ? (scale.by as number) : 1;
    for (let i = 0; i < n; i++) X[i * k + j + 1] = ((x[i] - mean) / sd) * by;
  });
  for (let i = 0; i < n; i++) X[i * k] = 1;
  return { X, n, k };
}

describe("glmGPriorEvidence", () => {
  it("gives Pima's logistic regressions under the robust and hyper-g/n priors within max(0.01, 3 s.e.) of numpy's references", () => {
    expect(references.models.length).toBeGreaterThanOrEqual(7);
    for (const ref of references.models) {
      const mixture = (ref.prior === "hyper-g/n" ? "hyper-g-n" : ref.prior) as GMixtureName;
      const e = glmGPriorEvidence(design(ref.inputs), outcome, { mixture, rng: createRng(7) });
      const tolerance = Math.max(0.01, 3 * Math.hypot(e.stdErr, ref.stdErr));
      expect(Math.abs(e.logZ - ref.logZ), `${ref.prior} ${ref.inputs.join(", ")}`).toBeLessThan(tolerance);
      expect(e.reliable).toBe(true);
      expect(e.stdErr).toBeLessThan(0.006);
    }
  });

  it("does not depend on the inputs' units: an input a thousand times larger leaves the evidence as it was", () => {
    const inputs = ["glu", "bmi", "age"];
    const plain = glmGPriorEvidence(design(inputs), outcome, { rng: createRng(3) });
    const scaled = glmGPriorEvidence(design(inputs, { input: "bmi", by: 1000 }), outcome, {
      rng: createRng(3),
    });
    expect(Math.abs(scaled.logZ - plain.logZ)).toBeLessThan(1e-6);
  });

  it("refuses separated classes, whose maximum-likelihood fit the g-prior's scale needs, with a pointer to the normal prior", () => {
    const x = Float64Array.from({ length: 40 }, (_, i) => i - 19.5);
    const separated = glmOutcome(
      "bernoulli",
      "logit",
      Float64Array.from(x, (v) => (v > 0 ? 1 : 0)),
    );
    const X = new Float64Array(80);
    x.forEach((v, i) => {
      X[2 * i] = 1;
      X[2 * i + 1] = v / 12;
    });
    expect(() => glmGPriorEvidence({ X, n: 40, k: 2 }, separated, { rng: createRng(1) })).toThrowError(
      /maximum-likelihood fit does not exist.*--prior normal/,
    );
    try {
      glmGPriorEvidence({ X, n: 40, k: 2 }, separated, { rng: createRng(1) });
    } catch (error) {
      expect(error).toBeInstanceOf(OccamError);
    }
  });
});
