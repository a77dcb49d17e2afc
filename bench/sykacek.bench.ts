/**
 * Sykacek's sampler on Ionosphere (175 training rows, 33 inputs, 6 kernels, h = 0.5): 15000 sweeps
 * (collapsed Gibbs scans of all 33 inputs + five jumps each) with predictions for the 176 test rows. Target: < 30 s.
 */
import type { Bench } from "tinybench";
import { readCsv } from "../src/data/csv.js";
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

/** Registers the benchmark. */
export default function register(bench: Bench): void {
  bench.add("sykacek: 15000 sweeps on Ionosphere", () => {
    fitMixtureClassifier(train, {
      kernels: 6,
      h: 0.5,
      draws: 15000,
      burnIn: 5000,
      test: { X: test.X, n: test.n },
    });
  });
}
