/**
 * The prior of `compareLinearModels` over each model's coefficients: its type (a discriminated union
 * by name), the defaults of its parameters, the one schema that checks it wherever it comes from (the
 * library's options, the CLI's flags, a parallel comparison's units) and its resolution to a prior
 * with every parameter filled in.
 */
// zod/mini, not zod: the browser bundle holds this module, and the full zod would triple its size.
import * as z from "zod/mini";
import { OccamError, wordList } from "../errors.js";

/**
 * A Gamma prior of a precision by its shape and its **scale** (mean shape × scale): a rate ρ, as
 * some texts write the Gamma, is the scale 1/ρ.
 */
export interface GammaPrior {
  readonly shape?: number;
  readonly scale?: number;
}

/**
 * The prior over each model's coefficients that {@link compareLinearModels} uses (see
 * docs/choosing-a-prior.md), by name with its parameters; a parameter left out takes its value in
 * {@link LINEAR_PRIOR_DEFAULTS}.
 */
export type LinearPrior =
  | {
      readonly name: "zellner-siow";
      /** Prior scale r of the standardised effects: g ~ InverseGamma(½, r²n/2). */
      readonly r?: number;
    }
  | { readonly name: "g-prior" }
  | {
      readonly name: "hyper-g";
      /** The prior's a > 2: π(g) = (a − 2)/2 · (1 + g)^(−a/2). */
      readonly a?: number;
    }
  | {
      readonly name: "hyper-g-n";
      /** The prior's a > 2: π(g) = (a − 2)/(2n) · (1 + g/n)^(−a/2). */
      readonly a?: number;
    }
  | {
      readonly name: "nig";
      /** Prior variance of every coefficient in units of the noise variance: w | σ² ~ N(0, σ² v I). */
      readonly v?: number;
      /** Shape a of the inverse-gamma prior of the noise variance σ². */
      readonly a?: number;
      /** Scale b of the inverse-gamma prior of σ² (density ∝ σ^(−2(a+1)) e^(−b/σ²)). */
      readonly b?: number;
    }
  | {
      readonly name: "independent";
      /** The Gamma prior of the noise precision τ = 1/σ². */
      readonly noise?: GammaPrior;
      /** The Gamma prior of the weights' shared precision τ_w. */
      readonly weights?: GammaPrior;
    };

/** The names of the priors {@link compareLinearModels} offers. */
export type LinearPriorName = LinearPrior["name"];

/** {@link LinearPrior} with every parameter filled in and checked. */
export type ResolvedLinearPrior =
  | { readonly name: "zellner-siow"; readonly r: number }
  | { readonly name: "g-prior" }
  | { readonly name: "hyper-g"; readonly a: number }
  | { readonly name: "hyper-g-n"; readonly a: number }
  | { readonly name: "nig"; readonly v: number; readonly a: number; readonly b: number }
  | {
      readonly name: "independent";
      readonly noise: Required<GammaPrior>;
      readonly weights: Required<GammaPrior>;
    };

/** The parameters of a prior, without its name. */
type PriorParameters<N extends LinearPriorName> = Omit<Extract<ResolvedLinearPrior, { name: N }>, "name">;

/**
 * The default parameters of each prior, which `occam compare --help` shows too: Zellner–Siow's r is
 * BayesFactor's "medium" scale √2/4, hyper-g's a is BAS's 3, and the independent prior's are the
 * Fabricius thesis's Figure 6.6 values read as rates (see `independentPrecisionRegression`).
 */
export const LINEAR_PRIOR_DEFAULTS: { readonly [N in LinearPriorName]: PriorParameters<N> } = Object.freeze({
  "zellner-siow": Object.freeze({ r: Math.SQRT2 / 4 }),
  "g-prior": Object.freeze({}),
  "hyper-g": Object.freeze({ a: 3 }),
  "hyper-g-n": Object.freeze({ a: 3 }),
  nig: Object.freeze({ v: 1e4, a: 1, b: 1 }),
  independent: Object.freeze({
    noise: Object.freeze({ shape: 1 / 2, scale: 200 }),
    weights: Object.freeze({ shape: 1 / 4, scale: 1600 }),
  }),
});

/** Every prior {@link compareLinearModels} accepts, the default first. */
export const LINEAR_PRIORS: readonly LinearPriorName[] = [
  "zellner-siow",
  "g-prior",
  "hyper-g",
  "hyper-g-n",
  "nig",
  "independent",
];

/** The g-priors: scale-free, an intercept with a flat prior, Bayes factors against the intercept-only model. */
export const G_PRIORS: readonly LinearPriorName[] = ["zellner-siow", "g-prior", "hyper-g", "hyper-g-n"];

const POSITIVE = "must be a finite number > 0";
const positive = z.number({ error: POSITIVE }).check(z.positive({ error: POSITIVE }));
const ABOVE_TWO = "must be a finite number > 2 (the prior is improper for a ≤ 2)";
const aboveTwo = z.number({ error: ABOVE_TWO }).check(z.gt(2, { error: ABOVE_TWO }));
const gammaPrior = z.strictObject({ shape: z.optional(positive), scale: z.optional(positive) });

/**
 * The one check of a linear prior, as {@link CompareLinearOptions.prior} takes it (a name, or an object
 * with the name and any of its parameters, no other field): the library's options, the CLI's flags
 * and the units of a parallel comparison all pass through it.
 */
