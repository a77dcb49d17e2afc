/**
 * `occam classify` on Pima (Ripley's split: 200 training and 332 test rows, 7 inputs) end to end at
 * default settings, in process: the wall time (target: under 60 s), the CPU time of the process
 * (robust to a loaded machine), the load average it ran under, and each family's own seconds and
 * whether its evidence was reliable. Then the same with only the families that are cheap to sample.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { timedCli } from "./in-process.js";

const TRAIN = fileURLToPath(new URL("../data/sykacek/pima-train.csv", import.meta.url));
const TEST = fileURLToPath(new URL("../data/sykacek/pima-test.csv", import.meta.url));

interface Report {
  families: {
    name: string;
    reliable: boolean;
    probability: number | null;
    accuracy: number;
    logLoss: number;
    seconds: number;
  }[];
  average: { accuracy: number; logLoss: number } | null;
  seconds: number;
}

async function classify(extra: string[]): Promise<{ wall: number; cpu: number; report: Report }> {
  const run = await timedCli(["classify", TRAIN, "--target", "type", "--test", TEST, "--json", ...extra]);
  if (run.code !== 0) throw new Error(`occam classify exited with ${run.code}`);
  return { wall: run.wall, cpu: run.cpu, report: JSON.parse(run.stdout) as Report };
}

/** Seconds for `occam classify` on Pima at default settings, and with the cheap families only. */
export async function measurements(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [label, extra] of [
    ["default settings (all five families)", []],
    ["--families logistic,pknn", ["--families", "logistic,pknn"]],
  ] as const) {
    const load = loadavg()[0];
    const { wall, cpu, report } = await classify([...extra]);
    out[`classify Pima, ${label}: wall seconds (target 60)`] = wall;
    out[`classify Pima, ${label}: CPU seconds`] = cpu;
    out[`classify Pima, ${label}: load average at the start`] = load;
    for (const f of report.families) {
      out[`classify Pima, ${label}: ${f.name} reliable (1 yes)`] = f.reliable ? 1 : 0;
      out[`classify Pima, ${label}: ${f.name} test log loss`] = f.logLoss;
      out[`classify Pima, ${label}: ${f.name} seconds`] = f.seconds;
    }
    if (report.average !== null)
      out[`classify Pima, ${label}: average test log loss`] = report.average.logLoss;
  }
  return out;
}
