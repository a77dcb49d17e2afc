/** Where a command writes: standard output for results, standard error for messages and progress. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether standard error is a terminal, so progress is worth drawing. */
  readonly interactive: boolean;
}

/** The process's own streams. */
export const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: Boolean(process.stderr.isTTY),
};
