/**
 * The page: reads a CSV (chosen, dropped or a bundled example) or a model written in the editor, and
 * hands the work to a Web Worker, which it ends to cancel a run. The location's hash names a bundled
 * example and its options (`#example=wine-alcohol&target=alcohol`), so that a result can be shared as
 * a link. Every text that comes from the data (column names) is set as text, never as HTML; the
 * report is shown in a sandboxed frame that runs no script.
 */

import evidenceModel from "bundled:examples/evidence-model.mjs";
import pima from "bundled:examples/real-models/pima.csv";
import quakes from "bundled:examples/real-models/quakes.csv";
import wineAlcohol from "bundled:examples/wine-alcohol.csv";
import workerSource from "bundled:worker";
import { parseCsv } from "../src/data/csv.js";
import type { WorkerReply, WorkerRequest, WorkerUpdate } from "./messages.js";

/** A bundled data set, the column it explains and that column's kind. */
interface Example {
  readonly file: string;
  readonly text: string;
  readonly target: string;
  readonly family: string;
}

/** The bundled examples, by the name a link gives them. */
const EXAMPLES: Record<string, Example> = {
  "wine-alcohol": { file: "wine-alcohol.csv", text: wineAlcohol, target: "alcohol", family: "gaussian" },
  pima: { file: "pima.csv", text: pima, target: "type", family: "bernoulli" },
  quakes: { file: "quakes.csv", text: quakes, target: "stations", family: "poisson" },
};

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** A worker that runs one request at a time; `cancel` ends it (and the next request starts another). */
class Runner {
  private worker: Worker | null = null;
  private readonly url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));

  run(request: WorkerRequest, onUpdate: (update: WorkerUpdate) => void): Promise<WorkerReply> {
    this.cancel();
    const worker = new Worker(this.url);
    this.worker = worker;
    return new Promise((resolve) => {
      worker.onmessage = (event: MessageEvent<WorkerReply | WorkerUpdate>) => {
        const message = event.data;
        if (message.kind !== "done" && message.kind !== "error") {
          onUpdate(message);
          return;
        }
        resolve(message);
        if (this.worker === worker) this.worker = null;
        worker.terminate();
      };
      worker.onerror = (event) => {
        event.preventDefault();
        resolve({ kind: "error", message: `the worker failed: ${event.message}` });
        if (this.worker === worker) this.worker = null;
        worker.terminate();
      };
      worker.postMessage(request);
    });
  }

  /** Ends the running request, if any; true when there was one. */
  cancel(): boolean {
    if (this.worker === null) return false;
    this.worker.terminate();
    this.worker = null;
    return true;
  }
}

/** The two tabs: arrow keys move between them, as the ARIA tabs pattern asks. */
function setUpTabs(): (name: "compare" | "evidence") => void {
  const tabs = ["compare", "evidence"] as const;
  const select = (name: (typeof tabs)[number]) => {
    for (const t of tabs) {
      const tab = byId(`tab-${t}`);
      tab.setAttribute("aria-selected", String(t === name));
      tab.tabIndex = t === name ? 0 : -1;
      byId(`panel-${t}`).hidden = t !== name;
    }
  };
  for (const [i, t] of tabs.entries()) {
    const tab = byId(`tab-${t}`);
    tab.addEventListener("click", () => select(t));
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
      const next = tabs[(i + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      select(next);
      byId(`tab-${next}`).focus();
    });
  }
  return select;
}

