import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { type BayesModel, defineModel, tempered } from "../../src/model/model.js";
import { thrown } from "../support/assertions.js";

const LOG_2PI = Math.log(2 * Math.PI);

/** y ~ N(mu, 1) for one observation y = 1, mu ~ N(0, 1). */
function normalModel(overrides: Partial<BayesModel> = {}): BayesModel {
  return {
    dim: 1,
    logPrior: (t) => -0.5 * (LOG_2PI + t[0] * t[0]),
    logLikelihood: (t) => -0.5 * (LOG_2PI + (1 - t[0]) ** 2),
    samplePrior: (rng) => Float64Array.of(rng.normal()),
    gradLogPrior: (t, g) => {
      g[0] = -t[0];
      return -0.5 * (LOG_2PI + t[0] * t[0]);
    },
    gradLogLikelihood: (t, g) => {
      g[0] = 1 - t[0];
      return -0.5 * (LOG_2PI + (1 - t[0]) ** 2);
    },
    ...overrides,
  };
}

describe("defineModel", () => {
  it("returns the model frozen when it is sound", () => {
    const model = defineModel(normalModel());
    expect(Object.isFrozen(model)).toBe(true);
    expect(model.logPrior(Float64Array.of(0))).toBeCloseTo(-0.5 * LOG_2PI, 14);
  });

  it("rejects a dimension that is not a positive integer", () => {
    expect(thrown(() => defineModel(normalModel({ dim: 0 }))).message).toMatch(
      /dim must be a positive integer/,
    );
    expect(thrown(() => defineModel(normalModel({ dim: 1.5 }))).code).toBe("invalid-argument");
  });

  it("rejects prior draws of the wrong length or type", () => {
    const short = thrown(() => defineModel(normalModel({ dim: 2 })));
    expect(short.code).toBe("dimension-mismatch");
    expect(short.message).toMatch(/length 2.*got a Float64Array of length 1/);
    const plain = thrown(() =>
      defineModel(normalModel({ samplePrior: () => [0] as unknown as Float64Array })),
    );
    expect(plain.message).toMatch(/plain array.*use Float64Array/);
  });

  it("rejects a log likelihood that is NaN or +Infinity at a prior draw, naming the draw", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = thrown(() =>
        defineModel(normalModel({ logLikelihood: () => bad, gradLogLikelihood: undefined })),
      );
      expect(error.code).toBe("non-finite");
      expect(error.message).toMatch(/logLikelihood is (NaN|Infinity) at prior draw 0/);
    }
  });

  it("accepts a −Infinity log likelihood (a draw the data rule out)", () => {
    expect(() =>
      defineModel(
        normalModel({ logLikelihood: () => Number.NEGATIVE_INFINITY, gradLogLikelihood: undefined }),
      ),
    ).not.toThrow();
  });

  it("rejects a non-finite log prior and a gradient that disagrees with its log density", () => {
    expect(
      thrown(() => defineModel(normalModel({ logPrior: () => Number.NaN, gradLogPrior: undefined }))).message,
    ).toMatch(/logPrior is NaN/);
    const zeroGradient = (_t: Float64Array, g: Float64Array) => {
      g[0] = 0;
      return 0;
    };
    const wrong = thrown(() => defineModel(normalModel({ gradLogPrior: zeroGradient })));
    expect(wrong.message).toMatch(/gradLogPrior returned 0 but model.logPrior is/);
  });

  it("rejects names that do not match the dimension", () => {
    expect(thrown(() => defineModel(normalModel({ names: ["a", "b"] }))).code).toBe("dimension-mismatch");
  });

  it("checks declared bounds: one pair per parameter, lower < upper, prior draws inside", () => {
    expect(() =>
      defineModel(normalModel({ bounds: { lower: [-Infinity], upper: [Infinity] } })),
    ).not.toThrow();
    expect(thrown(() => defineModel(normalModel({ bounds: { lower: [0, 0], upper: [1, 1] } }))).code).toBe(
      "dimension-mismatch",
    );
    expect(thrown(() => defineModel(normalModel({ bounds: { lower: [1], upper: [1] } }))).message).toMatch(
      /parameter 0 has lower bound 1 and upper bound 1/,
    );
    expect(thrown(() => defineModel(normalModel({ bounds: { lower: [Number.NaN], upper: [1] } }))).code).toBe(
      "invalid-argument",
    );
    // N(0, 1) draws fall outside (0, 1) often: the bounds do not contain the prior's support.
    expect(thrown(() => defineModel(normalModel({ bounds: { lower: [0], upper: [1] } }))).message).toMatch(
      /outside model.bounds/,
    );
  });

  it("checks a prior transform: a Float64Array of length dim, finite, inside the prior's support", () => {
    const uniform = (transform: BayesModel["priorTransform"]): BayesModel =>
      normalModel({
        logPrior: (t) => (t[0] >= 0 && t[0] <= 1 ? 0 : Number.NEGATIVE_INFINITY),
        gradLogPrior: (t, g) => {
          g[0] = 0;
          return t[0] >= 0 && t[0] <= 1 ? 0 : Number.NEGATIVE_INFINITY;
        },
        samplePrior: (rng) => Float64Array.of(rng.uniform()),
        priorTransform: transform,
      });
    expect(() =>
      defineModel(
        uniform((u, out) => {
          out[0] = u[0];
          return out;
        }),
      ),
    ).not.toThrow();
    // Maps the cube onto [0, 2]: half of it lies outside the prior's support.
    const outside = thrown(() =>
      defineModel(
        uniform((u, out) => {
          out[0] = 2 * u[0];
          return out;
        }),
      ),
    );
    expect(outside.code).toBe("invalid-argument");
    expect(outside.message).toMatch(/priorTransform maps u = .* where model.logPrior is -Infinity/);
    expect(thrown(() => defineModel(uniform(() => new Float64Array(2)))).code).toBe("dimension-mismatch");
    expect(thrown(() => defineModel(uniform(() => Float64Array.of(Number.NaN)))).code).toBe("non-finite");
  });
});

describe("tempered", () => {
  const model = normalModel();
  const theta = Float64Array.of(0.3);

  it("is the prior at beta = 0 and prior + beta × likelihood otherwise, with matching gradients", () => {
    const grad = new Float64Array(1);
    for (const beta of [0, 0.25, 1]) {
      const density = tempered(model, beta);
      const expected = model.logPrior(theta) + beta * model.logLikelihood(theta);
      expect(density.logDensity(theta)).toBeCloseTo(expected, 14);
      expect(density.gradLogDensity?.(theta, grad)).toBeCloseTo(expected, 14);
      expect(grad[0]).toBeCloseTo(-0.3 + beta * 0.7, 14);
    }
  });

  it("never evaluates the likelihood at beta = 0, so −Infinity there cannot give NaN", () => {
    const density = tempered(normalModel({ logLikelihood: () => Number.NEGATIVE_INFINITY }), 0);
    expect(density.logDensity(theta)).toBeCloseTo(model.logPrior(theta), 14);
  });

  it("rejects an inverse temperature outside [0, 1]", () => {
    for (const beta of [-0.1, 1.5, Number.NaN]) expect(() => tempered(model, beta)).toThrow(OccamError);
  });
});
