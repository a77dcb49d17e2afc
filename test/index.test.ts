/**
 * The public API, name by name. Every name exported from src/index.ts is a promise to users: removing
 * or renaming one breaks their code, and adding one makes a new promise. These lists make either a
 * deliberate change, reviewed with the diff: update them together with src/index.ts.
 *
 * - VALUES are the runtime exports (`Object.keys` of the module).
 * - TYPES are the type-only exports, which do not exist at runtime; they are read from the export
 *   declarations of src/index.ts (which re-exports names one by one, never `export *`).
 * - Every name a README.md or docs/ code block, or an examples/ file, imports from "occam" is exported.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/spawn.js";

const VALUES = [
  "CROSS_CHECK_SETTINGS",
  "DEFAULT_EVIDENCE_METHODS",
  "Draws",
  "EVIDENCE_METHODS",
  "FALLBACK_EVIDENCE_METHODS",
  "HARD_PROBLEM_NAMES",
  "OccamError",
  "annealedImportanceSampling",
  "autocorrelation",
  "bayesianMlp",
  "beta",
  "bridgeSampling",
  "buildClassifier",
  "buildGibbsKernel",
  "buildHmcKernel",
  "buildMalaKernel",
  "buildNutsKernel",
  "buildRandomWalkKernel",
  "buildRejectionKernel",
  "categorical",
  "chaining",
  "classifierTable",
  "compareClassifierFamilies",
  "compareEstimators",
  "compareEstimatorsInParallel",
  "compareGlms",
  "compareLinearModels",
  "compareLinearModelsInParallel",
  "compareModels",
  "createRng",
  "crossValidatedEvidence",
  "csvColumns",
  "defineModel",
  "dirichlet",
  "effectiveSampleSize",
  "encodeClassifierTable",
  "entropyEvidence",
  "essPerParameter",
  "estimateEvidence",
  "fitBayesianMlp",
  "fitMixtureClassifier",
  "formulaDesign",
  "gamma",
  "glmEvidence",
  "glmGPriorEvidence",
  "glmOutcome",
  "hardProblem",
  "harmonicMean",
  "hmcWarmup",
  "holdOut",
  "importanceSample",
  "importanceSampling",
  "independentPrecisionRegression",
  "inverseGamma",
  "kFolds",
  "laplace",
  "leapfrog",
  "logSumExp",
  "malaWarmup",
  "mclachlan",
  "modelAverage",
  "monteCarloStandardError",
  "multivariateNormal",
  "multivariateNormalFromCovariance",
  "multivariateStudentT",
  "nestedSampling",
  "nigRegression",
  "normal",
  "numericTable",
  "nutsWarmup",
  "parseCsv",
  "parseFormula",
  "pathSampling",
  "powerLadder",
  "priorMonteCarlo",
  "randomWalkWarmup",
  "readCsv",
  "rhatPerParameter",
  "runChain",
  "samplePosterior",
  "splitRhat",
  "steppingStone",
  "studentT",
  "summarize",
  "tempered",
  "temperedSmc",
  "transitionalMcmc",
  "uniform",
  "yoshida",
];

const TYPES = [
  "BayesModel",
  "BayesianMlp",
  "BayesianMlpFit",
  "ClassificationData",
  "ClassifierFamilyComparison",
  "ClassifierFamilyName",
  "ClassifierModel",
  "CompareClassifierFamiliesOptions",
  "CompareEstimatorsOptions",
  "CompareGlmOptions",
  "CompareLinearInParallelOptions",
  "CompareLinearOptions",
  "CompareModelsOptions",
  "ContinuousMultivariateDistribution",
  "ContinuousUnivariateDistribution",
  "CsvOptions",
  "CsvTable",
  "DefineModelOptions",
  "EstimateEvidenceOptions",
  "EstimatorComparison",
  "EvidenceMethod",
  "EvidenceMethodSettings",
  "EvidenceResult",
  "FitBayesianMlpOptions",
  "Formula",
  "GibbsOptions",
  "GibbsUpdate",
  "GlmComparison",
  "GlmOutcome",
  "GlmPrior",
  "HardProblem",
  "HardProblemName",
  "HmcOptions",
  "Kernel",
  "LinearComparison",
  "LinearData",
  "LinearModelRow",
  "LinearPrior",
  "LogDensity",
  "MalaOptions",
  "MixtureClassifierFit",
  "MixtureClassifierOptions",
  "MlpData",
  "ModelComparison",
  "ModelPrior",
  "MultivariateDistribution",
  "NumericTable",
  "NumericTableOptions",
  "NutsOptions",
  "OccamErrorCode",
  "ParallelOptions",
  "PosteriorDrawsInput",
  "Proposal",
  "RandomWalkOptions",
  "RejectionOptions",
  "Rng",
  "RunChainOptions",
  "StudentTPredictive",
  "SubsettableModel",
  "UnivariateDistribution",
];

const sorted = (names: Iterable<string>) => [...names].sort();

/** The names src/index.ts exports, split into values and type-only names, read from its source. */
function declaredExports(): { values: string[]; types: string[]; other: string[] } {
  const path = join(ROOT, "src/index.ts");
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest);
  const values: string[] = [];
  const types: string[] = [];
  const other: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) {
      const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
      if (modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
        other.push(statement.getText(source));
      continue;
    }
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause)) {
      other.push(statement.getText(source));
      continue;
    }
    for (const element of clause.elements) {
      (statement.isTypeOnly || element.isTypeOnly ? types : values).push(element.name.text);
    }
  }
  return { values, types, other };
}

/** Every name imported from "occam" by the README's and docs' code blocks and by examples/ files. */
function documentedImports(): Map<string, string> {
  const files = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
    ...readdirSync(join(ROOT, "examples"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".mjs") || f.endsWith(".js") || f.endsWith(".ts"))
      .map((f) => `examples/${f}`),
  ];
  const names = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']occam["']/g)) {
      for (const part of m[1].split(",")) {
        const name = part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0];
        if (name !== "") names.set(name, file);
      }
    }
  }
  return names;
}

describe("the public API", () => {
  it("exports exactly the listed runtime names", async () => {
    const api = await import("../src/index.js");
    expect(sorted(Object.keys(api))).toEqual(sorted(VALUES));
  });

  it("declares exactly the listed names, values and type-only, by name", () => {
    const { values, types, other } = declaredExports();
    expect(other).toEqual([]);
    expect(sorted(values)).toEqual(sorted(VALUES));
    expect(sorted(types)).toEqual(sorted(TYPES));
  });

  it("stays under 150 names, values and types together", () => {
    expect(VALUES.length + TYPES.length).toBeLessThan(150);
  });

  it("exports every name the docs and examples import from occam", () => {
    const exported = new Set([...VALUES, ...TYPES]);
    const imported = documentedImports();
    expect(imported.size).toBeGreaterThan(0);
    const missing = [...imported]
      .filter(([name]) => !exported.has(name))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });
});
