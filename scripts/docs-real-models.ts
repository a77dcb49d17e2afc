/**
 * Writes docs/real-models.md, the real-model suite's page, from the JSON document of a run of
 * `occam reproduce real-models --json` (every method at its defaults on every model of
 * examples/real-models/, and `occam evidence`'s default methods).
 * Usage: `npx tsx scripts/docs-real-models.ts RESULT.json [NOTE.md]`; NOTE.md, when given, is a
 * paragraph placed after the commands that says how the run was made (a run resumed from a checkpoint).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { formatRealModelsReport } from "../src/cli/reports/real-models.js";
import type { RealModelsExperiment } from "../src/experiments/real-models.js";

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write("usage: npx tsx scripts/docs-real-models.ts RESULT.json [NOTE.md]\n");
  process.exit(2);
}
const result = JSON.parse(readFileSync(file, "utf8")) as RealModelsExperiment;
const note = process.argv[3] === undefined ? "" : `\n${readFileSync(process.argv[3], "utf8").trim()}\n`;
const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
const command = `npx occam reproduce real-models${result.seeds === 1 ? "" : ` --seeds ${result.seeds}`}${result.seed === 1 ? "" : ` --seed ${result.seed}`} --json`;

const page = `# Models from the field: every method on published models

This page is generated (\`scripts/docs-real-models.ts\`) from one run of the real-model suite with
occam ${version}:

\`\`\`sh
${command} > real-models.json
npx tsx scripts/docs-real-models.ts real-models.json
\`\`\`
${note}
The suite (\`examples/real-models/\`, listed in \`examples/README.md\`) is eleven published models
written the way users write them, each on real data with a reference log evidence computed outside
occam. Every method ran at its default settings with ${result.seeds} seed(s) on each.

How to read the first table: a run is _unreliable_ when the method said so (\`reliable: false\`, with
its reason); a _silent failure_ is a run that said it was reliable and lies more than 3 standard
errors + 0.01 nats (plus the reference's own error) from the reference. Mean error, mean standard
error, the fraction within 2 standard errors and the worst |z| are over the reliable runs;
evaluations and seconds are means per run (seconds depend on the machine and its load; evaluations
do not). The second table is \`occam evidence\` at its default methods: the consensus of
its reliable results against the reference.

\`\`\`text
${formatRealModelsReport(result)}
\`\`\`
`;
writeFileSync("docs/real-models.md", page);
process.stdout.write("wrote docs/real-models.md\n");
