/**
 * `occam compare --family bernoulli` on every subset of the Pima data's seven inputs (128 logistic
 * regressions, 532 rows), end to end in process: wall and CPU seconds (target: 3 s), likelihood
 * evaluations, and the largest standard error. Usage: `npm run bench -- compare-glm`.
 */
import type { Io } from "../src/cli/io.js";
import { main } from "../src/cli/program.js";

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
    let stdout = "";
    const io: Io = {
      stdout: (t) => {
        stdout += t;
      },
      stderr: () => undefined,
      progress: "off",
    };
    const args = ["compare", "examples/real-models/pima.csv", "--target", "type", "--family", "bernoulli"];
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    const code = await main([...args, "--link", link, "--prior", "normal", "--scale", "10", "--json"], io);
    const wall = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpu0);
    if (code !== 0) throw new Error(`occam compare exited with ${code}`);
    const report = JSON.parse(stdout) as Report;
    const at = `compare Pima, 128 ${link} regressions`;
    out[`${at}: wall seconds (target 3)`] = wall;
    out[`${at}: CPU seconds`] = (cpu.user + cpu.system) / 1e6;
    out[`${at}: likelihood evaluations`] = report.nLikelihoodEvals;
    out[`${at}: largest standard error`] = Math.max(...report.models.map((m) => m.stdErr));
    out[`${at}: unreliable models`] = report.unreliableModels;
  }
  return out;
}
