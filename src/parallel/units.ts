/**
 * Units of work: the pieces a long command splits into, each named by a key and run by one of occam's
 * own commands on a payload of plain data. A unit's result depends only on its command and payload
 * (every random stream inside it is seeded from the unit's identity), so it does not matter which
 * thread or machine runs it, in what order, or how often: results are gathered by key.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { z } from "zod";
import { OccamError } from "../errors.js";

/** One unit of work: which command runs it, on what data, and the key its result is filed under. */
export interface Unit<P = unknown> {
  /** Unique within a job: the unit's identity (e.g. `H=8/down`, `models 0-15`). */
  readonly key: string;
  /** The name of an occam unit command (see {@link UnitCommand}). */
  readonly command: string;
  /** The command's input: plain, JSON-serialisable data, checked by the command's schema on receipt. */
  readonly payload: P;
}

/** What a command may use besides its payload. */
export interface UnitContext {
  /**
   * Resolves a path a job names against the worker's data folder, refusing one that leads outside it
   * (an absolute path elsewhere, `..`): a job never reads what its worker does not serve.
   */
  dataPath(path: string): string;
}

/** One of occam's own unit commands: a name, the schema of its payload and what it computes. */
export interface UnitCommand<P = unknown, R = unknown> {
  readonly name: string;
  /** The payload's schema, checked when a unit is queued and again when a worker receives it. */
  readonly payload: z.ZodType<P>;
  /** Computes the unit's result: plain data (numbers, strings, arrays, objects), or a promise of it. */
  run(payload: P, context: UnitContext): R | Promise<R>;
}

/** Defines a unit command (a typed identity: it lets TypeScript infer the payload from the schema). */
export function defineUnitCommand<P, R>(command: UnitCommand<P, R>): UnitCommand<P, R> {
  return command;
}

/** The shape of every unit as it crosses a thread or the queue. */
export const unitSchema = z
  .object({
    key: z.string().min(1).max(200),
    command: z.string().min(1).max(100),
    payload: z.unknown(),
  })
  .strict();

/** A set of commands by name, as a worker serves them. */
export type UnitCommands = ReadonlyMap<string, UnitCommand>;

/** Gathers commands into a {@link UnitCommands} map, refusing two with one name. */
export function unitCommands(
  list: readonly {
    readonly name: string;
    readonly payload: z.ZodType;
    run(payload: never, context: UnitContext): unknown;
  }[],
): UnitCommands {
  const map = new Map<string, UnitCommand>();
  for (const command of list) {
    if (map.has(command.name)) {
      throw new OccamError("internal", `two unit commands are named "${command.name}".`);
    }
    map.set(command.name, command as unknown as UnitCommand);
  }
  return map;
}

/** One line per problem zod found, each with the path of the offending field. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length === 0 ? "the payload" : issue.path.join(".")}: ${issue.message}`)
    .join("; ");
}

/**
 * Checks a unit against its command's schema, returning the command and the parsed payload; throws an
 * `invalid-argument` OccamError naming the unit for anything malformed or a command this set lacks.
 */
export function checkUnit(commands: UnitCommands, value: unknown): { command: UnitCommand; unit: Unit } {
  const shape = unitSchema.safeParse(value);
  if (!shape.success) {
    throw new OccamError("invalid-argument", `malformed unit of work: ${describeIssues(shape.error)}.`);
  }
  const unit = shape.data as Unit;
  const command = commands.get(unit.command);
  if (command === undefined) {
    throw new OccamError(
      "invalid-argument",
      `unit ${unit.key}: unknown command "${unit.command}"; this worker runs only ${[...commands.keys()].join(", ")}.`,
    );
  }
  const payload = command.payload.safeParse(unit.payload);
  if (!payload.success) {
    throw new OccamError(
      "invalid-argument",
      `unit ${unit.key}: bad payload for ${unit.command}: ${describeIssues(payload.error)}.`,
    );
  }
  return { command, unit: { ...unit, payload: payload.data } };
}

/** Checks and runs one unit. */
export async function runUnit(
  commands: UnitCommands,
  value: unknown,
  context: UnitContext,
): Promise<unknown> {
  const { command, unit } = checkUnit(commands, value);
  return command.run(unit.payload, context);
}

/** A {@link UnitContext} whose paths are bounded by `folder` (resolved against the working directory). */
export function dataFolderContext(folder: string): UnitContext {
  const root = resolve(folder);
  return {
    dataPath(path: string): string {
      const full = resolve(root, path);
      const rel = relative(root, full);
      if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
        throw new OccamError(
          "invalid-argument",
          `the path ${path} lies outside this worker's data folder ${root}; name files inside it (start the worker with --data DIR).`,
        );
      }
      return full;
    },
  };
}

/**
 * Result encoding for every transport (threads, the queue, and this thread, so that all give the same
 * numbers): JSON with ±Infinity and NaN kept (as `{"$number": "NaN"}`) and Float64Array and Int32Array
 * kept (as `{"$f64": [...]}`, `{"$i32": [...]}`), so a result decodes to exactly the numbers the unit
 * computed. JSON's own number text round-trips every finite double.
 */
export function encodeResult(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === "number") return Number.isFinite(v) ? v : { $number: String(v) };
    if (v instanceof Float64Array) return { $f64: Array.from(v) };
    if (v instanceof Int32Array) return { $i32: Array.from(v) };
    return v;
  });
}

/** The inverse of {@link encodeResult}. */
export function decodeResult(text: string): unknown {
  return JSON.parse(text, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    if (typeof v.$number === "string") return Number(v.$number);
    if (Array.isArray(v.$f64)) return Float64Array.from(v.$f64);
    if (Array.isArray(v.$i32)) return Int32Array.from(v.$i32);
    return v;
  });
}
