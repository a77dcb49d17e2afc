/**
 * An estimator with a precision target (`smc`, `stepping-stone`, `path` or `chaining`, further runs
 * until the standard error is at most 0.05 nats) at its defaults on one problem of the hard-problem
 * suite, or on a model of the real-model suite, over several seeds: each seed's error against the
 * reference, its standard error, its runs' starts and sizes, likelihood evaluations and seconds.
 * `OCCAM_PRECISION_METHOD` names the method (smc unless set), `OCCAM_PRECISION_PROBLEM` the problem
 * or model (correlated-box-d50 unless set; e.g. pima-logistic-5 for examples/real-models/), and
 * `OCCAM_PRECISION_SEEDS` the seeds as a list or a range ("1,2,3", "1001-1044"; 1-5 unless set).
 * Long: minutes a seed on the 50-dimensional box.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chaining } from "../src/evidence/chaining.js";
import { type PathLadderDiagnostics, pathSampling } from "../src/evidence/path-sampling.js";
import type { EvidenceEstimate } from "../src/evidence/result.js";
import { steppingStone } from "../src/evidence/stepping-stone.js";
import { temperedSmc } from "../src/evidence/tempered-smc.js";
import type { BayesModel } from "../src/model/model.js";
import { HARD_PROBLEM_NAMES, type HardProblemName, hardProblem } from "../src/models/hard-problems/index.js";

const REAL_MODELS = fileURLToPath(new URL("../examples/real-models/", import.meta.url));

/** A hard problem by name, or a model of the real-model suite with its reference log Z. */
async function problemNamed(name: string): Promise<{ model: BayesModel; logZ: number }> {
  if ((HARD_PROBLEM_NAMES as readonly string[]).includes(name)) return hardProblem(name as HardProblemName);
  const file = `${REAL_MODELS}${name}.mjs`;
  if (!existsSync(file))
    throw new Error(`OCCAM_PRECISION_PROBLEM: no hard problem or real model named ${name}`);
  const references = JSON.parse(readFileSync(`${REAL_MODELS}references.json`, "utf8"));
  return { model: (await import(file)).default as BayesModel, logZ: references[name].logZ as number };
}

/** Path sampling on its (default) ladder scheme, whose diagnostics list the runs. */
const ladderPath = (model: BayesModel, options: { seed: number }) =>
  pathSampling(model, options) as EvidenceEstimate<"path", PathLadderDiagnostics>;

const ESTIMATORS = { smc: temperedSmc, "stepping-stone": steppingStone, path: ladderPath, chaining };

function seedsFrom(text: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range === null) return text.split(",").map(Number);
  return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i);
}

/** The largest |error|, the mean error, and the fraction of seeds within two standard errors. */
export async function measurements(): Promise<Record<string, number>> {
  const method = (process.env.OCCAM_PRECISION_METHOD ?? "smc") as keyof typeof ESTIMATORS;
  const estimator = ESTIMATORS[method];
  if (estimator === undefined)
    throw new Error(`OCCAM_PRECISION_METHOD: smc, stepping-stone, path or chaining, got ${method}`);
  const name = process.env.OCCAM_PRECISION_PROBLEM ?? "correlated-box-d50";
  const problem = await problemNamed(name);
  const errors: number[] = [];
  let within2 = 0;
  let evaluations = 0;
  for (const seed of seedsFrom(process.env.OCCAM_PRECISION_SEEDS ?? "1-5")) {
    const r = estimator(problem.model, { seed });
    const error = r.logZ - problem.logZ;
    errors.push(error);
    if (Math.abs(error) < 2 * r.stdErr) within2++;
    evaluations += r.nLikelihoodEvals;
    const runs = r.diagnostics.runs
      .map((run) => `${run.particles}${run.start === "reference" ? " (reference)" : ""}`)
      .join(", ");
    console.log(
      `${method} on ${name}, seed ${seed}: error ${error.toFixed(3)} ± ${r.stdErr.toFixed(3)}${r.reliable ? "" : " (unreliable)"}, ` +
        `runs of ${runs} particles, ${(r.nLikelihoodEvals / 1e6).toFixed(1)} M evaluations, ${r.seconds.toFixed(0)} s`,
    );
  }
  return {
    "largest |error|": Math.max(...errors.map(Math.abs)),
    "mean error": errors.reduce((a, b) => a + b, 0) / errors.length,
    "fraction within 2 std. errors": within2 / errors.length,
    "mean likelihood evaluations": evaluations / errors.length,
  };
}
