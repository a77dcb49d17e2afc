import { OccamError } from "../errors.js";
import type { RealModelReference } from "../experiments/real-models.js";
import type { ParallelOptions } from "../parallel/run.js";
import type { ReportDocument } from "../report/html.js";

/**
 * What every reproduction takes from the command line; the {@link ParallelOptions} (`--workers`,
 * `--redis`, `--checkpoint`, Ctrl-C) only for the reproductions that split into units.
 */
export interface ReproductionOptions extends ParallelOptions {
  seed: number;
  quick: boolean;
  /** Told what the experiment is working on; the CLI shows it on a terminal. */
  onProgress?: (step: string) => void;
  /** Numbers of hidden units (`--hidden`), for the reproductions that take them (robot-arm). */
  hidden?: number[];
  /** Noise standard deviation of the data (`--noise`), for robot-arm. */
  noise?: number;
  /** Seeds per problem and method (`--seeds`), for calibration. */
  seeds?: number;
}

/** An experiment the CLI can run: its computation, its table and its HTML report. */
export interface Reproduction {
  run(options: ReproductionOptions): unknown;
  format(result: unknown): string;
  /** The result as a report document (the paper's table or figure beside occam's), when it has one. */
  report?(result: unknown): Promise<ReportDocument>;
  /** Whether it splits into units of work (and so takes --workers and --redis). */
  readonly parallel: boolean;
  /** The result as the markdown table its page in docs/ shows (`--markdown`), when it has one. */
  markdown?(result: unknown): string;
}

function reproduction<T>(
  run: (options: ReproductionOptions) => T | Promise<T>,
  format: (result: T) => string,
  report: () => Promise<(result: T) => Promise<ReportDocument>>,
  parallel = false,
): Reproduction {
  return {
    run,
    format: format as (result: unknown) => string,
    // The report's module (and vega with it) loads only when a report is asked for.
    report: async (result: unknown) => (await report())(result as T),
    parallel,
  };
}

/**
 * The reproductions by name, as `occam reproduce NAME` takes them. Each loads its experiment only
 * when asked for: importing them all made every occam command take half a second to start.
 */
export const reproductions: Readonly<Record<string, () => Promise<Reproduction>>> = {
  samplers: async () =>
    reproduction(
      (await import("../experiments/samplers.js")).runSamplersExperiment,
      (await import("./reports/samplers.js")).formatSamplersReport,
      async () => (await import("../report/reproductions/samplers.js")).samplersReport,
    ),
  calibration: async () => {
    const { formatCalibrationReport, formatCalibrationMarkdown } = await import("./reports/calibration.js");
    return {
      ...reproduction(
        (await import("../experiments/calibration.js")).runCalibrationExperimentInParallel,
        formatCalibrationReport,
        async () => (await import("../report/reproductions/calibration.js")).calibrationReport,
        true,
      ),
      markdown: formatCalibrationMarkdown as (result: unknown) => string,
    };
  },
  estimators: async () =>
    reproduction(
      (await import("../experiments/estimators.js")).runEstimatorsExperiment,
      (await import("./reports/estimators.js")).formatEstimatorsReport,
      async () => (await import("../report/reproductions/estimators.js")).estimatorsReport,
    ),
  everson: async () =>
    reproduction(
      (await import("../experiments/everson.js")).runEversonExperiment,
      (await import("./reports/everson.js")).formatEversonReport,
      async () => (await import("../report/reproductions/everson.js")).eversonReport,
    ),
  "everson-families": async () =>
    reproduction(
      (await import("../experiments/everson-families.js")).runEversonFamiliesExperiment,
      (await import("./reports/everson-families.js")).formatEversonFamiliesReport,
      async () => (await import("../report/reproductions/everson-families.js")).eversonFamiliesReport,
    ),
  "fabricius-linear": async () =>
    reproduction(
      (await import("../experiments/fabricius-linear.js")).runFabriciusLinearExperiment,
      (await import("./reports/fabricius-linear.js")).formatFabriciusLinearReport,
      async () => (await import("../report/reproductions/fabricius-linear.js")).fabriciusLinearReport,
    ),
  sykacek: async () =>
    reproduction(
      (await import("../experiments/sykacek.js")).runSykacekExperiment,
      (await import("./reports/sykacek.js")).formatSykacekReport,
      async () => (await import("../report/reproductions/sykacek.js")).sykacekReport,
    ),
  "real-models": async () =>
    reproduction(
      async (options: ReproductionOptions) =>
        (await import("../experiments/real-models.js")).runRealModelsExperiment({
          ...options,
          references: await readRealModelReferences(),
        }),
      (await import("./reports/real-models.js")).formatRealModelsReport,
      async () => (await import("../report/reproductions/real-models.js")).realModelsReport,
      true,
    ),
  "robot-arm": async () =>
    reproduction(
      (await import("../experiments/robot-arm.js")).runRobotArmExperimentInParallel,
      (await import("./reports/robot-arm.js")).formatRobotArmReport,
      async () => (await import("../report/reproductions/robot-arm.js")).robotArmReport,
      true,
    ),
};

/** The real-model suite's references, examples/real-models/references.json (in a checkout of occam). */
async function readRealModelReferences(): Promise<Record<string, RealModelReference>> {
  const { readFileSync } = await import("node:fs");
  const { REAL_MODELS_FOLDER } = await import("../experiments/real-models.js");
  const file = `${REAL_MODELS_FOLDER}/references.json`;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new OccamError(
      "invalid-argument",
      `reproduce real-models runs from a checkout of occam, where ${file} is: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
