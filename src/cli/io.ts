/** Where a command writes: standard output for results, standard error for messages and progress. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * How progress is shown on stderr: redrawn in place on a terminal ("terminal"), as plain lines at
   * most about once a second when asked for with `--progress` ("lines"), or not at all ("off").
   */
  progress: "terminal" | "lines" | "off";
}

/** The process's own streams. */
export const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  progress: process.stderr.isTTY ? "terminal" : "off",
};

/** A command's progress on stderr: `show` the current step, `clear` once the work is done. */
export interface ProgressLine {
  show(text: string): void;
  clear(): void;
}

/** Seconds between two progress lines when they are not redrawn in place. */
const LINE_INTERVAL_MS = 1000;

/**
 * The progress writer of a command, each update prefixed with `label` ("compare: model 12 of 64"), or
 * undefined when progress is off. On a terminal every update redraws one line; as plain lines the
 * first update is written at once (it says the work has started) and later ones at most once a second.
 */
export function progressLine(io: Io, label: string): ProgressLine | undefined {
  if (io.progress === "off") return undefined;
  if (io.progress === "terminal") {
    return {
      show: (text) => io.stderr(`\r\x1b[2K${label}: ${text}`),
      clear: () => io.stderr("\r\x1b[2K"),
    };
  }
  let last = Number.NEGATIVE_INFINITY;
  return {
    show(text) {
      const now = Date.now();
      if (now - last < LINE_INTERVAL_MS) return;
      last = now;
      io.stderr(`${label}: ${text}\n`);
    },
    clear() {},
  };
}
