/**
 * Units of work over Redis with BullMQ, for jobs that outgrow one machine. A coordinator queues a
 * job's units (each checked against its command's schema first) and gathers their results by unit as
 * they finish; `occam worker` processes serve them, each running units on its own thread pool. A unit
 * whose worker dies is taken over by another once its lock lapses (BullMQ's stalled-job handling); as
 * results are filed by unit, a unit done twice counts once. Only data crosses the queue: a worker runs
 * nothing but occam's own unit commands.
 */
import { randomUUID } from "node:crypto";
import { type Job, Queue, QueueEvents, UnrecoverableError, Worker } from "bullmq";
import { z } from "zod";
import { OccamError, type OccamErrorCode } from "../errors.js";
import { abortedError, createThreadPool } from "./pool.js";
import { checkUnit, decodeResult, encodeResult, type Unit, type UnitCommands, unitSchema } from "./units.js";

/** The name of the queue every occam coordinator and worker shares on a Redis server. */
export const QUEUE_NAME = "occam-units";

/** A job as it sits in the queue: the coordinator's run and one unit of it. */
const jobSchema = z.object({ run: z.string().uuid(), unit: unitSchema }).strict();

/** Checks a Redis URL (`redis://HOST:PORT`, `rediss://` for TLS) and returns BullMQ's connection options. */
export function redisConnection(url: string): { url: string; maxRetriesPerRequest: null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OccamError("invalid-argument", `--redis takes a URL such as redis://HOST:6379, got "${url}".`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new OccamError(
      "invalid-argument",
      `--redis takes a redis:// or rediss:// URL such as redis://HOST:6379, got "${url}".`,
    );
  }
  return { url, maxRetriesPerRequest: null };
}

/** An error as it crosses the queue: `[code] message`. */
function queueError(code: OccamErrorCode, message: string): string {
  return `[${code}] ${message}`;
}

/** The OccamError of a failed job's reason. */
function errorOfReason(reason: string): OccamError {
  const match = /^\[([a-z-]+)\] ([\s\S]*)$/.exec(reason);
  return match
    ? new OccamError(match[1] as OccamErrorCode, match[2])
    : new OccamError("internal", `a worker failed: ${reason}`);
}

/** Options of {@link runOnQueue}. */
export interface RunOnQueueOptions {
  /** The Redis server, `redis://HOST:PORT`. */
  redis: string;
  /** The commands, to check each unit before it is queued. */
  commands: UnitCommands;
  /** Stops the run: its units still waiting leave the queue, and the run rejects with `aborted`. */
  signal?: AbortSignal;
  /** Told after each unit's first result (for progress). */
  onUnit?: (done: number, total: number, key: string) => void;
  /** Told each unit's result as soon as it is filed. */
  onResult?: (index: number, result: unknown) => void;
  /** How often outstanding units are looked up besides the queue's events, in ms. @defaultValue 2000 */
  pollMs?: number;
}

/**
 * Queues the units on Redis and returns their results in the units' order, as the workers finish them.
 * A unit that fails (bad data, a worker's refusal) fails the run with its error; the run's jobs are
 * removed from Redis when it ends, however it ends.
 */
export async function runOnQueue(units: readonly Unit[], options: RunOnQueueOptions): Promise<unknown[]> {
  for (const unit of units) checkUnit(options.commands, unit);
  if (new Set(units.map((u) => u.key)).size !== units.length) {
    throw new OccamError("internal", "two units of one job share a key.");
  }
  const connection = redisConnection(options.redis);
  const queue = new Queue(QUEUE_NAME, { connection });
  const events = new QueueEvents(QUEUE_NAME, { connection });
  const run = randomUUID();
  const ids = units.map((_, i) => `${run}.${i}`);
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  const results: unknown[] = new Array(units.length);
  const filed = new Uint8Array(units.length);
  let done = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new OccamError("invalid-argument", `cannot reach Redis at ${options.redis}: ${message}`);
    });
    return await new Promise<unknown[]>((resolve, reject) => {
      const fail = (error: unknown) => reject(error);
      const file = (job: Job | undefined) => {
        if (job === undefined) return;
        const i = indexOf.get(job.id as string);
        if (i === undefined || filed[i] === 1) return;
        if (job.failedReason && !job.finishedOn) return;
        if (job.failedReason) return fail(errorOfReason(job.failedReason));
        if (!job.finishedOn || typeof job.returnvalue !== "string") return;
        filed[i] = 1;
        results[i] = decodeResult(job.returnvalue);
        // Counted apart: `?.` would skip the increment when no one listens.
        done++;
        options.onUnit?.(done, units.length, units[i].key);
        options.onResult?.(i, results[i]);
        if (done === units.length) resolve(results);
      };
      const look = (id: string) => {
        if (indexOf.has(id)) queue.getJob(id).then(file, fail);
      };
      events.on("completed", ({ jobId }) => look(jobId));
      events.on("failed", ({ jobId }) => look(jobId));
      options.signal?.addEventListener("abort", () => reject(abortedError()), { once: true });
      if (options.signal?.aborted) return reject(abortedError());
      const poll = () => {
        const outstanding = ids.filter((_, i) => filed[i] === 0).slice(0, 200);
        for (const id of outstanding) look(id);
        timer = setTimeout(poll, options.pollMs ?? 2000);
      };
      queue
        .addBulk(
          units.map((unit, i) => ({
            name: unit.command,
            data: { run, unit },
            // Completed units stay an hour at most, should the coordinator die before removing them.
            opts: {
              jobId: ids[i],
              attempts: 1,
              removeOnComplete: { age: 3600 },
              removeOnFail: { age: 86400 },
            },
          })),
        )
        .then(() => {
          if (units.length === 0) resolve([]);
          timer = setTimeout(poll, options.pollMs ?? 2000);
        }, fail);
    });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    // Waiting units leave the queue; one a worker holds is removed once it can be (it is then ignored).
    await Promise.allSettled(ids.map((id) => queue.remove(id)));
    await Promise.allSettled([events.close(), queue.close()]);
  }
}

