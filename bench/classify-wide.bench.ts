/**
 * `occam classify` at scale: on two public two-class sets with many inputs (data/classification/: the
 * Wisconsin breast-cancer data, 30 inputs × 284 training rows, and the sonar data, 60 inputs × 104
 * rows), each family alone at default settings on one worker, in process: its seconds, the CPU
 * seconds, its evidence and whether it was reliable. Target: all five families, on two cores,
 * within 60 s per data set. Usage: `npm run bench -- classify-wide` (long: minutes per family).
 */
import { fileURLToPath } from "node:url";
import { CLASSIFIER_FAMILIES } from "../src/models/classifiers/families.js";
import { timedCli } from "./in-process.js";

const SETS = [
  { name: "breast-cancer", target: "diagnosis" },
  { name: "sonar", target: "object" },
];

interface Report {
  families: { name: string; reliable: boolean; logEvidence: number; accuracy: number }[];
}

/** Seconds, reliability and evidence of each family alone on each wide data set. */
export async function measurements(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const set of SETS) {
    const path = (part: string) =>
      fileURLToPath(new URL(`../data/classification/${set.name}-${part}.csv`, import.meta.url));
    for (const family of CLASSIFIER_FAMILIES) {
      const args = ["classify", path("train"), "--target", set.target, "--test", path("test")];
      const run = await timedCli([...args, "--families", family, "--workers", "1", "--json"]);
      if (run.code !== 0)
        throw new Error(`occam classify ${set.name} --families ${family} exited with ${run.code}`);
      const f = (JSON.parse(run.stdout) as Report).families[0];
      const at = `classify ${set.name}, ${family} alone`;
      out[`${at}: wall seconds`] = run.wall;
      out[`${at}: CPU seconds`] = run.cpu;
      out[`${at}: reliable (1 yes)`] = f.reliable ? 1 : 0;
      out[`${at}: log evidence`] = f.logEvidence;
      out[`${at}: test accuracy`] = f.accuracy;
    }
  }
  return out;
}
