import { describe, expect, it } from "vitest";
import { linearRegressionData } from "../../src/data/generators/linear.js";
import { HYPER_G_DEFAULT_A } from "../../src/models/linear/hyper-g.js";
import { independentPrecisionRegression } from "../../src/models/linear/independent.js";
import { ZELLNER_SIOW_MEDIUM_SCALE } from "../../src/models/linear/zellner-siow.js";
import { estimateOptionsSchema } from "../../src/parallel/compare-units.js";
import {
  type CompareLinearOptions,
  compareLinearModels,
  LINEAR_PRIOR_DEFAULTS,
  LINEAR_PRIORS,
  type LinearComparison,
  type LinearPrior,
} from "../../src/selection/linear.js";
import { resolveLinearPrior } from "../../src/selection/linear-options.js";
import { thrown } from "../support/assertions.js";

const n = 40;
const sim = linearRegressionData({ n, p: 2, weights: [1, 0.2], noiseSd: 0.5, seed: 6 });
const data = { X: sim.X, y: sim.y, n, p: 2, inputNames: ["u", "w"], targetName: "y" };
/** Few and cheap models: the independent prior's are estimated. */
const quick: CompareLinearOptions = { subsets: { max: 1 }, samples: 64, seed: 2 };

const run = (prior: CompareLinearOptions["prior"]) =>
  compareLinearModels(data, { ...quick, prior, ...(sampled(prior) ? {} : { samples: undefined }) });
const sampled = (prior: CompareLinearOptions["prior"]) =>
  (typeof prior === "string" ? prior : prior?.name) === "independent";
/** The result as bytes, its timing left out. */
const bytes = (result: LinearComparison) => JSON.stringify({ ...result, seconds: 0 });

