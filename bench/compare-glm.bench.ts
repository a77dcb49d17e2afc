/**
 * `occam compare --family bernoulli` on every subset of the Pima data's seven inputs (128 logistic
 * regressions, 532 rows), end to end in process: wall and CPU seconds (target: 3 s), likelihood
 * evaluations, and the largest standard error. Usage: `npm run bench -- compare-glm`.
 */
import { timedCli } from "./in-process.js";

interface Report {
  modelCount: number;
  nLikelihoodEvals: number;
  unreliableModels: number;
  models: { stdErr: number }[];
}

/** Seconds and evaluations of the 128 Pima logistic regressions. */
export async function measurements(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const link of ["logit", "probit"]) {
    const args = ["compare", "examples/real-models/pima.csv", "--target", "type", "--family", "bernoulli"];
    const run = await timedCli([...args, "--link", link, "--prior", "normal", "--scale", "10", "--json"]);
    if (run.code !== 0) throw new Error(`occam compare exited with ${run.code}`);
    const report = JSON.parse(run.stdout) as Report;
    const at = `compare Pima, 128 ${link} regressions`;
    out[`${at}: wall seconds (target 3)`] = run.wall;
    out[`${at}: CPU seconds`] = run.cpu;
    out[`${at}: likelihood evaluations`] = report.nLikelihoodEvals;
    out[`${at}: largest standard error`] = Math.max(...report.models.map((m) => m.stdErr));
    out[`${at}: unreliable models`] = report.unreliableModels;
  }
  return out;
}
