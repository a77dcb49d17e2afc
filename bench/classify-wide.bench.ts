/**
 * `occam classify` at scale: on two public two-class sets with many inputs (data/classification/: the
 * Wisconsin breast-cancer data, 30 inputs × 284 training rows, and the sonar data, 60 inputs × 104
 * rows), all five families at default settings (two worker threads), in process: the run's wall and CPU
 * seconds, then each family's seconds, evidence and whether it was reliable. Target: 60 s of wall time
 * per data set on two cores. Usage: `npm run bench -- classify-wide` (about two minutes).
 */
import { fileURLToPath } from "node:url";
import { timedCli } from "./in-process.js";

const SETS = [
  { name: "breast-cancer", target: "diagnosis" },
  { name: "sonar", target: "object" },
];

interface Report {
  families: {
    name: string;
    seconds: number;
    logEvidence: number;
    reliable: boolean;
    accuracy: number | null;
  }[];
}

/** Seconds of the whole default run on each wide data set, and each family's seconds, evidence and reliability. */
export async function measurements(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const set of SETS) {
    const path = (part: string) =>
      fileURLToPath(new URL(`../data/classification/${set.name}-${part}.csv`, import.meta.url));
    const args = ["classify", path("train"), "--target", set.target, "--test", path("test"), "--json"];
    const run = await timedCli(args);
    if (run.code !== 0) throw new Error(`occam classify ${set.name} exited with ${run.code}`);
    out[`classify ${set.name}: wall seconds`] = run.wall;
    out[`classify ${set.name}: CPU seconds`] = run.cpu;
    for (const f of (JSON.parse(run.stdout) as Report).families) {
      const at = `classify ${set.name}, ${f.name}`;
      out[`${at}: seconds`] = f.seconds;
      out[`${at}: reliable (1 yes)`] = f.reliable ? 1 : 0;
      out[`${at}: log evidence`] = f.logEvidence;
      out[`${at}: test accuracy`] = f.accuracy ?? Number.NaN;
    }
  }
  return out;
}
