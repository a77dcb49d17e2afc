import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../../src/errors.js";
import { glmEvidence } from "../../../src/models/glm/evidence.js";
import {
  glmOutcome,
  inverseMillsRatio,
  logNormalCdf,
  observationTerms,
} from "../../../src/models/glm/family.js";
import { createRng } from "../../../src/random/rng.js";

/** Exact values from scipy (fixtures/quadrature.py). */
const fixture = JSON.parse(readFileSync(new URL("./fixtures/quadrature.json", import.meta.url), "utf8"));
const references = JSON.parse(
  readFileSync(new URL("../../../examples/real-models/references.json", import.meta.url), "utf8"),
);

/** The design with an intercept and the given columns. */
function withIntercept(columns: number[][]): { X: Float64Array; n: number; k: number } {
  const n = columns[0]?.length ?? 0;
  const k = columns.length + 1;
  const X = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    X[i * k] = 1;
    columns.forEach((c, j) => {
      X[i * k + j + 1] = c[i];
    });
  }
  return { X, n, k };
}

/** A CSV of examples/real-models/ as columns by name. */
function csvColumns(file: string): Record<string, string[]> {
  const [header, ...lines] = readFileSync(
    new URL(`../../../examples/real-models/${file}`, import.meta.url),
    "utf8",
  )
    .trim()
    .split("\n");
  const names = header.split(",");
  const rows = lines.map((l) => l.split(","));
  return Object.fromEntries(names.map((name, j) => [name, rows.map((r) => r[j])]));
}

function standardised(values: number[]): number[] {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  return values.map((v) => (v - mean) / sd);
}

/** Within three joint standard errors of the reference, the error budget of the reference included. */
function expectNear(estimate: { logZ: number; stdErr: number }, logZ: number, referenceStdErr = 0): void {
  expect(Math.abs(estimate.logZ - logZ)).toBeLessThan(
    3 * Math.hypot(estimate.stdErr, referenceStdErr) + 1e-4,
  );
}

describe("log Φ and φ/Φ", () => {
  it("match scipy's log_ndtr from far in the left tail to the right", () => {
    for (const [z, value] of fixture.logNormalCdf) {
      expect(logNormalCdf(z)).toBeCloseTo(value, 10);
      expect(Math.abs(logNormalCdf(z) - value)).toBeLessThan(1e-12 * Math.max(1, Math.abs(value)));
    }
    for (const [z, value] of fixture.inverseMillsRatio) {
      expect(Math.abs(inverseMillsRatio(z) - value)).toBeLessThan(1e-10 * Math.max(1, Math.abs(value)));
    }
  });

  it("give each link's gradient and curvature as the derivatives of its log likelihood", () => {
    const h = 1e-5;
    const out = { logLikelihood: 0, gradient: 0, curvature: 0 };
    for (const [family, link, y, trials] of [
      ["bernoulli", "logit", 1, 1],
      ["bernoulli", "probit", 0, 1],
      ["binomial", "probit", 3, 7],
      ["poisson", "log", 4, 1],
    ] as const) {
      const outcome = glmOutcome(family, link, Float64Array.of(y), { trials: Float64Array.of(trials) });
      for (const eta of [-3, -0.4, 0.7, 2.5]) {
        const at = (e: number) => {
          observationTerms(outcome, 0, e, out);
          return { ...out };
        };
        const mid = at(eta);
        const up = at(eta + h);
        const down = at(eta - h);
        expect(mid.gradient).toBeCloseTo((up.logLikelihood - down.logLikelihood) / (2 * h), 6);
        expect(mid.curvature).toBeCloseTo(-(up.gradient - down.gradient) / (2 * h), 5);
      }
    }
  });
});

