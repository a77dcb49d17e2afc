/** What every reproduction takes from the command line. */
export interface ReproductionOptions {
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

/**
 * The reproductions by name, as `occam reproduce NAME` takes them. Each loads its experiment only
 * when asked for: importing them all made every occam command take half a second to start.
 */
export const reproductions: Readonly<Record<string, () => Promise<Reproduction>>> = {
  samplers: async () =>
    reproduction(
      (await import("../experiments/samplers.js")).runSamplersExperiment,
      (await import("./reports/samplers.js")).formatSamplersReport,
    ),
  calibration: async () =>
    reproduction(
      (await import("../experiments/calibration.js")).runCalibrationExperiment,
      (await import("./reports/calibration.js")).formatCalibrationReport,
    ),
  estimators: async () =>
    reproduction(
      (await import("../experiments/estimators.js")).runEstimatorsExperiment,
      (await import("./reports/estimators.js")).formatEstimatorsReport,
    ),
  everson: async () =>
    reproduction(
      (await import("../experiments/everson.js")).runEversonExperiment,
      (await import("./reports/everson.js")).formatEversonReport,
    ),
  "everson-families": async () =>
    reproduction(
      (await import("../experiments/everson-families.js")).runEversonFamiliesExperiment,
      (await import("./reports/everson-families.js")).formatEversonFamiliesReport,
    ),
  "fabricius-linear": async () =>
    reproduction(
      (await import("../experiments/fabricius-linear.js")).runFabriciusLinearExperiment,
      (await import("./reports/fabricius-linear.js")).formatFabriciusLinearReport,
    ),
  sykacek: async () =>
    reproduction(
      (await import("../experiments/sykacek.js")).runSykacekExperiment,
      (await import("./reports/sykacek.js")).formatSykacekReport,
    ),
  "robot-arm": async () =>
    reproduction(
      (await import("../experiments/robot-arm.js")).runRobotArmExperiment,
      (await import("./reports/robot-arm.js")).formatRobotArmReport,
    ),
};
