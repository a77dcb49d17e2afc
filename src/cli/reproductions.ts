import { runEstimatorsExperiment } from "../experiments/estimators.js";
import { runEversonExperiment } from "../experiments/everson.js";
import { runFabriciusLinearExperiment } from "../experiments/fabricius-linear.js";
import { runRobotArmExperiment } from "../experiments/robot-arm.js";
import { runSamplersExperiment } from "../experiments/samplers.js";
import { runSykacekExperiment } from "../experiments/sykacek.js";
import { formatEstimatorsReport } from "./reports/estimators.js";
import { formatEversonReport } from "./reports/everson.js";
import { formatFabriciusLinearReport } from "./reports/fabricius-linear.js";
import { formatRobotArmReport } from "./reports/robot-arm.js";
import { formatSamplersReport } from "./reports/samplers.js";
import { formatSykacekReport } from "./reports/sykacek.js";

/** What every reproduction takes from the command line. */
export interface ReproductionOptions {
  seed: number;
  quick: boolean;
  /** Told what the experiment is working on; the CLI shows it on a terminal. */
  onProgress?: (step: string) => void;
  /** Numbers of hidden units (`--hidden`), for the reproductions that take them (robot-arm). */
  hidden?: number[];
}

/** An experiment the CLI can run: its computation and its table. */
export interface Reproduction {
  run(options: ReproductionOptions): unknown;
  format(result: unknown): string;
}

function reproduction<T>(
  run: (options: ReproductionOptions) => T,
  format: (result: T) => string,
): Reproduction {
  return { run, format: format as (result: unknown) => string };
}

/** The reproductions by name, as `occam reproduce NAME` takes them. */
export const reproductions: Readonly<Record<string, Reproduction>> = {
  samplers: reproduction(runSamplersExperiment, formatSamplersReport),
  estimators: reproduction(runEstimatorsExperiment, formatEstimatorsReport),
  sykacek: reproduction(runSykacekExperiment, formatSykacekReport),
  "fabricius-linear": reproduction(runFabriciusLinearExperiment, formatFabriciusLinearReport),
  everson: reproduction(runEversonExperiment, formatEversonReport),
  "robot-arm": reproduction(runRobotArmExperiment, formatRobotArmReport),
};
