import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { OccamError } from "../errors.js";
import { DEFAULT_EVIDENCE_METHODS, type EstimatorComparison, FALLBACK_NOTE } from "../evidence/compare.js";
import type { EvidenceMethod, EvidenceResult } from "../evidence/estimate.js";
import { EVIDENCE_METHODS } from "../evidence/methods.js";
import { withError } from "../report/format.js";
import { parseSeed } from "./arguments.js";
import type { Io } from "./io.js";
import { checkedJson } from "./json.js";
import { type ParallelFlags, redisOption, withInterrupt, workersOption } from "./parallel.js";
import { parseReportPath, REPORT_OPTION_HELP, writeReport } from "./report-file.js";
import { formatNumber, formatTable } from "./table.js";

/** Parses `--methods a,b,c`: distinct names of evidence methods. */
export function parseMethods(text: string): EvidenceMethod[] {
  const names = text.split(",").map((s) => s.trim());
  for (const name of names) {
    if (!(EVIDENCE_METHODS as readonly string[]).includes(name)) {
      throw new OccamError(
        "invalid-argument",
        `--methods: unknown method "${name}"; choose from ${EVIDENCE_METHODS.join(", ")}.`,
      );
    }
  }
  if (new Set(names).size !== names.length) {
    throw new OccamError("invalid-argument", `--methods names a method twice: "${text}".`);
  }
  return names as EvidenceMethod[];
}

/** The JSON document of `occam evidence --json`. */
export interface EvidenceReport {
  readonly model: string;
  readonly seed: number;
  readonly results: readonly {
    method: EvidenceMethod;
    logZ: number;
    stdErr: number;
    reliable: boolean;
    warnings: readonly string[];
    nLikelihoodEvals: number;
    seconds: number;
  }[];
  /** What the posterior draws the draw-based methods shared cost (not counted in their rows), when occam made them. */
  readonly posteriorDraws?: { nLikelihoodEvals: number; seconds: number };
  /** The methods that stopped with an error, and why. */
  readonly failures: readonly { method: EvidenceMethod; message: string }[];
  /** Whether every pair of reliable results agrees within 3 standard errors (false when fewer than two are reliable). */
  readonly agree: boolean;
  /** The inverse-variance mean of the reliable results; null when none is reliable. */
  readonly consensus: { logZ: number; stdErr: number } | null;
  /** True when neither default method was reliable and the fallback methods (nested, tmcmc) ran too. */
  readonly fellBack: boolean;
}

/** The JSON document of a comparison of the methods on the model in `file`. */
function evidenceReport(comparison: EstimatorComparison, file: string, seed: number): EvidenceReport {
  return {
    model: file,
    seed,
    results: comparison.results.map((r: EvidenceResult) => ({
      method: r.method as EvidenceMethod,
      logZ: r.logZ,
      stdErr: r.stdErr,
      reliable: r.reliable,
      warnings: r.warnings,
      nLikelihoodEvals: r.nLikelihoodEvals,
      seconds: r.seconds,
    })),
    ...(comparison.posterior === undefined
      ? {}
      : {
          posteriorDraws: {
            nLikelihoodEvals: comparison.posterior.nLikelihoodEvals,
            seconds: comparison.posterior.seconds,
          },
        }),
    failures: comparison.failures,
    agree: comparison.agree,
    consensus: comparison.consensus,
    fellBack: comparison.fellBack === true,
  };
}

function formatReport(report: EvidenceReport): string {
  const table = formatTable(
    [
      { header: "method", align: "left" },
      { header: "log Z ± std. error" },
      { header: "reliable", align: "left" },
      { header: "likelihood evals" },
      { header: "seconds" },
    ],
    [
      ...(report.posteriorDraws === undefined
        ? []
        : [
            [
              "(posterior draws, shared)",
              "",
              "",
              String(report.posteriorDraws.nLikelihoodEvals),
              formatNumber(report.posteriorDraws.seconds, 2),
            ],
          ]),
      ...report.results.map((r) => [
        r.method,
        withError(r.logZ, r.stdErr),
        r.reliable ? "yes" : "NO: see the warnings",
        String(r.nLikelihoodEvals),
        formatNumber(r.seconds, 2),
      ]),
      ...report.failures.map((f) => [f.method, "failed", "NO: see the error", "—", "—"]),
    ],
  );
  const reliable = report.results.filter((r) => r.reliable).length;
  const verdict =
    reliable < 2
      ? `Only ${reliable} reliable result(s): nothing to cross-check.`
      : report.agree
        ? `The ${reliable} reliable results agree within 3 standard errors.`
        : `The reliable results DISAGREE by more than 3 standard errors: at least one of them is wrong.`;
  const consensus =
    report.consensus === null
      ? "No reliable estimate: no log Z to report."
      : `Consensus of the reliable results: log Z = ${withError(report.consensus.logZ, report.consensus.stdErr)}`;
  const fallback = report.fellBack ? [FALLBACK_NOTE] : [];
  return [
    `Log evidence of ${report.model} (nats), seed ${report.seed}`,
    "",
    table,
    "",
    ...fallback,
    verdict,
    consensus,
  ].join("\n");
}