/** A tab's run and cancel buttons, progress bar, status line and results, around its own worker. */
function runControls(tab: "compare" | "evidence") {
  const runner = new Runner();
  const run = byId<HTMLButtonElement>(`${tab}-run`);
  const cancel = byId<HTMLButtonElement>(`${tab}-cancel`);
  const progress = byId<HTMLProgressElement>(`${tab}-progress`);
  const status = byId(`${tab}-status`);
  const results = byId(`${tab}-results`);
  const idle = (text: string, error = false) => {
    run.disabled = false;
    cancel.disabled = true;
    progress.hidden = true;
    status.textContent = text;
    status.classList.toggle("error", error);
  };
  cancel.addEventListener("click", () => {
    if (runner.cancel()) idle("Cancelled.");
  });
  return {
    run,
    status,
    /**
     * Runs a request: its reply when it is done (the results then shown), null after an error (shown)
     * or a cancel. The progress bar counts `unit`s; the worker's results as they come go to `onResult`.
     */
    async execute(
      request: WorkerRequest,
      busy: string,
      unit: string,
      onResult: (update: Exclude<WorkerUpdate, { kind: "progress" }>) => void = () => {},
    ): Promise<Extract<WorkerReply, { kind: "done" }> | null> {
      run.disabled = true;
      cancel.disabled = false;
      progress.removeAttribute("value"); // indeterminate until the worker says how far it is
      progress.hidden = false;
      results.hidden = true;
      status.textContent = busy;
      status.classList.remove("error");
      const started = performance.now();
      const reply = await runner.run(request, (update) => {
        if (update.kind !== "progress") {
          onResult(update);
          return;
        }
        progress.max = update.total;
        progress.value = update.done;
        status.textContent = `${busy} ${unit} ${update.done} of ${update.total}`;
      });
      if (reply.kind === "error") {
        idle(reply.message, true);
        return null;
      }
      idle(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
      results.hidden = false;
      return reply;
    },
  };
}

/** A row of cells set as text. */
function textRow(texts: readonly string[]): HTMLTableRowElement {
  const row = document.createElement("tr");
  for (const text of texts) {
    const cell = document.createElement("td");
    cell.textContent = text;
    row.append(cell);
  }
  return row;
}

/** The best models of a GLM comparison so far, shown while it runs: a table that fills in. */
const LIVE_ROWS = 10;

/** The compare tab's table of models as their evidences come, emptied for a new run. */
function liveModels() {
  const table = byId("compare-live");
  const caption = byId("compare-live-caption");
  const body = byId("compare-live-rows");
  const models: Extract<WorkerUpdate, { kind: "model" }>[] = [];
  body.replaceChildren();
  table.hidden = true;
  return {
    add(model: Extract<WorkerUpdate, { kind: "model" }>) {
      models.push(model);
      models.sort((a, b) => b.logEvidence - a.logEvidence);
      caption.textContent = `The ${Math.min(models.length, LIVE_ROWS)} best of the ${models.length} models done so far, by log evidence`;
      body.replaceChildren(
        ...models
          .slice(0, LIVE_ROWS)
          .map((m) =>
            textRow([
              m.inputs.length > 0 ? m.inputs.join(", ") : "(none)",
              `${m.logEvidence.toFixed(3)} ± ${m.stdErr.toPrecision(2)}`,
              m.reliable ? "yes" : "no",
            ]),
          ),
      );
      table.hidden = false;
    },
    hide() {
      table.hidden = true;
    },
  };
}

/** The compare tab; returns what runs a bundled example with a link's options. */
function setUpCompare(): (options: URLSearchParams) => void {
  let data: { file: string; text: string } | null = null;
  let json = "";
  const target = byId<HTMLSelectElement>("target");
  const family = byId<HTMLSelectElement>("family");
  const trials = byId<HTMLSelectElement>("trials");
  const controls = runControls("compare");
  // The column of trials counts only for a binomial target.
  const showTrials = () => {
    trials.disabled = data === null || family.value !== "binomial";
  };
  family.addEventListener("change", showTrials);

  const load = (file: string, text: string) => {
    let columns: readonly string[];
    try {
      columns = parseCsv(text).columns;
    } catch (error) {
      controls.status.textContent = `${file}: ${(error as Error).message}`;
      return;
    }
    data = { file, text };
    byId("data-summary").textContent = `${file}: ${columns.length} columns.`;
    for (const select of [target, trials]) {
      select.replaceChildren(
        ...columns.map((c) => {
          const option = document.createElement("option");
          option.value = c;
          option.textContent = c;
          return option;
        }),
      );
    }
    target.disabled = false;
    showTrials();
    controls.run.disabled = false;
  };
  const useExample = (example: Example) => {
    load(example.file, example.text);
    target.value = example.target;
    family.value = example.family;
    showTrials();
  };

  const start = async () => {
    if (data === null) return;
    const request: WorkerRequest = {
      kind: "compare",
      csv: data.text,
      source: data.file,
      target: target.value,
      family: family.value as "gaussian",
      ...(family.value === "binomial" ? { trials: trials.value } : {}),
    };
    const live = liveModels();
    const reply = await controls.execute(
      request,
      `Comparing the models that explain ${target.value}…`,
      "model",
      (update) => {
        if (update.kind === "model") live.add(update);
      },
    );
    if (reply === null) return;
    live.hide();
    json = reply.json;
    byId("result-json").textContent = json;
    byId<HTMLIFrameElement>("report").srcdoc = reply.report ?? "";
  };

  byId<HTMLInputElement>("csv-file").addEventListener("change", async (event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file !== undefined) load(file.name, await file.text());
  });
  const drop = byId("drop");
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    const file = event.dataTransfer?.files[0];
    if (file !== undefined) load(file.name, await file.text());
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>("[data-example]")) {
    button.addEventListener("click", () => useExample(EXAMPLES[button.dataset.example ?? ""]));
  }
  controls.run.addEventListener("click", start);
  byId("result-download").addEventListener("click", () => {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    link.download = "occam-compare.json";
    link.click();
  });

  return (options) => {
    const example = EXAMPLES[options.get("example") ?? ""];
    if (example === undefined) return;
    useExample(example);
    const column = options.get("target");
    if (column !== null) target.value = column;
    const kind = options.get("family");
    if (kind !== null) family.value = kind;
    const trialsColumn = options.get("trials");
    if (trialsColumn !== null) trials.value = trialsColumn;
    showTrials();
    void start();
  };
}