/** What a queue worker reports as it serves. */
export type ServeEvent =
  | { readonly kind: "ready" }
  | { readonly kind: "start"; readonly key: string; readonly command: string }
  | { readonly kind: "done"; readonly key: string; readonly command: string; readonly seconds: number }
  | { readonly kind: "rejected"; readonly key: string; readonly message: string };

/** Options of {@link serveQueue}. */
export interface ServeQueueOptions {
  /** The Redis server, `redis://HOST:PORT`. */
  redis: string;
  /** The commands served, checked in this process before a thread runs them. */
  commands: UnitCommands;
  /** URL of the module exporting the same `commands`, for the threads. */
  commandsModule: string;
  /** The folder that bounds every path a unit names. */
  dataFolder: string;
  /** Units run at once, each on its own thread. */
  threads: number;
  /**
   * How long a unit's lock lasts without renewal, in ms: a dead worker's unit goes to another worker
   * after about this long. @defaultValue 30000
   */
  lockMs?: number;
  /** Stops serving: active units are abandoned (they go to other workers once their locks lapse). */
  signal?: AbortSignal;
  /** Told of each unit served or refused. */
  onEvent?: (event: ServeEvent) => void;
}

/**
 * Serves units from the Redis queue until the signal stops it. A malformed or hostile job (wrong
 * schema, an unknown command, a path outside the data folder) fails alone, with a clear reason the
 * coordinator reports, and the worker goes on serving. Resolves once stopped.
 */
export async function serveQueue(options: ServeQueueOptions): Promise<void> {
  const connection = redisConnection(options.redis);
  const pool = createThreadPool({
    threads: options.threads,
    commands: options.commandsModule,
    dataFolder: options.dataFolder,
  });
  const lockDuration = options.lockMs ?? 30_000;
  const worker = new Worker(
    QUEUE_NAME,
    async (job: Job) => {
      const started = performance.now();
      let unit: Unit;
      try {
        const data = jobSchema.safeParse(job.data);
        if (!data.success) {
          throw new OccamError(
            "invalid-argument",
            `malformed job ${job.id}: ${data.error.issues[0]?.message}`,
          );
        }
        unit = checkUnit(options.commands, data.data.unit).unit;
      } catch (error) {
        throw refusal(error, job, options.onEvent);
      }
      try {
        options.onEvent?.({ kind: "start", key: unit.key, command: unit.command });
        const result = await pool.run(unit);
        options.onEvent?.({
          kind: "done",
          key: unit.key,
          command: unit.command,
          seconds: (performance.now() - started) / 1000,
        });
        return encodeResult(result);
      } catch (error) {
        throw refusal(error, job, options.onEvent);
      }
    },
    {
      connection,
      concurrency: options.threads,
      lockDuration,
      stalledInterval: Math.max(500, Math.floor(lockDuration / 2)),
      maxStalledCount: 3,
      autorun: false,
    },
  );
  worker.on("error", () => {
    // Connection trouble: ioredis reconnects by itself; nothing to do but keep serving.
  });
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener("abort", stop, { once: true });
  });
  try {
    await worker.waitUntilReady();
    options.onEvent?.({ kind: "ready" });
    void worker.run();
    await stopped;
  } finally {
    await worker.close(true);
    await pool.destroy();
  }
}

/** The error a refused or failed unit leaves in the queue: unrecoverable, so that it is not retried. */
function refusal(error: unknown, job: Job, onEvent: ServeQueueOptions["onEvent"]): Error {
  const e = error instanceof OccamError ? error : new OccamError("internal", String(error));
  const key = typeof job.data?.unit?.key === "string" ? job.data.unit.key : String(job.id);
  onEvent?.({ kind: "rejected", key, message: e.message });
  return new UnrecoverableError(queueError(e.code, e.message));
}