/** `occam evidence MODEL.mjs [--methods a,b] [--seed S] [--json] [--report FILE.html]`: the log evidence of a user's model. */
export function registerEvidence(program: Command, io: Io): void {
  program
    .command("evidence")
    .description(
      "estimate the log evidence of your own model by several methods, with errors, and cross-check them",
    )
    .argument("<model>", "an ES module whose default export is a model made with defineModel")
    .option(
      "--methods <a,b,c>",
      `evidence methods (${EVIDENCE_METHODS.join(", ")}), each at its own defaults (default: ` +
        `${DEFAULT_EVIDENCE_METHODS.join(" and ")}, the second sized as a quick cross-check of the first; ` +
        "bridge,smc,stepping-stone for three precise estimates)",
    )
    .option("--seed <S>", "random seed", parseSeed, 1)
    .option("--json", "print one JSON document instead of a table")
    .option("--report <FILE.html>", REPORT_OPTION_HELP, parseReportPath)
    .addOption(workersOption())
    .addOption(redisOption())
    .action(
      async (
        file: string,
        options: ParallelFlags & { methods?: string; seed: number; json?: boolean; report?: string },
      ) => {
        const start = performance.now();
        const methods =
          options.methods === undefined ? DEFAULT_EVIDENCE_METHODS : parseMethods(options.methods);
        if (methods.length < 2) {
          throw new OccamError(
            "invalid-argument",
            "--methods needs at least two methods, so that they can be cross-checked.",
          );
        }
        // The worker threads load occam while this thread loads the model (at most one a method).
        const threads = Math.min(options.workers ?? availableParallelism(), methods.length) - 1;
        const pool =
          options.redis === undefined && threads >= 1 ? await import("../parallel/pool.js") : undefined;
        pool?.startThreadsEarly({
          commands: pool.unitModule("evidence-units"),
          threads,
          dataFolder: dirname(resolve(file)),
        });
        // Loaded only when asked for, so that other commands start without the thread pool and queue.
        const { compareEstimatorsInParallel } = await import("../parallel/evidence.js");
        const comparison = await withInterrupt((signal) =>
          compareEstimatorsInParallel(file, methods, {
            seed: options.seed,
            workers: options.workers,
            redis: options.redis,
            signal,
            // Each answer as soon as it is ready: the first often comes long before the others.
            onOutcome: (o) => {
              if (o.result !== undefined && io.progress !== "off") {
                io.stderr(
                  `occam: ${o.result.method}: log Z = ${withError(o.result.logZ, o.result.stdErr)}` +
                    `${o.result.reliable ? "" : " (unreliable)"}, after ${formatNumber((performance.now() - start) / 1000, 1)} s\n`,
                );
              }
            },
          }),
        ).finally(() => pool?.releaseEarlyThreads());
        const report = evidenceReport(comparison, file, options.seed);
        for (const r of report.results) {
          for (const w of r.warnings) io.stderr(`occam: ${r.method}: ${w}\n`);
        }
        for (const f of report.failures) io.stderr(`occam: ${f.method} failed: ${f.message}\n`);
        io.stdout(options.json ? `${checkedJson(report)}\n` : `${formatReport(report)}\n`);
        if (options.report !== undefined) {
          writeReport(
            options.report,
            await (await import("../report/evidence.js")).evidenceReportHtml(comparison, {
              model: file,
              seed: options.seed,
            }),
          );
        }
      },
    );
}