describe("glmEvidence", () => {
  const pima = csvColumns("pima.csv");
  const yPima = Float64Array.from(pima.type, (v) => (v === "Yes" ? 1 : 0));
  const pimaDesign = (inputs: string[]) =>
    withIntercept(inputs.map((c) => standardised(pima[c].map(Number))));

  it("gives Friel & Wyse's two Pima logistic regressions to their references' errors, where Laplace is 0.02–0.03 nats off", () => {
    for (const [name, inputs] of [
      ["pima-logistic-4", ["npreg", "glu", "bmi", "ped"]],
      ["pima-logistic-5", ["npreg", "glu", "bmi", "ped", "age"]],
    ] as const) {
      const e = glmEvidence(pimaDesign([...inputs]), glmOutcome("bernoulli", "logit", yPima), {
        priorSd: 10,
        rng: createRng(7),
      });
      const reference = references[name];
      expectNear(e, reference.logZ, reference.stdErr);
      expect(Math.abs(e.logZ - reference.logZ)).toBeLessThan(0.01);
      expect(Math.abs(e.laplaceLogZ - reference.logZ)).toBeGreaterThan(0.015);
      expect(e.stdErr).toBeLessThan(0.005);
      expect(e.reliable).toBe(true);
    }
  });

  it("gives a probit regression's evidence as quadrature does (birthwt)", () => {
    const birthwt = csvColumns("birthwt.csv");
    const names = Object.keys(birthwt);
    const y = Float64Array.from(birthwt[names[0]], Number);
    const design = withIntercept([standardised(birthwt[names[1]].map(Number))]);
    const e = glmEvidence(design, glmOutcome("bernoulli", "probit", y), { priorSd: 10, rng: createRng(3) });
    expectNear(e, references["birthwt-probit"].logZ);
  });

  it("stays right on perfectly separated classes, where the prior alone bounds the slope", () => {
    const { x, y, priorSd, logZ } = fixture.separated;
    const e = glmEvidence(withIntercept([x]), glmOutcome("bernoulli", "logit", Float64Array.from(y)), {
      priorSd,
      rng: createRng(11),
    });
    expect(e.reliable).toBe(true);
    expectNear(e, logZ);
    // Laplace alone misses there: the posterior of the slope is skewed by the prior's bound.
    expect(Math.abs(e.laplaceLogZ - logZ)).toBeGreaterThan(0.03);
  });

  it("gives a Poisson regression with an exposure offset as quadrature does", () => {
    const { x, exposure, counts, priorSd, logZ } = fixture.poisson;
    const outcome = glmOutcome("poisson", "log", Float64Array.from(counts), {
      offset: Float64Array.from(exposure, Math.log),
    });
    const e = glmEvidence(withIntercept([x]), outcome, { priorSd, rng: createRng(5) });
    expectNear(e, logZ);
    expect(e.reliable).toBe(true);
  });

  it("is reproducible by seed", () => {
    const run = () =>
      glmEvidence(pimaDesign(["glu", "bmi"]), glmOutcome("bernoulli", "logit", yPima), {
        priorSd: 10,
        rng: createRng(2),
      }).logZ;
    expect(run()).toBe(run());
  });
});

describe("glmOutcome", () => {
  it("refuses outcomes that do not suit the family, saying which row", () => {
    const bad = (f: () => unknown, pattern: RegExp) => {
      expect(f).toThrow(OccamError);
      expect(f).toThrow(pattern);
    };
    bad(
      () => glmOutcome("bernoulli", "logit", Float64Array.of(0, 1, 2)),
      /row 3 is 2; a bernoulli target has two levels/,
    );
    bad(
      () => glmOutcome("poisson", "log", Float64Array.of(1, -1)),
      /row 2 is -1; a poisson target holds counts/,
    );
    bad(() => glmOutcome("poisson", "log", Float64Array.of(1.5)), /row 1 is 1.5/);
    bad(
      () => glmOutcome("binomial", "logit", Float64Array.of(3, 5), { trials: Float64Array.of(4, 4) }),
      /row 2 has 5 successes out of 4 trials/,
    );
    bad(() => glmOutcome("poisson", "logit", Float64Array.of(1)), /takes the link log/);
  });
});
