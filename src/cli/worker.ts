import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import type { ServeEvent } from "../parallel/queue.js";
import { positiveNumber } from "./arguments.js";
import type { Io } from "./io.js";
import { workersOption } from "./parallel.js";

interface WorkerFlags {
  redis: string;
  workers?: number;
  data?: string;
  lockSeconds: number;
}

/** One line of the worker's log on stderr. */
function describe(event: ServeEvent): string {
  switch (event.kind) {
    case "ready":
      return "occam worker: serving units";
    case "start":
      return `occam worker: start ${event.key} (${event.command})`;
    case "done":
      return `occam worker: done ${event.key} (${event.command}) in ${event.seconds.toFixed(2)} s`;
    case "rejected":
      return `occam worker: rejected ${event.key}: ${event.message}`;
  }
}

/**
 * `occam worker --redis URL`: serves the units that `--redis` commands queue, on this machine's
 * threads, until Ctrl-C or SIGTERM. It runs only occam's own unit commands, and reads only inside its
 * data folder.
 */
export function registerWorker(program: Command, io: Io): void {
  program
    .command("worker")
    .description("serve the units of work queued on a Redis server by commands given --redis")
    .requiredOption("--redis <URL>", "the Redis server, redis://HOST:PORT")
    .addOption(workersOption())
    .option("--data <DIR>", "the folder whose files jobs may name (default: the working directory)")
    .addOption(
      new Option(
        "--lock-seconds <S>",
        "how long a unit stays locked without a sign of life: a dead worker's unit goes to another after about this long",
      )
        .argParser(positiveNumber("--lock-seconds"))
        .default(30),
    )
    .action(async (flags: WorkerFlags) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      try {
        // Loaded here, so that other commands start without BullMQ and every unit command.
        const { serveQueue } = await import("../parallel/queue.js");
        const { siblingModule } = await import("../parallel/pool.js");
        const { commands } = await import("./worker-units.js");
        await serveQueue({
          redis: flags.redis,
          commands,
          commandsModule: siblingModule(import.meta.url, "worker-units"),
          dataFolder: resolve(flags.data ?? "."),
          threads: flags.workers ?? availableParallelism(),
          lockMs: Math.max(1000, Math.round(flags.lockSeconds * 1000)),
          signal: controller.signal,
          onEvent: (event) => io.stderr(`${describe(event)}\n`),
        });
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
}
