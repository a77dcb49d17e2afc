/**
 * `occam evidence` at its defaults (bridge sampling on NUTS draws, cross-checked by a quick smc, on two
 * threads) on models of the real-model suite, end to end in process: wall and CPU seconds, likelihood
 * evaluations of the posterior draws, of bridge sampling and of the cross-check, the consensus's error
 * against the suite's reference, and whether the two agreed. Targets on a 2-core machine: the Pima
 * regressions within 5 s, 300 000 evaluations and 0.01 nats; the 34-parameter random-intercept model
 * within 30 s. Usage: `npm run build && npm run bench -- evidence-defaults`.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { timedCli } from "./in-process.js";

const FOLDER = fileURLToPath(new URL("../examples/real-models/", import.meta.url));
const MODELS = ["pima-logistic-4", "pima-logistic-5", "birthwt-probit", "bacteria-glmm"];

interface Report {
  results: { method: string; logZ: number; stdErr: number; reliable: boolean; nLikelihoodEvals: number }[];
  posteriorDraws?: { nLikelihoodEvals: number };
  agree: boolean;
  consensus: { logZ: number; stdErr: number } | null;
}

/** Seconds, evaluations and errors of `occam evidence MODEL.mjs` at its defaults on each model. */
export async function measurements(): Promise<Record<string, number>> {
  const references = JSON.parse(readFileSync(`${FOLDER}references.json`, "utf8")) as Record<
    string,
    { logZ: number }
  >;
  const out: Record<string, number> = {};
  for (const name of MODELS) {
    const load = loadavg()[0];
    const run = await timedCli(["evidence", `${FOLDER}${name}.mjs`, "--json"]);
    if (run.code !== 0) throw new Error(`occam evidence ${name} exited with ${run.code}`);
    const report = JSON.parse(run.stdout) as Report;
    const at = `evidence ${name}`;
    out[`${at}: wall seconds`] = run.wall;
    out[`${at}: CPU seconds of the process`] = run.cpu;
    out[`${at}: load average at the start`] = load;
    const draws = report.posteriorDraws?.nLikelihoodEvals ?? 0;
    out[`${at}: evaluations, posterior draws`] = draws;
    let total = draws;
    for (const r of report.results) {
      out[`${at}: evaluations, ${r.method}`] = r.nLikelihoodEvals;
      out[`${at}: ${r.method} error (nats)`] = r.logZ - references[name].logZ;
      out[`${at}: ${r.method} std. error`] = r.stdErr;
      out[`${at}: ${r.method} reliable (1 yes)`] = r.reliable ? 1 : 0;
      total += r.nLikelihoodEvals;
    }
    out[`${at}: evaluations in all`] = total;
    out[`${at}: consensus error (nats)`] =
      report.consensus === null ? Number.NaN : report.consensus.logZ - references[name].logZ;
    out[`${at}: agree (1 yes)`] = report.agree ? 1 : 0;
  }
  return out;
}