export const linearPriorSchema = z.union([
  z.enum(LINEAR_PRIORS as [LinearPriorName, ...LinearPriorName[]]),
  z.discriminatedUnion("name", [
    z.strictObject({ name: z.literal("zellner-siow"), r: z.optional(positive) }),
    z.strictObject({ name: z.literal("g-prior") }),
    z.strictObject({ name: z.literal("hyper-g"), a: z.optional(aboveTwo) }),
    z.strictObject({ name: z.literal("hyper-g-n"), a: z.optional(aboveTwo) }),
    z.strictObject({
      name: z.literal("nig"),
      v: z.optional(positive),
      a: z.optional(positive),
      b: z.optional(positive),
    }),
    z.strictObject({
      name: z.literal("independent"),
      noise: z.optional(gammaPrior),
      weights: z.optional(gammaPrior),
    }),
  ]),
]);

// The schema and the declared type describe the same values: this fails to compile if they part.
type Writable<T> = T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;
type Same<A, B> =
  (<T>() => T extends Writable<A> ? 1 : 2) extends <T>() => T extends Writable<B> ? 1 : 2 ? true : false;
const schemaMatchesType: Same<z.output<typeof linearPriorSchema>, LinearPrior | LinearPriorName> = true;
void schemaMatchesType;

/**
 * Checks a prior of {@link compareLinearModels} and fills its defaults from
 * {@link LINEAR_PRIOR_DEFAULTS}: a name alone is that prior with its defaults. Throws an
 * `invalid-argument` OccamError naming the field at fault.
 */
export function resolveLinearPrior(prior: LinearPrior | LinearPriorName | undefined): ResolvedLinearPrior {
  const parsed = linearPriorSchema.safeParse(prior ?? LINEAR_PRIORS[0]);
  if (!parsed.success) throw priorError(prior, parsed.error.issues);
  // A name alone is that prior with no parameter given.
  const p = (typeof parsed.data === "string" ? { name: parsed.data } : parsed.data) as LinearPrior;
  const d = LINEAR_PRIOR_DEFAULTS;
  switch (p.name) {
    case "zellner-siow":
      return { name: p.name, r: p.r ?? d[p.name].r };
    case "g-prior":
      return { name: p.name };
    case "hyper-g":
    case "hyper-g-n":
      return { name: p.name, a: p.a ?? d[p.name].a };
    case "nig":
      return { name: p.name, v: p.v ?? d.nig.v, a: p.a ?? d.nig.a, b: p.b ?? d.nig.b };
    case "independent": {
      const { noise: dn, weights: dw } = d.independent;
      return {
        name: p.name,
        noise: { shape: p.noise?.shape ?? dn.shape, scale: p.noise?.scale ?? dn.scale },
        weights: { shape: p.weights?.shape ?? dw.shape, scale: p.weights?.scale ?? dw.scale },
      };
    }
  }
}

/** The value at `path` inside `value`, or undefined. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path)
    at = typeof at === "object" && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

/** A value as a message shows it. */
function shown(value: unknown): string {
  return typeof value === "number" || value === undefined
    ? String(value)
    : (JSON.stringify(value) ?? String(value));
}

/** The error of a prior the schema refused: the first issue, in words that name the field and the fix. */
function priorError(prior: unknown, issues: readonly z.core.$ZodIssue[]): OccamError {
  let issue = issues[0];
  // A value that fits neither a name nor an object: report what went wrong for its kind.
  if (issue.code === "invalid_union" && issue.path.length === 0 && issue.errors.length === 2) {
    issue = issue.errors[typeof prior === "string" ? 0 : 1][0] ?? issue;
  }
  const field = ["prior", ...issue.path].join(".");
  const got = valueAt(prior, issue.path);
  const bad = (message: string) => new OccamError("invalid-argument", message);
  const names = LINEAR_PRIORS.join(", ");
  if (issue.code === "invalid_value" || issue.code === "invalid_union") {
    return bad(
      got === undefined
        ? `prior.name is missing: give the prior as a name or as { name, ...its parameters }; choose one of: ${names}.`
        : `unknown prior ${shown(got)}; choose one of: ${names}.`,
    );
  }
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0];
    const name = (prior as { name: LinearPriorName }).name;
    const takes = Object.keys(valueAt(LINEAR_PRIOR_DEFAULTS[name], issue.path) as object);
    const owners =
      issue.path.length === 0 ? LINEAR_PRIORS.filter((p) => key in LINEAR_PRIOR_DEFAULTS[p]) : [];
    return bad(
      `${field}.${key} does not apply to ${issue.path.length === 0 ? `the ${name} prior` : field}, which takes ` +
        `${takes.length === 0 ? "no parameters" : wordList(takes)}` +
        (owners.length === 0 ? "" : ` (${key} is a parameter of ${wordList(owners)})`) +
        (key === "rate" && takes.includes("scale") ? ": a Gamma's rate ρ is the scale 1/ρ." : ": drop it."),
    );
  }
  if (issue.code === "invalid_type" && issue.expected === "object") {
    return bad(
      issue.path.length === 0
        ? `prior must be a prior's name or { name, ...its parameters }, got ${shown(got)}; choose one of: ${names}.`
        : `${field} must be an object { shape?, scale? }, got ${shown(got)}.`,
    );
  }
  return bad(`${field} ${issue.message}, got ${shown(got)}.`);
}
