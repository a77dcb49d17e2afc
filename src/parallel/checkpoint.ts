/**
 * A long run's finished units kept in a file, so that a run stopped part-way (Ctrl-C, a closed
 * terminal, a machine restarted) resumes where it was: started again with the same file, it runs only
 * the units that file does not hold. A unit is recognised by its command and payload, which fix its
 * result (see units.ts), so a run with other settings or another seed reuses nothing it should not.
 */
import { appendFileSync, existsSync, readFileSync, truncateSync } from "node:fs";
import { OccamError } from "../errors.js";
import type { Unit } from "./units.js";

/** Where a run keeps its finished units' encoded results (see `encodeResult`), and finds earlier ones. */
export interface UnitCheckpoint {
  /** The encoded result of this unit from an earlier run, if it has one. */
  find(unit: Unit): string | undefined;
  /** Keeps a finished unit's encoded result. */
  keep(unit: Unit, encoded: string): void;
}

/** A unit's identity in a checkpoint: its command and payload, which fix its result. */
function unitIdentity(unit: Unit): string {
  return `${unit.command} ${JSON.stringify(unit.payload)}`;
}

/**
 * A checkpoint in a file of JSON lines, one per finished unit, appended as each finishes. A last line
 * cut short (the process killed while writing it) is removed: that unit runs again.
 */
export function fileCheckpoint(path: string): UnitCheckpoint {
  const kept = new Map<string, string>();
  if (existsSync(path)) {
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      if (line.trim() === "") return;
      let entry: { unit?: unknown; result?: unknown };
      try {
        entry = JSON.parse(line);
      } catch {
        if (i === lines.length - 1) {
          truncateSync(path, Buffer.byteLength(text) - Buffer.byteLength(line));
          return;
        }
        throw new OccamError(
          "invalid-argument",
          `checkpoint ${path}: line ${i + 1} is not JSON; give a new file, or the file an earlier run of this command wrote.`,
        );
      }
      if (typeof entry.unit !== "string" || typeof entry.result !== "string") {
        throw new OccamError(
          "invalid-argument",
          `checkpoint ${path}: line ${i + 1} is not a finished unit; give a new file, or the file an earlier run of this command wrote.`,
        );
      }
      kept.set(entry.unit, entry.result);
    });
  }
  return {
    find: (unit) => kept.get(unitIdentity(unit)),
    keep(unit, encoded) {
      const identity = unitIdentity(unit);
      kept.set(identity, encoded);
      appendFileSync(path, `${JSON.stringify({ unit: identity, result: encoded })}\n`);
    },
  };
}
