/**
 * The page's Web Worker: runs occam off the page's thread, so that the page stays responsive and a
 * run can be cancelled by ending the worker. It answers one request at a time with a `done` or an
 * `error` message; the page builds it from this bundle's text (a Blob), which works from `file://`.
 */
import { checkedJson } from "../src/cli/json.js";
import { binaryTargetColumns } from "../src/data/binary-target.js";
import { csvColumns, namedNumericColumn, parseCsv } from "../src/data/csv.js";
import { formulaDesign } from "../src/data/formula.js";
import { OccamError } from "../src/errors.js";
import { compareEstimators, DEFAULT_EVIDENCE_METHODS } from "../src/evidence/compare.js";
import type { EvidenceMethod } from "../src/evidence/estimate.js";
import { EVIDENCE_METHODS } from "../src/evidence/methods.js";
import { defineModel } from "../src/model/model.js";
import type { GlmFamilyName } from "../src/models/glm/family.js";
import { compareReportHtml } from "../src/report/compare.js";
import { glmReportHtml } from "../src/report/compare-glm.js";
import { compareGlms } from "../src/selection/glm.js";
import { compareLinearModels } from "../src/selection/linear.js";
import type { WorkerReply, WorkerRequest, WorkerUpdate } from "./messages.js";

/** `occam compare FILE --target T [--family F] --json`, and its `--report`. */
async function compare(request: Extract<WorkerRequest, { kind: "compare" }>): Promise<WorkerReply> {
  const { target, family, source } = request;
  const columns = csvColumns(parseCsv(request.csv));
  if (!columns.columns.includes(target)) {
    throw new OccamError("invalid-argument", `the file has no column "${target}".`);
  }
  const trialsColumn = family === "binomial" ? request.trials : undefined;
  if (family === "binomial" && (trialsColumn === undefined || trialsColumn === target)) {
    throw new OccamError("invalid-argument", "a binomial target needs a column of trials other than itself.");
  }
  const inputs = columns.columns.filter((c) => c !== target && c !== trialsColumn);
  const formula = { target, terms: inputs.map((c) => [c]), dot: false };
  if (family === "gaussian") {
    const data = formulaDesign(columns, formula, { heredity: true });
    const result = compareLinearModels(data, {});
    const report = await compareReportHtml(result, { data: source, target });
    return { kind: "done", json: checkedJson(result), report };
  }
  const glmFamily = family as GlmFamilyName;
  const data = formulaDesign(binaryTargetColumns(columns, target, glmFamily), formula, { heredity: true });
  const result = compareGlms(data, {
    family: glmFamily,
    ...(trialsColumn === undefined ? {} : { trials: namedNumericColumn(columns, trialsColumn, "trials") }),
    onProgress: (done, total) => scope.postMessage({ kind: "progress", done, total }),
    onModel: (model) => scope.postMessage({ kind: "model", ...model }),
  });
  const report = await glmReportHtml(result, { data: source, target });
  return { kind: "done", json: checkedJson(result), report };
}

/**
 * The model of an ES module's text that imports from "occam" and default-exports a model: its imports
 * of occam are bound to this bundle's (only `defineModel` is offered), and its default export returned.
 */
function modelOf(source: string) {
  const body = source
    .replace(/^\s*import\s*\{([^}]*)\}\s*from\s*["']occam["'];?/gm, "const {$1} = occam;")
    .replace(/^\s*export\s+default\s+/m, "return ");
  if (/^\s*(import|export)\s/m.test(body)) {
    throw new OccamError(
      "invalid-argument",
      'the model may import only from "occam" (import { defineModel } from "occam") and must end with export default defineModel({ … }).',
    );
  }
  let model: unknown;
  try {
    model = new Function("occam", body)({ defineModel });
  } catch (error) {
    if (error instanceof OccamError) throw error;
    throw new OccamError("invalid-argument", `the model's code failed: ${(error as Error).message}`);
  }
  return defineModel(model as Parameters<typeof defineModel>[0]);
}

/** `occam evidence MODEL --methods … --seed S --json`. */
function evidence(request: Extract<WorkerRequest, { kind: "evidence" }>): WorkerReply {
  const methods = request.methods.map((m) => m.trim()).filter((m) => m !== "");
  for (const m of methods) {
    if (!(EVIDENCE_METHODS as readonly string[]).includes(m)) {
      throw new OccamError(
        "invalid-argument",
        `unknown method "${m}"; the methods are ${EVIDENCE_METHODS.join(", ")}.`,
      );
    }
  }
  // No methods named: the command line's default (bridge, cross-checked by an smc sized for it).
  const named = methods.length === 0 ? DEFAULT_EVIDENCE_METHODS : (methods as EvidenceMethod[]);
  let done = 0;
  const comparison = compareEstimators(modelOf(request.source), named, {
    seed: request.seed,
    onEstimate: ({ result, failure }) => {
      scope.postMessage(
        result === undefined
          ? {
              kind: "estimate",
              method: failure.method,
              logZ: null,
              stdErr: null,
              reliable: false,
              failure: failure.message,
            }
          : {
              kind: "estimate",
              method: result.method,
              logZ: result.logZ,
              stdErr: result.stdErr,
              reliable: result.reliable,
            },
      );
      done++;
      // The fallback methods, run where the defaults disagree, come after the methods named.
      scope.postMessage({ kind: "progress", done, total: Math.max(named.length, done) });
    },
  });
  const { results, agree, consensus } = comparison;
  return {
    kind: "done",
    json: checkedJson({
      results: results.map(({ method, logZ, stdErr, reliable, nLikelihoodEvals, warnings }) => ({
        method,
        logZ,
        stdErr,
        reliable,
        nLikelihoodEvals,
        warnings,
      })),
      failures: comparison.failures,
      agree,
      consensus,
    }),
  };
}

/** The worker's global scope, as far as it is used here (the DOM's types are the page's). */
const scope = self as unknown as {
  onmessage: (event: MessageEvent<WorkerRequest>) => void;
  postMessage(message: WorkerReply | WorkerUpdate): void;
};

scope.onmessage = async (event) => {
  let reply: WorkerReply;
  try {
    reply = event.data.kind === "compare" ? await compare(event.data) : evidence(event.data);
  } catch (error) {
    reply = {
      kind: "error",
      message: error instanceof OccamError ? error.message : `occam failed: ${(error as Error).message}`,
    };
  }
  scope.postMessage(reply);
};
