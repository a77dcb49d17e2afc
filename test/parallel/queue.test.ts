import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Queue, QueueEvents } from "bullmq";
import { afterAll, describe, expect, inject, it } from "vitest";
import { commands as workerCommands } from "../../src/cli/worker-units.js";
import { compareLinearModelsInParallel } from "../../src/parallel/compare.js";
import { compareEstimatorsInParallel } from "../../src/parallel/evidence.js";
import { QUEUE_NAME, runOnQueue, type ServeEvent, serveQueue } from "../../src/parallel/queue.js";
import { regressionTable, sourceModule, withoutTimes } from "../support/parallel.js";

const server = inject("redisUrl");
// A database of its own, so that other test files' queues do not meet this one's workers.
const redis = `${server}/1`;
// The workers serve the repository's folder, as the tests' working directory.
const root = fileURLToPath(new URL("../../", import.meta.url));

/** Starts a worker serving every unit command in this process; `stop` ends it. */
function startWorker(dataFolder: string, events: ServeEvent[] = []) {
  const controller = new AbortController();
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const served = serveQueue({
    redis,
    commands: workerCommands,
    commandsModule: sourceModule("cli/worker-units.ts"),
    dataFolder,
    threads: 1,
    signal: controller.signal,
    onEvent: (event) => {
      events.push(event);
      if (event.kind === "ready") ready();
    },
  });
  return {
    started,
    events,
    stop: async () => {
      controller.abort();
      await served;
    },
  };
}

describe.skipIf(server === null)("units on a Redis queue (a private redis-server)", () => {
  const workers: { stop: () => Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });

  it("two workers give the local result bit for bit, each unit done once", async () => {
    const events: ServeEvent[] = [];
    const a = startWorker(root, events);
    const b = startWorker(root, events);
    workers.push(a, b);
    await Promise.all([a.started, b.started]);
    const table = regressionTable(30, 3, 21);
    const options = { prior: "nig" as const, estimator: "smc" as const, samples: 100, seed: 8 };
    const local = await compareLinearModelsInParallel(table, { ...options, workers: 1 });
    const progress: number[] = [];
    const queued = await compareLinearModelsInParallel(table, {
      ...options,
      redis,
      onProgress: (done) => progress.push(done),
    });
    expect(withoutTimes(queued)).toBe(withoutTimes(local));
    const done = events.flatMap((e) => (e.kind === "done" ? [e.key] : []));
    expect(done.length).toBe(new Set(done).size);
    expect(done.length).toBe(8);
    expect(progress.at(-1)).toBe(8);

    const evidenceLocal = await compareEstimatorsInParallel(
      "examples/evidence-model.mjs",
      ["bridge", "smc"],
      {
        workers: 1,
        seed: 4,
      },
    );
    const evidenceQueued = await compareEstimatorsInParallel(
      "examples/evidence-model.mjs",
      ["bridge", "smc"],
      {
        redis,
        seed: 4,
      },
    );
    expect(withoutTimes(evidenceQueued.results)).toBe(withoutTimes(evidenceLocal.results));

    // Exact evidences of every subset of 19 inputs: the enumeration's two blocks are the units.
    const wide = regressionTable(60, 19, 23);
    const exactLocal = await compareLinearModelsInParallel(wide, { workers: 1, top: 20 });
    const exactQueued = await compareLinearModelsInParallel(wide, { redis, top: 20 });
    expect(withoutTimes(exactQueued)).toBe(withoutTimes(exactLocal));
    await Promise.all([a.stop(), b.stop()]);
  });

  it("a worker refuses malformed and hostile jobs with a clear reason and keeps serving", async () => {
    const events: ServeEvent[] = [];
    const worker = startWorker(root, events);
    workers.push(worker);
    await worker.started;
    const connection = { url: redis, maxRetriesPerRequest: null };
    const queue = new Queue(QUEUE_NAME, { connection });
    const queueEvents = new QueueEvents(QUEUE_NAME, { connection });
    await queueEvents.waitUntilReady();
    const run = randomUUID();
    const hostile: [string, unknown, RegExp][] = [
      ["not a job at all", { hello: "world" }, /malformed job/],
      [
        "an unknown command",
        { run, unit: { key: "shell", command: "exec", payload: { line: "rm -rf /" } } },
        /unknown command "exec"; this worker runs only compare-block, compare-enumerate, classifier-family/,
      ],
      [
        "a payload of the wrong schema",
        { run, unit: { key: "bad", command: "compare-block", payload: { models: "all" } } },
        /bad payload for compare-block/,
      ],
      [
        "a path outside the data folder",
        {
          run,
          unit: {
            key: "escape",
            command: "evidence-methods",
            payload: { model: "../package.json", methods: ["smc", "bridge"], only: [0], seed: 1 },
          },
        },
        /lies outside this worker's data folder/,
      ],
    ];
    try {
      for (const [what, data, reason] of hostile) {
        const job = await queue.add("hostile", data, { jobId: `${run}.${what}` });
        const failure = await job.waitUntilFinished(queueEvents, 60_000).then(
          () => new Error(`${what}: the job was run`),
          (error: Error) => error,
        );
        expect(failure.message, what).toMatch(reason);
      }
    } finally {
      await queueEvents.close();
      await queue.close();
    }
    expect(events.filter((e) => e.kind === "rejected")).toHaveLength(hostile.length);
    // Still serving: a good unit afterwards is run.
    const result = await compareEstimatorsInParallel("examples/evidence-model.mjs", ["smc", "laplace"], {
      redis,
      seed: 2,
    });
    expect(result.results).toHaveLength(2);
  });

  it("a coordinator checks every unit before queueing it", async () => {
    const error = await runOnQueue([{ key: "u", command: "compare-block", payload: {} }], {
      redis,
      commands: workerCommands,
    }).catch((e) => e);
    expect(error.code).toBe("invalid-argument");
    expect(error.message).toMatch(/unit u: bad payload for compare-block/);
    const unreachable = await runOnQueue([], { redis: "http://example.org", commands: workerCommands }).catch(
      (e) => e,
    );
    expect(unreachable.message).toMatch(/--redis takes a redis:\/\/ or rediss:\/\/ URL/);
  });
});
