/**
 * `occam compare --family bernoulli` on every subset of the Pima data's seven inputs (128 logistic
 * regressions, 532 rows), end to end in process, under the normal prior (logit and probit links) and
 * the default robust g-prior: wall and CPU seconds (target: 3 s), likelihood evaluations, and the
 * largest standard error. Usage: `npm run bench -- compare-glm`.
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
  return out;
}
