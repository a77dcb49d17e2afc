/**
 * `occam compare --family bernoulli` end to end in process: on every subset of the Pima data's seven
 * inputs (128 logistic regressions, 532 rows) under the normal prior (logit and probit links) and the
 * default robust g-prior (target: 3 s), and on every subset of 15 inputs of a 2000-row logistic problem
 * made from a seed (32 768 models, screened by Laplace's approximation; target: 30 s): wall and CPU
 * seconds, likelihood evaluations, the largest standard error, and the models screened. Usage:
 * `npm run build && npm run bench -- compare-glm`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logisticCsv } from "./glm-data.js";
import { timedCli } from "./in-process.js";

interface Report {
  modelCount: number;
  nLikelihoodEvals: number;
  unreliableModels: number;
  screenedModels: number;
  seconds: number;
  models: { stdErr: number }[];
}

/** Seconds and evaluations of the 128 Pima logistic regressions. */
export async function measurements(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const runs = [
    { name: "logit, normal prior", flags: ["--link", "logit", "--prior", "normal", "--scale", "10"] },
    { name: "probit, normal prior", flags: ["--link", "probit", "--prior", "normal", "--scale", "10"] },
    { name: "logit, robust g-prior", flags: [] },
  ];
  for (const { name, flags } of runs) {
    const args = ["compare", "examples/real-models/pima.csv", "--target", "type", "--family", "bernoulli"];
    const run = await timedCli([...args, ...flags, "--json"]);
    if (run.code !== 0) throw new Error(`occam compare exited with ${run.code}`);
    const report = JSON.parse(run.stdout) as Report;
    const at = `compare Pima, 128 regressions (${name})`;
    out[`${at}: wall seconds (target 3)`] = run.wall;
    out[`${at}: CPU seconds`] = run.cpu;
    out[`${at}: likelihood evaluations`] = report.nLikelihoodEvals;
    out[`${at}: largest standard error`] = Math.max(...report.models.map((m) => m.stdErr));
    out[`${at}: unreliable models`] = report.unreliableModels;
  }
  const file = join(mkdtempSync(join(tmpdir(), "occam-bench-")), "logistic-15.csv");
  writeFileSync(file, logisticCsv(2000, 15, 15));
  const run = await timedCli(["compare", file, "--target", "y", "--family", "bernoulli", "--json"]);
  if (run.code !== 0) throw new Error(`occam compare exited with ${run.code}`);
  const report = JSON.parse(run.stdout) as Report;
  const at = "compare 15 inputs, 2000 rows, 32 768 regressions (robust g-prior)";
  out[`${at}: wall seconds (target 30)`] = run.wall;
  out[`${at}: CPU seconds`] = run.cpu;
  out[`${at}: likelihood evaluations`] = report.nLikelihoodEvals;
  out[`${at}: models screened by Laplace alone`] = report.screenedModels;
  out[`${at}: unreliable models among the others`] = report.unreliableModels;
  return out;
}
