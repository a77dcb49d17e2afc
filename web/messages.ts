/** What the page asks its worker, and what the worker answers. */

/** A comparison of a CSV's inputs, or the evidence of a model written in the page. */
export type WorkerRequest =
  | {
      readonly kind: "compare";
      /** The CSV's text. */
      readonly csv: string;
      /** The file's name, for the report. */
      readonly source: string;
      readonly target: string;
      readonly family: "gaussian" | "bernoulli" | "binomial" | "poisson";
      /** A binomial target's column of trials. */
      readonly trials?: string;
    }
  | {
      readonly kind: "evidence";
      /** The model module's text. */
      readonly source: string;
      readonly methods: readonly string[];
      readonly seed: number;
    };

/** The result as `--json` prints it (and, for a comparison, the report's HTML), or why there is none. */
export type WorkerReply =
  | { readonly kind: "done"; readonly json: string; readonly report?: string }
  | { readonly kind: "error"; readonly message: string };

/** What the worker tells the page while it runs, before its reply: how far it has come, and each result as it comes. */
export type WorkerUpdate =
  | {
      /** How far a run has come (the models of a GLM comparison, the methods of an evidence run). */
      readonly kind: "progress";
      readonly done: number;
      readonly total: number;
    }
  | {
      /** One model of a GLM comparison, as soon as its evidence is computed. */
      readonly kind: "model";
      readonly inputs: readonly string[];
      readonly logEvidence: number;
      readonly stdErr: number;
      readonly reliable: boolean;
    }
  | {
      /** One method's estimate of an evidence run (null numbers and a message where it failed). */
      readonly kind: "estimate";
      readonly method: string;
      readonly logZ: number | null;
      readonly stdErr: number | null;
      readonly reliable: boolean;
      readonly failure?: string;
    };