describe("the prior of compareLinearModels", () => {
  it.each(LINEAR_PRIORS)("%s by name alone is the prior with its defaults, to the bit", (name) => {
    const withDefaults = { name, ...LINEAR_PRIOR_DEFAULTS[name] } as LinearPrior;
    const byName = bytes(run(name));
    expect(bytes(run(withDefaults))).toBe(byName);
    expect(bytes(run({ name } as LinearPrior))).toBe(byName);
    expect(resolveLinearPrior(name)).toEqual(withDefaults);
  });

  it("refuses a prior's parameter given beside prior instead of inside it", () => {
    const loose = { ...quick, prior: "nig", v: 100 } as CompareLinearOptions;
    expect(thrown(() => compareLinearModels(data, loose)).message).toBe(
      'compareLinearModels: v is a parameter of the prior, not an option of its own: give it inside prior, e.g. { prior: { name: "nig", v: 100 } } (see docs/choosing-a-prior.md).',
    );
    const two = { ...quick, prior: "independent", alpha: 1, betaW: 2 } as CompareLinearOptions;
    expect(thrown(() => compareLinearModels(data, two)).message).toMatch(
      /^compareLinearModels: alpha, betaW are parameters of the prior/,
    );
  });

  it("takes its parameters from the object, and they change the numbers", () => {
    const nig = run({ name: "nig", v: 100, a: 2, b: 3 });
    expect(nig.prior).toEqual({ name: "nig", v: 100, a: 2, b: 3, standardized: true });
    expect(nig.models[0].logEvidence).not.toBe(run("nig").models[0].logEvidence);
    const independent = run({ name: "independent", noise: { scale: 3 }, weights: { shape: 2 } });
    expect(independent.prior).toEqual({
      name: "independent",
      noise: { shape: LINEAR_PRIOR_DEFAULTS.independent.noise.shape, scale: 3 },
      weights: { shape: 2, scale: LINEAR_PRIOR_DEFAULTS.independent.weights.scale },
      standardized: true,
    });
    expect(run({ name: "hyper-g-n", a: 3.5 }).prior).toEqual({ name: "hyper-g-n", a: 3.5 });
    expect(run({ name: "zellner-siow", r: 1 }).prior).toEqual({ name: "zellner-siow", r: 1 });
    expect(run(undefined).prior).toEqual({
      name: "zellner-siow",
      r: LINEAR_PRIOR_DEFAULTS["zellner-siow"].r,
    });
  });

  it.each([
    [
      "an unknown name",
      "ridge",
      /^unknown prior "ridge"; choose one of: zellner-siow, g-prior, hyper-g, hyper-g-n, nig, independent\.$/,
    ],
    ["an unknown name in the object", { name: "ridge", r: 1 }, /^unknown prior "ridge"; choose one of: /],
    [
      "no name",
      { r: 1 },
      /^prior\.name is missing: give the prior as a name or as \{ name, \.\.\.its parameters \}/,
    ],
    [
      "neither a name nor an object",
      5,
      /^prior must be a prior's name or \{ name, \.\.\.its parameters \}, got 5;/,
    ],
    [
      "a parameter of another prior",
      { name: "nig", r: 1 },
      /^prior\.r does not apply to the nig prior, which takes v, a and b \(r is a parameter of zellner-siow\): drop it\.$/,
    ],
    [
      "a parameter of several other priors",
      { name: "g-prior", a: 3 },
      /^prior\.a does not apply to the g-prior prior, which takes no parameters \(a is a parameter of hyper-g, hyper-g-n and nig\)/,
    ],
    [
      "a loose field of the independent prior",
      { name: "independent", alphaW: 2 },
      /^prior\.alphaW does not apply to the independent prior, which takes noise and weights: drop it\.$/,
    ],
    [
      "a Gamma's rate",
      { name: "independent", noise: { rate: 2 } },
      /^prior\.noise\.rate does not apply to prior\.noise, which takes shape and scale: a Gamma's rate ρ is the scale 1\/ρ\.$/,
    ],
    [
      "a zero shape",
      { name: "independent", noise: { shape: 0 } },
      /^prior\.noise\.shape must be a finite number > 0, got 0\.$/,
    ],
    [
      "a negative shape",
      { name: "independent", weights: { shape: -1 } },
      /^prior\.weights\.shape must be a finite number > 0, got -1\.$/,
    ],
    [
      "a scale of NaN",
      { name: "independent", weights: { scale: Number.NaN } },
      /^prior\.weights\.scale must be a finite number > 0, got NaN\.$/,
    ],
    [
      "an infinite v",
      { name: "nig", v: Number.POSITIVE_INFINITY },
      /^prior\.v must be a finite number > 0, got Infinity\.$/,
    ],
    [
      "a text for a number",
      { name: "zellner-siow", r: "1" },
      /^prior\.r must be a finite number > 0, got "1"\.$/,
    ],
    [
      "hyper-g's a at 2",
      { name: "hyper-g", a: 2 },
      /^prior\.a must be a finite number > 2 \(the prior is improper for a ≤ 2\), got 2\.$/,
    ],
    [
      "a number for a Gamma prior",
      { name: "independent", noise: 3 },
      /^prior\.noise must be an object \{ shape\?, scale\? \}, got 3\.$/,
    ],
  ])("refuses %s with an invalid-argument OccamError that names the field", (_what, prior, message) => {
    const error = thrown(() => compareLinearModels(data, { prior: prior as LinearPrior }));
    expect(error.code).toBe("invalid-argument");
    expect(error.message).toMatch(message);
  });

  it("has frozen defaults, the same as the models' own", () => {
    expect(Object.isFrozen(LINEAR_PRIOR_DEFAULTS)).toBe(true);
    expect(Object.isFrozen(LINEAR_PRIOR_DEFAULTS.nig)).toBe(true);
    expect(Object.isFrozen(LINEAR_PRIOR_DEFAULTS.independent.noise)).toBe(true);
    expect(LINEAR_PRIOR_DEFAULTS["zellner-siow"].r).toBe(ZELLNER_SIOW_MEDIUM_SCALE);
    expect(LINEAR_PRIOR_DEFAULTS["hyper-g"].a).toBe(HYPER_G_DEFAULT_A);
    expect(LINEAR_PRIOR_DEFAULTS["hyper-g-n"].a).toBe(HYPER_G_DEFAULT_A);
    const model = independentPrecisionRegression({ X: [1, 2], y: [1, 2], n: 2, p: 1 });
    const { noise, weights } = LINEAR_PRIOR_DEFAULTS.independent;
    expect([noise.shape, noise.scale, weights.shape, weights.scale]).toEqual([
      model.alpha,
      model.beta,
      model.alphaW,
      model.betaW,
    ]);
  });

  it("is checked by the same schema in a parallel comparison's units", () => {
    const options = { estimator: "bridge", seed: 1 };
    const resolved = resolveLinearPrior({ name: "independent", noise: { shape: 2 } });
    expect(estimateOptionsSchema.safeParse({ ...options, prior: resolved }).success).toBe(true);
    expect(estimateOptionsSchema.safeParse({ ...options, prior: "nig" }).success).toBe(true);
    expect(estimateOptionsSchema.safeParse({ ...options, prior: { name: "nig", r: 1 } }).success).toBe(false);
    expect(estimateOptionsSchema.safeParse({ ...options, prior: "nig", v: 100 }).success).toBe(false);
  });
});