/** The evidence tab. */
function setUpEvidence(): void {
  const source = byId<HTMLTextAreaElement>("model-source");
  source.value = evidenceModel;
  const controls = runControls("evidence");
  const rows = byId("evidence-rows");
  controls.run.addEventListener("click", async () => {
    rows.replaceChildren();
    byId("evidence-agreement").textContent = "";
    byId("evidence-json").textContent = "";
    const reply = await controls.execute(
      {
        kind: "evidence",
        source: source.value,
        methods: byId<HTMLInputElement>("methods").value.split(","),
        seed: Number(byId<HTMLInputElement>("seed").value),
      },
      "Estimating…",
      "method",
      (update) => {
        if (update.kind !== "estimate") return;
        // Each method's estimate as it comes; the reply's table replaces them.
        rows.append(
          textRow(
            update.logZ === null || update.stdErr === null
              ? [update.method, "failed", "", update.failure ?? ""]
              : [
                  update.method,
                  update.logZ.toFixed(4),
                  update.stdErr.toPrecision(2),
                  update.reliable ? "yes" : "no",
                ],
          ),
        );
        byId("evidence-results").hidden = false;
      },
    );
    if (reply === null) return;
    const result = JSON.parse(reply.json) as {
      results: { method: string; logZ: number; stdErr: number; reliable: boolean }[];
      agree: boolean;
      consensus: { logZ: number; stdErr: number } | null;
    };
    rows.replaceChildren(
      ...result.results.map((r) =>
        textRow([r.method, r.logZ.toFixed(4), r.stdErr.toPrecision(2), r.reliable ? "yes" : "no"]),
      ),
    );
    byId("evidence-agreement").textContent =
      result.consensus === null
        ? "No estimate is reliable: see the warnings in the JSON."
        : `${result.agree ? "The methods agree" : "The methods DISAGREE"}: log Z = ${result.consensus.logZ.toFixed(4)} ± ${result.consensus.stdErr.toPrecision(2)}.`;
    byId("evidence-json").textContent = reply.json;
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const selectTab = setUpTabs();
  // Each tab has its own worker: a run in one does not end the other's.
  const runExample = setUpCompare();
  setUpEvidence();
  const fromHash = () => {
    const options = new URLSearchParams(location.hash.slice(1));
    if (options.get("tab") === "evidence") selectTab("evidence");
    runExample(options);
  };
  window.addEventListener("hashchange", fromHash);
  fromHash();
});
