/**
 * Sykacek's sampler on Ionosphere (175 training rows, 33 inputs, 6 kernels, h = 0.5): one chain of
 * 15000 sweeps (5000 burn-in) with predictions for the 176 test rows, in each structure. Target:
 * under 30 s. The shared structure scans only the selected inputs' allocations; the per-input one
 * scans all 33 inputs' every sweep.
 */
import { readCsv } from "../src/data/csv-file.js";
import {
  classificationTable,
  fitMixtureClassifier,
  selectRows,
} from "../src/models/mixture-classifier/index.js";

const all = classificationTable(
  readCsv(new URL("../data/sykacek/ionosphere.csv", import.meta.url).pathname),
  {
    target: "Class",
  },
);
const train = selectRows(
  all,
  Array.from({ length: 175 }, (_, r) => r),
);
const test = selectRows(
  all,
  Array.from({ length: all.n - 175 }, (_, r) => r + 175),
);

/** Seconds for 15000 sweeps on Ionosphere, per structure (one timed run each: a run takes seconds). */
export function measurements(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const structure of ["shared", "per-input"] as const) {
    const fit = fitMixtureClassifier(train, {
      kernels: 6,
      h: 0.5,
      draws: 15000,
      burnIn: 5000,
      structure,
      test: { X: test.X, n: test.n },
    });
    out[`sykacek ${structure}: seconds for 15000 sweeps on Ionosphere (target 30)`] = fit.seconds;
    out[`sykacek ${structure}: mean inputs`] = fit.meanInputs;
  }
  return out;
}
